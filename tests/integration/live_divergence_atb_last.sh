#!/bin/bash
# Live divergence, the last token of an ATB/torch run (issue 30, docs/live-divergence.md "ATB and
# torch", rule 6): `watch ATB --golden TORCH --op-mapping-file` while an msit-dumpgen Llama-like
# ATB stream of 2 tokens is replayed into the watched dir. The golden was written beforehand (its
# files' write times an hour old), so it is done with each token by its write times.
#  (a) every token diverges (a Linear output injected at RED 0.05): the last token's event names
#      the injected node, and the log says the watched side was done with it by rule 6 (the very
#      files of its final previous token, all whole). The watched side's time rules are off
#      (MSIT_TEST_NO_TIME_RULES=watched, common/base/test_hooks.h), so on a loaded machine too
#      only an event rule can answer it; the events equal `compare --cl api`'s first divergences;
#  (b) a noise-only stream: its last token is judged clean by rule 6 as well, nothing raised.
# Usage: live_divergence_atb_last.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"

gen() {  # NAME GEN_ARGS...: the Llama-like pair of live_divergence_atb.sh, golden written beforehand
  local name=$1
  shift
  "$GEN" atb --model llama --out "$T/$name" --layers 12 --hidden 64 --rows 8 --noise 1e-3 --tokens 2 "$@" >/dev/null
  cp -r "$T/$name/$TORCH" "$T/$name.golden"
  find "$T/$name.golden" -exec touch -h -d '1 hour ago' {} +
}
n_dumps() { find "$1" -type f ! -name '*.txt' ! -name '*.json' | wc -l; }
rule6='watched side done by the files of its final previous token, all whole (rule 6)'

# (a) o_proj of layer 6 (LinearOperation #45) at RED 0.05, in both tokens; the stream at once.
gen lin --seed 7 --diverge-type LinearOperation --diverge-nth 45 --diverge-scale 0.05
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence']['atb_node'])" "$T/lin/scenario.json")
mkdir -p "$T/w1/$DUMP"
MSIT_TEST_NO_TIME_RULES=watched start_watch "$T/watch1.log" "$T/w1/$DUMP" "$T/lin.golden" "$T/ev1.jsonl" --op-mapping-file "$T/lin/op_mapping"
$REPLAY "$T/lin/$ATB" "$T/w1/$DUMP"
wait_until 60 "[ \$(lines '$T/ev1.jsonl') -ge 2 ]" || fail "(a) no event for the last token: $(cat "$T/ev1.jsonl" 2>/dev/null)"
python3 - "$T/ev1.jsonl" "$want" <<'PY' || fail "(a) events: $(cat "$T/ev1.jsonl")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
last = [e for e in ev if e["token"] == "1"]
assert len(ev) == 2 and len(last) == 1 and last[0]["op"] == sys.argv[2], ev
assert last[0]["my_path"] and last[0]["golden_path"] and last[0]["rank"] is None, last
PY
grep -q "token 1 final: $rule6" "$T/watch1.log" ||
  fail "(a) the last token was not final by rule 6: $(grep 'token 1 final' "$T/watch1.log")"
n_files=$(n_dumps "$T/lin/$ATB")
wait_until 60 "[ \"\$(summary_count '$T/w1/$DUMP' 2>/dev/null)\" -ge $n_files ] 2>/dev/null" || fail "(a) stream not summarised"
stop_watch
echo "live_divergence_atb_last: (a) the last token answered by rule 6, event names $want: ok"

mkdir -p "$T/c1"
"$BIN" compare -m "$T/w1/$DUMP" -g "$T/lin.golden" -o "$T/c1" --cl api --op-mapping-file "$T/lin/op_mapping" -q \
  >"$T/c1/log" 2>&1 || true
python3 - "$T/ev1.jsonl" "$T/c1" <<'PY' || fail "(a) live events differ from compare's first divergences"
import csv, glob, json, re, sys
ev = {(e["token"], e["op"]) for e in map(json.loads, open(sys.argv[1]))}
rows = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/msit_cmp_report_*.csv")[0])))
# .../tensors/0_200/TOKEN/<node path>/after/outtensor0.bin -> <node path>
node = lambda p: re.search(r"/0_200/\d+/(.*)/(?:before|after)/", p).group(1)
cmp = {(r["token_id"], node(r["my_data_path"])) for r in rows if r["divergence"] == "first"}
assert ev == cmp, (ev, cmp)
PY
echo "live_divergence_atb_last: (a) equals compare --cl api on the same trees: ok"

# (b) noise only: the last token judged clean by rule 6, nothing raised.
gen noise --seed 5
mkdir -p "$T/w2/$DUMP"
MSIT_TEST_NO_TIME_RULES=watched start_watch "$T/watch2.log" "$T/w2/$DUMP" "$T/noise.golden" "$T/ev2.jsonl" --op-mapping-file "$T/noise/op_mapping"
$REPLAY "$T/noise/$ATB" "$T/w2/$DUMP"
wait_until 60 "grep -q 'token 1 judged clean' '$T/watch2.log'" || fail "(b) the last token not judged"
grep -F "token 1 judged clean (no divergence above " "$T/watch2.log" | grep -qF "); final: $rule6" ||
  fail "(b) the last token not judged by rule 6: $(grep 'token 1 judged' "$T/watch2.log")"
grep -q 'token 0 judged clean' "$T/watch2.log" || fail "(b) token 0 not judged"
stop_watch
[ "$(lines "$T/ev2.jsonl")" = 0 ] || fail "(b) noise only raised: $(cat "$T/ev2.jsonl")"
echo "live_divergence_atb_last: (b) noise only, the last token judged clean by rule 6: ok"
