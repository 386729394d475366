#!/usr/bin/env bash
# End-to-end demo/bench of `msit-compact watch`: msit-dumpgen writes a live GE dump tree at a
# steady rate; the tree's disk use is sampled every 0.5 s (a) with no compaction, (b) with the
# daemon, (c) with the old Python converter polling every 0.5 s. Prints disk use over time,
# peak tree size, summaries' size, the daemon's close->deletion latency and peak RSS.
# WATCH_FLAGS are added to the watch command line (e.g. WATCH_FLAGS=--archive), STREAM_FLAGS to
# the generator's (e.g. STREAM_FLAGS="--slow-fraction 0.1"); WATCH_BIN runs another build of
# msit-compact (an A/B baseline: bench/daemon_latency_ab.sh). SETTLE_MS unset: the default settle.
# Usage: [SETTLE_MS=200] [SKIP_BASELINES=1] [WATCH_FLAGS=...] [STREAM_FLAGS=...] [WATCH_BIN=...] bench/daemon_e2e.sh [BUILD_DIR] [RATE_MBps] [SECONDS] [MIN_SIZE] [MAX_SIZE]
set -euo pipefail
BUILD=${1:-build}; RATE=${2:-200}; SECS=${3:-20}; MIN=${4:-65536}; MAX=${5:-67108864}
BIN=${WATCH_BIN:-$BUILD/cli/msit-compact}; GEN="$BUILD/tests/tools/msit-dumpgen"
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/var/tmp}/msit-e2e.XXXXXX")"; trap 'rm -rf "$WORK"' EXIT
SKIP_BASELINES=${SKIP_BASELINES:-0}; WATCH_FLAGS=${WATCH_FLAGS:-}; STREAM_FLAGS=${STREAM_FLAGS:-}
SETTLE_FLAG=""; [ -z "${SETTLE_MS:-}" ] || SETTLE_FLAG="--settle-ms $SETTLE_MS"
# The baseline needs numpy: prefer a python3 that has it (pyenv shims may not).
PY=python3; python3 -c 'import numpy' 2>/dev/null || PY=/usr/bin/python3

sample() {  # sample DIR OUT: du every 0.5 s until $WORK/stop-sampling exists
  : > "$2"; local t0; t0=$(date +%s%N)
  while [ ! -e "$WORK/stop-sampling" ]; do
    printf '%s %s\n' "$(( ($(date +%s%N) - t0) / 1000000 ))" "$(du -sb "$1" 2>/dev/null | cut -f1)" >> "$2"
    sleep 0.5
  done
}
summaries_size() { find "$1" -type f \( -name '*.summary.json' -o -name '*_min_max.np?' -o -name 'msit-summary.db*' \) -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }
raw_left() { find "$1" -type f ! -name '*.summary.json' ! -name '*_min_max.np?' ! -name '*.txt' ! -name '*.zst' ! -name 'msit-summary.db*' ! -name '.msit-compact.lock' | wc -l; }
archives_size() { find "$1" -type f -name '*.zst' -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # utime + stime, clock ticks
peak() { awk 'BEGIN{m=0} $2>m{m=$2} END{printf "%.0f\n", m/1e6}' "$1"; }
curve() { awk '{ if (NR % 4 == 1) printf "  t=%5.1fs %8.0f MB\n", $1/1000, $2/1e6 }' "$1"; }

run() {  # run NAME: stream into $WORK/NAME while the chosen compactor runs
  local name=$1 d="$WORK/$1"; mkdir -p "$d"; rm -f "$WORK/stop-sampling" "$WORK/stop-conv"
  local cpid=""
  case $name in
    daemon) "$BIN" watch $WATCH_FLAGS $SETTLE_FLAG --json-status "$WORK/status.json" "$d" 2>"$WORK/daemon.log" & cpid=$! ;;
    python) "$PY" "$HERE/old_converter.py" "$d" "$WORK/stop-conv" & cpid=$! ;;
  esac
  sleep 0.5
  sample "$d" "$WORK/$name.du" & local spid=$!
  local t0; t0=$(date +%s%N)
  local c0=0; [ -z "$cpid" ] || c0=$(cpu_ticks "$cpid")
  # The generator's own line says whether it held the rate; its CPU time (pool generation
  # excluded: it happens before the first file) is what it took from the daemon's cores.
  /usr/bin/time -f '%U %S' -o "$WORK/gen.time" \
    "$GEN" stream --out "$d" --rate "$RATE" --seconds "$SECS" --min-size "$MIN" --max-size "$MAX" --seed 7 $STREAM_FLAGS > "$WORK/gen.out"
  local t1; t1=$(date +%s%N)
  [ -z "$cpid" ] || echo "$(( $(cpu_ticks "$cpid") - c0 ))" > "$WORK/$name.cpu"
  case $name in
    daemon) for _ in $(seq 600); do [ "$(raw_left "$d")" != 0 ] || break; sleep 0.2; done
            grep VmHWM /proc/$cpid/status | awk '{print $2}' > "$WORK/rss"
            kill -TERM $cpid; wait $cpid ;;
    python) touch "$WORK/stop-conv"; wait $cpid || echo "  (converter exited with $?)" ;;
  esac
  local t2; t2=$(date +%s%N)
  touch "$WORK/stop-sampling"; wait $spid
  echo "== $name: stream $(( (t1 - t0) / 1000000 )) ms (incl. pool set-up), done $(( (t2 - t1) / 1000000 )) ms after the stream ended"
  echo "  generator: $(cat "$WORK/gen.out"); process CPU incl. pool set-up: $(awk '{printf "%.1f s user, %.1f s sys", $1, $2}' "$WORK/gen.time")"
  [ ! -e "$WORK/$name.cpu" ] || echo "  $name CPU during the stream: $(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f s", $1 / hz}' "$WORK/$name.cpu")"
  echo "  peak tree size $(peak "$WORK/$name.du") MB, final $(du -sb "$d" | awk '{printf "%.1f", $1/1e6}') MB, summaries $(summaries_size "$d") bytes, archives $(archives_size "$d") bytes, raw files left $(raw_left "$d")"
  curve "$WORK/$name.du"
  rm -rf "$d"
}

echo "msit-compact watch e2e: $RATE MB/s for $SECS s, payloads $MIN..$MAX bytes, $(nproc) cores"
[ "$SKIP_BASELINES" = 1 ] || run none
run daemon
python3 - "$WORK/status.json" "$(cat "$WORK/rss")" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
l = s["latency_ms"]
print("  daemon: %d files, freed %.1f MB; close->deleted p50 %.0f ms, p99 %.0f ms, max %.0f ms; peak RSS %.1f MB"
      % (s["files_compacted"] + s["verified_existing"], s["bytes_freed"] / 1e6, l["p50"], l["p99"], l["max"],
         int(sys.argv[2]) / 1024))
st = s.get("latency_stages_ms")  # builds before issue 31 part 4 have no stages
if st:
    print("  stages p50/p99 ms: " + ", ".join("%s %.0f/%.0f" % (k, v["p50"], v["p99"]) for k, v in st.items()))
PY
[ "$SKIP_BASELINES" = 1 ] || run python
