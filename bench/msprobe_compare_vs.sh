#!/bin/bash
# msProbe real-data compare (docs/formats/msprobe-compare.md): msit-compact's time and peak memory
# on a PyTorch tensor-mode pair from bench/msprobe_gen_big.py (APIS x 2 tensors of MIB MiB per
# side: 32 x 2 x 16 MiB = 1 GiB per side by default), and msProbe 26.x's own compare on the same
# pair in the same run, interleaved, page cache warm, then both reports row by row
# (tests/msprobe_ref/rows_equal.py). msProbe runs from a checkout beside ours
# (MSIT_MSPROBE_REF=CHECKOUT/python, tests/msprobe_ref/msprobe_compare.py), nothing of it copied.
# Needs (Debian): python3-torch python3-pandas python3-openpyxl python3-tqdm python3-psutil.
# Usage: MSIT_MSPROBE_REF=DIR msprobe_compare_vs.sh MSIT_COMPACT_BIN [APIS=32] [MIB=16] [RUNS=3] [JOBS=2]
set -euo pipefail
BIN=$(realpath "$1")
APIS=${2:-32}
MIB=${3:-16}
RUNS=${4:-3}
JOBS=${5:-2}
PY=${PYTHON:-/usr/bin/python3}
HERE=$(dirname "$(realpath "$0")")
: "${MSIT_MSPROBE_REF:?set MSIT_MSPROBE_REF to the python directory of an msProbe checkout}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PY" "$HERE/msprobe_gen_big.py" "$T/d" "$APIS" "$MIB"
N=$T/d/npu/step0/rank0
B=$T/d/bench/step0/rank0
echo "pair: $(du -sh "$N" | cut -f1) + $(du -sh "$B" | cut -f1), $((APIS * 2)) tensors per side"
echo "load: $(uptime)"
warm() { cat "$N"/dump_tensor_data/* "$B"/dump_tensor_data/* > /dev/null; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for run in $(seq 1 "$RUNS"); do
  warm
  rm -rf "$T/ours"
  /usr/bin/time -o "$T/time" -f "%e %M %U %S" "$BIN" compare -tp "$N/dump.json" -gp "$B/dump.json" -o "$T/ours" -j "$JOBS" \
    > "$T/ours.log" || [[ $? == 1 ]]
  read -r s kb us ss < <(tail -1 "$T/time")
  named=$(grep '^first divergence' "$T/ours.log" || echo "no divergence named")
  echo "msit-compact run $run: $s s wall, $(echo "$us + $ss" | bc) s CPU, $kb KB peak RSS; $named"
  echo "$s" >> "$T/ours_s"
  echo "$kb" >> "$T/ours_kb"
  warm
  rm -rf "$T/ref"
  /usr/bin/time -o "$T/time" -f "%e %M %U %S" "$PY" "$HERE/../tests/msprobe_ref/msprobe_compare.py" \
    -tp "$N/dump.json" -gp "$B/dump.json" -o "$T/ref" > "$T/ref.log" 2>&1 || { tail -5 "$T/ref.log"; exit 1; }
  read -r s kb us ss < <(tail -1 "$T/time")
  echo "msProbe run $run: $s s wall, $(echo "$us + $ss" | bc) s CPU (its process tree), $kb KB peak RSS (largest process of its tree)"
  echo "$s" >> "$T/ref_s"
  echo "$kb" >> "$T/ref_kb"
done
o=$(median < "$T/ours_s")
r=$(median < "$T/ref_s")
echo "median of $RUNS: msit-compact $o s (peak RSS max $(sort -g "$T/ours_kb" | tail -1) KB), msProbe $r s" \
  "(peak RSS max $(sort -g "$T/ref_kb" | tail -1) KB); ratio $(echo "scale=1; $r / $o" | bc)x"
"$PY" "$HERE/../tests/msprobe_ref/rows_equal.py" "$T"/ours/compare_result_*.csv "$T"/ref/compare_result_*.csv
