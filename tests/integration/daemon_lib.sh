# Shared helpers for the watch-daemon integration tests (sourced; $MSIT_BIN is set by the test).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/wait_lib.sh"
DUMPS="python3 $HERE/daemon_dumps.py"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/msit-daemon-it.XXXXXX")"
DAEMON_PID=""
cleanup() {
  if [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then kill -9 "$DAEMON_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; [ -f "$WORK/daemon.log" ] && tail -n 30 "$WORK/daemon.log" >&2; exit 1; }

# start_daemon ARGS...: runs `msit-compact watch` in the background, log in $WORK/daemon.log.
start_daemon() {
  "$MSIT_BIN" watch --json-status "$WORK/status.json" "$@" >>"$WORK/daemon.log" 2>&1 &
  DAEMON_PID=$!
}

# stop_daemon: SIGTERM, then expect exit status 0.
stop_daemon() {
  kill -TERM "$DAEMON_PID"
  local rc=0
  wait "$DAEMON_PID" || rc=$?
  DAEMON_PID=""
  [ "$rc" -eq 0 ] || fail "daemon exited with $rc after SIGTERM"
}

status_field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$WORK/status.json" "$1" 2>/dev/null || echo -1; }
# status_at_least FIELD N: the status file shows counter FIELD at N or more.
status_at_least() { [ "$(status_field "$1")" -ge "$2" ]; }
# started: the daemon has finished its start-up scan (every file present at start was seen).
started() { grep -q "start-up scan done" "$WORK/daemon.log"; }
count_files() { find "$1" -type f -name "$2" 2>/dev/null | wc -l; }
