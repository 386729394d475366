#!/usr/bin/env bash
# What the deletion contract costs: `compact --jobs 1` (summaries written, raw files removed)
# of a 1 GiB FX tree (32 x 32 MiB npy) and of 4,000 small GE files, with a baseline binary and
# the current one, interleaved; `cat` of the same bytes is printed as the floor. Wall time and
# CPU time (user+sys, less sensitive to other load) are medians over RUNS rounds.
# Usage: [RUNS=5] [TREES="big small"] bench/safety_cost.sh BASELINE_BIN CURRENT_BIN [WORK_DIR]
#        (needs python3-numpy, ~3 GB; the baseline is any older build, e.g. main at 31ca7c6)
set -euo pipefail
old=$1 new=$2
work=${3:-$(mktemp -d /tmp/msit-safety-bench.XXXXXX)}
runs=${RUNS:-5}
mkdir -p "$work/src/big/msit_fx_dump" "$work/src/small/msit_ge_dump"
"${PYTHON:-/usr/bin/python3}" - "$work/src" "$(dirname "$0")/../tests/integration" <<'PY'
import os, sys
import numpy as np
src, it = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(3)
for i in range(32):
    dt = "float16" if i % 2 else "float32"
    n = (32 << 20) // np.dtype(dt).itemsize
    np.save(f"{src}/big/msit_fx_dump/a{i}-aten.mm.default.OUTPUT.0.2025010100000000{i:04d}.npy",
            rng.standard_normal(n, dtype=np.float32).astype(dt))
sys.path.insert(0, it)
import daemon_dumps
data = daemon_dumps.ge_dump_bytes(elems=2048)
for i in range(4000):
    d = f"{src}/small/msit_ge_dump/{i % 20}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/{daemon_dumps.ge_name(i)}", "wb") as f:
        f.write(data)
PY
measure() {  # measure BIN TREE -> "wall cpu" seconds
  rm -rf "$work/run"; cp -a "$work/src/$2" "$work/run"; sync
  /usr/bin/time -f '%e %U %S' -o "$work/t" "$1" compact --jobs 1 "$work/run" > /dev/null
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/t"
}
for tree in ${TREES:-big small}; do
  : > "$work/$tree.txt"
  for _ in $(seq "$runs"); do
    echo "old $(measure "$old" "$tree")" >> "$work/$tree.txt"
    echo "new $(measure "$new" "$tree")" >> "$work/$tree.txt"
  done
  rm -rf "$work/run"; cp -a "$work/src/$tree" "$work/run"; sync
  s=$(date +%s%N); find "$work/run" -type f -exec cat {} + > /dev/null; e=$(date +%s%N)
  bytes=$(du -sb "$work/src/$tree" | cut -f1)
  python3 - "$work/$tree.txt" "$tree" "$bytes" "$(( (e - s) / 1000000 ))" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
med = lambda who, k: st.median(float(r[k]) for r in rows if r[0] == who)
tree, mb, cat_ms = sys.argv[2], int(sys.argv[3]) / 1e6, int(sys.argv[4])
for k, what in ((1, "wall"), (2, "cpu")):
    o, n = med("old", k), med("new", k)
    print(f"{tree:5s} {mb:7.0f} MB  {what:4s}: baseline {o:6.2f} s  current {n:6.2f} s  current/baseline {n / o:5.3f}")
print(f"{tree:5s} cat of the same files (page cache): {cat_ms / 1e3:.2f} s")
PY
done
