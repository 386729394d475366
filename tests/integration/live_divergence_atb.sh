#!/bin/bash
# Live divergence, ATB vs torch (issue 30, docs/live-divergence.md "How the live comparer
# decides"): `watch ATB --golden TORCH --op-mapping-file W/op_mapping` while an msit-dumpgen
# Llama-like ATB side is replayed into the watched dir file by file.
#  (a) with one Linear output injected (RED 0.05), the event names the injected ATB node before
#      the stream ends (the replay holds after token 0 until the event is written), and it is the
#      op `compare --cl api --op-mapping-file` names on the same trees afterwards;
#  (b) a noise-only ATB stream raises nothing, once both its tokens are judged.
# Usage: live_divergence_atb.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"
# The watched dir is $DUMP (live_lib.sh), the msit_dump_* directory itself (the ATB layout:
# tensors/PID_DEVICE/TOKEN/ and the model/ topology), as a model dumping into it would create.

gen() {  # NAME GEN_ARGS...: the Llama-like pair of compare_flows.tsv rows atb_torch_*
  local name=$1
  shift
  "$GEN" atb --model llama --out "$T/$name" --layers 12 --hidden 64 --rows 8 --noise 1e-3 --tokens 2 "$@" >/dev/null
}

event_field() { python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readlines()[0])[sys.argv[2]])" "$1" "$2"; }
n_dumps() { find "$1" -type f ! -name '*.txt' ! -name '*.json' | wc -l; }

# compare's first divergence (the ATB node of the row marked first) of token 0, after the stream.
compare_first() {  # MY GOLDEN MAPPING OUT
  mkdir -p "$4"
  "$BIN" compare -m "$1" -g "$2" -o "$4" --cl api --op-mapping-file "$3" -q >"$4/log" 2>&1 || true
  python3 - "$4" <<'PY'
import csv, glob, re, sys
rows = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/msit_cmp_report_*.csv")[0])))
first = [r for r in rows if r["divergence"] == "first" and r["token_id"] == "0"]
if not first:
    print("-")
else:
    # .../tensors/0_200/0/<node path>/after/outtensor0.bin -> <node path>
    m = re.search(r"/0_200/0/(.*)/(?:before|after)/", first[0]["my_data_path"])
    print(m.group(1) if m else first[0]["my_data_path"])
PY
}

# (a) o_proj of layer 6 (LinearOperation #45) at RED 0.05; the stream holds after token 0.
gen lin --seed 7 --diverge-type LinearOperation --diverge-nth 45 --diverge-scale 0.05
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence']['atb_node'])" "$T/lin/scenario.json")
[ "$want" = 6_DecoderLayer/5_LinearOperation ] || fail "(a) scenario: $(cat "$T/lin/scenario.json")"
mkdir -p "$T/w1/$DUMP"
cp -r "$T/lin/$TORCH" "$T/g1"
start_watch "$T/watch1.log" "$T/w1/$DUMP" "$T/g1" "$T/ev1.jsonl" --op-mapping-file "$T/lin/op_mapping"
$REPLAY "$T/lin/$ATB" "$T/w1/$DUMP" --hold-after-token 0 --until "$T/ev1.jsonl" --timeout 60 ||
  fail "(a) no event while the stream was held after token 0"
[ "$(event_field "$T/ev1.jsonl" op)" = "$want" ] || fail "(a) event names $(event_field "$T/ev1.jsonl" op), injected $want"
[ "$(event_field "$T/ev1.jsonl" token)" = 0 ] || fail "(a) event token $(event_field "$T/ev1.jsonl" token)"
n_files=$(n_dumps "$T/lin/$ATB")
wait_until 60 "[ \"\$(summary_count '$T/w1/$DUMP' 2>/dev/null)\" -ge $n_files ] 2>/dev/null" || fail "(a) stream not summarised"
stop_watch
got=$(compare_first "$T/w1/$DUMP" "$T/g1" "$T/lin/op_mapping" "$T/c1")
[ "$got" = "$want" ] || fail "(a) compare names $got, live named $want"
echo "live_divergence_atb: (a) event names $want before the stream ended, as compare does: ok"

# (b) noise only: the whole stream summarised and both tokens judged (the log says so), nothing raised.
gen noise --seed 5
mkdir -p "$T/w2/$DUMP"
cp -r "$T/noise/$TORCH" "$T/g2"
start_watch "$T/watch2.log" "$T/w2/$DUMP" "$T/g2" "$T/ev2.jsonl" --op-mapping-file "$T/noise/op_mapping"
$REPLAY "$T/noise/$ATB" "$T/w2/$DUMP"
n_files=$(n_dumps "$T/noise/$ATB")
wait_until 60 "[ \"\$(summary_count '$T/w2/$DUMP' 2>/dev/null)\" -ge $n_files ] 2>/dev/null" || fail "(b) stream not summarised"
for tok in 0 1; do
  wait_until 60 "grep -q 'token $tok judged clean' '$T/watch2.log'" || fail "(b) token $tok not judged"
done
stop_watch
[ "$(lines "$T/ev2.jsonl")" = 0 ] || fail "(b) noise only raised: $(cat "$T/ev2.jsonl")"
[ "$(compare_first "$T/w2/$DUMP" "$T/g2" "$T/noise/op_mapping" "$T/c2")" = - ] || fail "(b) compare names an op on noise"
echo "live_divergence_atb: (b) noise only: ok"
