#!/usr/bin/env python3
"""Writes GE dump files of single ops for opcheck's tests, independently of msit-compact: the
DumpData header is hand-encoded from docs/formats/ge-dump.md §3-§4, the graph text from
docs/formats/graph-text.md §2, and every value comes from numpy, never from the library.

  opgen.py crosscheck --out DIR --seed S
      every op on random inputs (fp16/bf16/fp32/fp64) salted with NaN, +-Inf, +-0, subnormals
      and the dtype's extremes; outputs are numpy's float64 result (Cast: numpy's rounding to
      the output dtype), so opcheck must say "agrees" within the float64 bound, NaN for NaN.
  opgen.py grid --out DIR --grid GRID.json [--variant small|full]
      for each op x dtype x shape x seed of the grid: a noise-only case (outputs of a correct
      float32 kernel rounded to the dtype), an injected case (that output made wrong), and a
      propagated case (an upstream Mul made wrong, the op computed correctly from it); variants
      with "bound_factors": a noise-only case and one element moved to f x its bound per factor
      (opgen_nearbound.py).
  --family atb|torch|msprobe (both modes): the same ops written as ATB op directories
      ({id}_{Type}/ before/intensor{k}.bin, after/outtensor{k}.bin, op_param.json;
      docs/formats/atb-torch.md §2.2, §2.6), torch hook API directories ({module}.{func}/
      input_{i}.pth, output.pth, §1) or msProbe rank folders (opgen_msprobe.py: dump.json with
      the API's kwargs, dump_tensor_data/*.pt; the case's file is its output tensor file).
Each case is DIR/NNNNN/{graph text, 0/dump files} (GE) or DIR/NNNNN/{op dirs}; DIR/cases.json
lists every file or op directory with the verdict opcheck must give. opgrid_check.py runs
opcheck over them."""
import argparse, json, math, os, struct, sys, zipfile
import numpy as np
import opgen_nearbound as near
import opgen_msprobe

