#!/usr/bin/env python3
"""Writes an ATB dump and a torch-hook dump of the same small model (docs/formats/atb-torch.md §1-§2, §5 F3)
for the ATB/torch compare tests, optionally with one diverging op.
Usage: atb_tree.py OUT [--layers N] [--diverge LAYER] [--pth zip|npy] [--big-mb MB]
OUT/torch/msit_dump_X/torch_tensors/cpu_100 and OUT/atb/msit_dump_Y/tensors/0_200 are the
two process dirs. --diverge L changes layer L's LayerNormOperation output on the ATB side.
--big-mb MB makes layer 0's Linear output a float32 tensor of MB MiB on each side (benchmarks)."""
import argparse, io, json, os, random, struct, zipfile


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


class T:
    """A float tensor: values (row-major), shape and dtype "f32" or "f16"."""
    def __init__(self, values, shape, dtype="f32"):
        self.values, self.shape, self.dtype = values, shape, dtype
        self.size = len(values)
        self.ndim = len(shape)

    def tobytes(self):
        return struct.pack("<%d%s" % (self.size, "f" if self.dtype == "f32" else "e"), *self.values)


def atb_bin(a):
    dtype = {"f32": 0, "f16": 1}[a.dtype]
    raw = a.tobytes()
    head = (f"$Version=1.0\n$Object.Count=1\n$Object.Length={len(raw)}\nformat=2\ndtype={dtype}\n"
            f"dims={','.join(str(d) for d in a.shape)}\n$Object.data=0,{len(raw)}\n$End=1\n")
    return head.encode() + raw


def npy(a):
    descr = "<f4" if a.dtype == "f32" else "<f2"
    shape = "(" + "".join(f"{d}, " for d in a.shape).rstrip(" ") + ")" if a.ndim != 1 else f"({a.shape[0]},)"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + a.tobytes()


def pth_pickle(a, numel=None):
    """data.pkl of torch.save(tensor), protocol 2, opcodes as torch 1.13 writes them."""
    storage = {"f32": "FloatStorage", "f16": "HalfStorage"}[a.dtype]
    def binint(v):
        return b"K" + bytes([v]) if v < 256 else b"M" + struct.pack("<H", v) if v < 65536 else b"J" + struct.pack("<i", v)
    def uni(s):
        return b"X" + struct.pack("<I", len(s)) + s.encode()
    def tup(vals):
        body = b"".join(binint(v) for v in vals)
        return {0: b")", 1: body + b"\x85", 2: body + b"\x86", 3: body + b"\x87"}.get(len(vals), b"(" + body + b"t")
    strides = [1] * a.ndim
    for i in range(a.ndim - 2, -1, -1):
        strides[i] = strides[i + 1] * a.shape[i + 1]
    return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((" + uni("storage") + b"ctorch\n" + storage.encode() +
            b"\n" + uni("0") + uni("cpu") + binint(a.size if numel is None else numel) + b"tQ" + binint(0) + tup(a.shape) + tup(strides) +
            b"\x89ccollections\nOrderedDict\n)RtR.")


def pth_zip(path, a):
    stem = os.path.splitext(os.path.basename(path))[0]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"{stem}/data.pkl", pth_pickle(a))
        z.writestr(f"{stem}/data/0", a.tobytes())
        z.writestr(f"{stem}/version", b"3\n")


