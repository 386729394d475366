#!/usr/bin/env bash
# Issue 41 acceptance (docs/formats/msprobe.md §2, §10): `compact` of a generated msProbe
# PyTorch tensor-mode dump (26.x, mix, backward, NaN/Inf, 2 steps x 2 ranks) and a MindSpore one
# (8.x, md5 mode, bf16 saved as float32, proc folder under pynative/) leaves only the json files
# and the summary stores; every summary statistic equals numpy's in float64 (check_msprobe.py);
# dump.json, stack.json and construct.json are byte-identical before and after.
# Usage: msprobe_compact.sh MSIT_BIN MSIT_DUMPGEN CHECK_MSPROBE_PY ; exit 77 (skip) without numpy.
set -euo pipefail
source "$(dirname "$0")/compact_lib.sh" "$1" "$2"
CHECK="$3"
PY="$(numpy_python)"
[ -n "$PY" ] || { echo "SKIP: no python3 with numpy"; exit 77; }

# Only msProbe's json files and our stores may be left below the step folders.
leftovers() {
  find "$1/npu" "$1/bench" -type f ! -name dump.json ! -name stack.json ! -name construct.json \
    ! -name 'msit-summary.db*' | head -5
}

check_compact() {  # check_compact DIR NAME
  local d="$1" name="$2"
  "$PY" "$CHECK" raw "$d"
  "$PY" "$CHECK" sums "$d" "$T/$name.before"
  local rc
  rc=$(run_compact "$d" --jobs 2)
  expect_rc 0 "$rc" "$name: compact"
  [ -z "$(leftovers "$d")" ] || fail "$name: left after compact: $(leftovers "$d")"
  "$PY" "$CHECK" sums "$d" "$T/$name.after"
  cmp -s "$T/$name.before" "$T/$name.after" || fail "$name: a json file changed"
  "$MSIT" export "$d" --format csv -o "$T/$name.csv" > /dev/null
  "$PY" "$CHECK" store "$d" "$T/$name.csv"
  # Compacted again: nothing to do, nothing changes.
  rc=$(run_compact "$d")
  expect_rc 0 "$rc" "$name: second compact"
  "$PY" "$CHECK" sums "$d" "$T/$name.again"
  cmp -s "$T/$name.before" "$T/$name.again" || fail "$name: a json file changed on the second run"
}

"$DUMPGEN" msprobe --out "$T/pt" --framework pytorch --generation 26 --level mix --backward --steps 2 \
  --ranks 2 --ops 10 --hidden 16 --rows 4 --nan-at 3 --diverge-at 6 --noise 1e-3 > /dev/null
check_compact "$T/pt" pytorch

"$DUMPGEN" msprobe --out "$T/ms" --framework mindspore --generation 8 --summary-mode md5 --proc --ms-split \
  --ops 10 --hidden 16 --rows 4 --chain llama --nan-at 2 > /dev/null
check_compact "$T/ms" mindspore
echo "msprobe_compact: PyTorch and MindSpore dumps compacted, statistics equal numpy's, json files unchanged"
