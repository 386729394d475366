# shellcheck shell=bash
# Shared by the live-divergence benches (bench/live_divergence.sh, bench/live_divergence_atb.sh):
# the scratch dir and its cleanup, starting and stopping `watch`, the replay driver
# (bench/live_drive.py) and keeping a run's files. Each bench starts with
#   set -euo pipefail
#   source "$(dirname "$0")/live_lib.sh" SCRATCH_PREFIX
# and then only says what it measures: the data, the watch options, what a run prints.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
W="$(mktemp -d "${TMPDIR:-/var/tmp}/$1.XXXXXX")"
WATCH_PID=""
trap '[ -z "$WATCH_PID" ] || kill -9 "$WATCH_PID" 2>/dev/null; rm -rf "$W"' EXIT
export MSIT_COMPACT_SUMMARY_FORMAT=store  # the default format: the comparer reads the stores

start_watch() {  # BIN DIR LOG [watch options...]: returns once its start-up scan is done
  local bin=$1 dir=$2 log=$3; shift 3
  "$bin" watch "$dir" "$@" >"$log" 2>&1 &
  WATCH_PID=$!
  for _ in $(seq 600); do grep -q 'start-up scan done' "$log" 2>/dev/null && return 0; sleep 0.05; done
  echo "watch did not start: $(tail -5 "$log")" >&2; exit 1
}
stop_watch() { kill -TERM "$WATCH_PID"; wait "$WATCH_PID" || true; WATCH_PID=""; }

# drive SRC DST PACE_MS EVENTS|- RESULT [GOLDEN_SRC GOLDEN_DST]: bench/live_drive.py (its usage).
drive() { python3 "$HERE/live_drive.py" "$@"; }

# latencies NAME: live_drive.py latencies $W/NAME.jsonl $W/NAME.json (one line per event).
latencies() { python3 "$HERE/live_drive.py" latencies "$W/$1.jsonl" "$W/$1.json"; }

# keep_run NAME: with KEEP_LOGS=DIR, copies the run's watch log, events and replay times
# ($W/NAME.{log,jsonl,json}) to DIR/NAME.PID.*.
keep_run() {
  [ -z "${KEEP_LOGS:-}" ] && return 0
  local x
  for x in log jsonl json; do cp "$W/$1.$x" "$KEEP_LOGS/$1.$$.$x"; done
}
