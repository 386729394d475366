#!/bin/bash
# The rows of our msProbe compare against msProbe 26.x's own compare on the same pairs, cell by cell
# (tests/msprobe_ref/rows_equal.py: numbers within 1e-6): statistics, md5, real data (.npy; .pt too
# where torch is at hand) and msProbe's own Megatron fixture, PyTorch vs PyTorch and MindSpore vs
# PyTorch (also with -lm, msProbe's layer mapping, and on a generated -lm pair). Needs
# MSIT_MSPROBE_REF (msProbe's python/ directory) and a python3 with pandas, openpyxl, tqdm, psutil
# (Debian's python3-* packages); exits 77 (skipped) without them.
# Usage: compare_msprobe_ref.sh MSIT_BIN TESTS_DIR
set -euo pipefail
BIN=$1
TESTS=$2
[ -n "${MSIT_MSPROBE_REF:-}" ] || { echo "SKIP: MSIT_MSPROBE_REF is not set"; exit 77; }
PY=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import numpy, pandas, openpyxl, tqdm, psutil' > /dev/null 2>&1; then
    PY=$p
    break
  fi
done
[ -n "$PY" ] || { echo "SKIP: no python3 with numpy, pandas, openpyxl, tqdm and psutil"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
check() {  # check NAME TARGET GOLDEN [options]: both compares, then every report file row by row
  local name=$1 tp=$2 gp=$3
  shift 3
  # Exit 1: rows fail; 4: part of my dump has no golden. 3 only where the pair is expected to be
  # flagged as no two runs of one model (UNLIKE=1): the reports are written all the same.
  local rc=0
  "$BIN" compare -q -tp "$tp" -gp "$gp" -o "$T/ours_$name" "$@" || rc=$?
  if ! ((rc == 0 || rc == 1 || rc == 4 || (rc == 3 && ${UNLIKE:-0} == 1))); then
    echo "$name: our compare exited $rc"
    exit 1
  fi
  "$PY" "$TESTS/msprobe_ref/msprobe_compare.py" -tp "$tp" -gp "$gp" -o "$T/ref_$name" "$@" > "$T/ref_$name.log" 2>&1 ||
    { tail -20 "$T/ref_$name.log"; exit 1; }
  local ours refs
  ours=$(cd "$T/ours_$name" && find . -name 'compare_result_*' | sed 's/_[0-9]\{14\}\././' | sort)
  refs=$(cd "$T/ref_$name" && find . -name 'compare_result_*' | sed 's/_[0-9]\{14\}\././' | sort)
  [[ "$ours" == "$refs" ]] || { echo "$name: report files differ: ours [$ours], msProbe's [$refs]"; exit 1; }
  for f in $ours; do
    local stem=${f%.csv}
    echo -n "$name $f: "
    "$PY" "$TESTS/msprobe_ref/rows_equal.py" "$T/ours_$name/${stem}"_*.csv "$T/ref_$name/${stem}"_*.csv
    n=$((n + 1))
  done
}

"$PY" "$TESTS/msprobe_ref/gen_statistics.py" "$T/stat"
"$PY" "$TESTS/msprobe_ref/gen_md5.py" "$T/md5"
"$PY" "$TESTS/integration/compare_msprobe_gen.py" "$T/npy" --ranks 2 --inject 2 --inject-backward 4
check statistics "$T/stat/npu/dump.json" "$T/stat/bench/dump.json"
check md5 "$T/md5/npu_md5/dump.json" "$T/md5/bench_md5/dump.json"
check real_data_npy "$T/npy/npu/step0" "$T/npy/bench/step0"
if "$PY" -c 'import torch' > /dev/null 2>&1; then
  "$PY" "$TESTS/msprobe_ref/gen_tensor.py" "$T/pt"
  check real_data_pt "$T/pt/npu_t/dump.json" "$T/pt/bench_t/dump.json"
fi
F=$MSIT_MSPROBE_REF/../test/msprobe_test/mindspore_ut/compare/dump_file
if [ -d "$F" ]; then
  cp -r "$F/pytorch_data" "$T/pytorch_copy"  # compare refuses a file against itself
  check megatron_pt "$F/pytorch_data/dump.json" "$T/pytorch_copy/dump.json"
  # MindSpore against PyTorch without a layer mapping: msProbe reports mostly unmatched rows, we
  # write the same rows and flag the pair (exit 3, docs/compare.md "Coverage").
  UNLIKE=1 check megatron_ms_pt "$F/mindspore_data/dump.json" "$F/pytorch_data/dump.json"
  check megatron_ms_pt_lm "$F/mindspore_data/dump.json" "$F/pytorch_data/dump.json" -lm "$F/layer_mapping.yaml"
  # -lm without a file pairs by msProbe's built-in names only: most of this fixture stays unpaired.
  UNLIKE=1 check megatron_ms_pt_lm_nofile "$F/mindspore_data/dump.json" "$F/pytorch_data/dump.json" -lm
fi
"$PY" "$TESTS/integration/compare_msprobe_lm_gen.py" "$T/lm"
check layer_mapping "$T/lm/ms/dump.json" "$T/lm/pt/dump.json" -lm "$T/lm/layer_mapping.yaml"
echo "compare_msprobe_ref: $n report files equal to msProbe's"