# ---- GE dump encoding (docs/formats/ge-dump.md §2-§5) ----
PROTO_DT = {"float32": 1, "float16": 2, "int32": 7, "int64": 8, "float64": 12, "bfloat16": 27}
GRAPH_DT = {"float32": "DT_FLOAT", "float16": "DT_FLOAT16", "int32": "DT_INT32", "int64": "DT_INT64",
            "float64": "DT_DOUBLE", "bfloat16": "DT_BF16"}


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def ld(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def shape_msg(dims):
    packed = b"".join(varint(d) for d in dims)
    return ld(1, packed) if dims else b""


def tensor_msg(dtype, dims, size, is_output):
    m = key(1, 0) + varint(PROTO_DT[dtype]) + key(2, 0) + varint(2)  # format ND
    m += ld(3, shape_msg(dims))
    if is_output:
        return m + key(6, 0) + varint(size) + ld(7, shape_msg(dims))
    return m + key(5, 0) + varint(size) + ld(6, shape_msg(dims))


def bf16_bits(x):
    """float64 -> bfloat16 bit patterns, round to nearest even through float32."""
    f = np.asarray(x, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(0x7FC0), r).astype(np.uint16)


def to_dtype(x, dtype):
    """Values of float64 array x rounded to dtype, as float64 (what the dump will hold)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "bfloat16":
        return (bf16_bits(x).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        return x.astype(np.dtype(dtype)).astype(np.float64)


def payload(x, dtype):
    x = np.ascontiguousarray(x)
    if dtype == "bfloat16":
        return bf16_bits(x).tobytes()
    with np.errstate(all="ignore"):
        return x.astype(np.dtype(dtype)).astype(np.dtype(dtype).newbyteorder("<")).tobytes()


def ge_dump(op_name, inputs, outputs):
    """inputs/outputs: lists of (array, dtype). The big-dump layout of §2."""
    hdr = ld(1, b"2.0") + key(2, 0) + varint(1700000000000000)
    blobs = [payload(a, d) for a, d in inputs] + [payload(a, d) for a, d in outputs]
    for (a, d), b in zip(outputs, blobs[len(inputs):]):
        hdr += ld(3, tensor_msg(d, list(np.shape(a)), len(b), True))
    for (a, d), b in zip(inputs, blobs):
        hdr += ld(4, tensor_msg(d, list(np.shape(a)), len(b), False))
    hdr += ld(6, op_name.encode())
    return struct.pack("<Q", len(hdr)) + hdr + b"".join(blobs)


# ---- ATB .bin (docs/formats/atb-torch.md §2.6) and torch .pth (§1.3) ----
ACL_DT = {"float32": 0, "float16": 1, "int32": 3, "int64": 9, "float64": 11, "bfloat16": 27}
STORAGE = {"float32": "FloatStorage", "float16": "HalfStorage", "int32": "IntStorage", "int64": "LongStorage",
           "float64": "DoubleStorage", "bfloat16": "BFloat16Storage"}


def atb_bin(x, dtype):
    raw = payload(x, dtype)
    dims = ",".join(str(d) for d in np.shape(x))
    head = ("$Version=1.0\n$Object.Count=1\n$Object.Length=%d\nformat=2\ndtype=%d\ndims=%s\n"
            "$Object.data=0,%d\n$End=1\n" % (len(raw), ACL_DT[dtype], dims, len(raw)))
    return head.encode() + raw


def pth_bytes(x, dtype, stem):
    """torch.save(tensor) as torch 1.13 writes it: a stored ZIP with data.pkl (protocol 2)."""
    shape = list(np.shape(x))
    strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    numel = int(np.prod(shape)) if shape else 1

    def binint(v):
        return b"K" + bytes([v]) if v < 256 else b"M" + struct.pack("<H", v) if v < 65536 else b"J" + struct.pack("<i", v)

    def uni(t):
        return b"X" + struct.pack("<I", len(t)) + t.encode()

    def tup(vals):
        body = b"".join(binint(v) for v in vals)
        return {0: b")", 1: body + b"\x85", 2: body + b"\x86", 3: body + b"\x87"}.get(len(vals), b"(" + body + b"t")
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((" + uni("storage") + b"ctorch\n" + STORAGE[dtype].encode() +
           b"\n" + uni("0") + uni("cpu") + binint(numel) + b"tQ" + binint(0) + tup(shape) + tup(strides) +
           b"\x89ccollections\nOrderedDict\n)RtR.")
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(stem + "/data.pkl", pkl)
        z.writestr(stem + "/data/0", payload(x, dtype))
        z.writestr(stem + "/version", b"3\n")
    return buf.getvalue()


def attr_text(v):
    if isinstance(v, bool):
        return "b: %s" % ("true" if v else "false")
    if isinstance(v, int):
        return "i: %d" % v
    if isinstance(v, float):
        return "f: %r" % float(np.float32(v))
    if isinstance(v, list):
        return "list {\n        %s\n        val_type: VT_LIST_INT\n      }" % "\n        ".join("i: %d" % i for i in v)
    raise TypeError(v)


def graph_op(name, typ, inputs, attrs):
    o = 'op {\n  name: "%s"\n  type: "%s"\n' % (name, typ)
    o += "".join('  input: "%s:0"\n' % i for i in inputs)
    for k in sorted(attrs):
        o += '  attr {\n    key: "%s"\n    value {\n      %s\n    }\n  }\n' % (k, attr_text(attrs[k]))
    return o + "}\n"


# ---- the ops: inputs, attributes, float64 semantics, a correct float32 kernel ----
SQ2PI = math.sqrt(2 / math.pi)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(SQ2PI * (x + 0.044715 * x ** 3)))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def rms_norm(x, g, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g


def layer_norm(x, g, b, eps):
    m = np.mean(x, axis=-1, keepdims=True)
    v = np.mean((x - m) ** 2, axis=-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def mm(a, b):
    """float64 matmul without BLAS (einsum's own loops), batch dims broadcast."""
    return np.einsum("...ik,...kj->...ij", a, b, optimize=False)


class Op:
    """One op: GE type, attributes, data inputs, constant inputs, and f(inputs) in a given
    precision (np.float64 for the reference, np.float32 for a correct kernel)."""

    def __init__(self, typ, attrs, ins, consts, fn, n_out=1, out_dtype=None, scale=1.0):
        self.typ, self.attrs, self.ins, self.consts, self.fn = typ, attrs, ins, consts, fn
        self.n_out, self.out_dtype, self.scale = n_out, out_dtype, scale


def make_op(name, rng, dt, size):
    """size: a small dimension (rows, K, ...) from the grid."""
    r, c = size, size + 3
    x = lambda *s: rng.standard_normal(s)  # noqa: E731
    f = lambda fn: (lambda ins, p: [fn(*[np.asarray(i, p) for i in ins])])  # noqa: E731
    if name in ("MatMul", "MatMulV2"):
        ta, tb = bool(rng.integers(2)), bool(rng.integers(2))
        a, b = x(c, r) if ta else x(r, c), x(size + 1, c) if tb else x(c, size + 1)
        fn = lambda ins, p: [np.matmul(*(np.asarray(i.T if t else i, p) for i, t in ((ins[0], ta), (ins[1], tb))))]  # noqa: E731
        return Op(name, {"transpose_x1": ta, "transpose_x2": tb}, [(a, dt), (b, dt)], [], fn)
    if name in ("BatchMatMul", "BatchMatMulV2"):
        ta, tb = bool(rng.integers(2)), bool(rng.integers(2))
        a = x(2, 3, c, r) if ta else x(2, 3, r, c)
        b = x(1, 3, 4, c) if tb else x(1, 3, c, 4)
        sw = lambda i, t: np.swapaxes(i, -1, -2) if t else i  # noqa: E731
        fn = lambda ins, p: [np.matmul(np.asarray(sw(ins[0], ta), p), np.asarray(sw(ins[1], tb), p))]  # noqa: E731
        return Op(name, {"adj_x1": ta, "adj_x2": tb}, [(a, dt), (b, dt)], [], fn)
    if name == "Linear":  # ATB Linear / torch linear: x [r, c], weight [n, c], bias [n]
        fn = lambda ins, p: [np.asarray(ins[0], p) @ np.asarray(ins[1], p).T + np.asarray(ins[2], p)]  # noqa: E731
        return Op(name, {}, [(x(r, c), dt), (x(size + 1, c), dt), (x(size + 1), dt)], [], fn)
    if name == "GeluErf":  # ATB gelu with geluMode 1 (torch's exact form)
        erf = np.vectorize(math.erf, otypes=[np.float64])
        fn = lambda ins, p: [np.asarray(0.5 * ins[0] * (1 + erf(ins[0] / math.sqrt(2))), p)]  # noqa: E731
        return Op(name, {}, [(x(r, c) * 2, dt)], [], fn)
    if name in ("Add", "Sub", "Mul", "RealDiv"):
        fns = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "RealDiv": np.divide}
        b = x(1, c) if rng.integers(2) else x(r, c)
        if name == "RealDiv":
            b = np.sign(b) * (np.abs(b) + 0.5)
        return Op(name, {}, [(x(r, c), dt), (b, dt)], [], f(fns[name]))
    if name in ("Muls", "Adds"):
        v = float(np.float32(rng.uniform(-2, 2)))
        op = (lambda a: a * np.asarray(v, a.dtype)) if name == "Muls" else (lambda a: a + np.asarray(v, a.dtype))
        return Op(name, {"value": v}, [(x(r, c), dt)], [], f(op))
    if name == "Cast":
        return Op(name, {"dst_type": 0}, [(x(r, c) * 3, "float32")], [], lambda ins, p: [np.asarray(ins[0], p)], out_dtype=dt)
    if name == "SoftmaxV2":
        axis = -1 if rng.integers(2) else 0
        return Op(name, {"axes": [axis]}, [(x(r, c) * 2, dt)], [], lambda ins, p: [softmax(np.asarray(ins[0], p), axis)])
    if name == "RmsNorm":
        fn = lambda ins, p: [rms_norm(np.asarray(ins[0], p), np.asarray(ins[1], p), p(np.float32(1e-6)))]  # noqa: E731
        return Op(name, {"epsilon": 1e-6}, [(x(r, c), dt), (1 + 0.1 * x(c), dt)], [], fn, n_out=1)
    if name == "LayerNorm":
        fn = lambda ins, p: [layer_norm(*(np.asarray(i, p) for i in ins), p(np.float32(1e-5)))]  # noqa: E731
        attrs = {"begin_norm_axis": -1, "begin_params_axis": -1, "epsilon": 1e-5}
        return Op(name, attrs, [(x(r, c) + 1, dt), (1 + 0.1 * x(c), dt), (0.1 * x(c), dt)], [], fn)
    unary = {"Gelu": gelu_tanh, "Relu": lambda a: np.maximum(a, 0), "Sigmoid": sigmoid, "Tanh": np.tanh,
             "Exp": np.exp, "Log": np.log, "Sqrt": np.sqrt, "Rsqrt": lambda a: 1 / np.sqrt(a),
             "Swish": lambda a: a * sigmoid(a)}
    if name in unary:
        attrs = {"Exp": {"base": -1.0, "scale": 1.0, "shift": 0.0}, "Log": {"base": -1.0, "scale": 1.0, "shift": 0.0},
                 "Swish": {"scale": 1.0}}.get(name, {})
        v = x(r, c) * 2
        if name in ("Log", "Sqrt", "Rsqrt"):
            v = np.abs(v) + 0.05
        return Op(name, attrs, [(v, dt)], [], f(unary[name]))
    if name == "Transpose":
        perm = [int(i) for i in rng.permutation(3)]
        return Op(name, {}, [(x(2, r, c), dt)], [(np.array(perm), "int64")], lambda ins, p: [np.transpose(ins[0], perm)])
    if name == "Reshape":
        return Op(name, {}, [(x(r, c), dt)], [(np.array([c, r]), "int64")], lambda ins, p: [np.reshape(ins[0], (c, r))])
    if name == "ConcatV2":
        axis = int(rng.integers(2))
        ins = [(x(r, c), dt), (x(r, 2), dt) if axis == 1 else (x(2, c), dt)]
        return Op(name, {"N": 2}, ins, [(np.array([axis]), "int32")], lambda ins, p: [np.concatenate(ins, axis)])
    if name == "SplitV":
        sizes = [2, r + 1, c - 3]
        fn = lambda ins, p: np.split(ins[0], np.cumsum(sizes)[:-1], axis=1)  # noqa: E731
        return Op(name, {"num_split": 3}, [(x(r, sum(sizes)), dt)],
                  [(np.array(sizes), "int32"), (np.array([1]), "int32")], fn, n_out=3)
    if name == "GatherV2":
        idx = rng.integers(0, r, size=size + 2)
        fn = lambda ins, p: [np.take(ins[0], np.asarray(ins[1], np.int64), axis=0)]  # noqa: E731
        return Op(name, {"batch_dims": 0}, [(x(r, c), dt), (idx, "int32")], [(np.array([0]), "int32")], fn)
    if name in ("ReduceSum", "ReduceMean"):
        axes = [1] if rng.integers(2) else [0, 2]
        red = np.sum if name == "ReduceSum" else np.mean
        fn = lambda ins, p: [red(np.asarray(ins[0], p), axis=tuple(axes))]  # noqa: E731
        return Op(name, {"keep_dims": False}, [(x(3, r, c), dt)], [(np.array(axes), "int64")], fn)
    raise KeyError(name)


OPS = ["MatMul", "MatMulV2", "BatchMatMul", "BatchMatMulV2", "Add", "Sub", "Mul", "RealDiv", "Muls", "Adds",
       "Cast", "SoftmaxV2", "RmsNorm", "LayerNorm", "Gelu", "Swish", "Relu", "Sigmoid", "Tanh", "Exp", "Log",
       "Sqrt", "Rsqrt", "Transpose", "Reshape", "ConcatV2", "SplitV", "GatherV2", "ReduceSum", "ReduceMean"]
MOVES = {"Transpose", "Reshape", "ConcatV2", "SplitV", "GatherV2"}
ATB_OPS = ["Linear", "Add", "Sub", "Mul", "RealDiv", "Muls", "Cast", "RmsNorm", "LayerNorm", "Relu", "Gelu", "GeluErf",
           "Swish", "Log", "SoftmaxV2", "Transpose", "ConcatV2", "SplitV", "GatherV2"]
TORCH_OPS = ["Linear", "BatchMatMul", "Add", "Sub", "Mul", "RealDiv", "Swish", "Relu", "Sigmoid", "Tanh", "Exp", "Log",
             "Sqrt", "Rsqrt", "GatherV2", "ConcatV2"]
ELEWISE = {"Cast": 1, "Muls": 2, "Add": 8, "Mul": 9, "RealDiv": 10, "Sub": 15}
TORCH_FUNC = {"Linear": "linear", "BatchMatMul": "matmul", "Add": "add", "Sub": "sub", "Mul": "mul", "RealDiv": "div",
              "Swish": "silu", "GatherV2": "embedding", "ConcatV2": "cat"}


def atb_op(op):
    """(ATB op type, op_param.json) of a generated op (docs/opcheck.md "ATB dumps")."""
    t, a = op.typ, op.attrs
    if t in ELEWISE:
        prm = {"elewiseType": ELEWISE[t], "mulsParam": {"varAttr": a.get("value", 0.0)}, "quantParam": {},
               "outTensorType": ACL_DT.get(op.out_dtype or "", 0)}
        return "ElewiseOperation", prm
    if t == "Linear":
        return "LinearOperation", {"transposeA": False, "transposeB": True, "hasBias": True, "enAccum": False,
                                   "matmulType": 0, "quantMode": 0, "outDataType": -1}
    if t in ("RmsNorm", "LayerNorm"):
        norm = {"quantType": 0, "epsilon": float(a["epsilon"]), "beginNormAxis": -1, "beginParamsAxis": -1, "modelType": 0}
        return t + "Operation", {"layerType": 1, "normParam": norm, "preNormParam": {}, "postNormParam": {}}
    acts = {"Relu": {"activationType": 1}, "Gelu": {"activationType": 2, "geluMode": 0},
            "GeluErf": {"activationType": 2, "geluMode": 1}, "Swish": {"activationType": 4, "scale": 1.0},
            "Log": {"activationType": 5}}
    if t in acts:
        return "ActivationOperation", dict(acts[t], dim=-1)
    if t == "SoftmaxV2":
        return "SoftmaxOperation", {"axes": a["axes"]}
    if t == "Transpose":
        return "TransposeOperation", {"perm": [int(i) for i in op.consts[0][0]]}
    if t == "ConcatV2":
        return "ConcatOperation", {"concatDim": int(op.consts[0][0][0])}
    if t == "SplitV":
        sizes = [int(i) for i in op.consts[0][0]]
        return "SplitOperation", {"splitDim": 1, "splitNum": len(sizes), "splitSizes": sizes}
    if t == "GatherV2":
        return "GatherOperation", {"axis": 0, "batchDims": 0}
    raise KeyError(t)


def torch_op(op, ins):
    """(func, dumped input values with their dtypes) of a generated op for a torch hook dump."""
    t = op.typ
    dts = [d for _, d in op.ins]
    if t == "GatherV2":  # embedding(input, weight), indices as int64
        return "embedding", [(ins[1], "int64"), (ins[0], dts[0])]
    return TORCH_FUNC.get(t, t.lower()), list(zip(ins, dts))


def write_family_case(root, idx, ops, family):
    """ATB op directories or torch API directories of one case; the cases.json rows."""
    d = os.path.join(root, "%05d" % idx)
    rows = []
    for k, (name, op, ins, outs, expect, info) in enumerate(ops):
        out_dt = op.out_dtype or op.ins[0][1]
        files = {}
        if family == "atb":
            typ, prm = atb_op(op)
            rel = "%d_%s" % (k, typ)
            for i, (v, (_, dt)) in enumerate(zip(ins, op.ins)):
                files["before/intensor%d.bin" % i] = atb_bin(v, dt)
            for j, o in enumerate(outs):
                files["after/outtensor%d.bin" % j] = atb_bin(o, out_dt)
            files["op_param.json"] = json.dumps(prm).encode()
        else:
            func, tins = torch_op(op, ins)
            rel = "root.block%d.%s" % (k, func)
            for i, (v, dt) in enumerate(tins):
                stem = ("input_0_%d" if func == "cat" else "input_%d") % i
                files[stem + ".pth"] = pth_bytes(v, dt, stem)
            files["output.pth"] = pth_bytes(outs[0], out_dt, "output")
        for f, data in files.items():
            path = os.path.join(d, rel, f)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as fh:
                fh.write(data)
        rows.append(dict(info, file=os.path.join("%05d" % idx, rel), op=op.typ, expect=expect))
    return rows


def write_any(root, idx, ops, family):
    if family == "msprobe":
        return opgen_msprobe.write_case(sys.modules[__name__], root, idx, ops)
    return write_case(root, idx, ops) if family == "ge" else write_family_case(root, idx, ops, family)


def family_op(name, rng, dt, size, family):
    """make_op, adjusted where a family's op differs: torch's matmul has no transposes."""
    op = make_op(name, rng, dt, size)
    if family in ("torch", "msprobe") and name == "BatchMatMul":
        sw = lambda a, t: np.swapaxes(a, -1, -2) if t else a  # noqa: E731
        ta, tb = op.attrs["adj_x1"], op.attrs["adj_x2"]
        op.ins = [(sw(op.ins[0][0], ta), dt), (sw(op.ins[1][0], tb), dt)]
        op.fn = lambda ins, p: [np.matmul(np.asarray(ins[0], p), np.asarray(ins[1], p))]
        op.attrs = {}
    return op


# ---- writing cases ----
def write_case(root, idx, ops, graph_name="dynamo_original_graph_1_0.txt"):
    """ops: [(op_name, Op, input values, output values, expect)]; returns the cases.json rows."""
    d = os.path.join(root, "%05d" % idx)
    os.makedirs(os.path.join(d, "0"), exist_ok=True)
    text, rows = 'name: "graph_1"\n', []
    for name, op, ins, outs, expect, info in ops:
        text += graph_op(name, op.typ, ["arg%d" % i for i in range(len(ins))], op.attrs)
        in_list = list(zip(ins, [t for _, t in op.ins])) + [(v, t) for v, t in op.consts]
        out_dt = op.out_dtype or op.ins[0][1]
        blob = ge_dump(name, in_list, [(o, out_dt) for o in outs])
        fname = "%s.%s.1.1.1700000000%06d" % (op.typ, name, idx % 1000000)
        with open(os.path.join(d, "0", fname), "wb") as fh:
            fh.write(blob)
        rows.append(dict(info, file=os.path.join("%05d" % idx, "0", fname), op=op.typ, expect=expect))
    with open(os.path.join(d, graph_name), "w") as fh:
        fh.write(text)
    return rows


def salt(rng, v, dt):
    """Replaces about 5% of v with NaN, +-Inf, +-0, a subnormal or the dtype's extremes."""
    big = {"float16": 65504.0, "bfloat16": 3.3895e38, "float32": 3.4028e38, "float64": 1e30}[dt]
    tiny = {"float16": 2.0 ** -24, "bfloat16": 2.0 ** -133, "float32": 2.0 ** -149, "float64": 5e-324}[dt]
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, big, -big, tiny, -tiny])
    v = np.array(v, dtype=np.float64)
    mask = rng.random(v.shape) < 0.05
    v[mask] = rng.choice(specials, size=int(mask.sum()))
    return v


