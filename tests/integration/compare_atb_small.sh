#!/bin/bash
# ATB vs torch on models of fewer than 11 layers (docs/compare.md "Small models"): msit's layer
# detection needs a node with more than 10 children of one dominant type, so the layer and module
# policies pair nothing there, in msit as in msit-compact. The compare must say so (a warning
# naming the golden tree and its closest node) instead of writing a silent near-empty report, and
# must not say it for 11 layers and more.
set -euo pipefail
MSIT=$1
GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TORCH=torch/msit_dump_20260101_000000/torch_tensors/cpu_100
ATB=atb/msit_dump_20260101_000000/tensors/0_200

fail() { echo "compare_atb_small: $*" >&2; exit 1; }

for layers in 1 4 10 11; do
  d=$T/l$layers
  "$GEN" atb --model llama --out "$d" --layers $layers --hidden 32 --rows 4 --tokens 1 --seed 3 >/dev/null
  mkdir -p "$d/out"
  set +e
  "$MSIT" compare -gp "$d/$TORCH" -mp "$d/$ATB" -o "$d/out" -cl api >"$d/out.txt" 2>&1
  rc=$?
  set -e
  [ $rc -eq 0 ] || { cat "$d/out.txt" >&2; fail "$layers layers: exit $rc, want 0 (identical values but for fp16 rounding)"; }
  if [ $layers -le 10 ]; then
    grep -q "no layers found in $d/$TORCH/model_tree.json" "$d/out.txt" ||
      { cat "$d/out.txt" >&2; fail "$layers layers: no warning about msit's layer rule"; }
    if [ $layers -gt 1 ]; then
      grep -q "closest: root.model.layers, $layers children, $layers LlamaDecoderLayer" "$d/out.txt" ||
        { cat "$d/out.txt" >&2; fail "$layers layers: the warning does not name root.model.layers"; }
    fi
    grep -q "a model needs 11 layers or more" "$d/out.txt" || fail "$layers layers: no hint"
  else
    if grep -q "no layers found" "$d/out.txt"; then cat "$d/out.txt" >&2; fail "11 layers: warned"; fi
    # 11 layers pair layer by layer: the api sheet's mapping tables give every Linear row.
    rows=$(sed -n 's/^\[api\] \([0-9]*\) rows.*/\1/p' "$d/out.txt")
    [ "${rows:-0}" -gt 50 ] || { cat "$d/out.txt" >&2; fail "11 layers: $rows api rows, want more than 50"; }
  fi
done
echo "compare_atb_small: ok"
