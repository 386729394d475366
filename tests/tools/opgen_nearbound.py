"""Near-bound cases of opgen.py grid (grid variants with "bound_factors", docs/opcheck.md "The
near-bound grid"): one element of a correct kernel's output is moved to exact + f x bound, where
bound is what a correct float32 kernel may be off (docs/opcheck.md "Bounds"), computed here from
the documented formulas in numpy, independently of common/opcheck. The expected verdict is the
one the dumped (rounded) value earns against that bound; elements within 2% of the bound are
left out as undecidable by two float64 implementations. So the grid measures where detection
starts relative to the bounds, and the noise cases how far a correct kernel stays below them."""
import math
import numpy as np

U32 = 2.0 ** -24  # the unit roundoff of a float32 kernel (outputs of 32 bits or fewer)
MANT = {"float16": (10, -14), "bfloat16": (7, -126), "float32": (23, -126), "float64": (52, -1022)}
MARGIN = 0.02
MATMULS = {"MatMul", "MatMulV2", "BatchMatMul", "BatchMatMulV2", "Linear"}


def ulp(v, dt):
    """The spacing of dt at |v| (the subnormal spacing below the smallest normal)."""
    p, emin = MANT[dt]
    a = np.abs(np.asarray(v, np.float64))
    e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.where(a > 0, np.maximum(e, emin), emin)
    return np.ldexp(1.0, (e - p).astype(np.int64))


def gamma(k):
    return k * U32 / (1 - k * U32)


def with_rounding(y, acc, dt):
    return acc + 0.5 * ulp(np.abs(y) + acc, dt)


def cond(fn, x):
    """|x f'(x)| by a float64 central difference (the step docs/opcheck.md names)."""
    h = np.ldexp(np.maximum(np.abs(x), 1.0), -20)
    with np.errstate(all="ignore"):
        t = np.abs(x * (fn(x + h) - fn(x - h)) / (2 * h))
    return np.where(np.isfinite(t), t, 0.0)


def matmul_acc(op, ins):
    t, a = op.typ, op.attrs
    if t == "Linear":
        return gamma(ins[0].shape[-1] + 1) * (np.abs(ins[0]) @ np.abs(ins[1]).T + np.abs(ins[2]))
    ta, tb = (a.get("transpose_x1"), a.get("transpose_x2")) if t.startswith("MatMul") else (a.get("adj_x1"), a.get("adj_x2"))
    x = np.swapaxes(ins[0], -1, -2) if ta else ins[0]
    w = np.swapaxes(ins[1], -1, -2) if tb else ins[1]
    return gamma(x.shape[-1]) * np.matmul(np.abs(x), np.abs(w))


def softmax_acc(x, y, axis):
    m = np.max(x, axis=axis, keepdims=True)
    d = x - m
    e = np.exp(d)
    rel = np.sum(e * (np.abs(d) + 4), axis=axis, keepdims=True) / np.sum(e, axis=axis, keepdims=True)
    return 2 * U32 * np.abs(y) * (x.shape[axis] + rel + np.abs(d) + 8)


def layer_norm_acc(x, g, y, eps):
    n = x.shape[-1]
    mean = np.mean(x, axis=-1, keepdims=True)
    r = 1 / np.sqrt(np.mean((x - mean) ** 2, axis=-1, keepdims=True) + eps)
    mean_err = gamma(n + 1) * np.sum(np.abs(x), axis=-1, keepdims=True) / n
    centred = (x - mean) * r * g
    return 2 * (np.abs(r * g) * (U32 * np.abs(x - mean) + mean_err) + np.abs(centred) * (n / 2 + 7) * U32 +
                U32 * np.abs(y))


def accumulation_bound(op, ins, y):
    t, a = op.typ, op.attrs
    if t in MATMULS:
        return matmul_acc(op, ins)
    if t in ("ReduceSum", "ReduceMean"):
        axes = tuple(int(v) for v in op.consts[0][0])
        k = int(np.prod([ins[0].shape[i] for i in axes]))
        s = np.sum(np.abs(ins[0]), axis=axes)
        return gamma(k) * s if t == "ReduceSum" else gamma(k + 1) * s / k
    if t == "SoftmaxV2":
        return softmax_acc(ins[0], y, a["axes"][0])
    if t == "RmsNorm":
        return U32 * np.abs(y) * (ins[0].shape[-1] + 20)
    if t == "LayerNorm":
        return layer_norm_acc(ins[0], ins[1], y, float(np.float32(a["epsilon"])))
    return None


SQ2PI = math.sqrt(2 / math.pi)
ERF = np.vectorize(math.erf, otypes=[np.float64])
FNS = {"Gelu": lambda x: 0.5 * x * (1 + np.tanh(SQ2PI * (x + 0.044715 * x ** 3))),
       "GeluErf": lambda x: 0.5 * x * (1 + ERF(x / math.sqrt(2))),
       "Sigmoid": lambda x: 1 / (1 + np.exp(-x)), "Swish": lambda x: x / (1 + np.exp(-x)), "Tanh": np.tanh,
       "Exp": np.exp, "Log": np.log, "Sqrt": np.sqrt, "Rsqrt": lambda x: 1 / np.sqrt(x)}


