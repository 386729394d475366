#!/bin/bash
# End-to-end compare benchmarks: raw vs raw on one GE/FX tensor pair of SIZE_MB per side (time
# vs `cat` of both files, peak RSS), and summary vs summary on many small tensor pairs.
# Usage: compare_e2e.sh MSIT_BIN [SIZE_MB_PER_SIDE=512] [PAIRS=100000] [JOBS=2]
# JOBS may be a list ("1 2"): the raw pair is compared once per value. PAIRS=0 skips the
# summary part. REPEAT=N (default 1) repeats `cat` and every raw compare N times, interleaved,
# and prints min and median of each and the ratio `cat` / compare (1.0 = at the speed of
# reading the data). BASE_BIN=another binary (e.g. an older build) is timed in the same loop.
set -euo pipefail
BIN=$1
MB=${2:-512}
PAIRS=${3:-100000}
JOBS=${4:-2}
REPEAT=${REPEAT:-1}
PY=${PYTHON:-/usr/bin/python3}  # needs numpy (Debian python3-numpy)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# One Add op: GE file (fp32 ND, input = output = N elements) vs FX npy, plus graph text.
PYTHONPATH="$(dirname "$0")" "$PY" - "$T" "$MB" <<'EOF'
import os, sys
import numpy as np
from add_op_dump import GE_FILE_NAME, GRAPH_TEXT, ge_header
root, mb = sys.argv[1], int(sys.argv[2])
n = mb * 1024 * 1024 // 4 // 2          # input + output per side = MB
ge = f"{root}/ge/worldsize1_global_rank0/20250101000000/0/g/1/0"
fx = f"{root}/fx/worldsize1_global_rank0/gm_1_dump/0"
os.makedirs(ge); os.makedirs(fx)
open(f"{root}/ge/dynamo_original_graph_1_rank_0_pid_1_ts_1.txt", "w").write(
    GRAPH_TEXT)
rng = np.random.default_rng(1)
with open(f"{ge}/{GE_FILE_NAME}", "wb") as f:
    f.write(ge_header(n))
    for k in range(2):
        for c in range(0, n, 1 << 24):
            m = min(1 << 24, n - c)
            f.write((rng.standard_normal(m, dtype=np.float32) * np.float32(1.0001)).tobytes())
for k, role in enumerate(["INPUT", "OUTPUT"]):
    a = np.lib.format.open_memmap(f"{fx}/add_0-aten.add.Tensor.{role}.0.20250101000000000000.npy", mode="w+",
                                  dtype=np.float32, shape=(n,))
    for c in range(0, n, 1 << 24):
        a[c:c + min(1 << 24, n - c)] = rng.standard_normal(min(1 << 24, n - c), dtype=np.float32)
    del a
EOF
du -sh "$T/ge" "$T/fx"
find "$T" -type f -exec cat {} + >/dev/null   # warm the page cache for all runs
# Prints "wall user+sys peakKB" of one run of the command.
timed() {
  /usr/bin/time -f "%e %U %S %M" -o "$T/time" "$@" >/dev/null 2>&1 || true
  tail -n 1 "$T/time" | awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }'  # after any exit-status line
}
stats() {  # min and median of the first column of stdin
  sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "min %.3f median %.3f", v[1], m }'
}
bins=("$BIN")
[ -n "${BASE_BIN:-}" ] && bins+=("$BASE_BIN")
for r in $(seq "$REPEAT"); do
  s=$(date +%s.%N); find "$T" -type f -exec cat {} + >/dev/null; e=$(date +%s.%N)
  echo "$e - $s" | bc >>"$T/t_cat"
  for b in "${!bins[@]}"; do
    for j in $JOBS; do
      rm -rf "$T/out"
      timed "${bins[$b]}" compare -m "$T/ge" -g "$T/fx" -o "$T/out" -j "$j" -q >>"$T/t_${b}_$j"
    done
  done
done
echo "cat of both sides ($REPEAT runs): $(stats <"$T/t_cat") s"
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cat_min=$(sort -g "$T/t_cat" | head -1)
cat_med=$(median <"$T/t_cat")
for b in "${!bins[@]}"; do
  for j in $JOBS; do
    best=$(sort -g "$T/t_${b}_$j" | head -1 | awk '{ print $1 }')
    med=$(awk '{ print $1 }' "$T/t_${b}_$j" | median)
    echo "compare raw vs raw, ${bins[$b]}, -j $j: $(stats <"$T/t_${b}_$j") s; CPU $(awk '{ print $2 }' "$T/t_${b}_$j" | stats) s;" \
      "peak RSS $(awk '{ print $3 }' "$T/t_${b}_$j" | sort -g | tail -1) KB;" \
      "ratio cat/compare $(awk -v c="$cat_min" -v b="$best" 'BEGIN { printf "%.3f", c / b }') (min/min)," \
      "$(awk -v c="$cat_med" -v b="$med" 'BEGIN { printf "%.3f", c / b }') (median/median)"
  done
done
[ "$PAIRS" -gt 0 ] || exit 0
# Summary vs summary: PAIRS FX tensor pairs of 1024 float32 (FX vs FX, compacted).
"$PY" - "$T" "$PAIRS" <<'EOF'
import os, sys
import numpy as np
root, pairs = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(2)
golden = rng.standard_normal(1024, dtype=np.float32)
for side in ("a", "b"):
    d = f"{root}/s{side}/data_dump/1/gm_1_dump"
    os.makedirs(d)
    base = golden if side == "b" else golden + np.float32(1e-3) * rng.standard_normal(1024, dtype=np.float32)
    for i in range(pairs):
        np.save(f"{d}/op{i}-aten.add.Tensor.OUTPUT.0.2025010100000{i:07d}.npy", base)
EOF
"$BIN" compact -j "$JOBS" "$T/sa" "$T/sb" >/dev/null
/usr/bin/time -f "compare summary vs summary ($PAIRS pairs): %e s, peak RSS %M KB" \
  "$BIN" compare -m "$T/sa" -g "$T/sb" -o "$T/out2" -j "$JOBS" -q || true
