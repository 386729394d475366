#!/bin/bash
# Shared by the live-divergence tests (live_divergence*.sh): their arguments, scratch dir and
# cleanup, the replay tool, failure with the logs, and starting/stopping `watch --golden` (waits
# on its log, no sleeps). Each test starts with
#   set -euo pipefail
#   source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"   # MSIT_BIN MSIT_DUMPGEN
BIN=$1
GEN=$2
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/wait_lib.sh"
# Where `msit-dumpgen atb` puts each side of an ATB-vs-torch pair, and the msit_dump_* directory
# a model dumping ATB tensors creates (the watched dir of the ATB tests).
TORCH=torch/msit_dump_20260101_000000/torch_tensors/cpu_100
ATB=atb/msit_dump_20260101_000000
DUMP=msit_dump_20260101_000000
export MSIT_COMPACT_SUMMARY_FORMAT=store  # the default format: the comparer reads the stores
T=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT
REPLAY="python3 $HERE/live_replay.py"

fail() {
  echo "FAIL: $*" >&2
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "== $f" >&2; tail -n 20 "$f" >&2; }; done
  exit 1
}

start_watch() {  # LOG DIR GOLDEN EVENTS [more watch options...]
  local log=$1 dir=$2 golden=$3 events=$4
  shift 4
  : >>"$log"
  "$BIN" watch "$dir" --golden "$golden" --events "$events" --settle-ms 50 "$@" >>"$log" 2>&1 &
  WATCH_PID=$!
  PIDS+=("$WATCH_PID")
  wait_until 30 "grep -q 'start-up scan done' '$log'" || fail "watch did not start"
}

stop_watch() {
  kill -TERM "$WATCH_PID"
  local rc=0
  wait "$WATCH_PID" || rc=$?
  [ "$rc" = 0 ] || fail "watch exited with $rc"
}

lines() { [ -f "$1" ] && wc -l <"$1" || echo 0; }
