#!/usr/bin/env bash
# Live divergence on ATB/torch dumps (issue 30, docs/live-divergence.md "ATB and torch"): an A/B
# of two builds, interleaved (A B, B A, ...):
#  1. last-token alert latency: `watch ATB --golden TORCH --op-mapping-file` while an msit-dumpgen
#     Llama-like 2-token ATB stream (a Linear injected at RED 0.05 in both tokens) is replayed
#     file by file (PACE_MS between files); the golden was written beforehand. For the last
#     token's event: close of the diverging file -> event line seen (the issue's alert latency;
#     the events file is polled every 2 ms), and end of the stream -> event;
#  2. pass cost on a big ATB tree (BIG_TOKENS tokens, a tree as it is on disk): live_pass_bench's
#     first pass and its passes once every token is answered (the steady state of a watch).
# Usage: bench/live_divergence_atb.sh BUILD_B BUILD_A [RUNS] [BIG_TOKENS]
#   BUILD_B: the build under test (its msit-dumpgen generates the data); BUILD_A: the baseline.
#   RUNS=0 skips 1; BIG_TOKENS=0 skips 2. KEEP_LOGS=DIR keeps part 1's watch logs, events files
#   and replay times (DIR/{A,B}RUN.PID.{log,jsonl,json}).
set -euo pipefail
B=$1; A=$2; RUNS=${3:-5}; BIG=${4:-120}; PACE_MS=${PACE_MS:-2}
GEN=$B/tests/tools/msit-dumpgen
HERE="$(cd "$(dirname "$0")" && pwd)"
W="$(mktemp -d "${TMPDIR:-/var/tmp}/msit-live-atb.XXXXXX")"
WATCH_PID=""
trap '[ -z "$WATCH_PID" ] || kill -9 "$WATCH_PID" 2>/dev/null; rm -rf "$W"' EXIT
export MSIT_COMPACT_SUMMARY_FORMAT=store
TORCH=torch/msit_dump_20260101_000000/torch_tensors/cpu_100
ATB=atb/msit_dump_20260101_000000
DUMP=msit_dump_20260101_000000

# drive.py SRC DST PACE_MS EVENTS RESULT ITDIR: replays SRC into DST in live_replay.py's order,
# notes when each events line appears, writes RESULT (JSON): close time per file, event times,
# end of the stream.
cat >"$W/drive.py" <<'PY'
import json, os, shutil, sys, threading, time
sys.path.insert(0, sys.argv[6])
from live_replay import token_of, ts_of, natural
src, dst, pace, events, result = sys.argv[1], sys.argv[2], float(sys.argv[3]) / 1000, sys.argv[4], sys.argv[5]
other, dumps = [], []
for root, dirs, files in os.walk(src):
    for f in files:
        rel = os.path.relpath(os.path.join(root, f), src)
        (other if f.endswith((".txt", ".json")) else dumps).append(rel)
dumps.sort(key=lambda r: (token_of(r), ts_of(os.path.basename(r)), natural(r)))
seen, stop = [], threading.Event()
def poll():
    n = 0
    while not stop.is_set():
        try:
            lines = open(events).read().count("\n")
        except FileNotFoundError:
            lines = 0
        now = time.time()
        seen.extend([now] * (lines - n)); n = max(n, lines)
        time.sleep(0.002)
def put(rel):
    out = os.path.join(dst, rel)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    shutil.copyfile(os.path.join(src, rel), out)
    return out
for rel in sorted(other):
    put(rel)
threading.Thread(target=poll, daemon=True).start()
close = {}
for rel in dumps:
    if pace:
        time.sleep(pace)
    close[os.path.realpath(put(rel))] = time.time()
end = time.time()
want = len({token_of(r) for r in dumps})
while len(seen) < want and time.time() < end + 60:
    time.sleep(0.01)
stop.set()
json.dump({"close": close, "seen": seen, "end": end}, open(result, "w"))
PY

start_watch() {  # BIN DIR LOG [ARGS...]
  local bin=$1 dir=$2 log=$3; shift 3
  "$bin" watch "$dir" "$@" >"$log" 2>&1 &
  WATCH_PID=$!
  for _ in $(seq 600); do grep -q 'start-up scan done' "$log" 2>/dev/null && return 0; sleep 0.05; done
  echo "watch did not start: $(tail -5 "$log")" >&2; exit 1
}
stop_watch() { kill -TERM "$WATCH_PID"; wait "$WATCH_PID" || true; WATCH_PID=""; }

