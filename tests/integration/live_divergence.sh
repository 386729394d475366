#!/bin/bash
# Live divergence, GE vs FX (issue 30, docs/live-divergence.md): `watch GE --golden FX` while an
# msit-dumpgen model's GE side is replayed into the watched dir file by file.
#  (a) the event names the injected op before the stream ends (the replay holds after token 0
#      until the event is written);
#  (e) once the stream is done, the live answer equals `compare`'s first divergence on the same trees;
#  (b) a noise-only stream raises nothing;
#  (c) the golden replayed at the same time as the watched dump;
#  (d) kill -9 mid-stream, restart: exactly one event;
#  (f) --keep-raw-near-divergence 2 keeps the raw files of the guilty op and the 2 ops before it;
#  (g) a golden summarised beforehand (store).
# Usage: live_divergence.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"

gen() {  # NAME GEN_ARGS...: a llama-chain pair with kernel noise (as compare_noise_floor.sh)
  local name=$1
  shift
  "$GEN" model --chain llama --ops 31 --tokens 2 --rows 8 --hidden 64 --noise 1e-3 --ge-dtype float32 \
    --reduced MatMul=bfloat16 --out "$T/$name" "$@" >/dev/null
}

event_op() { python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readlines()[${2:-0}])['op'])" "$1"; }

# compare's first divergence of token 0 on the trees, after the stream.
compare_first() {  # MY GOLDEN OUT
  mkdir -p "$3"
  "$BIN" compare -m "$1" -g "$2" -o "$3" -q >"$3/log" 2>&1 || true
  python3 - "$3" <<'PY'
import csv, glob, os, sys
rows = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/msit_cmp_report_*.csv")[0])))
first = [os.path.basename(r["my_data_path"].split(",")[0]).split(".")[1] for r in rows
         if r["divergence"] == "first" and r["token_id"] == "0"]
print(first[0] if first else "-")
PY
}

# (a) + (e): a MatMul perturbed at RED 0.05 (propagated); the stream holds after token 0.
gen mm --seed 7 --diverge-type MatMul --diverge-nth 2 --diverge-scale 0.05
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence']['ge_name'])" "$T/mm/scenario.json")
mkdir -p "$T/w1"
cp -r "$T/mm/msit_fx_dump" "$T/g1"
start_watch "$T/watch1.log" "$T/w1" "$T/g1" "$T/ev1.jsonl"
$REPLAY "$T/mm/msit_ge_dump" "$T/w1" --hold-after-token 0 --until "$T/ev1.jsonl" --timeout 60 ||
  fail "(a) no event while the stream was held after token 0"
[ "$(event_op "$T/ev1.jsonl")" = "$want" ] || fail "(a) event names $(event_op "$T/ev1.jsonl"), injected $want"
# The whole stream summarised (and the last token judged): then compare on the same trees.
n_files=$(find "$T/mm/msit_ge_dump" -type f ! -name '*.txt' | wc -l)
wait_until 60 "[ \"\$(summary_count '$T/w1' 2>/dev/null)\" -ge $n_files ] 2>/dev/null" || fail "stream not summarised"
wait_until 30 "[ \$(lines '$T/ev1.jsonl') -ge 2 ]" || fail "(a) no event for token 1"
stop_watch
got=$(compare_first "$T/w1" "$T/g1" "$T/c1")
[ "$got" = "$want" ] || fail "(e) compare names $got, live named $want"
python3 - "$T/ev1.jsonl" "$T/c1" <<'PY' || fail "(e) live events differ from compare's first divergences"
import csv, glob, json, os, sys
ev = {(e["token"], e["op"]) for e in map(json.loads, open(sys.argv[1]))}
rows = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/msit_cmp_report_*.csv")[0])))
cmp = {(r["token_id"], os.path.basename(r["my_data_path"].split(",")[0]).split(".")[1]) for r in rows
       if r["divergence"] == "first"}
assert ev == cmp, (ev, cmp)
PY
want_mm=$want
echo "live_divergence: (a) event before the stream ended, (e) equals compare: ok"

