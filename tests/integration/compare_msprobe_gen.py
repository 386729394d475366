# Writes an msProbe MindSpore tensor-mode dump pair (docs/formats/msprobe.md: dump.json, .npy files in
# dump_tensor_data/) of a chain of APIs, each fed by the previous one's output, with an error injected
# into the target's output of one API; it carries on downstream. Written from the format doc, not
# from msit-compact's readers. A side of task "statistics" keeps only dump.json's statistics.
# Usage: python3 compare_msprobe_gen.py OUT_DIR RANKS INJECTED_INDEX [TARGET_TASK [GOLDEN_TASK]]
import json, os, sys
import numpy as np

APIS = ["Mint.add", "Functional.linear", "Mint.mul", "Functional.gelu", "Mint.sub", "Functional.softmax"]


def record(name, x, task):
    r = {"type": "mindspore.Tensor", "dtype": "Float32", "shape": list(x.shape),
         "Max": float(x.max()), "Min": float(x.min()), "Mean": float(x.mean()),
         "Norm": float(np.linalg.norm(x.astype(np.float64)))}
    if task == "tensor":
        r["data_name"] = name + ".npy"
    return r


def side(out, rank, inject, seed, task):
    rank_dir = os.path.join(out, "step0", "rank%d" % rank)
    tdir = os.path.join(rank_dir, "dump_tensor_data")
    os.makedirs(tdir if task == "tensor" else rank_dir, exist_ok=True)
    base = np.random.default_rng(seed + rank)
    noise = np.random.default_rng(1000 + seed + rank)  # rounding-sized, different per side
    x = base.standard_normal((8, 16)).astype(np.float32)
    data, stack = {}, {}
    for i, api in enumerate(APIS):
        entry = "%s.0.forward" % api
        y = np.tanh(x * 1.1 + 0.1 * i).astype(np.float32)
        y = (y * (1 + 1e-6 * noise.standard_normal(y.shape))).astype(np.float32)
        if inject is not None and i == inject:
            y = (y + 0.2 * noise.standard_normal(y.shape)).astype(np.float32)
        recs = {}
        for kind, v in (("input", x), ("output", y)):
            name = "%s.%s.0" % (entry, kind)
            if task == "tensor":
                np.save(os.path.join(tdir, name + ".npy"), v)
            recs[kind] = record(name, v, task)
        data[entry] = {"input_args": [recs["input"]], "input_kwargs": {}, "output": [recs["output"]]}
        stack[entry] = ["File net.py, line %d, in construct, \n y = %s(x)" % (10 + i, api)]
        x = y
    with open(os.path.join(rank_dir, "dump.json"), "w") as f:
        json.dump({"task": task, "level": "L1", "framework": "mindspore",
                   "dump_data_dir": tdir if task == "tensor" else None, "data": data}, f, indent=1)
    with open(os.path.join(rank_dir, "stack.json"), "w") as f:
        json.dump(stack, f)


def main(out, ranks, inject, target_task, golden_task):
    for r in range(ranks):
        side(os.path.join(out, "npu"), r, inject, 0, target_task)
        side(os.path.join(out, "bench"), r, None, 0, golden_task)


if __name__ == "__main__":
    tasks = sys.argv[4:6] + ["tensor"] * (2 - len(sys.argv[4:6]))
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), tasks[0], tasks[1])
