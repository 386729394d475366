#!/usr/bin/env bash
# Cost of `watch --golden` against plain `watch` (issue 30 "Cost", docs/live-divergence.md), in
# the same run, interleaved (A B B A ...), on one msit-dumpgen llama-chain model of TOKENS tokens:
#  small: its GE side (31 files a token, ~10 KB each) is replayed into the watched dir at RATE
#         files/s (default 5,000; a Python loop paced by schedule, the rate reached is printed);
#         the golden is its FX side summarised into one store (~83 files a token: 1,200 tokens
#         give ~100k golden files), so every pair matches and is evaluated;
#  large: `msit-dumpgen stream` of 64 KB-LARGE_MAX (default 64 MB) files at LARGE_MBPS (default 1000) for
#         LARGE_SECONDS into the watched dir, same golden (the stream's names pair with nothing:
#         each pass still indexes both trees);
# with --golden (small) the daemon then runs until every token is answered (an event, or "judged
# clean" in the log): "all answered N s after the last write" is how far the comparer lags;
# each run prints throughput (files / (last raw file gone - first written)), close -> deleted
# p50/p99 (status latency_ms) and the daemon's peak RSS (VmHWM); the summary gives medians and
# ratios golden/plain, and golden - plain for RSS (the golden index's cost).
# Put TMPDIR on a RAM file system (/dev/shm) to measure the daemon, not the disk.
# Usage: [RATE=5000] [LARGE_MBPS=1000] [LARGE_SECONDS=5] [LARGE_MAX=bytes] bench/live_cost.sh [BUILD] [ROUNDS] [TOKENS] [CASES]
set -euo pipefail
BUILD=${1:-build}; ROUNDS=${2:-2}; TOKENS=${3:-1200}; CASES=${4:-small large}
RATE=${RATE:-5000}; LARGE_MBPS=${LARGE_MBPS:-1000}; LARGE_SECONDS=${LARGE_SECONDS:-5}; LARGE_MAX=${LARGE_MAX:-67108864}
BIN=$BUILD/cli/msit-compact; GEN=$BUILD/tests/tools/msit-dumpgen
HERE="$(cd "$(dirname "$0")" && pwd)"
W="$(mktemp -d "${TMPDIR:-/var/tmp}/msit-cost.XXXXXX")"
WATCH_PID=""
trap '[ -z "$WATCH_PID" ] || kill -9 "$WATCH_PID" 2>/dev/null; rm -rf "$W"' EXIT
export MSIT_COMPACT_SUMMARY_FORMAT=store

"$GEN" model --chain llama --ops 31 --tokens "$TOKENS" --rows 8 --hidden 64 --noise 1e-3 --ge-dtype float32 \
  --reduced MatMul=bfloat16 --seed 7 --diverge-type MatMul --diverge-nth 2 --diverge-scale 0.05 --out "$W/m" >/dev/null
GOLDEN="$W/m/msit_fx_dump"
NGOLDEN=$(find "$GOLDEN" -type f -name '*.npy' | wc -l)
"$BIN" compact --summary-format store "$GOLDEN" >/dev/null 2>&1
echo "live cost bench: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null);" \
  "golden: $NGOLDEN files summarised in one store; mine: $(find "$W/m/msit_ge_dump" -type f ! -name '*.txt' | wc -l) GE files"

# replay.py SRC DST RATE RESULT: copies SRC's dump files into DST in execution order at RATE
# files/s (by schedule), then waits until no raw file is left under DST.
cat >"$W/replay.py" <<'PY'
import json, os, shutil, sys, time
sys.path.insert(0, sys.argv[5])
from live_replay import token_of, ts_of
src, dst, rate, result = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
other, dumps = [], []
for root, dirs, files in os.walk(src):
    dirs.sort()
    for f in files:
        rel = os.path.relpath(os.path.join(root, f), src)
        (other if f.endswith((".txt", ".json")) else dumps).append(rel)
dumps.sort(key=lambda r: (token_of(r), ts_of(os.path.basename(r)), r))
made = set()
def put(rel):
    out = os.path.join(dst, rel)
    d = os.path.dirname(out)
    if d not in made:
        os.makedirs(d, exist_ok=True); made.add(d)
    shutil.copyfile(os.path.join(src, rel), out)
for rel in sorted(other):
    put(rel)
first = time.time()
for i, rel in enumerate(dumps):
    ahead = first + i / rate - time.time()
    if ahead > 0:
        time.sleep(ahead)
    put(rel)
end = time.time()
def raw_left():
    return sum(1 for r, _, fs in os.walk(dst) for f in fs
               if not f.endswith((".txt", ".json")) and not f.startswith((".", "msit-summary.db")))
while raw_left() and time.time() < end + 120:
    time.sleep(0.02)
done = time.time()
json.dump({"first": first, "end": end, "done": done, "files": len(dumps), "left": raw_left()}, open(result, "w"))
PY