def bound(op, ins, y, out_dt, to_dtype):
    """Each element's bound (docs/opcheck.md "Bounds") of output y; None for moves and Cast."""
    fns = FNS
    t = op.typ
    acc = accumulation_bound(op, ins, y)
    if acc is None and t in ("Add", "Sub", "Mul", "RealDiv", "Relu"):
        acc = 2 * U32 * np.abs(y)
    elif acc is None and t in ("Muls", "Adds"):
        s = float(op.attrs["value"])
        ds = abs(s - float(to_dtype(np.array([s]), op.ins[0][1])[0]))  # the scalar in the input dtype
        acc = 2 * U32 * np.abs(y) + (np.abs(ins[0]) * ds if t == "Muls" else ds)
    elif acc is None and t in fns:
        x = ins[0]
        acc = 8 * U32 * (np.abs(y) + cond(fns[t], x))
        if t in ("Gelu", "GeluErf"):
            acc = acc + 8 * U32 * np.abs(x)
    if acc is None:
        return None
    return with_rounding(y, np.broadcast_to(acc, np.shape(y)), out_dt)


def inject_near(rng, op, ins, good, out_dt, factor, to_dtype):
    """good (a correct kernel's outputs) with one element of the middle output moved to
    exact + f x bound (f = factor; moves and Cast: one ulp of the dtype). Returns the outputs,
    the expected verdict (None: too close to the bound to decide) and the injected ratio."""
    k = len(good) // 2
    with np.errstate(all="ignore"):
        exact = np.asarray(op.fn(ins, np.float64)[k], np.float64)
    b = bound(op, ins, exact, out_dt, to_dtype)
    y = np.array(good[k], np.float64, order="C")  # C order: flat is a view, not a copy
    flat, ex = y.reshape(-1), exact.reshape(-1)
    i = int(rng.integers(flat.size))
    sign = 1.0 if rng.random() < 0.5 else -1.0
    if b is None:  # bound 0: the smallest wrong value is one ulp away
        flat[i] = flat[i] + sign * float(ulp(flat[i], out_dt))
        ratio = math.inf
    else:
        bi = float(b.reshape(-1)[i])
        flat[i] = float(to_dtype(np.array([ex[i] + sign * factor * bi]), out_dt)[0])
        ratio = abs(flat[i] - ex[i]) / bi
    outs = list(good)
    outs[k] = y
    if abs(ratio - 1) < MARGIN:
        return outs, None, ratio
    return outs, ("disagrees" if ratio > 1 else "agrees"), ratio


def big_k_op(G, name, rng, dt, k):
    """A matmul with a long reduction (K = k) and small M, N, random transposes."""
    x = lambda *s: rng.standard_normal(s)  # noqa: E731
    ta, tb = bool(rng.integers(2)), bool(rng.integers(2))
    if name == "Linear":
        fn = lambda ins, p: [np.asarray(ins[0], p) @ np.asarray(ins[1], p).T + np.asarray(ins[2], p)]  # noqa: E731
        return G.Op(name, {}, [(x(6, k), dt), (x(5, k), dt), (x(5), dt)], [], fn)
    batch = name.startswith("Batch")
    lead = (2, 3) if batch else ()
    a = x(*lead, k, 6) if ta else x(*lead, 6, k)
    b = x(*((1, 3) if batch else ()), 5, k) if tb else x(*((1, 3) if batch else ()), k, 5)
    sw = lambda i, t: np.swapaxes(i, -1, -2) if t else i  # noqa: E731
    fn = lambda ins, p: [np.matmul(np.asarray(sw(ins[0], ta), p), np.asarray(sw(ins[1], tb), p))]  # noqa: E731
    attrs = {"adj_x1": ta, "adj_x2": tb} if batch else {"transpose_x1": ta, "transpose_x2": tb}
    return G.Op(name, attrs, [(a, dt), (b, dt)], [], fn)


def grid_near(G, root, idx, rng, name, dt, size, g, seed, family):
    """A noise-only case and one case per bound factor (docs/opcheck.md "The near-bound grid")."""
    info = {"dtype": dt, "size": size, "seed": seed, "family": family}
    if name in MATMULS and g.get("matmul_k"):
        k = g["matmul_k"][g["sizes"].index(size) % len(g["matmul_k"])]
        op, info["k"] = big_k_op(G, name, rng, dt, k), k
    else:
        op = G.family_op(name, rng, dt, size, family)
    ins = [G.to_dtype(v, t) if t in G.PROTO_DT and t.startswith(("float", "bf")) else np.asarray(v) for v, t in op.ins]
    out_dt = op.out_dtype or op.ins[0][1]
    good = G.kernel(op, ins)
    rows = G.write_any(root, idx, [("op_noise", op, ins, good, "agrees", dict(info, case="noise"))], family)
    factors = g["bound_factors"] if name not in G.MOVES and name != "Cast" else [1]
    for f in factors:
        outs, expect, ratio = inject_near(rng, op, ins, good, out_dt, f, G.to_dtype)
        if expect is None:  # within 2% of the bound: not scored
            continue
        case = dict(info, case="near", factor=f, ratio=(None if math.isinf(ratio) else ratio))
        rows += G.write_any(root, idx + len(rows), [("op_near", op, ins, outs, expect, case)], family)
    return rows
