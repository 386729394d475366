# Compares two msProbe compare tables (CSV) row by row and cell by cell: numbers (percent texts
# included) within 1e-6 (relative to the value when it is above 1), other texts equal. Columns
# only one side has (msProbe's NPU_Stack_Info) are listed and skipped.
# Usage: python3 rows_equal.py OURS.csv MSPROBE.csv   (exit 0: equal; 1: each difference printed)
import csv
import math
import sys


def number(text):
    t = text.strip()
    if t.endswith("%"):
        t = t[:-1]
    try:
        return float(t)
    except ValueError:
        return None


def same(a, b):
    if a == b:
        return True
    x, y = number(a), number(b)
    if x is None or y is None or a.strip().endswith("%") != b.strip().endswith("%"):
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= 1e-6 * max(1.0, abs(y))


def main(ours_path, ref_path):
    ours = list(csv.reader(open(ours_path, newline="", encoding="utf-8")))
    ref = list(csv.reader(open(ref_path, newline="", encoding="utf-8")))
    oh, rh = ours[0], ref[0]
    common = [c for c in rh if c in oh]
    skipped = [c for c in rh if c not in oh] + [c for c in oh if c not in rh]
    bad = 0
    if len(ours) != len(ref):
        print(f"rows: ours {len(ours) - 1}, msProbe {len(ref) - 1}")
        bad += 1
    for i, (o, r) in enumerate(zip(ours[1:], ref[1:]), start=1):
        for c in common:
            a, b = o[oh.index(c)], r[rh.index(c)]
            if not same(a, b):
                bad += 1
                if bad <= 40:
                    print(f"row {i} ({r[0]}) {c}: ours {a!r}, msProbe {b!r}")
    print(f"{len(ref) - 1} rows, {len(common)} columns compared, {bad} differences"
          + (f"; skipped columns: {skipped}" if skipped else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
