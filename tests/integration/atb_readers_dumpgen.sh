#!/bin/bash
# msit-dumpgen atb -> msit-compact inspect on every .bin / .pth; the diverged ATB Linear output
# has a mean (1 + scale) times the torch one's, the undiverged LayerNorm matches to fp16 rounding.
set -euo pipefail
MSIT=$1
GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$GEN" atb --out "$T/g" --layers 2 --tokens 2 --diverge-at 1 --diverge-scale 1.0 >/dev/null
n=0
while IFS= read -r -d '' f; do
  "$MSIT" inspect --json "$f" >"$T/s.json" || { echo "inspect failed on $f" >&2; exit 1; }
  grep -q '"kind":"\(atb_bin\|pth\)"' "$T/s.json" || { echo "wrong kind for $f: $(head -c 300 "$T/s.json")" >&2; exit 1; }
  n=$((n + 1))
done < <(find "$T/g" \( -name '*.bin' -o -name '*.pth' \) -print0)
[ "$n" -eq 60 ] || { echo "expected 60 tensor files, read $n" >&2; exit 1; }

mean() { "$MSIT" inspect --json "$1" | sed -n 's/.*"mean":\([-0-9.e+]*\).*/\1/p'; }
A="$T/g/atb/msit_dump_20260101_000000/tensors/0_200/0/0_BlockLayer"
P="$T/g/torch/msit_dump_20260101_000000/torch_tensors/cpu_100/0"
awk -v a="$(mean "$A/1_LinearOperation/after/outtensor0.bin")" -v t="$(mean "$P/root.layers.0.fc/output.pth")" \
  'BEGIN { r = a / t; if (r < 1.99 || r > 2.01) { print "diverged Linear mean ratio " r ", expected 2" > "/dev/stderr"; exit 1 } }'
awk -v a="$(mean "$A/0_LayerNormOperation/after/outtensor0.bin")" -v t="$(mean "$P/root.layers.0.ln/output.pth")" \
  'BEGIN { d = a - t; if (d < -0.01 || d > 0.01) { print "LayerNorm means differ by " d > "/dev/stderr"; exit 1 } }'
grep -q '"atb_dir": "0_BlockLayer/1_LinearOperation"' "$T/g/scenario.json"
echo "atb_readers_dumpgen: ok ($n files)"