echo "live divergence ATB bench: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); B=$B A=$A"
# 1. Last-token alert latency.
if [ "$RUNS" != 0 ]; then
  "$GEN" atb --model llama --out "$W/lat" --layers 12 --hidden 64 --rows 8 --noise 1e-3 --tokens 2 --seed 7 \
    --diverge-type LinearOperation --diverge-nth 45 --diverge-scale 0.05 >/dev/null
  cp -r "$W/lat/$TORCH" "$W/golden"
  find "$W/golden" -exec touch -h -d '1 hour ago' {} +
  for r in $(seq "$RUNS"); do
    order="A B"; [ $((r % 2)) = 1 ] || order="B A"
    for side in $order; do
      bin=$A/cli/msit-compact; [ $side = A ] || bin=$B/cli/msit-compact
      d="$W/w-$side$r/$DUMP"; mkdir -p "$d"
      start_watch "$bin" "$d" "$W/$side$r.log" --golden "$W/golden" --events "$W/$side$r.jsonl" \
        --op-mapping-file "$W/lat/op_mapping"
      python3 "$W/drive.py" "$W/lat/$ATB" "$d" "$PACE_MS" "$W/$side$r.jsonl" "$W/$side$r.json" \
        "$HERE/../tests/integration"
      stop_watch
      # KEEP_LOGS=DIR keeps each run's watch log, events and replay times.
      [ -z "${KEEP_LOGS:-}" ] || for x in log jsonl json; do cp "$W/$side$r.$x" "$KEEP_LOGS/$side$r.$$.$x"; done
      python3 - "$W/$side$r.jsonl" "$W/$side$r.json" "$side" "$r" "$(grep -o 'token 1 final: watched side done by [^,]*' "$W/$side$r.log" | head -1)" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
res = json.load(open(sys.argv[2]))
for e, seen in zip(ev, res["seen"]):
    if e["token"] != "1":
        continue
    closed = res["close"][e["my_path"].split(",")[0]]
    print("last-token alert %s run %s: close->event %.0f ms, stream end->event %.0f ms (%s)"
          % (sys.argv[3], sys.argv[4], (seen - closed) * 1000, (seen - res["end"]) * 1000, sys.argv[5]))
PY
      rm -rf "$W/w-$side$r"
    done
  done | tee "$W/lat.txt"
  python3 - "$W/lat.txt" <<'PY'
import re, statistics as st, sys
v = {"A": [], "B": []}
for l in open(sys.argv[1]):
    m = re.match(r"last-token alert (\w) run \d+: close->event (\d+) ms, stream end->event (-?\d+) ms", l)
    if m:
        v[m[1]].append((int(m[2]), int(m[3])))
for i, name in ((0, "close->event"), (1, "stream end->event")):
    if v["A"] and v["B"]:
        a, b = st.median(x[i] for x in v["A"]), st.median(x[i] for x in v["B"])
        print("last-token %-18s median A %6.0f ms  B %6.0f ms  ratio B/A %.2f  (max A %d, B %d; %d runs each)"
              % (name, a, b, b / a if a else float("nan"), max(x[i] for x in v["A"]), max(x[i] for x in v["B"]),
                 len(v["A"])))
PY
fi

# 2. Pass cost on a big ATB tree (no op mapping: the baseline's live_pass_bench takes none).
if [ "$BIG" != 0 ]; then
  "$GEN" atb --model llama --out "$W/big" --layers 12 --hidden 16 --rows 2 --noise 1e-3 --tokens "$BIG" --seed 5 >/dev/null
  echo "big tree: $BIG tokens, $(find "$W/big/$ATB" -type f | wc -l) ATB files, $(find "$W/big/$TORCH" -type f | wc -l) torch files"
  for r in 1 2; do
    order="A B"; [ $((r % 2)) = 1 ] || order="B A"
    for side in $order; do
      pb=$A/bench/live_pass_bench; [ $side = A ] || pb=$B/bench/live_pass_bench
      "$pb" "$W/big/$ATB" "$W/big/$TORCH" 3 | grep '^pass' | sed "s/^/$side round $r: /"
    done
  done | tee "$W/pass.txt"
fi
