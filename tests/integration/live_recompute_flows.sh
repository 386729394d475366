#!/usr/bin/env bash
# watch --golden --recompute on the ATB/torch and msProbe live flows (docs/live-divergence.md
# "Recomputing the diverging op"); the torchair flows are live_recompute.sh.
#  (a) ATB vs torch: an `msit-dumpgen atb --model llama --op-params` ATB side (op_param.json and
#      weight intensors in each leaf op directory) whose o_proj Linear of layer 0 got an error in
#      its own output is replayed into the watched dir: the event names it, its recomputation
#      disagrees with its own inputs, and of the 2 kept nodes before it the Linear agrees and the
#      SelfAttention (outside the recomputed set) says why it is not recomputed.
#  (b) msProbe: an opgen_msprobe.py network whose silu (API 3) is wrong from right inputs is
#      replayed into the watched dump_path: the step's event carries silu "disagrees" on the
#      target, "agrees" on the golden, and the API kept before it agrees on both sides.
# Waits on the events file.
# Usage: live_recompute_flows.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"

# (a) ATB vs torch.
W="$T/w/$DUMP"
"$GEN" atb --model llama --out "$T/a" --layers 12 --tokens 1 --seed 4 --op-params \
  --diverge-type LinearOperation --diverge-nth 3 --diverge-local >/dev/null
mkdir -p "$W"
cp -r "$T/a/$TORCH" "$T/g"
start_watch "$T/watch_a.log" "$W" "$T/g" "$T/ev_a.jsonl" --op-mapping-file "$T/a/op_mapping" \
  --keep-raw-near-divergence 2 --recompute
$REPLAY "$T/a/$ATB" "$W"
wait_until 60 "[ \$(lines '$T/ev_a.jsonl') -ge 1 ]" || fail "(a) no divergence event"
stop_watch
python3 - "$T/ev_a.jsonl" <<'PY' || fail "(a) the event's recompute lines: $(cat "$T/ev_a.jsonl")"
import json, sys
e = json.loads(open(sys.argv[1]).readline())
assert e["op"] == "0_DecoderLayer/5_LinearOperation", e["op"]
lines = e["recompute"]
assert lines[0].startswith("first divergence: my 5_LinearOperation (LinearOperation): the kernel disagrees"), lines
before = [l for l in lines if l.startswith("op before it: my ")]
assert len(before) == 2, lines
assert before[0].startswith("op before it: my 4_SelfAttentionOperation (SelfAttentionOperation): not recomputed: "), before
assert before[1].startswith("op before it: my 3_LinearOperation (LinearOperation): the kernel agrees"), before
PY
grep -q "recomputed: first divergence: my 5_LinearOperation (LinearOperation): the kernel disagrees" "$T/watch_a.log" ||
  fail "(a) the log line has no recompute verdict"
echo "live_recompute_flows: (a) ATB: the injected Linear disagrees, the kept Linear before it agrees: ok"

# (b) msProbe.
PY3=
for p in python3 /usr/bin/python3; do "$p" -c 'import numpy' 2>/dev/null && { PY3=$p; break; }; done
if [ -z "$PY3" ]; then
  echo "live_recompute_flows: (b) SKIPPED: no python3 with numpy"
  exit 0
fi
mapfile -t apis < <("$PY3" "$HERE/../tools/opgen_msprobe.py" chain "$T/m" --inject 3)
bad=${apis[3]} prev=${apis[2]}
mkdir -p "$T/wm"
start_watch "$T/watch_m.log" "$T/wm" "$T/m/bench" "$T/ev_m.jsonl" --keep-raw-near-divergence 1 --recompute
python3 "$HERE/live_replay_msprobe.py" "$T/m/npu" "$T/wm"
wait_until 60 "[ \$(lines '$T/ev_m.jsonl') -ge 1 ]" || fail "(b) no divergence event"
stop_watch
python3 - "$T/ev_m.jsonl" "$bad" "$prev" <<'PY' || fail "(b) the event's recompute lines: $(cat "$T/ev_m.jsonl")"
import json, sys
e = json.loads(open(sys.argv[1]).readline())
bad, prev = sys.argv[2], sys.argv[3]
assert e["op"] == bad, e["op"]
lines = e["recompute"]
assert lines[0].startswith("first divergence: my %s (" % bad) and "the kernel disagrees" in lines[0], lines
assert lines[1].startswith("first divergence: golden %s (" % bad) and "the kernel agrees" in lines[1], lines
mine = [l for l in lines if l.startswith("op before it: my %s (" % prev)]
gold = [l for l in lines if l.startswith("op before it: golden %s (" % prev)]
assert len(mine) == 1 and "the kernel agrees" in mine[0], lines
assert len(gold) == 1 and "the kernel agrees" in gold[0], lines
PY
grep -q "recomputed: first divergence: my $bad (.*): the kernel disagrees" "$T/watch_m.log" ||
  fail "(b) the log line has no recompute verdict"
echo "live_recompute_flows: (b) msProbe: $bad disagrees on the target, agrees on the golden; $prev agrees: ok"
