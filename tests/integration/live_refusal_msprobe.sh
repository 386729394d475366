#!/bin/bash
# watch of a directory that holds the msProbe dump_path rather than being it (docs/resolve.md
# "msProbe trees", issue 40): the model creates ROOT/npu/step0/... after the start. No pass can
# pair ROOT with the golden's dump_path, so waiting for files would wait for ever: the refusal is
# a warning naming the watch command to type, said once, and no event is written; the command it
# names then compares (its events name the injected API).
# Usage: live_refusal_msprobe.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"
REPLAY_MS="python3 $HERE/live_replay_msprobe.py"

"$GEN" msprobe --out "$T/gen" --framework pytorch --steps 2 --ranks 1 --ops 8 --hidden 16 --rows 4 --seed 5 \
  --noise 1e-3 --diverge-at 3 --diverge-scale 0.3 >/dev/null
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence'])" "$T/gen/scenario.json")
cp -r "$T/gen/bench" "$T/golden"
mkdir -p "$T/w"
start_watch "$T/watch.log" "$T/w" "$T/golden" "$T/ev.jsonl"
$REPLAY_MS "$T/gen/npu" "$T/w/npu" >/dev/null
refusal="warning: $T/w: live compare with $T/golden cannot pair what it found: .*it holds msProbe dumps npu: give the one to compare, e.g. msit-compact watch $T/w/npu --golden $T/golden"
wait_until 30 "grep -q '$refusal' '$T/watch.log'" || fail "no warning naming the command to type"
stop_watch
[ "$(grep -c 'cannot pair what it found' "$T/watch.log")" = 1 ] || fail "the refusal is not said exactly once"
[ "$(lines "$T/ev.jsonl")" = 0 ] || fail "events written although nothing was paired: $(cat "$T/ev.jsonl")"

# The command it names: the same dump, replayed again into a fresh dump_path.
rm -rf "$T/w2" && mkdir -p "$T/w2/npu"
start_watch "$T/watch2.log" "$T/w2/npu" "$T/golden" "$T/ev2.jsonl"
$REPLAY_MS "$T/gen/npu" "$T/w2/npu" --hold-after-step 0 --until "$T/ev2.jsonl" --count 1 --timeout 60 ||
  fail "the suggested command wrote no event while step 1 was dumping"
grep -q "\"op\":\"$want\"" "$T/ev2.jsonl" || fail "the event does not name $want: $(cat "$T/ev2.jsonl")"
stop_watch
echo "live_refusal_msprobe: watch ROOT (holding the dump_path) warned once with the command; that command named $want: ok"
