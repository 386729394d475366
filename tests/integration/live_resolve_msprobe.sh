#!/bin/bash
# watch on msProbe trees through the resolver (docs/resolve.md "msProbe trees", issue 40):
# `watch DUMP_PATH --golden G/step0`, the golden given as a step folder that lacks rank 1. The
# watched dump_path is narrowed to its step 0; rank 0's event names the injected API before the
# dump ends (the replay holds after step 0 until the events are written), rank 1 is a
# not_compared event (it could hold the divergence), and the log says what was paired.
# Usage: live_resolve_msprobe.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"
REPLAY_MS="python3 $HERE/live_replay_msprobe.py"

"$GEN" msprobe --out "$T/gen" --framework pytorch --steps 2 --ranks 2 --ops 8 --hidden 16 --rows 4 --seed 5 \
  --noise 1e-3 --diverge-at 3 --diverge-scale 0.3 >/dev/null
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence'])" "$T/gen/scenario.json")
cp -r "$T/gen/bench" "$T/golden"
rm -r "$T/golden/step0/rank1" "$T/golden/step1/rank1"
mkdir -p "$T/w/npu"
start_watch "$T/watch.log" "$T/w/npu" "$T/golden/step0" "$T/ev.jsonl"
$REPLAY_MS "$T/gen/npu" "$T/w/npu" --hold-after-step 0 --until "$T/ev.jsonl" --count 2 --timeout 60 ||
  fail "no events for step 0 while step 1 was dumping: $(cat "$T/ev.jsonl" 2>/dev/null)"
got=$(python3 - "$T/ev.jsonl" <<'PY'
import json, sys
for e in map(json.loads, open(sys.argv[1])):
    print(e.get("kind", "divergence"), e["rank"], e["token"], e.get("op") or e.get("not_compared"))
PY
)
grep -qx "divergence 0 step0 $want" <<<"$got" || fail "no event naming $want for rank 0 step 0: $got"
grep -q "^not_compared 1  rank 1 of $T/w/npu has no counterpart in the golden" <<<"$got" ||
  fail "no not_compared event for rank 1: $got"
grep -q "live compare paired: my $T/w/npu (msProbe dump_path) with golden $T/golden/step0 (msProbe step folder): 1 dump.json pair; step 0 only; ranks rank0; no golden for my ranks 1" "$T/watch.log" ||
  fail "the log does not say what was paired: $(grep 'paired' "$T/watch.log")"
stop_watch
echo "live_resolve_msprobe: watch DUMP_PATH --golden G/step0 named $want for rank 0, rank 1 not compared: ok"
