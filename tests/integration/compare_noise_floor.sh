#!/bin/bash
# The first divergence against the noise floor learned from the run (issue 29, docs/compare.md
# "First divergence") on msit-dumpgen llama-chain models with kernel noise (fp32 outputs, a
# bf16 MatMul, the first op's inputs exact): noise only names nothing; one op perturbed (with
# and without propagation) is every token's first divergence, raw and summarised.
# Usage: compare_noise_floor.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
BIN=$1
GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# Every token's first divergence in the report is WANT (- for none).
check_first() {  # OUT WANT WHAT
  python3 - "$1" "$2" "$3" <<'PY'
import csv, glob, os, sys
out, want, what = sys.argv[1:]
rows = list(csv.DictReader(open(glob.glob(out + "/msit_cmp_report_*.csv")[0])))
tokens = sorted({r["token_id"] for r in rows})
first = {r["token_id"]: os.path.basename(r["my_data_path"].split(",")[0]).split(".")[1]
         for r in rows if r["divergence"] == "first"}
if want == "-":
    assert not first, (what, first)
else:
    assert sorted(first) == tokens and set(first.values()) == {want}, (what, want, first)
PY
}

run() {  # NAME WANT WHAT GEN_ARGS...
  local name=$1 want=$2 what=$3
  shift 3
  "$GEN" model --chain llama --ops 31 --tokens 2 --rows 8 --hidden 64 --noise 1e-3 --ge-dtype float32 \
    --reduced MatMul=bfloat16 --out "$T/$name" "$@" >/dev/null
  local injected
  injected=$(python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['first_divergence']; print(f['ge_name'] if f else '-')" \
    "$T/$name/scenario.json")
  [ "$injected" = "$want" ] || { echo "scenario $name injected $injected, expected $want"; exit 1; }
  for mode in raw summarised; do
    [ "$mode" = summarised ] && "$BIN" compact "$T/$name/msit_ge_dump" "$T/$name/msit_fx_dump" >/dev/null
    mkdir -p "$T/$name-$mode"
    "$BIN" compare -m "$T/$name/msit_ge_dump" -g "$T/$name/msit_fx_dump" -o "$T/$name-$mode" -q \
      >"$T/$name-$mode/log" 2>&1 || true
    check_first "$T/$name-$mode" "$want" "$what $mode" || { cat "$T/$name-$mode/log"; exit 1; }
  done
}

# The old rule (5x over the inputs or a dtype floor) named RmsNorm_1 here: its inputs are exact.
run noise - "noise only" --seed 7
"$BIN" compare -m "$T/noise/msit_ge_dump" -g "$T/noise/msit_fx_dump" -o "$T/noise-text" >"$T/noise.txt" 2>&1 || true
grep -q "first divergence: none" "$T/noise.txt" || { cat "$T/noise.txt"; exit 1; }
run mm MatMul_13 "MatMul RED 0.05 propagated" --seed 7 --diverge-type MatMul --diverge-nth 2 --diverge-scale 0.05
run sm SoftmaxV2_6 "SoftmaxV2 RED 0.2 local" --seed 8 --diverge-type SoftmaxV2 --diverge-scale 0.2 --diverge-local
"$BIN" compare -m "$T/sm/msit_ge_dump" -g "$T/sm/msit_fx_dump" -o "$T/sm-text" >"$T/sm.txt" 2>&1 || true
grep -q "token 0: SoftmaxV2_6 (SoftmaxV2) output 0" "$T/sm.txt" && grep -q "noise floor" "$T/sm.txt" || { cat "$T/sm.txt"; exit 1; }
echo "compare_noise_floor: ok"
