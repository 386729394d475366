#!/bin/bash
# Raw ATB vs torch compare (docs/formats/atb-torch.md §3): msit-compact's time and peak memory on a tree from
# tests/integration/atb_tree.py whose layer-0 Linear output is SIZE_MB MiB of float32 per side
# (a .pth written like torch.save and an ATB .bin), plus 36 small tensors.
# When MSIT_SRC (a checkout of https://github.com/Ascend/msit at a commit that still has
# msit/components/llm, e.g. 3558109d3ec0, the spec's HEAD; msit removed the component on
# 2026-07-03) and a python3 with torch and pandas are present, msit's own `msit llm compare`
# runs on the same tree, interleaved with ours, and the two reports are compared row by row
# (bench/report_diff.py).
# msit is used unmodified in place, nothing of it is copied: msit_cli.py below (our code) does
# what the installed `msit llm compare` command does (msit's components/__main__.py builds
# msit_llm's command tree, parses the arguments and calls the handler), without pip-installing
# msit, whose `msit` entry point finds its sub-commands through package entry points.
# Needs (Debian): python3-torch python3-pandas python3-numpy python3-tqdm python3-onnx
# python3-openpyxl (msit_llm's __main__ imports them all at load time).
#
# REFERENCE=1 also checks both reports against a float64 reference (bench/report_reference.py:
# which tool is closer per metric; reads the tensors again, needs ~5x SIZE_MB of memory in doubles);
# KEEP=DIR copies both reports there.
#
# Usage: [MSIT_SRC=/path/to/msit] [REFERENCE=1] [KEEP=DIR] atb_compare_vs.sh MSIT_COMPACT_BIN [SIZE_MB=512] [RUNS=3]
set -euo pipefail
BIN=$(realpath "$1")
MB=${2:-512}
RUNS=${3:-3}
PY=${PYTHON:-/usr/bin/python3}
HERE=$(dirname "$(realpath "$0")")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$PY" "$HERE/../tests/integration/atb_tree.py" "$T/d" --layers 12 --big-mb "$MB"
G=$T/d/torch/msit_dump_20260101_000000/torch_tensors/cpu_100
M=$T/d/atb/msit_dump_20260101_000001/tensors/0_200
echo "tree: $(du -sh "$T/d" | cut -f1), layer-0 Linear output ${MB} MiB per side"
echo "load: $(uptime)"

have_msit=0
if [[ -n "${MSIT_SRC:-}" ]]; then
  if [[ ! -d "$MSIT_SRC/msit/components/llm/msit_llm" ]]; then
    echo "msit not run: $MSIT_SRC has no msit/components/llm/msit_llm (removed upstream on 2026-07-03;" \
         "check out 3558109d3ec0960a2d43713f64cdcd78f38edb62)" >&2
  elif ! err=$("$PY" -c "import torch, pandas, tqdm, onnx, openpyxl" 2>&1); then
    echo "msit not run: ${err##*$'\n'}" >&2
  else
    have_msit=1
  fi
else
  echo "msit not run (set MSIT_SRC to an msit checkout and install the Debian packages above)" >&2
fi
cat > "$T/msit_cli.py" <<'EOF'
# `msit llm compare ARGS` without an installed msit: msit_llm's own command tree and handler.
import argparse, os, sys
from msit_llm.__main__ import get_cmd_instance
parser = argparse.ArgumentParser(prog="msit llm")
get_cmd_instance().register_parser(parser)
args = parser.parse_args(sys.argv[1:])
os.umask(0o027)  # as msit's main() does around the handler
args.handle(args)
EOF

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for run in $(seq 1 "$RUNS"); do
  cat "$G/0/root.layers.0.fc/output.pth" "$M/0/0_BlockLayer/1_LinearOperation/after/outtensor0.bin" > /dev/null
  rm -rf "$T/out"
  /usr/bin/time -o "$T/time" -f "%e %M" "$BIN" compare -g "$G" -m "$M" --cl api -o "$T/out" -q -j 2 ||
    [[ $? == 1 ]]
  read -r s kb < "$T/time"
  echo "msit-compact run $run: $s s wall, $kb KB peak RSS"
  echo "$s" >> "$T/ours_s"
  if [[ $have_msit == 1 ]]; then
    rm -rf "$T/msit_out"
    cat "$G/0/root.layers.0.fc/output.pth" "$M/0/0_BlockLayer/1_LinearOperation/after/outtensor0.bin" > /dev/null
    if /usr/bin/time -o "$T/time" -f "%e %M" env PYTHONPATH="$MSIT_SRC/msit/components/llm:$MSIT_SRC/msit" \
        "$PY" "$T/msit_cli.py" compare -gp "$G" -mp "$M" -cl api -o "$T/msit_out" > "$T/msit.log" 2>&1 &&
       compgen -G "$T/msit_out/msit_cmp_report_*.csv" > /dev/null; then
      read -r s kb < "$T/time"
      echo "msit run $run: $s s wall, $kb KB peak RSS (process tree's largest)"
      echo "$s" >> "$T/msit_s"
    else
      echo "msit failed or wrote no report, its log:"; tail -5 "$T/msit.log"; have_msit=0
    fi
  fi
done
ours=$(median < "$T/ours_s")
echo "msit-compact median of $RUNS: $ours s"
if [[ $have_msit == 1 ]]; then
  theirs=$(median < "$T/msit_s")
  echo "msit median of $RUNS: $theirs s"
  awk -v a="$theirs" -v b="$ours" 'BEGIN {printf "ratio msit/msit-compact (medians): %.1fx\n", a / b}'
  "$PY" "$HERE/report_diff.py" "$T"/msit_out/msit_cmp_report_*.csv "$T"/out/msit_cmp_report_*.csv --worst 5 ||
    echo "the two reports do not hold the same pairs" >&2
  if [[ -n "${REFERENCE:-}" ]]; then
    "$PY" "$HERE/report_reference.py" "$T"/msit_out/msit_cmp_report_*.csv "$T"/out/msit_cmp_report_*.csv
  fi
  if [[ -n "${KEEP:-}" ]]; then
    mkdir -p "$KEEP" && cp "$T"/msit_out/msit_cmp_report_*.csv "$KEEP/msit.csv" &&
      cp "$T"/out/msit_cmp_report_*.csv "$KEEP/msit-compact.csv"
  fi
fi
echo "load: $(uptime)"
