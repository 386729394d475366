#!/usr/bin/env python3
"""Which of two compare reports is closer to the true value: for every row the two reports share
(token_id, golden_data_path, my_data_path), the tensors are read again, converted to float32 as
torch's .float() does, and the docs/formats/report.md §4 metrics and each side's mean are computed with
per-element differences and ratios in float32 (as torch) and everything else in float64 (numpy); per column it counts the rows where msit's or msit-compact's value is closer and
prints the largest error of each against that reference.
Reads .npy, .pth (torch.load: needs python3-torch) and ATB .bin (docs/formats/atb-torch.md §2.6, dtypes 0/1/27).
Usage: report_reference.py MSIT_CSV OURS_CSV   (tensors must still be at the reports' paths)"""
import math, sys
import numpy as np

from report_diff import rows_by_key  # same directory: one reader of the two reports

EPS = np.float32(1.1920928955078125e-07)
ATB_DTYPES = {0: np.float32, 1: np.float16, 27: "bf16"}


def read_atb_bin(path):
    with open(path, "rb") as f:
        blob = f.read()
    end = blob.index(b"$End=1\n") + len(b"$End=1\n")
    head = dict(line.split("=", 1) for line in blob[:end].decode().splitlines() if "=" in line)
    start, length = (int(v) for v in head["$Object.data"].split(","))
    raw = np.frombuffer(blob, dtype=np.uint8, count=length, offset=end + start)
    dt = ATB_DTYPES[int(head["dtype"])]
    if dt == "bf16":
        return (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return raw.view(dt).astype(np.float32)


def read_tensor(path):
    if path.endswith(".bin"):
        return read_atb_bin(path)
    if path.endswith(".npy"):
        return np.load(path).astype(np.float32).reshape(-1)
    import torch
    return torch.load(path, map_location="cpu").reshape(-1).float().numpy()


def reference(g32, m32):
    g, m = g32.astype(np.float64), m32.astype(np.float64)
    mask = np.abs(g32) > EPS
    with np.errstate(divide="ignore", invalid="ignore"):  # per-element terms in float32, as torch
        rel = np.where(mask, np.abs(m32 / g32 - np.float32(1)), np.float32(0)).astype(np.float64)
    d32 = (m32 - g32).astype(np.float64)
    ab = np.where(mask, np.abs(d32), 0.0)
    lp = g - g.max() - math.log(np.exp(g - g.max()).sum())
    lq = m - m.max() - math.log(np.exp(m - m.max()).sum())
    gg = float(np.dot(g, g))
    return {"golden_mean_value": g.mean(), "my_mean_value": m.mean(),
            "cosine_similarity": float(np.dot(g, m)) / (max(math.sqrt(gg), 1e-8) * max(math.sqrt(float(np.dot(m, m))), 1e-8)),
            "mean_relative_error": rel.mean(), "mean_absolute_error": ab.mean(),
            "kl_divergence": max(float(np.sum(np.exp(lp) * (lp - lq))), 0.0),
            "relative_euclidean_distance": 0.0 if math.sqrt(gg) <= EPS else math.sqrt(float(np.dot(d32, d32)) / gg)}


def main():
    theirs, ours = rows_by_key(sys.argv[1]), rows_by_key(sys.argv[2])
    keys = [k for k in theirs if k in ours and not theirs[k]["cmp_fail_reason"]]
    tally = {}
    cache = {}
    for k in keys:
        if k[:3] not in cache:
            cache.clear()
            cache[k[:3]] = reference(read_tensor(k[1]), read_tensor(k[2]))
        ref = cache[k[:3]]
        for col, exact in ref.items():
            t, o = float(theirs[k][col]), float(ours[k][col])
            s = tally.setdefault(col, [0, 0, 0, 0.0, 0.0])
            et, eo = abs(t - exact), abs(o - exact)
            s[0 if eo < et else 1 if et < eo else 2] += 1
            s[3], s[4] = max(s[3], et), max(s[4], eo)
    print(f"{len(keys)} rows against a float64 reference")
    print(f"{'column':30} {'ours closer':>11} {'msit closer':>11} {'tie':>5} {'msit max err':>13} {'ours max err':>13}")
    for col, (o, t, tie, et, eo) in tally.items():
        print(f"{col:30} {o:11d} {t:11d} {tie:5d} {et:13.3g} {eo:13.3g}")


main()
