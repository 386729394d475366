#!/usr/bin/env python3
"""Cross-checks a msit-dumpgen tree with numpy: decodes every raw file independently of both
the generator and the library (npy via numpy.load, GE via a hand protobuf decoder and the
msaccucmp-style transpositions) and compares the manifest's statistics.
Usage: check_manifest.py TREE [MANIFEST]"""
import json, math, os, struct, sys
import numpy as np

DT = {1: np.float32, 2: np.float16, 3: np.int8, 4: np.uint8, 5: np.int16, 6: np.uint16, 7: np.int32,
      8: np.int64, 9: np.uint32, 10: np.uint64, 11: np.bool_, 12: np.float64, 16: np.complex64}


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7F) << s; s += 7
        if c < 0x80:
            return v, i


def fields(b):
    i, out = 0, []
    while i < len(b):
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i); v = b[i:i + n]; i += n
        elif w == 1:
            v = b[i:i + 8]; i += 8
        elif w == 5:
            v = b[i:i + 4]; i += 4
        else:
            raise ValueError("wire type %d" % w)
        out.append((f, w, v))
    return out


def shape(b):
    dims = []
    for f, w, v in fields(b):
        if f == 1 and w == 2:
            j = 0
            while j < len(v):
                d, j = varint(v, j); dims.append(d)
        elif f == 1:
            dims.append(v)
    return dims


def tensor(b, size_field, orig_field):
    t = {"dtype": 0, "format": 0, "shape": [], "size": 0, "orig": None}
    for f, w, v in fields(b):
        if f == 1: t["dtype"] = v
        elif f == 2: t["format"] = v
        elif f == 3: t["shape"] = shape(v)
        elif f == size_field: t["size"] = v
        elif f == orig_field: t["orig"] = shape(v)
    if t["orig"] is None:
        t["orig"] = t["shape"]
    return t


def decode_elems(raw, code, n):
    if code == 27:  # bf16
        return (np.frombuffer(raw[:2 * n], np.uint16).astype(np.uint32) << 16).view(np.float32)
    if code in (34, 35):
        return np.array([fp8(x, code == 35) for x in raw[:n]], np.float64)
    return np.frombuffer(raw, DT[code], count=n)


def fp8(b, e4m3):
    s = -1.0 if b & 0x80 else 1.0
    if e4m3:
        e, m = (b >> 3) & 15, b & 7
        if e == 15 and m == 7: return math.nan
        return s * (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    e, m = (b >> 2) & 31, b & 3
    if e == 31: return math.nan if m else s * math.inf
    return s * (m / 4 * 2.0 ** -14 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15))


def logical(t, arr):
    """msaccucmp-style conversion device -> logical (docs/layout.md §2), then crop."""
    fmt, s, o = t["format"], t["shape"], t["orig"]
    a = arr.reshape(s) if s else arr.reshape(())
    if fmt == 29:  # FRACTAL_NZ: (B,C1,N1,N0,C0) -> (B,N1,N0,C1,C0)
        c1, n1, n0, c0 = s[-4:]
        B = int(np.prod(o[:-2])) if len(o) > 2 else 1
        a = a.reshape(B, c1, n1, n0, c0).transpose(0, 2, 3, 1, 4).reshape(B, n1 * n0, c1 * c0)
        n, c = (1, o[0]) if len(o) == 1 else (o[-2], o[-1])
        return a[:, :n, :c].reshape(o)
    if fmt == 3:  # NC1HWC0 -> NCHW
        N, C1, H, W, C0 = s
        return a.transpose(0, 1, 4, 2, 3).reshape(N, C1 * C0, H, W)[:, :o[1]]
    if fmt == 32:  # NDC1HWC0 -> NCDHW
        N, D, C1, H, W, C0 = s
        return a.transpose(0, 2, 5, 1, 3, 4).reshape(N, C1 * C0, D, H, W)[:, :o[1]]
    if fmt == 4:  # FRACTAL_Z (C1*H*W, N1, N0, C0) -> NCHW
        N, C, H, W = o
        _, n1, n0, c0 = s
        c1 = (C + c0 - 1) // c0
        a = a.reshape(c1, H, W, n1 * n0, c0).transpose(3, 0, 4, 1, 2).reshape(n1 * n0, c1 * c0, H, W)
        return a[:N, :C]
    return a


def read_ge(path):
    b = open(path, "rb").read()
    (h,) = struct.unpack_from("<Q", b, 0)
    ins, outs = [], []
    for f, w, v in fields(b[8:8 + h]):
        if f == 3: outs.append(tensor(v, 6, 7))
        elif f == 4: ins.append(tensor(v, 5, 6))
    off, res = 8 + h, []
    for t in ins + outs:
        raw = b[off:off + t["size"]]; off += t["size"]
        n = int(np.prod(t["shape"])) if t["shape"] else 1
        res.append((t, raw, logical(t, decode_elems(raw, t["dtype"], n)) if t["dtype"] != 16 else None))
    assert off == len(b), path
    return res


def close(a, b, rel=1e-12):
    if a is None or b is None: return a is None and b is None
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-300


def check_stats(where, m, arr):
    x = np.asarray(arr).astype(np.float64).ravel()
    assert x.size == m["count"], (where, "count", x.size, m["count"])
    fin = x[np.isfinite(x)]
    got = {"nan_count": int(np.isnan(x).sum()), "posinf_count": int(np.isposinf(x).sum()),
           "neginf_count": int(np.isneginf(x).sum()), "zero_count": int((x == 0).sum())}
    for k, v in got.items():
        assert m[k] == v, (where, k, m[k], v)
    if fin.size == 0:
        assert m["min"] is None and m["mean"] is None, where
        return
    assert float(fin.min()) == float(m["min"]) and float(fin.max()) == float(m["max"]), (where, "minmax")
    am = float(np.abs(fin).max())
    for k, v in (("mean", fin.mean()), ("std", fin.std()), ("l2norm", math.sqrt((fin * fin).sum())),
                 ("abs_max", am)):
        floor = 1e-12 * am if k in ("mean", "std") else 0.0  # cancellation / constant data
        assert abs(float(v) - m[k]) <= 1e-9 * max(abs(float(v)), abs(m[k])) + floor, (where, k, float(v), m[k])
    if "values" in m:
        for i, (w, g) in enumerate(zip(m["values"], x)):
            assert (isinstance(w, str) and (math.isnan(g) or math.isinf(g))) or w == g, (where, i, w, g)


def main():
    tree = sys.argv[1]
    man = json.load(open(sys.argv[2] if len(sys.argv) > 2 else os.path.join(tree, "manifest.json")))
    n = 0
    for e in man["files"]:
        if e.get("corrupt") or e["kind"] == "graph_txt":
            continue
        p = os.path.join(tree, e["path"])
        if e["kind"] == "npy":
            arr = np.load(p)
            m = e["tensors"][0]
            assert list(arr.shape) == m["shape"], (p, arr.shape)
            if m["stats"]:
                check_stats(p, m, arr)
        else:
            got = read_ge(p)
            assert len(got) == len(e["tensors"]), p
            for (t, raw, arr), m in zip(got, e["tensors"]):
                assert t["shape"] == m["shape"] and t["orig"] == m["original_shape"], (p, t, m)
                if m["stats"]:
                    check_stats(p, m, arr)
        n += 1
    print("check_manifest: %d raw files agree with numpy" % n)


main()