# (b) noise only: the whole stream and both tokens judged, nothing raised.
gen noise --seed 7
mkdir -p "$T/w2"
cp -r "$T/noise/msit_fx_dump" "$T/g2"
start_watch "$T/watch2.log" "$T/w2" "$T/g2" "$T/ev2.jsonl"
$REPLAY "$T/noise/msit_ge_dump" "$T/w2"
n_files=$(find "$T/noise/msit_ge_dump" -type f ! -name '*.txt' | wc -l)
wait_until 60 "[ \"\$(summary_count '$T/w2' 2>/dev/null)\" -ge $n_files ] 2>/dev/null" || fail "(b) stream not summarised"
stop_watch
[ "$(lines "$T/ev2.jsonl")" = 0 ] || fail "(b) noise only raised: $(cat "$T/ev2.jsonl")"
[ "$(compare_first "$T/w2" "$T/g2" "$T/c2")" = - ] || fail "(b) compare names an op on noise"
echo "live_divergence: (b) noise only: ok"

# (c) golden dumped at the same time: both sides replayed concurrently, the golden after a lag
# (it is held until token 0 of the watched side is fully written).
gen sm --seed 8 --diverge-type SoftmaxV2 --diverge-scale 0.2 --diverge-local
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence']['ge_name'])" "$T/sm/scenario.json")
mkdir -p "$T/w3" "$T/g3"
start_watch "$T/watch3.log" "$T/w3" "$T/g3" "$T/ev3.jsonl"
$REPLAY "$T/sm/msit_fx_dump" "$T/g3" --hold-after-token 0 --until "$T/w3.token0" &
GOLDEN_PID=$!
PIDS+=("$GOLDEN_PID")
$REPLAY "$T/sm/msit_ge_dump" "$T/w3" --hold-after-token 0 --until "$T/ev3.jsonl" --timeout 60 --mark "$T/w3.held" &
MINE_PID=$!
PIDS+=("$MINE_PID")
# The watched side's token 0 is written when its replay holds: let the golden go on.
wait_until 60 "[ -f '$T/w3.held' ]" || fail "(c) watched stream stuck"
echo go >"$T/w3.token0"
wait "$GOLDEN_PID" || fail "(c) golden replay failed"
wait "$MINE_PID" || fail "(c) no event while the watched stream was held"
[ "$(event_op "$T/ev3.jsonl")" = "$want" ] || fail "(c) event names $(event_op "$T/ev3.jsonl"), injected $want"
stop_watch
echo "live_divergence: (c) golden dumped concurrently: ok"

# (d) kill -9 mid-stream after the event, restart, finish: token 0 reported exactly once.
gen mm2 --seed 7 --diverge-type MatMul --diverge-nth 2 --diverge-scale 0.05
mkdir -p "$T/w4"
cp -r "$T/mm2/msit_fx_dump" "$T/g4"
start_watch "$T/watch4.log" "$T/w4" "$T/g4" "$T/ev4.jsonl"
half=$(( $(find "$T/mm2/msit_ge_dump" -type f ! -name '*.txt' | wc -l) / 2 + 5 ))
$REPLAY "$T/mm2/msit_ge_dump" "$T/w4" --stop-after "$half"
wait_until 60 "[ \$(lines '$T/ev4.jsonl') -ge 1 ]" || fail "(d) no event before the kill"
kill -9 "$WATCH_PID"
wait "$WATCH_PID" 2>/dev/null || true
start_watch "$T/watch4b.log" "$T/w4" "$T/g4" "$T/ev4.jsonl"
$REPLAY "$T/mm2/msit_ge_dump" "$T/w4" --skip "$half"
n_files=$(find "$T/mm2/msit_ge_dump" -type f ! -name '*.txt' | wc -l)
wait_until 60 "[ \"\$(summary_count '$T/w4' 2>/dev/null)\" -ge $n_files ] 2>/dev/null" || fail "(d) stream not summarised after restart"
wait_until 30 "[ \$(lines '$T/ev4.jsonl') -ge 2 ]" || fail "(d) no event for token 1 after restart"
stop_watch
python3 - "$T/ev4.jsonl" <<'PY' || fail "(d) duplicated events: $(cat "$T/ev4.jsonl")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
ids = [e["id"] for e in ev]
assert len(ids) == len(set(ids)), ids
assert sorted(e["token"] for e in ev) == ["0", "1"], ev
PY
echo "live_divergence: (d) kill -9 and restart, one event per token: ok"

