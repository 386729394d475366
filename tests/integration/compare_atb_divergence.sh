#!/bin/bash
# The first divergence on ATB/torch pairs (issue 29's two examples, docs/compare.md "First
# divergence"): msit-dumpgen atb --model llama with kernel noise and one Linear output injected.
#  1. 16 layers, RED 0.30 at 9_DecoderLayer/3_LinearOperation (v_proj): --cl api names it with
#     the torch module, exit 1, and the CSV marks that row "first".
#  2. 12 layers, RED 0.05 at a Linear output: the default xlsx compare fails (exit 1) and the
#     terminal names the ATB node and the torch module.
#     --legacy-ait on the same pair names it too.
#  3. Noise only (1e-3): nothing named, exit 0.
set -euo pipefail
MSIT=$1
GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TORCH=torch/msit_dump_20260101_000000/torch_tensors/cpu_100
ATB=atb/msit_dump_20260101_000000/tensors/0_200

fail() { echo "compare_atb_divergence: $*" >&2; exit 1; }

run() {  # run DIR ARGS...: the compare's exit status in $rc, its output in $DIR/out.txt
  local d=$1
  shift
  mkdir -p "$d/out"
  set +e
  "$MSIT" compare -g "$d/$TORCH" -m "$d/$ATB" -o "$d/out" "$@" >"$d/out.txt" 2>&1
  rc=$?
  set -e
}

# 1. the 16-layer example.
"$GEN" atb --model llama --out "$T/a" --layers 16 --tokens 1 --hidden 16 --rows 8 --noise 1e-4 \
  --diverge-type LinearOperation --diverge-nth 65 --diverge-scale 0.3 >/dev/null
grep -q '"atb_node": "9_DecoderLayer/3_LinearOperation"' "$T/a/scenario.json" || fail "scenario: $(cat "$T/a/scenario.json")"
run "$T/a" --cl api
[ "$rc" -eq 1 ] || fail "example 1: exit $rc, expected 1: $(cat "$T/a/out.txt")"
want="token 0: 9_DecoderLayer/3_LinearOperation (LinearOperation) output 0 vs root.model.layers.9.self_attn.v_proj (Linear) output 0"
grep -qF "$want" "$T/a/out.txt" || fail "example 1: first divergence not named: $(cat "$T/a/out.txt")"
csv=$(ls "$T"/a/out/msit_cmp_report_*.csv)
firsts=$(grep -c ',first,' "$csv" || true)
[ "$firsts" -eq 1 ] || fail "example 1: $firsts rows marked first in $csv"
grep ',first,' "$csv" | grep -q '9_DecoderLayer/3_LinearOperation/after/outtensor0.bin' || fail "example 1: wrong row first"

# ... and the legacy ait layer compare of the same pair (its -g/-m are token directories).
mkdir -p "$T/a/legacy"
set +e
"$MSIT" compare -g "$T/a/$TORCH/0" -m "$T/a/$ATB/0" -o "$T/a/legacy" --legacy-ait >"$T/a/legacy.txt" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "example 1, --legacy-ait: exit $rc, expected 1: $(cat "$T/a/legacy.txt")"
grep -qF "$want" "$T/a/legacy.txt" || fail "example 1, --legacy-ait: not named: $(cat "$T/a/legacy.txt")"

# 2. the 12-layer example, default report (xlsx, three sheets).
"$GEN" atb --model llama --out "$T/b" --layers 12 --tokens 1 --hidden 16 --rows 8 --noise 1e-4 \
  --diverge-type LinearOperation --diverge-nth 45 --diverge-scale 0.05 >/dev/null
run "$T/b"
[ "$rc" -eq 1 ] || fail "example 2: exit $rc, expected 1: $(cat "$T/b/out.txt")"
grep -qF "token 0: 6_DecoderLayer/5_LinearOperation (LinearOperation) output 0 vs root.model.layers.6.self_attn.o_proj (Linear) output 0" \
  "$T/b/out.txt" || fail "example 2: first divergence not named: $(cat "$T/b/out.txt")"
xlsx=$(ls "$T"/b/out/msit_cmp_report_*.xlsx)
# The workbook's last columns: each side's op label; the row of the injected op is "first".
python3 - "$xlsx" <<'PY' || fail "example 2: xlsx labels"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
api = [n for n in z.namelist() if n.startswith("xl/worksheets/sheet")]
text = "".join(z.read(n).decode() for n in api)
for want in ("my_op", "golden_op", "6_DecoderLayer/5_LinearOperation (LinearOperation) output 0",
             "root.model.layers.6.self_attn.o_proj (Linear) output 0", ">first<"):
    if want not in text:
        sys.exit("missing in the xlsx: " + want)
PY

# 3. noise only, with the mapping file for the types msit's tables do not pair.
"$GEN" atb --model llama --out "$T/c" --layers 12 --tokens 2 --hidden 64 --rows 8 --noise 1e-3 >/dev/null
run "$T/c" --cl api --op-mapping-file "$T/c/op_mapping"
[ "$rc" -eq 0 ] || fail "noise only: exit $rc, expected 0: $(cat "$T/c/out.txt")"
grep -q "first divergence: none" "$T/c/out.txt" || fail "noise only: $(cat "$T/c/out.txt")"
echo "compare_atb_divergence: ok"
