# Writes an msProbe MindSpore dump pair (docs/formats/msprobe.md: step0/rank{R}/ with dump.json,
# stack.json, construct.json and, for task "tensor", .npy files in dump_tensor_data/) of a chain of
# APIs, each fed by the previous one's output, two to a Cell, then their backward entries in
# reverse order. An error can be injected into the target's output of one forward API and into
# one backward API; it carries on downstream. Written from the format doc, not from msit-compact's
# readers. A side of task "statistics" keeps only dump.json's statistics.
# Usage: python3 compare_msprobe_gen.py OUT_DIR [--ranks N] [--inject I] [--inject-backward J]
#        [--target-task tensor|statistics] [--golden-task tensor|statistics] [--apis N]
#        [--noise REL] [--magnitude RED] [--seed S]
# (--noise: each side's relative kernel noise; --magnitude: the injected error's RED; the
# first-divergence grid of bench/divergence_grid_msprobe.py varies them.)
import argparse
import json
import os

import numpy as np

APIS = ["Mint.add", "Functional.linear", "Mint.mul", "Functional.gelu", "Mint.sub", "Functional.softmax"]


def record(name, x, task, tdir):
    r = {"type": "mindspore.Tensor", "dtype": "Float32", "shape": list(x.shape),
         "Max": float(x.max()), "Min": float(x.min()), "Mean": float(x.mean()),
         "Norm": float(np.linalg.norm(x.astype(np.float64)))}
    if task == "tensor":
        np.save(os.path.join(tdir, name + ".npy"), x)
        r["data_name"] = name + ".npy"
    return r


def cell(i):
    return "Cell.layers.%d.Block.forward.0" % (i // 2)


def side(out, rank, inject, inject_bw, task, a, side_seed):
    rank_dir = os.path.join(out, "step0", "rank%d" % rank)
    tdir = os.path.join(rank_dir, "dump_tensor_data")
    os.makedirs(tdir if task == "tensor" else rank_dir, exist_ok=True)
    base = np.random.default_rng([a.seed, rank])
    noise = np.random.default_rng([a.seed, rank, side_seed])  # kernel noise, different per side
    x = base.standard_normal((8, 16)).astype(np.float32)
    data, stack, construct, outs = {}, {}, {}, []
    names = [(APIS[i % len(APIS)], i // len(APIS)) for i in range(a.apis)]

    def perturb(y, injected):
        y = (y * (1 + a.noise * noise.standard_normal(y.shape))).astype(np.float32)
        if injected:
            rms = float(np.sqrt(np.mean(y.astype(np.float64) ** 2)))
            y = (y + a.magnitude * rms * noise.standard_normal(y.shape)).astype(np.float32)
        return y

    for i, (api, call) in enumerate(names):
        entry = "%s.%d.forward" % (api, call)
        y = perturb(np.tanh(x * 1.1 + 0.1 * i).astype(np.float32), i == inject)
        data[entry] = {"input_args": [record(entry + ".input.0", x, task, tdir)], "input_kwargs": {},
                       "output": [record(entry + ".output.0", y, task, tdir)]}
        stack[entry] = ["File net.py, line %d, in construct, \n y = %s(x)" % (10 + i, api)]
        construct[entry] = cell(i)
        outs.append(y)
        x = y
    g = base.standard_normal(x.shape).astype(np.float32)
    for i in reversed(range(len(names))):
        entry = "%s.%d.backward" % names[i]
        gi = perturb((g * (1 - outs[i] ** 2) * 1.1).astype(np.float32), i == inject_bw)
        data[entry] = {"input": [record(entry + ".input.0", g, task, tdir)],
                       "output": [record(entry + ".output.0", gi, task, tdir)]}
        construct[entry] = cell(i).replace("forward", "backward")
        g = gi
    for b in range((len(names) + 1) // 2):
        construct[cell(2 * b)] = "Cell.Net.forward.0"
        construct[cell(2 * b).replace("forward", "backward")] = "Cell.Net.backward.0"
    meta = {"task": task, "level": "mix", "framework": "mindspore",
            "dump_data_dir": tdir if task == "tensor" else None, "data": data}
    for name, obj in (("dump.json", meta), ("stack.json", stack), ("construct.json", construct)):
        with open(os.path.join(rank_dir, name), "w") as f:
            json.dump(obj, f, indent=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--inject", type=int, default=-1)
    p.add_argument("--inject-backward", type=int, default=-1)
    p.add_argument("--target-task", default="tensor")
    p.add_argument("--golden-task", default="tensor")
    p.add_argument("--apis", type=int, default=len(APIS))
    p.add_argument("--noise", type=float, default=1e-6)
    p.add_argument("--magnitude", type=float, default=0.3)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    for r in range(a.ranks):
        side(os.path.join(a.out, "npu"), r, a.inject, a.inject_backward, a.target_task, a, 1)
        side(os.path.join(a.out, "bench"), r, -1, -1, a.golden_task, a, 2)


if __name__ == "__main__":
    main()
