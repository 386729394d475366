#!/usr/bin/env bash
# compare --recompute on an msit-dumpgen model scenario whose op 7 (Add_7) got an injected error
# in its own output: the terminal summary names Add_7 as the first divergence, opcheck says its
# kernel disagrees with its own inputs, and the ops before it (whose files carry their inputs)
# agree or say why they were not recomputed (dumpgen's graph text has no MatMul transposes); the
# HTML page carries the same lines. The ops after it (computed from its wrong output) agree, and
# a noise-only run has no first divergence and no op that disagrees.
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
grep -q "recomputed: op before it: my MatMul_6 (MatMul): not recomputed: attribute missing: .*transpose_x1" "$T/log" \
  || fail "MatMul_6 (no transposes in the graph text) is not 'not recomputed' with its reason"
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
rc=0
"$BIN" opcheck $(find "$T/n/msit_ge_dump" -type f -name '*.*.*.*.*' ! -name '*.txt') > "$T/noise" || rc=$?
[ "$rc" = 4 ] || { cat "$T/noise"; fail "noise-only opcheck: expected exit 4 (agrees, some not recomputed), got $rc"; }
[ "$(grep -c ': the kernel agrees' "$T/noise")" -ge 16 ] || fail "noise-only: fewer than 16 ops agree"
# Without --recompute nothing is recomputed.
"$BIN" compare --my-path "$T/m/msit_ge_dump" --golden-path "$T/m/msit_fx_dump" -o "$T/out2" > "$T/log2" 2>&1 || true
if grep -q "recomputed:" "$T/log2"; then fail "recomputed without --recompute"; fi
echo "PASS: compare --recompute names Add_7's kernel"
