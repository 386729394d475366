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
source "$(dirname "$0")/live_lib.sh" msit-live-atb
TORCH=torch/msit_dump_20260101_000000/torch_tensors/cpu_100
ATB=atb/msit_dump_20260101_000000
DUMP=msit_dump_20260101_000000

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
      drive "$W/lat/$ATB" "$d" "$PACE_MS" "$W/$side$r.jsonl" "$W/$side$r.json"
      stop_watch
      keep_run "$side$r"
      rule=$(grep -o 'token 1 final: watched side done by [^,]*' "$W/$side$r.log" | head -1)
      latencies "$side$r" | while IFS=$'\t' read -r token _ _ close_ms end_ms; do
        [ "$token" = 1 ] || continue
        echo "last-token alert $side run $r: close->event $close_ms ms, stream end->event $end_ms ms ($rule)"
      done
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
