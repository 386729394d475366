# Shared helpers for the watch-daemon integration tests (sourced; $MSIT_BIN is set by the test).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
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

# wait_until SECONDS 'shell condition': polls every 50 ms.
wait_until() {
  local deadline=$(( $(date +%s%N) + $1 * 1000000000 ))
  while ! eval "$2"; do
    [ "$(date +%s%N)" -lt "$deadline" ] || return 1
    sleep 0.05
  done
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
count_files() { find "$1" -type f -name "$2" 2>/dev/null | wc -l; }
