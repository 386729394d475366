#!/usr/bin/env bash
# compare --recompute on an msit-dumpgen model scenario whose op 7 (Add_7) got an injected error
# in its own output: the terminal summary names Add_7 as the first divergence, opcheck says its
# kernel disagrees with its own inputs, and the ops before it (whose files carry their inputs,
# and the graph text MatMul's transposes) agree; the HTML page carries the same lines. The ops after it (computed from its wrong output) agree, and
# a noise-only run has no first divergence and no op that disagrees. The ATB/torch flow takes the
# option too (its sheets' first divergences).
# Usage: opcheck_compare.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
BIN=$1 GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$GEN" model --out "$T/m" --ops 12 --tokens 1 --diverge-at 7 --diverge-local --seed 5 > /dev/null
rc=0
"$BIN" compare --my-path "$T/m/msit_ge_dump" --golden-path "$T/m/msit_fx_dump" -o "$T/out" --recompute \
  --html "$T/out/r.html" > "$T/log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "expected exit 1 (divergence), got $rc"; cat "$T/log"; exit 1; }
fail() { echo "FAIL: $*"; cat "$T/log"; exit 1; }
grep -q "token 0: Add_7" "$T/log" || fail "the first divergence is not Add_7"
grep -q "recomputed: first divergence: my Add_7 (Add): the kernel disagrees with its own inputs" "$T/log" \
  || fail "Add_7 not recomputed as disagreeing"
before=$(grep -c "recomputed: op before it: my " "$T/log" || true)
[ "$before" = 3 ] || fail "expected 3 ops before the first divergence recomputed, got $before"
if grep "recomputed: op before it: my" "$T/log" | grep -q "disagrees"; then fail "an op before the first divergence disagrees"; fi
grep "recomputed: op before it: my" "$T/log" | grep -q "agrees with its inputs" || fail "no op before it agrees"
grep -q '"recompute"' "$T/out/r.html" || fail "the HTML page has no recompute lines"
grep -q "recomputed: op before it: my MatMul_6 (MatMul): the kernel agrees" "$T/log" \
  || fail "MatMul_6 (its transposes from the graph text) does not agree"
if grep -q "recomputed: op before it: golden TransData_5" "$T/log"; then fail "a GE-internal op recomputed twice"; fi
"$BIN" compare --my-path "$T/m/msit_ge_dump" --golden-path "$T/m/msit_fx_dump" -o "$T/out1" --recompute \
  --recompute-before 1 > "$T/log1" 2>&1 || true
[ "$(grep -c "recomputed: op before it: " "$T/log1")" = 1 ] || fail "--recompute-before 1: not one op before"
# Downstream of the injected op: computed correctly from its wrong output, so they agree.
dir=$(dirname "$(find "$T/m/msit_ge_dump" -name 'Add.Add_7.*')")
"$BIN" opcheck "$dir"/Cast.Cast_8.* "$dir"/Mul.Mul_10.* "$dir"/TransData.TransData_11.* > "$T/down" \
  || { cat "$T/down"; fail "an op downstream of Add_7 does not agree"; }
# Noise only: no first divergence, nothing recomputed; opcheck over every op: none disagrees.
"$GEN" model --out "$T/n" --ops 12 --tokens 2 --seed 6 > /dev/null
"$BIN" compare --my-path "$T/n/msit_ge_dump" --golden-path "$T/n/msit_fx_dump" -o "$T/out3" --recompute \
  > "$T/log3" 2>&1 || { cat "$T/log3"; fail "the noise-only compare failed"; }
if grep -q "recomputed:" "$T/log3"; then fail "recomputed without a first divergence"; fi
# Every op of dumpgen's toy chain is recomputed (the graph text has the attributes they need).
files=$(find "$T/n/msit_ge_dump" -type f -name '*.*.*.*.*' ! -name '*.txt')
rc=0
"$BIN" opcheck $files > "$T/noise" || rc=$?
[ "$rc" = 0 ] || { cat "$T/noise"; fail "noise-only opcheck: expected exit 0 (every op agrees), got $rc"; }
[ "$(grep -c ': the kernel agrees' "$T/noise")" = "$(wc -w <<<"$files")" ] || fail "noise-only: not every op agrees"
# Without --recompute nothing is recomputed.
"$BIN" compare --my-path "$T/m/msit_ge_dump" --golden-path "$T/m/msit_fx_dump" -o "$T/out2" > "$T/log2" 2>&1 || true
if grep -q "recomputed:" "$T/log2"; then fail "recomputed without --recompute"; fi
# The ATB/torch flow: each sheet's first divergence (an injected o_proj Linear) and the ops
# before it; dumpgen's ATB dump has no op_param.json, then (once written) no weight tensor, and
# each is said.
"$GEN" atb --model llama --out "$T/a" --layers 12 --tokens 1 --diverge-type LinearOperation --diverge-nth 3 \
  --diverge-local --seed 4 > /dev/null
mine=$(ls -d "$T"/a/atb/*/tensors/*)
"$BIN" compare -gp "$T/a/torch" -mp "$mine" -o "$T/outa" --cl api --recompute > "$T/loga" 2>&1 || true
grep -q "recomputed: first divergence: my 5_LinearOperation (LinearOperation): not recomputed: attribute missing: .*op_param.json" \
  "$T/loga" || { cat "$T/loga"; fail "ATB flow: the first divergence's Linear is not 'not recomputed' for op_param.json"; }
[ "$(grep -c "recomputed: op before it: my " "$T/loga")" = 3 ] || fail "ATB flow: not 3 ops before it"
for d in "$mine"/0/0_DecoderLayer/*_LinearOperation; do
  echo '{"transposeA":false,"transposeB":true,"hasBias":false}' > "$d/op_param.json"
done
"$BIN" compare -gp "$T/a/torch" -mp "$mine" -o "$T/outb" --cl api --recompute > "$T/logb" 2>&1 || true
grep -q "recomputed: first divergence: my 5_LinearOperation (LinearOperation): not recomputed: input missing" "$T/logb" \
  || { cat "$T/logb"; fail "ATB flow: the Linear without its weight is not 'input missing'"; }
echo "PASS: compare --recompute names Add_7's kernel; the ATB flow says why its Linears are not recomputed"
