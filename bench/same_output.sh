#!/bin/bash
# Refactoring check: two msit-compact binaries must write the same bytes on the benchmark trees.
# Runs both on the same copies (same absolute paths) of a layout tree, a GE-vs-FX model dump and
# an ATB-vs-torch dump: compact to JSON summaries, compact into the store and export it (JSON and
# CSV), compare raw and summarised dumps (CSV report and terminal text), inspect a summary.
# Usage: same_output.sh OLD_BIN NEW_BIN MSIT_DUMPGEN   (exit 0: identical; 1: the diff is printed)
set -euo pipefail
OLD=$(realpath "$1")
NEW=$(realpath "$2")
GEN=$(realpath "$3")
T=$(mktemp -d)
trap "rm -rf \"$T\"" EXIT

"$GEN" tree --out "$T/src/tree" --files 400 --seed 11 > /dev/null
"$GEN" model --out "$T/src/model" --ops 24 --tokens 2 --diverge-at 9 --seed 5 > /dev/null
"$GEN" model --out "$T/src/fused" --ops 24 --fused --seed 6 > /dev/null
"$GEN" atb --out "$T/src/atb" --layers 4 --tokens 2 --diverge-at 3 --seed 7 > /dev/null

# BIN writes under $T/o and works on trees under $T/w (the same paths for both binaries); the
# outputs are then kept as $T/out-TAG with the reports' time stamps taken out of their names.
run_all() {
  local bin=$1 out=$T/o w=$T/w
  rm -rf "$out" && mkdir -p "$out"
  rm -rf "$w" && cp -a "$T/src" "$w"
  local ge=$w/model/msit_ge_dump fx=$w/model/msit_fx_dump
  "$bin" compare -m "$ge" -g "$fx" -o "$out/raw" > "$out/raw.txt" 2>&1 || true
  "$bin" compare -m "$w/fused/msit_ge_dump" -g "$w/fused/msit_fx_dump" -o "$out/fused" > "$out/fused.txt" 2>&1 || true
  local atb=$w/atb/atb/msit_dump_20260101_000000/tensors/0_200
  local torch=$w/atb/torch/msit_dump_20260101_000000/torch_tensors/cpu_100
  "$bin" compare -m "$atb" -g "$torch" -o "$out/atb" --cl api > "$out/atb.txt" 2>&1 || true
  "$bin" compact "$w/tree" --summary-format json > "$out/compact-tree.txt" 2>&1 || true
  "$bin" compact "$w/model" --summary-format json > "$out/compact-model.txt" 2>&1 || true
  "$bin" compare -m "$ge" -g "$fx" -o "$out/summary" > "$out/summary.txt" 2>&1 || true
  (cd "$w/tree" && find . -name '*.summary.json' | sort | xargs cat) > "$out/tree-summaries.json"
  local f
  f=$(cd "$w/tree" && find . -name '*.summary.json' | sort | sed -n 1p)
  "$bin" inspect "$w/tree/$f" > "$out/inspect.txt" 2>&1 || true
  rm -rf "$w" && cp -a "$T/src" "$w"
  "$bin" compact "$w/tree" --summary-format store > "$out/store-compact.txt" 2>&1 || true
  "$bin" export "$w/tree" --format csv -o "$out/store.csv" > "$out/store-export.txt" 2>&1 || true
  "$bin" export "$w/tree" -o "$w/exported" > "$out/store-export-json.txt" 2>&1 || true
  (cd "$w/exported" && find . -name '*.summary.json' | sort | xargs cat) > "$out/store-summaries.json"
  local r
  find "$out" -type f -print0 | xargs -0 sed -i -E 's/(_cmp_report_[a-z0-9_]*)[0-9]{14}/\1TS/g'
  for r in $(find "$out" -type f -name '*_cmp_report_*'); do
    mv "$r" "$(echo "$r" | sed -E 's/[0-9]{14}(\.[a-z]+)$/TS\1/')"
  done
  mv "$out" "$T/out-$2"
}

run_all "$OLD" old
run_all "$NEW" new
# Identical errors would be a vacuous pass: every step must have produced its output.
reports=$(find "$T/out-new" -name '*_cmp_report_*' | wc -l)
summaries=$(grep -o '"schema"' "$T/out-new/tree-summaries.json" | wc -l)
if [[ $reports != 4 || $summaries != 400 || $(wc -l < "$T/out-new/store.csv") -lt 400 ]]; then
  echo "same_output: a step failed ($reports of 4 reports, $summaries of 400 summaries); see:" >&2
  head -3 "$T"/out-new/*.txt >&2
  exit 1
fi
if diff -r "$T/out-old" "$T/out-new"; then
  echo "same_output: identical ($(find "$T/out-new" -type f | wc -l) files, $(du -sb "$T/out-new" | cut -f1) bytes)"
else
  exit 1
fi
