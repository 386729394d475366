#!/usr/bin/env python3
"""Row-by-row difference of two compare reports (docs/formats/report.md §2 CSV): msit's and msit-compact's.
Rows are paired by (token_id, golden_data_path, my_data_path, n-th occurrence); per value column
it prints how many paired values are equal, the largest absolute and relative difference and,
for values that are float32 numbers on both sides, the largest distance in float32 ULPs.
Usage: report_diff.py MSIT_CSV OURS_CSV [--worst N]   (exit 1 when the row sets differ)"""
import argparse, csv, math, struct, sys

COLUMNS = ["golden_max_value", "golden_min_value", "golden_mean_value", "my_max_value", "my_min_value",
           "my_mean_value", "cosine_similarity", "max_relative_error", "mean_relative_error",
           "max_absolute_error", "mean_absolute_error", "kl_divergence", "relative_euclidean_distance"]


def rows_by_key(path):
    out, seen = {}, {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            k = (r["token_id"], r["golden_data_path"], r["my_data_path"])
            seen[k] = seen.get(k, 0) + 1
            out[k + (seen[k],)] = r
    return out


def as_float(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def f32_ordinal(x):
    """Position of x on the float32 line, or None when x is not exactly a float32."""
    try:
        packed = struct.pack("<f", x)
    except OverflowError:
        return None
    if struct.unpack("<f", packed)[0] != x:
        return None
    i = struct.unpack("<i", packed)[0]
    return i if i >= 0 else -(i & 0x7FFFFFFF)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("msit_csv")
    ap.add_argument("ours_csv")
    ap.add_argument("--worst", type=int, default=0, help="print the N largest relative differences")
    a = ap.parse_args()
    theirs, ours = rows_by_key(a.msit_csv), rows_by_key(a.ours_csv)
    both = [k for k in theirs if k in ours]
    only_t, only_o = len(theirs) - len(both), len(ours) - len(both)
    print(f"rows: msit {len(theirs)}, msit-compact {len(ours)}, paired {len(both)}, "
          f"only msit {only_t}, only msit-compact {only_o}")
    print(f"{'column':30} {'equal':>7} {'differ':>7} {'max abs diff':>13} {'max rel diff':>13} {'max ulp':>8}")
    worst = []
    for col in COLUMNS:
        eq = diff = 0
        max_abs = max_rel = 0.0
        max_ulp = None
        for k in both:
            st, so = theirs[k].get(col, ""), ours[k].get(col, "")
            t, o = as_float(st), as_float(so)
            if st == so or (t is not None and o is not None and (t == o or (math.isnan(t) and math.isnan(o)))):
                eq += 1
                continue
            diff += 1
            if t is None or o is None or not (math.isfinite(t) and math.isfinite(o)):
                worst.append((math.inf, col, k, st, so))
                max_rel = math.inf
                continue
            d = abs(t - o)
            rel = d / max(abs(t), abs(o))
            max_abs, max_rel = max(max_abs, d), max(max_rel, rel)
            ot, oo = f32_ordinal(t), f32_ordinal(o)
            if ot is not None and oo is not None:
                max_ulp = max(max_ulp or 0, abs(ot - oo))
            worst.append((rel, col, k, st, so))
        ulp = "-" if max_ulp is None else str(max_ulp)
        print(f"{col:30} {eq:7d} {diff:7d} {max_abs:13.3g} {max_rel:13.3g} {ulp:>8}")
    for rel, col, k, st, so in sorted(worst, key=lambda w: -w[0])[:a.worst]:
        print(f"  {col} token {k[0]} {k[1].rsplit('/', 2)[-2]} -> {k[2].rsplit('/', 3)[-3]}: "
              f"msit {st} msit-compact {so} (rel {rel:.3g})")
    return 0 if only_t == 0 and only_o == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
