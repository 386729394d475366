#!/usr/bin/env bash
# compare --recompute on an msit-dumpgen model scenario whose op 7 (Add_7) got an injected error
# in its own output: the terminal summary names Add_7 as the first divergence, opcheck says its
# kernel disagrees with its own inputs, and the ops before it (whose files carry their inputs)
# agree or say why they were not recomputed; the HTML page carries the same lines.
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
# Without --recompute nothing is recomputed.
"$BIN" compare --my-path "$T/m/msit_ge_dump" --golden-path "$T/m/msit_fx_dump" -o "$T/out2" > "$T/log2" 2>&1 || true
if grep -q "recomputed:" "$T/log2"; then fail "recomputed without --recompute"; fi
echo "PASS: compare --recompute names Add_7's kernel"
