#!/bin/bash
# Raw ATB vs torch compare (atb-torch.md 3): msit-compact's time and peak memory on a tree from
# tests/integration/atb_tree.py whose layer-0 Linear output is SIZE_MB MiB of float32 per side
# (a .pth written like torch.save and an ATB .bin), plus 36 small tensors.
# When MSIT_SRC (a checkout of https://github.com/Ascend/msit, used unmodified in place, nothing
# copied) and a python3 with torch are present, msit's own `msit llm compare` runs on the same
# tree, interleaved with ours.
#
# Usage: [MSIT_SRC=/path/to/msit] atb_compare_vs.sh MSIT_COMPACT_BIN [SIZE_MB=512] [RUNS=3]
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

have_msit=0
if [[ -n "${MSIT_SRC:-}" ]] && "$PY" -c "import torch, pandas" 2>/dev/null; then have_msit=1; fi
[[ $have_msit == 1 ]] || echo "msit not run (set MSIT_SRC and install python3-torch python3-pandas to compare)" >&2

for run in $(seq 1 "$RUNS"); do
  cat "$G/0/root.layers.0.fc/output.pth" "$M/0/0_BlockLayer/1_LinearOperation/after/outtensor0.bin" > /dev/null
  /usr/bin/time -f "msit-compact run $run: %e s wall, %M KB peak RSS" \
    "$BIN" compare -g "$G" -m "$M" --cl api -o "$T/out" -q -j 2 || [[ $? == 1 ]]
  if [[ $have_msit == 1 ]]; then
    /usr/bin/time -f "msit run $run: %e s wall, %M KB peak RSS" \
      env PYTHONPATH="$MSIT_SRC/msit/components/llm:$MSIT_SRC/msit/components:$MSIT_SRC/msit" \
      "$PY" -m msit_llm compare -gp "$G" -mp "$M" -cl api -o "$T/msit_out" > "$T/msit.log" 2>&1 ||
      { echo "msit failed, see its log:"; tail -5 "$T/msit.log"; }
  fi
done