def family_ops(family):
    return {"ge": OPS, "atb": ATB_OPS, "torch": TORCH_OPS, "msprobe": opgen_msprobe.OPS}[family]


def crosscheck(args):
    rows = []
    fdts = ["float16", "bfloat16", "float32", "float64"]
    for i, name in enumerate(family_ops(args.family)):
        for rep in range(2):
            rng = np.random.default_rng(args.seed * 7919 + i * 31 + rep)
            dt = fdts[int(rng.integers(len(fdts)))]
            op = family_op(name, rng, dt, 4 + int(rng.integers(6)), args.family)
            ins = []
            for k, (v, t) in enumerate(op.ins):
                is_float = t in fdts
                if name == "Cast":
                    v = salt(rng, v, "float32")
                elif is_float and rep == 1:
                    v = salt(rng, v, t)
                ins.append(to_dtype(v, t) if is_float else np.asarray(v))
            with np.errstate(all="ignore"):
                outs = op.fn(ins, np.float64)
            if name == "Cast":
                op.out_dtype = ["float16", "bfloat16", "float32"][rep % 3 if rep else int(rng.integers(3))]
                outs = [to_dtype(o, op.out_dtype) for o in outs]
            elif name not in MOVES:
                op.out_dtype = "float64"
            info = {"case": "crosscheck", "dtype": dt, "salted": rep == 1}
            rows += write_any(args.out, len(rows), [("op_%d" % i, op, ins, outs, "agrees", info)], args.family)
    return rows


