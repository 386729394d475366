"""opgen.py's msProbe family: the generated ops written as one msProbe rank folder per case
(step0/rank0/dump.json with each op's forward API entry, its input_args, input_kwargs and output
records, and the tensors as torch.save .pt files in dump_tensor_data/), from
docs/formats/msprobe.md §1, §5-§8, independently of msit-compact's readers. Keyword arguments
(softmax's dim, gelu's approximate, layer_norm's normalized_shape and eps, npu_rms_norm's
epsilon, cat's dim) are written where torch users pass them, so opcheck must read them."""
import json
import os

import numpy as np

TORCH_DT = {"float32": "torch.float32", "float16": "torch.float16", "bfloat16": "torch.bfloat16",
            "float64": "torch.float64", "int32": "torch.int32", "int64": "torch.int64"}
OPS = ["Linear", "BatchMatMul", "Add", "Sub", "Mul", "RealDiv", "Muls", "Adds", "Swish", "Relu", "Sigmoid", "Tanh",
       "Exp", "Log", "Sqrt", "Rsqrt", "Gelu", "GeluErf", "SoftmaxV2", "LayerNorm", "RmsNorm", "GatherV2", "ConcatV2"]


def scalar(v):
    t = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float" if isinstance(v, float) else "str"
    return {"type": t, "value": v}


def api_of(op, ins):
    """(API entry prefix.name, input_args, input_kwargs) of a generated op: tensors as (value, dtype)."""
    t, a = op.typ, op.attrs
    dts = [d for _, d in op.ins]
    tens = list(zip(ins, dts))
    binary = {"Add": "Tensor.add", "Sub": "Torch.sub", "Mul": "Tensor.mul", "RealDiv": "Torch.div"}
    unary = {"Swish": "Functional.silu", "Relu": "Torch.relu", "Sigmoid": "Torch.sigmoid", "Tanh": "Tensor.tanh",
             "Exp": "Torch.exp", "Log": "Torch.log", "Sqrt": "Torch.sqrt", "Rsqrt": "Torch.rsqrt"}
    if t == "Linear":
        return "Functional.linear", tens, {}
    if t == "BatchMatMul":
        return "Torch.matmul", tens, {}
    if t in binary:
        return binary[t], tens, {}
    if t in ("Muls", "Adds"):
        return ("Tensor.mul" if t == "Muls" else "Tensor.add"), [tens[0], scalar(float(a["value"]))], {}
    if t in unary:
        return unary[t], tens, ({"inplace": scalar(False)} if t == "Swish" else {})
    if t == "Gelu":
        return "Functional.gelu", tens, {"approximate": scalar("tanh")}
    if t == "GeluErf":
        return "Functional.gelu", tens, {}  # torch's default: approximate='none'
    if t == "SoftmaxV2":
        return "Functional.softmax", tens, {"dim": scalar(int(a["axes"][0]))}
    if t == "LayerNorm":
        shape = {"type": "torch.Size", "value": [int(np.shape(ins[0])[-1])]}
        return "Functional.layer_norm", [tens[0], shape, tens[1], tens[2]], {"eps": scalar(float(a["epsilon"]))}
    if t == "RmsNorm":
        return "NPU.npu_rms_norm", tens, {"epsilon": scalar(float(a["epsilon"]))}
    if t == "GatherV2":  # embedding(input, weight): indices as int64
        return "Functional.embedding", [(ins[1], "int64"), tens[0]], {}
    if t == "ConcatV2":
        return "Torch.cat", [tens], {"dim": scalar(int(op.consts[0][0][0]))}
    raise KeyError(t)


def stats(v):
    with np.errstate(all="ignore"):
        f = np.asarray(v, np.float64)
        if f.size == 0:
            return {"Max": None, "Min": None, "Mean": None, "Norm": None}
        return {"Max": float(f.max()), "Min": float(f.min()), "Mean": float(f.mean()), "Norm": float(np.sqrt((f * f).sum()))}


def write_case(G, root, idx, ops):
    """ops: [(name, Op, input values, output values, expect, info)] -> one rank folder; cases.json rows."""
    rank = os.path.join(root, "%05d" % idx, "step0", "rank0")
    tdir = os.path.join(rank, "dump_tensor_data")
    os.makedirs(tdir, exist_ok=True)
    data, rows = {}, []

    def record(x, dt, data_name):
        x = np.asarray(x)
        with open(os.path.join(tdir, data_name), "wb") as fh:
            fh.write(G.pth_bytes(x, dt, data_name[:-3]))
        return dict({"type": "torch.Tensor", "dtype": TORCH_DT[dt], "shape": list(x.shape)}, **stats(x),
                    requires_grad=False, data_name=data_name)

    def value(v, entry, where):
        if isinstance(v, dict):
            return v
        if isinstance(v, list):
            return [value(e, entry, "%s.%d" % (where, k)) for k, e in enumerate(v)]
        return record(v[0], v[1], "%s.%s.pt" % (entry, where))

    for k, (name, op, ins, outs, expect, info) in enumerate(ops):
        api, args, kwargs = api_of(op, ins)
        entry = "%s.%d.forward" % (api, k)
        out_dt = op.out_dtype or op.ins[0][1]
        body = {"input_args": [value(v, entry, "input.%d" % i) for i, v in enumerate(args)],
                "input_kwargs": {key: value(v, entry, "kwargs." + key) for key, v in kwargs.items()},
                "output": [value((o, out_dt), entry, "output.%d" % j) for j, o in enumerate(outs)]}
        if op.typ == "RmsNorm":  # npu_rms_norm returns (y, rstd): rstd is not compared
            x = np.asarray(ins[0], np.float64)
            rstd = 1 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + float(op.attrs["epsilon"]))
            body["output"].append(value((rstd, "float32"), entry, "output.1"))
        data[entry] = body
        rows.append(dict(info, file=os.path.join("%05d" % idx, "step0", "rank0", "dump_tensor_data",
                                                 entry + ".output.0.pt"), op=op.typ, expect=expect))
    with open(os.path.join(rank, "dump.json"), "w") as fh:
        json.dump({"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": tdir, "data": data}, fh,
                  indent=1)
    return rows