# (f) --keep-raw-near-divergence 2: the raw files of the guilty op and of the 2 ops before it
# stay (in each token), everything else is compacted; after a restart they are still kept.
mkdir -p "$T/w5"
cp -r "$T/mm/msit_fx_dump" "$T/g5"
keep_watch() {  # LOG
  "$BIN" watch "$T/w5" --golden "$T/g5" --events "$T/ev5.jsonl" --keep-raw-near-divergence 2 --settle-ms 50 >>"$1" 2>&1 &
  WATCH_PID=$!
  PIDS+=("$WATCH_PID")
  wait_until 30 "grep -q 'start-up scan done' '$1'" || fail "watch did not start"
}
raw_left() { find "$T/w5" -type f ! -name '*.txt' ! -name 'msit-summary*' ! -name '.*' -printf '%f\n' | sort; }
: >"$T/watch5.log"
keep_watch "$T/watch5.log"
$REPLAY "$T/mm/msit_ge_dump" "$T/w5"
n_files=$(find "$T/mm/msit_ge_dump" -type f ! -name '*.txt' | wc -l)
wait_until 60 "[ \$(lines '$T/ev5.jsonl') -ge 2 ]" || fail "(f) no events"
# Everything but the 3 ops x 2 tokens compacted.
wait_until 60 "[ \"\$(summary_count '$T/w5' 2>/dev/null)\" -ge $((n_files - 6)) ] 2>/dev/null && [ \$(raw_left | wc -l) = 6 ]" ||
  fail "(f) raw files left: $(raw_left | tr '\n' ' ')"
python3 - "$T/mm/scenario.json" <<PY || fail "(f) kept the wrong files: $(raw_left | tr '\n' ' ')"
import json, sys
ops = [o["ge_name"] for o in json.load(open(sys.argv[1]))["ops"]]
want = ops[ops.index("$want_mm") - 2: ops.index("$want_mm") + 1]
left = """$(raw_left)""".split()
assert sorted(f.split(".")[1] for f in left) == sorted(want * 2), (left, want)
PY
stop_watch
: >"$T/watch5b.log"
keep_watch "$T/watch5b.log"
wait_until 30 "grep -q 'kept raw' '$T/watch5b.log'" || fail "(f) kept files not judged again after the restart"
stop_watch
[ "$(raw_left | wc -l)" = 6 ] || fail "(f) kept files compacted after the restart"
[ "$(lines "$T/ev5.jsonl")" = 2 ] || fail "(f) events repeated after the restart"
echo "live_divergence: (f) raw files near the divergence kept, also after a restart: ok"

# (g) a golden already summarised (the default store of `compact`): same event, before the end.
mkdir -p "$T/w6"
cp -r "$T/mm/msit_fx_dump" "$T/g6"
"$BIN" compact "$T/g6" >/dev/null
[ -z "$(find "$T/g6" -name '*.npy')" ] || fail "(g) golden not compacted"
start_watch "$T/watch6.log" "$T/w6" "$T/g6" "$T/ev6.jsonl"
$REPLAY "$T/mm/msit_ge_dump" "$T/w6" --hold-after-token 0 --until "$T/ev6.jsonl" --timeout 60 ||
  fail "(g) no event with a summarised golden"
[ "$(event_op "$T/ev6.jsonl")" = "$want_mm" ] || fail "(g) event names $(event_op "$T/ev6.jsonl"), injected $want_mm"
stop_watch
echo "live_divergence: (g) summarised golden: ok"