def kernel(op, ins):
    """A correct kernel: float32 arithmetic from the dumped inputs, rounded to the output dtype."""
    out_dt = op.out_dtype or op.ins[0][1]
    with np.errstate(all="ignore"):
        if op.typ in MOVES:
            outs = op.fn(ins, np.float64)
        else:
            outs = op.fn(ins, np.float32)
    return [to_dtype(np.asarray(o, np.float64), out_dt) for o in outs]


def inject(rng, y, dt, g):
    """The kernel's output made wrong: a fraction of the elements moved by a relative error, or
    (for moves) shuffled among themselves."""
    y = np.array(y, dtype=np.float64, order="C")  # C order: flat is a view, not a copy
    flat = y.reshape(-1)
    frac = g["fractions"][int(rng.integers(len(g["fractions"])))]
    n = max(1, int(round(frac * flat.size)))
    pos = rng.choice(flat.size, size=n, replace=False)
    if g.get("shuffle_moves") and n > 1 and rng.integers(2):
        perm = np.roll(pos, 1)
        if not np.array_equal(flat[pos], flat[perm]):
            flat[pos] = flat[perm]
            return y, "shuffle %d" % n
    rel = g["relative_errors"][int(rng.integers(len(g["relative_errors"])))]
    rms = float(np.sqrt(np.mean(flat[np.isfinite(flat)] ** 2))) if np.isfinite(flat).any() else 1.0
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    flat[pos] = flat[pos] + sign * rel * (np.abs(flat[pos]) + rms)
    return to_dtype(y, dt), "relative %g on %d" % (rel, n)


