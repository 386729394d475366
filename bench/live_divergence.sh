#!/usr/bin/env bash
# Cost of `watch --golden` (issue 30, docs/live-divergence.md), on msit-dumpgen llama-chain GE/FX
# pairs whose GE side is replayed file by file into the watched dir (the order of
# tests/integration/live_replay.py):
#  1. alert latency: the replay's close time of the diverging file -> the events-file line seen
#     (the file is polled every 2 ms: that is the resolution), RUNS runs with a paced replay
#     (PACE_MS between files, as a model computes); median, max and p99, apart for the tokens
#     followed by another token (final one pass after the next token is seen) and the last
#     token (rules 4 and 5, else 3 s of quiet; docs/live-divergence.md "When a token's answer is
#     final"); the rule that made each token final is printed from the log;
#  2. watch with vs without --golden on the same unpaced replayed stream, interleaved (A B A B):
#     close -> deleted p50/p99 (status JSON latency_ms) and throughput (files / (last file
#     gone - first file written)); medians and ratios golden/plain.
# Default settle. Usage: bench/live_divergence.sh [BUILD_DIR] [RUNS] [ROUNDS] [TOKENS]
# MSIT_BIN=PATH runs another msit-compact (an A/B of two builds, interleaved by the caller);
# ROUNDS=0 measures the alert latency only. KEEP_LOGS=DIR keeps part 1's watch logs, events files
# and replay times (DIR/latRUN.PID.{log,jsonl,json}).
# GOLDEN=concurrent: part 1's golden does not exist beforehand; it is replayed at the same time as
# the watched side, files interleaved by progress (tests/integration/live_replay_pair.py's order:
# both streams end together, the golden's last file after the watched side's; PACE_MS before each
# watched file only), and the latency runs from the later of the two closes (the diverging file
# and its golden counterpart).
set -euo pipefail
BUILD=${1:-build}; RUNS=${2:-5}; ROUNDS=${3:-3}; TOKENS=${4:-40}; PACE_MS=${PACE_MS:-10}; GOLDEN=${GOLDEN:-before}
BIN=${MSIT_BIN:-$BUILD/cli/msit-compact}; GEN=$BUILD/tests/tools/msit-dumpgen
source "$(dirname "$0")/live_lib.sh" msit-live

gen() {  # OUT TOKENS: the pair of tests/integration/live_divergence.sh (a), a MatMul perturbed
  "$GEN" model --chain llama --ops 31 --tokens "$2" --rows 8 --hidden 64 --noise 1e-3 --ge-dtype float32 \
    --reduced MatMul=bfloat16 --seed 7 --diverge-type MatMul --diverge-nth 2 --diverge-scale 0.05 --out "$1" >/dev/null
}

echo "live divergence bench: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null)"
# 1. Alert latency.
gen "$W/lat" 3
for r in $(seq "$RUNS"); do
  d="$W/lat-w$r"; mkdir -p "$d"
  g="$W/lat/msit_fx_dump"; both=()
  [ "$GOLDEN" != concurrent ] || { g="$W/lat-g$r"; mkdir -p "$g"; both=("$W/lat/msit_fx_dump" "$g"); }
  start_watch "$BIN" "$d" "$W/lat$r.log" --golden "$g" --events "$W/lat$r.jsonl"
  drive "$W/lat/msit_ge_dump" "$d" "$PACE_MS" "$W/lat$r.jsonl" "$W/lat$r.json" "${both[@]}"
  stop_watch
  grep -ho 'token [0-9]* final: .*' "$W/lat$r.log" | sed "s/^/rules run $r: /"
  keep_run "lat$r"
  latencies "lat$r" | while IFS=$'\t' read -r token kind op close_ms _; do
    echo "alert run $r token $token ($kind) op $op: $close_ms ms"
  done
  rm -rf "$d" "$W/lat-g$r"
done | tee "$W/lat.txt"

# 2. With vs without --golden, interleaved, on the same unpaced stream.
[ "$ROUNDS" = 0 ] || gen "$W/tp" "$TOKENS"
for r in $(seq "$ROUNDS"); do
  # A B B A ...: the root disk slows down as files are created and removed (docs/benchmarks.md,
  # "The machines"), so neither side always runs second.
  order="plain golden"; [ $((r % 2)) = 1 ] || order="golden plain"
  for mode in $order; do
    d="$W/tp-$mode$r"; mkdir -p "$d"
    args=(); [ $mode = plain ] || args=(--golden "$W/tp/msit_fx_dump" --events "$W/tp-$mode$r.jsonl")
    start_watch "$BIN" "$d" "$W/tp-$mode$r.log" --json-status "$d.status.json" "${args[@]}"
    drive "$W/tp/msit_ge_dump" "$d" 0 - "$W/tp-$mode$r.json"
    stop_watch
    python3 - "$d.status.json" "$W/tp-$mode$r.json" "$mode" "$r" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import json, sys
s, res = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
l = s["latency_ms"]
print("stream %s round %s: %d files, replay %.2f s, done %.2f s after the first write (%d raw left):"
      " %.0f files/s; close->deleted p50 %.0f ms p99 %.0f ms [load %s]"
      % (sys.argv[3], sys.argv[4], res["files"], res["end"] - res["first"], res["done"] - res["first"], res["left"],
         res["files"] / (res["done"] - res["first"]), l["p50"], l["p99"], sys.argv[5]))
PY
    rm -rf "$d"
  done
done | tee "$W/tp.txt"

python3 - "$W/lat.txt" "$W/tp.txt" <<'PY'
import re, statistics as st, sys
lat = {"next": [], "last": []}
for l in open(sys.argv[1]):
    m = re.search(r"\((next|last)\) op \S+: (\d+) ms", l)
    if m:
        lat[m[1]].append(int(m[2]))
for k, name in (("next", "tokens followed by another"), ("last", "last token")):
    if lat[k]:
        q = sorted(lat[k])
        p99 = q[min(len(q) - 1, -(-99 * len(q) // 100) - 1)]  # nearest rank
        print("alert latency, %s: median %d ms, max %d ms, p99 %d ms (%d events)"
              % (name, st.median(q), max(q), p99, len(q)))
runs = {"plain": [], "golden": []}
for l in open(sys.argv[2]):
    m = re.match(r"stream (\w+) round .*: (\d+) files/s; close->deleted p50 (\d+) ms p99 (\d+) ms", l)
    if m:
        runs[m[1]].append(tuple(int(x) for x in m.groups()[1:]))
if runs["plain"] and runs["golden"]:
    med = lambda m, i: st.median(x[i] for x in runs[m])
    for i, name in ((0, "throughput files/s"), (1, "close->deleted p50 ms"), (2, "close->deleted p99 ms")):
        print("%-22s plain %6.0f  golden %6.0f  ratio golden/plain %.2f" % (name, med("plain", i), med("golden", i),
                                                                          med("golden", i) / med("plain", i)))
PY
