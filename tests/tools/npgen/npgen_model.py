# The op graph of npgen (docs/dumpgen.md "npgen"): a small decoder in GE ops with their FX
# nodes, built once per configuration, and its execution on the golden side (exact math in
# fp32, or the same dtypes as the NPU) and on the NPU side (kernel model of npgen_kernels).
import collections

import numpy as np

import npgen_kernels as K


class Op:
    def __init__(self, name, type_, fx, fn, ins, outs, kind, fx_extra):
        self.name, self.type, self.fx, self.fn = name, type_, fx, fn
        self.ins, self.outs, self.kind, self.fx_extra = ins, outs, kind, fx_extra


class Net:
    """Values are ids into `dtype` (the NPU side's dtype) and `producer`; graph inputs and
    weights have no producer and are fed per (rank, token)."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.ops, self.dtype, self.producer, self.feeds = [], [], [], []
        self.type_count, self.fx_count = collections.Counter(), collections.Counter()

    def value(self, dtype, producer=None):
        self.dtype.append(dtype)
        self.producer.append(producer)
        return len(self.dtype) - 1

    def feed(self, dtype, make, kind="input"):
        """A graph input: make(rng) gives its values. kind: "weight" (the same for every token;
        per rank under tensor parallelism), "input" (per rank and token; shared by the ranks
        under tensor parallelism), "const" (a GE constant input that the FX node takes as a
        non-tensor argument: not one of the FX node's inputs)."""
        v = self.value(dtype)
        self.feeds.append((v, make, kind))
        return v

    def is_const(self, v):
        return any(f[0] == v and f[2] == "const" for f in self.feeds)

    def op(self, type_, fx_target, fn, ins, out_dtypes, kind="compute", fx_extra=(), fx=True, fx_list=False):
        name = "%s_%d" % (type_, len(self.ops))
        fx_name = None
        if fx:
            base = fx_target.split(".")[1]
            fx_name = "%s_%d-%s" % (base, self.fx_count[base], fx_target)
            self.fx_count[base] += 1
        outs = [self.value(dt, (len(self.ops), k)) for k, dt in enumerate(out_dtypes)]
        self.ops.append(Op(name, type_, fx_name, fn, list(ins), outs, kind, list(fx_extra)))
        self.ops[-1].fx_list = fx_list  # the FX node takes its tensors as one list argument (cat)
        return outs if len(outs) > 1 else outs[0]


def run(net, side, feeds, rngs, injection=None):
    """Executes every op for all ranks in lockstep (an all-reduce needs every rank's input).
    side: "npu" (kernel model), "golden32" (exact, fp32 outputs) or "golden" (exact, the NPU's
    dtypes). feeds: per rank, value id -> array. Returns per rank the values and, for the NPU
    side, the values as dumped (an injected output differs from what a local injection passes on)."""
    cfg = net.cfg
    vals = [dict(f) for f in feeds]
    dumped = [dict() for _ in feeds]
    for oi, op in enumerate(net.ops):
        ins_all = [[vals[r][v] for v in op.ins] for r in range(len(feeds))]
        for r in range(len(feeds)):
            ins = ins_all[r]
            if op.kind == "allreduce":
                outs = [sum(x[0] for x in ins_all)]
            elif op.kind == "matmul":
                outs = [K.matmul(ins[0], ins[1], cfg.acc if side == "npu" else "float32")]
            elif op.kind == "reduce":
                outs = [op.fn(ins, cfg.acc if side == "npu" else "float32")]
            else:
                outs = op.fn(ins)
                outs = outs if isinstance(outs, list) else [outs]
            for k, v in enumerate(op.outs):
                y = np.asarray(outs[k])
                dt = net.dtype[v]
                if dt in K.FLOAT_TYPES:
                    if side == "npu":
                        y = K.add_noise(y, op.type, cfg.noise, rngs[r], cfg.noise_shape)
                    if side == "golden32":
                        dt = "float32"
                    y = K.round_to(y, dt)
                else:
                    y = y.astype(np.int64)
                vals[r][v] = y
                dumped[r][v] = y
                if side == "npu" and injection and injection[0] == op.name and k == 0 and injection[3] in (None, r):
                    hit = K.round_to(K.inject(y, injection[1], injection[4][r]), dt)
                    dumped[r][v] = hit
                    if not injection[2]:  # propagated: later ops get the injected output
                        vals[r][v] = hit
    return vals, dumped


def build(cfg):
    """The decoder: embedding, `layers` blocks (attention with rotary embedding, an MLP), a
    final norm, the LM head, argmax, top-k. Even layers: fused RmsNorm and a Swish MLP; odd
    layers: LayerNorm from ReduceMean/Sub/Mul/Rsqrt and a leaky MLP from Greater/SelectV2."""
    net = Net(cfg)
    dt, H, N, V = cfg.dtype, cfg.hidden, cfg.rows, cfg.vocab
    nh, hd, F = cfg.heads, cfg.hidden // cfg.heads, cfg.ffn
    act = "float32" if dt == "mixed" else dt   # the residual stream and norms
    mm = "bfloat16" if dt == "mixed" else dt   # matmul inputs and outputs
    wdt = mm

    def weight(shape, scale):
        return net.feed(wdt, lambda rng, s=shape, c=scale: K.round_to(rng.standard_normal(s) * c, wdt), "weight")

    ids = net.feed("int64", lambda rng: rng.integers(0, V, size=N))
    table = weight((V, H), 1.0)
    pos = np.arange(N)[:, None] * (1.0 / 10000 ** (np.arange(hd // 2) / (hd // 2)))[None, :]
    cos = net.feed(mm, lambda rng: K.round_to(np.cos(np.concatenate([pos, pos], 1)), mm))
    sin = net.feed(mm, lambda rng: K.round_to(np.sin(np.concatenate([pos, pos], 1)), mm))
    mask = net.feed(mm, lambda rng: K.round_to(np.triu(np.full((N, N), cfg.mask_value), 1), mm))
    x = net.op("GatherV2", "aten.embedding.default", lambda i: i[0][i[1].astype(np.int64)], [table, ids], [act],
               kind="copy")
    for layer in range(cfg.layers):
        h = norm(net, x, layer, act, weight)
        x = attention(net, cast(net, h, act, mm), cos, sin, mask, weight, layer)(x, act)
        h = norm(net, x, layer, act, weight)
        x = mlp(net, cast(net, h, act, mm), weight, layer)(x, act)
    h = net.op("RmsNorm", "npu.npu_rms_norm.default", lambda i: K.rms_norm(i[0], i[1]), [x, weight((H,), 1.0)],
               [act, "float32"])[0]
    logits = net.op("MatMulV2", "aten.mm.default", None, [cast(net, h, act, mm), weight((H, V), cfg.head_scale / np.sqrt(H))],
                    [mm], kind="matmul")
    logits = cast(net, logits, mm, "float32")
    net.op("ArgMaxV2", "aten.argmax.default", lambda i: i[0].argmax(axis=-1), [logits], ["int32"], kind="discrete",
           fx_extra=[np.array(-1, dtype=np.int64)])
    net.op("TopKV2", "aten.topk.default", topk, [logits], ["float32", "int32"], kind="discrete",
           fx_extra=[np.array(4, dtype=np.int64)])
    return net


def topk(i, k=4):
    idx = np.argsort(-i[0], axis=-1, kind="stable")[..., :k]
    return [np.take_along_axis(i[0], idx, axis=-1), idx]


def cast(net, x, src, dst):
    """An explicit .to() in the model (an FX-tagged Cast): nothing when the dtypes agree."""
    if src == dst:
        return x
    return net.op("Cast", "aten._to_copy.default", lambda i: i[0], [x], [dst], kind="cast")


def norm(net, x, layer, act, weight):
    H = net.cfg.hidden
    if layer % 2 == 0:
        return net.op("RmsNorm", "npu.npu_rms_norm.default", lambda i: K.rms_norm(i[0], i[1]), [x, weight((H,), 1.0)],
                      [act, "float32"])[0]
    mean = lambda i, acc: K.chunked_sum(i[0], acc) [..., None] / i[0].shape[-1]
    dim = [np.array([-1], dtype=np.int64), np.array(True)]
    mu = net.op("ReduceMeanD", "aten.mean.dim", mean, [x], [act], kind="reduce", fx_extra=dim)
    xc = net.op("Sub", "aten.sub.Tensor", lambda i: i[0] - i[1], [x, mu], [act])
    sq = net.op("Mul", "aten.mul.Tensor", lambda i: i[0] * i[1], [xc, xc], [act])
    var = net.op("ReduceMeanD", "aten.mean.dim", mean, [sq], [act], kind="reduce", fx_extra=dim)
    ve = net.op("Adds", "aten.add.Tensor", lambda i: i[0] + 1e-5, [var], [act], fx_extra=[np.array(1e-5)])
    r = net.op("Rsqrt", "aten.rsqrt.default", lambda i: 1.0 / np.sqrt(i[0]), [ve], [act])
    n = net.op("Mul", "aten.mul.Tensor", lambda i: i[0] * i[1], [xc, r], [act])
    return net.op("Mul", "aten.mul.Tensor", lambda i: i[0] * i[1], [n, weight((H,), 1.0)], [act])


def heads(net, x, dt):
    """[N, H] -> [nh, N, hd]: Reshape (its shape a const input), Transpose (perm input)."""
    cfg = net.cfg
    N, nh, hd = cfg.rows, cfg.heads, cfg.hidden // cfg.heads
    shape = net.feed("int64", lambda rng: np.array([N, nh, hd]), "const")
    x4 = net.op("Reshape", "aten.view.default", lambda i: i[0].reshape(N, nh, hd), [x, shape], [dt], kind="copy",
                fx_extra=[np.array([N, nh, hd], dtype=np.int64)])
    perm = net.feed("int32", lambda rng: np.array([1, 0, 2]), "const")
    return net.op("Transpose", "aten.transpose.int", lambda i: i[0].transpose(1, 0, 2), [x4, perm], [dt], kind="copy",
                  fx_extra=[np.array(0, dtype=np.int64), np.array(1, dtype=np.int64)])


def rotary(net, x, cos, sin, dt):
    hd = net.cfg.hidden // net.cfg.heads
    half = lambda i: [i[0][..., :hd // 2], i[0][..., hd // 2:]]
    x1, x2 = net.op("SplitV", "aten.split.Tensor", half, [x], [dt, dt], kind="copy",
                    fx_extra=[np.array(hd // 2, dtype=np.int64), np.array(-1, dtype=np.int64)])
    nx2 = net.op("Neg", "aten.neg.default", lambda i: -i[0], [x2], [dt], kind="copy")
    rot = net.op("ConcatV2", "aten.cat.default", lambda i: np.concatenate([i[0], i[1]], -1), [nx2, x1], [dt],
                 kind="copy", fx_extra=[np.array(-1, dtype=np.int64)], fx_list=True)
    xc = net.op("Mul", "aten.mul.Tensor", lambda i: i[0] * i[1], [x, cos], [dt])
    xs = net.op("Mul", "aten.mul.Tensor", lambda i: i[0] * i[1], [rot, sin], [dt])
    return net.op("Add", "aten.add.Tensor", lambda i: i[0] + i[1], [xc, xs], [dt])


def attention(net, h, cos, sin, mask, weight, layer):
    cfg = net.cfg
    H, N, nh, hd = cfg.hidden, cfg.rows, cfg.heads, cfg.hidden // cfg.heads
    dt = "bfloat16" if cfg.dtype == "mixed" else cfg.dtype
    proj = lambda: net.op("MatMulV2", "aten.mm.default", None, [h, weight((H, H), 1.0 / np.sqrt(H))], [dt],
                          kind="matmul")
    q, k, v = (heads(net, proj(), dt) for _ in range(3))
    q, k = rotary(net, q, cos, sin, dt), rotary(net, k, cos, sin, dt)
    kt = net.op("Transpose", "aten.transpose.int", lambda i: i[0].transpose(0, 2, 1), [k], [dt], kind="copy",
                fx_extra=[np.array(1, dtype=np.int64), np.array(2, dtype=np.int64)])
    s = net.op("BatchMatMulV2", "aten.bmm.default", None, [q, kt], [dt], kind="matmul")
    s = net.op("Muls", "aten.mul.Tensor", lambda i: i[0] / np.sqrt(hd), [s], [dt], fx_extra=[np.array(hd ** -0.5)])
    s = net.op("Add", "aten.add.Tensor", lambda i: i[0] + i[1], [s, mask], [dt])
    p = net.op("SoftmaxV2", "aten._softmax.default", lambda i: K.softmax(i[0]), [s], [dt],
               fx_extra=[np.array(-1, dtype=np.int64), np.array(False)])
    o = net.op(cfg.pv_type, "aten.bmm.default", None, [p, v], [dt], kind="matmul")
    perm = net.feed("int32", lambda rng: np.array([1, 0, 2]), "const")
    o = net.op("Transpose", "aten.transpose.int", lambda i: i[0].transpose(1, 0, 2), [o, perm], [dt], kind="copy",
               fx_extra=[np.array(0, dtype=np.int64), np.array(1, dtype=np.int64)])
    shape = net.feed("int64", lambda rng: np.array([N, H]), "const")
    o = net.op("Reshape", "aten.view.default", lambda i: i[0].reshape(N, H), [o, shape], [dt], kind="copy",
               fx_extra=[np.array([N, H], dtype=np.int64)])
    a = net.op("MatMulV2", "aten.mm.default", None, [o, weight((H, H), 1.0 / np.sqrt(H))], [dt], kind="matmul")
    return lambda x, act: residual(net, x, a, dt, act)


def residual(net, x, a, dt, act):
    if net.cfg.tp:
        a = net.op("HcomAllReduce", "_c10d_functional.all_reduce.default", None, [a], [dt], kind="allreduce")
    if dt != act:  # the NPU graph casts back itself (no FX node: compared with its own input)
        a = net.op("Cast", "aten._to_copy.default", lambda i: i[0], [a], [act], kind="cast", fx=False)
    return net.op("Add", "aten.add.Tensor", lambda i: i[0] + i[1], [x, a], [act])


def mlp(net, h, weight, layer):
    cfg = net.cfg
    H, F = cfg.hidden, cfg.ffn
    dt = "bfloat16" if cfg.dtype == "mixed" else cfg.dtype
    g = net.op("MatMulV2", "aten.mm.default", None, [h, weight((H, F), 1.0 / np.sqrt(H))], [dt], kind="matmul")
    u = net.op("MatMulV2", "aten.mm.default", None, [h, weight((H, F), 1.0 / np.sqrt(H))], [dt], kind="matmul")
    if layer % 2 == 0:
        a = net.op("Swish", "aten.silu.default", lambda i: i[0] / (1.0 + np.exp(-i[0])), [g], [dt])
    else:
        pos = net.op("Greater", "aten.gt.Scalar", lambda i: i[0] > 0, [g], ["bool"], kind="discrete",
                     fx_extra=[np.array(0.0)])
        small = net.op("Muls", "aten.mul.Tensor", lambda i: i[0] * 0.05, [g], [dt], fx_extra=[np.array(0.05)])
        a = net.op("SelectV2", "aten.where.self", lambda i: np.where(i[0] != 0, i[1], i[2]), [pos, g, small], [dt],
                   kind="copy")
    m = net.op("Mul", "aten.mul.Tensor", lambda i: i[0] * i[1], [a, u], [dt])
    d = net.op("MatMulV2", "aten.mm.default", None, [m, weight((F, H), 1.0 / np.sqrt(F))], [dt], kind="matmul")
    return lambda x, act: residual(net, x, d, dt, act)