def grid_cases(args):
    with open(args.grid) as fh:
        g = json.load(fh)[args.variant]
    ops = family_ops(args.family) if g["ops"] == "all" else g["ops"]
    rows = []
    for seed in g["seeds"]:
        for name in ops:
            for dt in g["dtypes"]:
                for size in g["sizes"]:
                    rng = np.random.default_rng([seed, family_ops(args.family).index(name), g["dtypes"].index(dt), size])
                    if "bound_factors" in g:  # near the bounds (opgen_nearbound.py)
                        rows += near.grid_near(sys.modules[__name__], args.out, len(rows), rng, name, dt, size, g, seed,
                                               args.family)
                    else:
                        rows += grid_one(args.out, len(rows), rng, name, dt, size, g, seed, args.family)
    return rows


def grid_one(root, idx, rng, name, dt, size, g, seed, family="ge"):
    info = {"dtype": dt, "size": size, "seed": seed, "family": family}
    op = family_op(name, rng, dt, size, family)
    ins = [to_dtype(v, t) if t in PROTO_DT and t.startswith(("float", "bf")) else np.asarray(v) for v, t in op.ins]
    out_dt = op.out_dtype or op.ins[0][1]
    good = kernel(op, ins)
    rows = write_any(root, idx, [("op_noise", op, ins, good, "agrees", dict(info, case="noise"))], family)
    k = len(good) // 2  # SplitV: the middle output
    bad = list(good)
    bad[k], how = inject(rng, good[k], out_dt, g)
    rows += write_any(root, idx + 1, [("op_injected", op, ins, bad, "disagrees", dict(info, case="injected", how=how))], family)
    # Propagated: an upstream Mul's kernel is wrong; this op computes correctly from its output.
    in0_dt = op.ins[0][1]
    a, b = rng.standard_normal(np.shape(ins[0])), rng.standard_normal(np.shape(ins[0]))
    a, b = to_dtype(a, in0_dt), to_dtype(b, in0_dt)
    up = Op("Mul", {}, [(a, in0_dt), (b, in0_dt)], [], lambda i, p: [np.asarray(i[0], p) * np.asarray(i[1], p)])
    up_bad, how = inject(rng, kernel(up, [a, b])[0], in0_dt, dict(g, shuffle_moves=False))
    ins2 = [up_bad] + ins[1:]
    down = kernel(op, ins2)
    rows += write_any(root, idx + 2, [
        ("mul_upstream", up, [a, b], [up_bad], "disagrees", dict(info, case="upstream", how=how)),
        ("op_downstream", op, ins2, down, "agrees", dict(info, case="downstream")),
    ], family)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["crosscheck", "grid"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--grid")
    ap.add_argument("--variant", default="small")
    ap.add_argument("--family", choices=["ge", "atb", "torch", "msprobe"], default="ge")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = crosscheck(args) if args.mode == "crosscheck" else grid_cases(args)
    with open(os.path.join(args.out, "cases.json"), "w") as fh:
        json.dump(rows, fh, indent=1)
    print("opgen: %d files in %d cases under %s" % (len(rows), len({os.path.dirname(os.path.dirname(r["file"])) for r in rows}), args.out))


if __name__ == "__main__":
    main()
