#!/usr/bin/env bash
# watch --golden --recompute (docs/live-divergence.md "Recomputing the diverging op"): an
# msit-dumpgen model whose Add_7 got an injected error in its own output is replayed into the
# watched root; the event of the live first divergence (Add_7) carries opcheck's verdicts: Add_7
# disagrees with its own inputs, and the 2 ops before it that --keep-raw-near-divergence 2 keeps
# are recomputed from their held raw files and do not disagree. Waits on the events file.
# Usage: live_recompute.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"

"$GEN" model --out "$T/m" --ops 12 --tokens 1 --diverge-at 7 --diverge-local --seed 5 >/dev/null
mkdir -p "$T/w"
cp -r "$T/m/msit_fx_dump" "$T/g"
start_watch "$T/watch.log" "$T/w" "$T/g" "$T/ev.jsonl" --keep-raw-near-divergence 2 --recompute
$REPLAY "$T/m/msit_ge_dump" "$T/w"
wait_until 120 "[ \$(lines '$T/ev.jsonl') -ge 1 ]" || fail "no divergence event"
stop_watch
python3 - "$T/ev.jsonl" <<'PY' || fail "the event's recompute lines: $(cat "$T/ev.jsonl")"
import json, sys
e = json.loads(open(sys.argv[1]).readline())
assert e["op"] == "Add_7", e["op"]
lines = e["recompute"]
assert lines[0].startswith("first divergence: my Add_7 (Add): the kernel disagrees with its own inputs"), lines[0]
before = [l for l in lines if l.startswith("op before it: my ")]
assert len(before) == 2, lines
assert not any("disagrees" in l for l in before), before
assert any("agrees with its inputs" in l for l in before), before
PY
grep -q "recomputed: first divergence: my Add_7 (Add): the kernel disagrees" "$T/watch.log" ||
  fail "the log line has no recompute verdict"
echo "live_recompute: Add_7 disagrees, the 2 kept ops before it do not: ok"
