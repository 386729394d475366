#!/usr/bin/env python3
"""Baseline for bench/daemon_e2e.sh: the old Python converter approach (docs/formats/report.md §8) run
as a poller. Every 0.5 s: walk the tree; for each complete dump file load it with numpy, save
[min, max] (FX: STEM_min_max.npy; GE: NAME_min_max.npz with inputs/outputs), delete it.
GE files are parsed with a minimal DumpData walker (header length, inputs/outputs sizes and
dtypes); a file whose header declares more bytes than it has is left for the next poll.
Usage: old_converter.py DIR STOP_FILE   (exits after STOP_FILE exists and the tree is done)"""
import os
import sys
import time

import numpy as np

GE_DTYPES = {1: np.float32, 2: np.float16, 3: np.int8, 4: np.uint8, 5: np.int16, 6: np.uint16,
             7: np.int32, 8: np.int64, 9: np.uint32, 10: np.uint64, 11: np.bool_, 12: np.float64,
             27: "bf16"}


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, v


def tensor(desc, size_field):
    dt, size = 0, 0
    for n, v in fields(desc):
        if n == 1:
            dt = v
        elif n == size_field:
            size = v
    return dt, size


def minmax(raw, dt):
    t = GE_DTYPES.get(dt, np.uint8)
    if t == "bf16":
        a = (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32)
    else:
        a = np.frombuffer(raw, t)
    return [a.min(), a.max()] if a.size else [np.nan, np.nan]


def convert_ge(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        return False
    h = int.from_bytes(data[:8], "little")
    if 8 + h > len(data):
        return False
    ins, outs = [], []
    for n, v in fields(data[8:8 + h]):
        if n == 4:
            ins.append(tensor(v, 5))
        elif n == 3:
            outs.append(tensor(v, 6))
    if 8 + h + sum(s for _, s in ins + outs) > len(data):
        return False  # still being written
    pos, res = 8 + h, {"inputs": [], "outputs": []}
    for key, lst in (("inputs", ins), ("outputs", outs)):
        for dt, size in lst:
            res[key].append(minmax(data[pos:pos + size], dt))
            pos += size
    np.savez(path + "_min_max.npz", inputs=np.array(res["inputs"]), outputs=np.array(res["outputs"]))
    return True


def convert_npy(path):
    try:
        a = np.load(path)
    except (ValueError, EOFError, OSError):
        return False  # incomplete
    np.save(path[:-4] + "_min_max.npy", np.array([a.min(), a.max()]) if a.size else np.array([]))
    return True


def poll(root):
    busy = False
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            if name.startswith(".") or "_min_max" in name or name.endswith((".txt", ".csv", ".json")):
                continue
            ok = convert_npy(p) if name.endswith(".npy") else convert_ge(p)
            if ok:
                os.unlink(p)
            else:
                busy = True
    return busy


def main():
    root, stop = sys.argv[1], sys.argv[2]
    while True:
        t = time.time()
        busy = poll(root)
        if os.path.exists(stop) and not busy:
            poll(root)
            return
        time.sleep(max(0.0, 0.5 - (time.time() - t)))


if __name__ == "__main__":
    main()