# large.sh DIR RESULT: the stream, then waits until no raw file is left.
large() {
  local d=$1 out=$2 t0 t1 t2
  t0=$(date +%s.%N)
  "$GEN" stream --out "$d" --rate "$LARGE_MBPS" --seconds "$LARGE_SECONDS" --min-size 65536 --max-size "$LARGE_MAX" \
    --seed 7 >"$out.gen"
  t1=$(date +%s.%N)
  for _ in $(seq 6000); do
    [ "$(find "$d" -type f ! -name 'msit-summary.db*' ! -name '.*' ! -name '*.txt' | head -1)" ] || break; sleep 0.02
  done
  t2=$(date +%s.%N)
  python3 - "$out" "$t0" "$t1" "$t2" "$(cat "$out.gen")" <<'PY'
import json, re, sys
m = re.search(r"stream: (\d+) files", sys.argv[5])
t = re.search(r" in ([\d.]+) s", sys.argv[5])  # the stream's own time: its buffers are made before
end = float(sys.argv[3])
json.dump({"first": end - float(t[1]) if t else float(sys.argv[2]), "end": end, "done": float(sys.argv[4]),
           "files": int(m[1]) if m else 0, "left": 0, "gen": sys.argv[5]}, open(sys.argv[1], "w"))
PY
}

start_watch() {  # DIR LOG [ARGS...]
  local dir=$1 log=$2; shift 2
  "$BIN" watch "$dir" --json-status "$dir.status.json" "$@" >"$log" 2>&1 &
  WATCH_PID=$!
  for _ in $(seq 600); do grep -q 'start-up scan done' "$log" && return 0; sleep 0.05; done
  echo "watch did not start: $(tail -5 "$log")" >&2; exit 1
}
stop_watch() {  # prints the daemon's peak RSS in kB
  grep VmHWM "/proc/$WATCH_PID/status" | awk '{print $2}'
  kill -TERM "$WATCH_PID"; wait "$WATCH_PID" || true; WATCH_PID=""
}

for case in $CASES; do
  for r in $(seq "$ROUNDS"); do
    order="plain golden"; [ $((r % 2)) = 1 ] || order="golden plain"
    for mode in $order; do
      d="$W/$case-$mode$r"; mkdir -p "$d"
      args=(); [ $mode = plain ] || args=(--golden "$GOLDEN" --events "$W/$case-$mode$r.jsonl")
      start_watch "$d" "$W/$case-$mode$r.log" "${args[@]}"
      if [ "$case" = small ]; then
        python3 "$W/replay.py" "$W/m/msit_ge_dump" "$d" "$RATE" "$W/$case-$mode$r.json" "$HERE/../tests/integration"
      else
        large "$d" "$W/$case-$mode$r.json"
      fi
      caught="-"
      if [ $mode = golden ] && [ "$case" = small ]; then  # until every token is answered (event or clean)
        t_end=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"])' "$W/$case-$mode$r.json")
        for _ in $(seq 1200); do
          [ "$(grep -c -E 'divergence: rank|judged clean' "$W/$case-$mode$r.log" || true)" -lt "$TOKENS" ] || break
          sleep 0.1
        done
        caught=$(python3 -c 'import sys,time; print("%.1f s" % (time.time() - float(sys.argv[1])))' "$t_end")
      fi
      rss=$(stop_watch)
      python3 - "$d.status.json" "$W/$case-$mode$r.json" "$case" "$mode" "$r" "$rss" \
        "$(cut -d' ' -f1 /proc/loadavg)" "$(grep -c 'divergence: rank' "$W/$case-$mode$r.log" || true)" "$caught" <<'PY'
import json, sys
s, res = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
l = s["latency_ms"]
wall = res["end"] - res["first"]
print("%s %s round %s: %d files written in %.2f s (%.0f files/s%s), done %.2f s after the first write (%d raw left):"
      " %.0f files/s; close->deleted p50 %.0f ms p99 %.0f ms; VmHWM %d kB [load %s, %s events, all answered %s after the last write]"
      % (sys.argv[3], sys.argv[4], sys.argv[5], res["files"], wall, res["files"] / wall,
         (", " + res["gen"].split(" in ")[-1].split(",")[0].strip()) if "gen" in res else "", res["done"] - res["first"], res["left"],
         res["files"] / (res["done"] - res["first"]), l["p50"], l["p99"], int(sys.argv[6]), sys.argv[7], sys.argv[8], sys.argv[9]))
PY
      [ $mode = plain ] || grep -m3 'live compare' "$W/$case-$mode$r.log" | sed 's/^/    /' || true
      rm -rf "$d"
    done
  done
done | tee "$W/runs.txt"

python3 - "$W/runs.txt" <<'PY'
import re, statistics as st, sys
runs = {}
for l in open(sys.argv[1]):
    m = re.match(r"(\w+) (plain|golden) round .*: (\d+) files/s; close->deleted p50 (\d+) ms p99 (\d+) ms; VmHWM (\d+) kB", l)
    if m:
        runs.setdefault((m[1], m[2]), []).append(tuple(int(x) for x in m.groups()[2:]))
for case in sorted({c for c, _ in runs}):
    p, g = runs.get((case, "plain")), runs.get((case, "golden"))
    if not p or not g:
        continue
    med = lambda rs, i: st.median(x[i] for x in rs)
    for i, name in ((0, "throughput files/s"), (1, "close->deleted p50 ms"), (2, "close->deleted p99 ms")):
        print("%-6s %-22s plain %7.0f  golden %7.0f  ratio golden/plain %.2f" % (case, name, med(p, i), med(g, i),
                                                                                  med(g, i) / max(med(p, i), 1)))
    print("%-6s %-22s plain %7.1f  golden %7.1f  golden - plain %.1f MB" % (case, "peak RSS MB", med(p, 3) / 1024,
                                                                             med(g, 3) / 1024, (med(g, 3) - med(p, 3)) / 1024))
PY
