#!/usr/bin/env bash
# opcheck and compare --recompute on msProbe dump pairs of a small network
# (tests/tools/opgen_msprobe.py chain: linear, layer_norm, add, silu, matmul, softmax, mul, gelu,
# with their kwargs in dump.json). An API's kernel made wrong (its inputs right): compare names it
# as the first divergence and its recomputation disagrees on the target, agrees on the golden;
# the APIs before it and every API downstream of it (computed correctly from its wrong output)
# agree. A noise-only pair: no first divergence, every API agrees.
set -euo pipefail
BIN=$1 SRC=$2
source "$SRC/tests/integration/compact_lib.sh"
require_numpy_python opcheck_msprobe
WORK=$T  # compact_lib.sh's temporary directory, removed on exit
fail() { echo "opcheck_msprobe: FAIL: $*" >&2; exit 1; }

for inject in 1 3 5; do
  mapfile -t apis < <("$PY" "$SRC/tests/tools/opgen_msprobe.py" chain "$WORK/i$inject" --inject "$inject")
  bad=${apis[$inject]}
  set +e
  "$BIN" compare -tp "$WORK/i$inject/npu/step0" -gp "$WORK/i$inject/bench/step0" -o "$WORK/out$inject" \
    --recompute --recompute-before 2 > "$WORK/cmp$inject.txt" 2>&1
  rc=$?
  set -e
  [ "$rc" = 1 ] || { cat "$WORK/cmp$inject.txt"; fail "compare with $bad wrong exited $rc, expected 1"; }
  grep -q "^first divergence: $bad " "$WORK/cmp$inject.txt" || { cat "$WORK/cmp$inject.txt"; fail "first divergence is not $bad"; }
  grep -q "recomputed: first divergence: my $bad ([a-z_]*): the kernel disagrees" "$WORK/cmp$inject.txt" ||
    { cat "$WORK/cmp$inject.txt"; fail "$bad does not disagree"; }
  grep -q "recomputed: first divergence: golden $bad ([a-z_]*): the kernel agrees" "$WORK/cmp$inject.txt" ||
    { cat "$WORK/cmp$inject.txt"; fail "golden $bad does not agree"; }
  before=$(grep -c "recomputed: op before it: .*: the kernel agrees" "$WORK/cmp$inject.txt" || true)
  want=$(( inject < 2 ? inject * 2 : 4 ))  # two ops before it (fewer at the start), both sides
  [ "$before" = "$want" ] || { cat "$WORK/cmp$inject.txt"; fail "$before ops before $bad agree, expected $want"; }
  # Every API of the target's dump: the injected one disagrees, all others (downstream too) agree.
  "$BIN" opcheck --json "$WORK/i$inject/npu/step0/rank0" > "$WORK/op$inject.json" || true
  "$PY" - "$WORK/op$inject.json" "$bad" "${#apis[@]}" <<'PYEOF'
import json, sys
res = [r["my"] for r in json.load(open(sys.argv[1]))["results"]]
assert len(res) == int(sys.argv[3]), "%d results, expected %s" % (len(res), sys.argv[3])
for r in res:
    want = "disagrees" if r["op_name"] == sys.argv[2] else "agrees"
    assert r["verdict"] == want, "%s: %s, expected %s (%s)" % (r["op_name"], r["verdict"], want, r.get("detail", ""))
PYEOF
  echo "opcheck_msprobe: $bad injected: it disagrees; ${#apis[@]} APIs checked, the others agree"
done

"$PY" "$SRC/tests/tools/opgen_msprobe.py" chain "$WORK/clean" > /dev/null
"$BIN" compare -tp "$WORK/clean/npu/step0" -gp "$WORK/clean/bench/step0" -o "$WORK/outc" --recompute > "$WORK/cmpc.txt" ||
  { cat "$WORK/cmpc.txt"; fail "noise-only compare exited non-zero"; }
! grep -q "first divergence" "$WORK/cmpc.txt" || fail "a noise-only pair has a first divergence"
"$BIN" opcheck -q "$WORK/clean/npu/step0/rank0" --golden "$WORK/clean/bench/step0/rank0" ||
  fail "a noise-only dump has an API that does not agree (exit $?)"
echo "opcheck_msprobe: noise-only: no first divergence, every API agrees on both sides"
