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
# Two files (docs/compare.md "Op labels"): each side is labelled from its place in its dump, in the
# terminal and the HTML report; a file outside any dump structure by its own name.
d=$T/l4
set +e
"$MSIT" compare -gp "$d/$TORCH/0/root.model.layers.1.self_attn.v_proj/output.pth" \
  -mp "$d/$ATB/0/1_DecoderLayer/2_LinearOperation/after/outtensor0.bin" --html "$T/two.html" >"$T/two.txt" 2>&1
rc=$?
set -e
[ $rc -eq 1 ] || { cat "$T/two.txt" >&2; fail "two files (k_proj vs v_proj): exit $rc, want 1"; }
want="1_DecoderLayer/2_LinearOperation (LinearOperation) output 0 vs root.model.layers.1.self_attn.v_proj output 0"
grep -qF "first fail in token 0: $want" "$T/two.txt" || { cat "$T/two.txt" >&2; fail "two files: terminal does not name both ops"; }
grep -qF '"name":"1_DecoderLayer/2_LinearOperation"' "$T/two.html" || fail "two files: HTML row has no ATB op"
grep -qF '"vs":"root.model.layers.1.self_attn.v_proj output 0"' "$T/two.html" || fail "two files: HTML row has no torch module"
cp "$d/$ATB/0/1_DecoderLayer/2_LinearOperation/after/outtensor0.bin" "$T/mine.bin"
cp "$d/$TORCH/0/root.model.layers.1.self_attn.v_proj/output.pth" "$T/golden.pth"
set +e
"$MSIT" compare -gp "$T/golden.pth" -mp "$T/mine.bin" >"$T/two.txt" 2>&1
set -e
grep -qF "first fail in token 0: mine.bin vs golden.pth" "$T/two.txt" || { cat "$T/two.txt" >&2; fail "two plain files: not named by their names"; }
echo "compare_atb_small: ok"