# ---- chain: a pair of msProbe dumps of one small network, for compare --recompute ----
def chain_apis(rng):
    """(entry API, weights, f(x, weights, p) -> y, kwargs) of each API of the chain."""
    n = 16
    f32 = lambda v: np.asarray(v, np.float32)  # noqa: E731  the weights as dumped
    w1, b1, w2 = f32(rng.standard_normal((n, n)) / 4), f32(rng.standard_normal(n) / 4), f32(rng.standard_normal((n, n)) / 4)
    g, beta, r = f32(1 + 0.1 * rng.standard_normal(n)), f32(0.1 * rng.standard_normal(n)), f32(rng.standard_normal((4, n)))
    c = lambda v, p: np.asarray(v, p)  # noqa: E731
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    gelu = lambda v: 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))  # noqa: E731

    def ln(x, p):
        m = x.mean(-1, keepdims=True)
        return (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + c(np.float32(1e-5), p)) * c(g, p) + c(beta, p)

    def sm(x, p):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    return [
        ("Functional.linear", [w1, b1], lambda x, p: x @ c(w1, p).T + c(b1, p), {}),
        ("Functional.layer_norm", [{"type": "torch.Size", "value": [n]}, g, beta], ln, {"eps": scalar(1e-5)}),
        ("Tensor.add", [r], lambda x, p: x + c(r, p), {}),
        ("Functional.silu", [], lambda x, p: x * sig(x), {}),
        ("Torch.matmul", [w2], lambda x, p: x @ c(w2, p), {}),
        ("Functional.softmax", [], sm, {"dim": scalar(-1)}),
        ("Tensor.mul", [scalar(2.0)], lambda x, p: x * c(2.0, p), {}),
        ("Functional.gelu", [], lambda x, p: gelu(x), {"approximate": scalar("tanh")}),
    ]


def chain_side(G, rank, apis, x, inject, kernel_p, rng):
    tdir = os.path.join(rank, "dump_tensor_data")
    os.makedirs(tdir, exist_ok=True)
    data = {}

    def rec(v, name):
        v = np.asarray(v, np.float32)
        with open(os.path.join(tdir, name), "wb") as fh:
            fh.write(G.pth_bytes(v, "float32", name[:-3]))
        return dict({"type": "torch.Tensor", "dtype": "torch.float32", "shape": list(v.shape)}, **stats(v),
                    requires_grad=False, data_name=name)
    for i, (api, extra, fn, kwargs) in enumerate(apis):
        entry = "%s.0.forward" % api
        args = [rec(x, entry + ".input.0.pt")]
        for k, e in enumerate(extra):
            args.append(e if isinstance(e, dict) else rec(e, "%s.input.%d.pt" % (entry, k + 1)))
        with np.errstate(all="ignore"):
            y = np.asarray(fn(np.asarray(x, kernel_p), kernel_p), np.float32)  # a correct kernel, rounded once
        if i == inject:  # the kernel's output made wrong (its inputs are right)
            rms = float(np.sqrt(np.mean(y.astype(np.float64) ** 2)))
            y = (y + 0.5 * rms * rng.standard_normal(y.shape)).astype(np.float32)
        data[entry] = {"input_args": args, "input_kwargs": kwargs, "output": [rec(y, entry + ".output.0.pt")]}
        x = y
    with open(os.path.join(rank, "dump.json"), "w") as fh:
        json.dump({"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": tdir, "data": data}, fh,
                  indent=1)


def chain(out, inject, seed):
    """out/npu/step0/rank0 (float32 kernels; API `inject` wrong when >= 0) and out/bench/step0/rank0
    (the same network, float64 kernels rounded to float32)."""
    import opgen as G
    rng = np.random.default_rng(seed)
    apis = chain_apis(rng)
    x = rng.standard_normal((4, 16)).astype(np.float32)
    chain_side(G, os.path.join(out, "npu", "step0", "rank0"), apis, x, inject, np.float32, rng)
    chain_side(G, os.path.join(out, "bench", "step0", "rank0"), apis, x, -1, np.float64, rng)
    return [a[0] + ".0.forward" for a in apis]


if __name__ == "__main__":
    import argparse
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description="msProbe dump pair of a small network (compare --recompute)")
    ap.add_argument("mode", choices=["chain"])
    ap.add_argument("out")
    ap.add_argument("--inject", type=int, default=-1, help="index of the API whose output is made wrong")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    print("\n".join(chain(a.out, a.inject, a.seed)))