def big_pair(tp, ap_dir, mb):
    """Layer 0's Linear output as an MB MiB float32 tensor on both sides, written in chunks."""
    from array import array
    rng = random.Random(11)
    pattern = array("f", [rng.gauss(0, 1) for _ in range(1 << 18)])
    mine = array("f", [v * 1.0001 for v in pattern])
    reps = max(1, mb * (1 << 20) // (len(pattern) * 4))
    n = reps * len(pattern)
    rows = n // 1024
    gp = os.path.join(tp, "0", "root.layers.0.fc", "output.pth")
    os.makedirs(os.path.dirname(gp), exist_ok=True)
    with zipfile.ZipFile(gp, "w", zipfile.ZIP_STORED) as z:
        z.writestr("output/data.pkl", pth_pickle(T([0.0] * 0, [rows, 1024]), numel=n))
        info = zipfile.ZipInfo("output/data/0")
        info.file_size = n * 4
        with z.open(info, "w") as w:
            for _ in range(reps):
                w.write(pattern.tobytes())
        z.writestr("output/version", b"3\n")
    mp = os.path.join(ap_dir, "0", "0_BlockLayer", "1_LinearOperation", "after", "outtensor0.bin")
    os.makedirs(os.path.dirname(mp), exist_ok=True)
    with open(mp, "wb") as f:
        f.write((f"$Version=1.0\n$Object.Count=1\n$Object.Length={n * 4}\nformat=2\ndtype=0\n"
                 f"dims={rows},1024\n$Object.data=0,{n * 4}\n$End=1\n").encode())
        for _ in range(reps):
            f.write(mine.tobytes())


def torch_tensor(path, a, fmt):
    if fmt == "zip":
        pth_zip(path, a)
    else:  # npy content under the .pth name: read_dump_header goes by magic bytes
        write(path, npy(a))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--diverge", type=int, default=-1)
    ap.add_argument("--pth", choices=["zip", "npy"], default="zip")
    ap.add_argument("--big-mb", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(7)
    def normal(n):
        return [round(rng.gauss(0, 1), 3) for _ in range(n)]
    tp = os.path.join(a.out, "torch", "msit_dump_20260101_000000", "torch_tensors", "cpu_100")
    root = os.path.join(a.out, "atb", "msit_dump_20260101_000001")
    ap_dir = os.path.join(root, "tensors", "0_200")
    layers, nodes = [], []
    for i in range(a.layers):
        b = f"root.layers.{i}"
        layers.append({"name": b, "type": "Block", "children": [{"name": b + ".ln", "type": "LayerNorm", "children": []},
                                                                {"name": b + ".fc", "type": "Linear", "children": []}]})
        nodes.append({"opName": f"BlockLayer_{i}", "opType": "BlockLayer", "inTensors": [], "outTensors": [], "nodes": [
            {"opName": f"LayerNormOperation_{i}_0", "opType": "LayerNormOperation", "param": {}},
            {"opName": f"LinearOperation_{i}_1", "opType": "LinearOperation", "param": {"hasBias": True}}]})
        ln = T(normal(128), [2, 64])
        fc = T(normal(128), [2, 64])
        torch_tensor(os.path.join(tp, "0", b + ".ln", "output.pth"), ln, a.pth)
        torch_tensor(os.path.join(tp, "0", b + ".fc", "output.pth"), fc, a.pth)
        torch_tensor(os.path.join(tp, "0", b, "output.pth"), fc, a.pth)
        my_ln = T([-v for v in ln.values], ln.shape) if i == a.diverge else ln
        l = os.path.join(ap_dir, "0", f"{i}_BlockLayer")
        write(os.path.join(l, "after", "outtensor0.bin"), atb_bin(T(fc.values, fc.shape, "f16")))
        write(os.path.join(l, "0_LayerNormOperation", "after", "outtensor0.bin"), atb_bin(T(my_ln.values, my_ln.shape, "f16")))
        write(os.path.join(l, "1_LinearOperation", "after", "outtensor0.bin"), atb_bin(fc))
    if a.big_mb:
        big_pair(tp, ap_dir, a.big_mb)
    tree = {"name": "root", "type": "Model", "children": [{"name": "root.layers", "type": "ModuleList", "children": layers}]}
    write(os.path.join(tp, "model_tree.json"), json.dumps(tree).encode())
    write(os.path.join(root, "model", "200", "M.json"), json.dumps({"modelName": "M", "nodes": nodes}).encode())


main()
