#!/usr/bin/env bash
# watch: a stop during the start-up scan (docs/daemon.md "Stopping") is a clean stop: the scan
# ends between two files, one log line says so, the final status says "stopped", exit 0 (not
# the default action's 143/130), and no raw file is lost. SIGHUP during the scan reloads after
# it instead of killing the daemon. The next start compacts everything.
# The scan is held after its first file by MSIT_TEST_PAUSE_STARTUP_SCAN_MS until the test
# creates the release file: the signal is sent while the scan is provably running.
# Usage: daemon_stop_during_scan.sh MSIT_BIN [TERM|INT]
MSIT_BIN="$1"; SIG="${2:-TERM}"; source "$(dirname "$0")/daemon_lib.sh"

root="$WORK/msit_ge_dump"
n=200
$DUMPS burst "$root" "$n"
(cd "$root" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$WORK/before.sha"
[ "$(wc -l < "$WORK/before.sha")" = "$n" ] || fail "the tree has $(wc -l < "$WORK/before.sha") files, not $n"
printf 'settle_ms = 50\n' > "$WORK/m.conf"

# pauses_reached N: the daemon log shows the start-up scan held N times (the log is appended to).
pauses_reached() { [ "$(grep -c "msit-test: paused at MSIT_TEST_PAUSE_STARTUP_SCAN_MS" "$WORK/daemon.log")" -ge "$1" ]; }
held_start() {  # held_start RELEASE_FILE: a daemon whose start-up scan waits for RELEASE_FILE
  MSIT_TEST_PAUSE_STARTUP_SCAN_MS=120000 MSIT_TEST_PAUSE_RELEASE_FILE="$1" start_daemon --config "$WORK/m.conf" "$root"
}

# 1. SIGTERM (or SIGINT) while the scan is held after its first file.
held_start "$WORK/release1"
wait_until 60 pauses_reached 1 || fail "the start-up scan did not reach its pause"
kill -"$SIG" "$DAEMON_PID"
touch "$WORK/release1"
rc=0; wait "$DAEMON_PID" || rc=$?; DAEMON_PID=""
[ "$rc" = 0 ] || fail "SIG$SIG during the start-up scan: exit $rc, expected 0"
grep -q "received SIG$SIG during the start-up scan: stopping" "$WORK/daemon.log" || fail "no log line for the stop"
grep -q "stopped: " "$WORK/daemon.log" || fail "no final counters logged"
! grep -q "start-up scan done" "$WORK/daemon.log" || fail "the scan ran to its end instead of stopping"
grep -q '"state": "stopped"' "$WORK/status.json" || fail "final status not written: $(cat "$WORK/status.json")"
# It stopped between two files, early: far fewer than the tree's files were found.
pending=$(status_field pending)
[ "$pending" -ge 1 ] && [ "$pending" -lt "$n" ] || fail "pending $pending: the scan did not stop early"
[ "$(status_field files_compacted)" = 0 ] || fail "files were claimed by a stopping daemon"

# No raw file lost: each one is there unchanged, or gone with its summary in the store.
check_raw() {
  local sum path
  while read -r sum path; do
    f="$root/${path#./}"
    if [ -e "$f" ]; then
      [ "$(sha256sum < "$f" | cut -d' ' -f1)" = "$sum" ] || fail "$f changed"
    else
      summarised "$f" || fail "$f deleted without its summary in the store"
    fi
  done < "$WORK/before.sha"
}
check_raw
[ -z "$(find "$root" -name '.msit-tmp.*' -o -name '.msit-claim.*')" ] || fail "temps or claims left behind"

# 2. Next start, with a SIGHUP while its scan is held: reloaded after the scan, not killed.
printf 'settle_ms = 60\n' > "$WORK/m.conf"
held_start "$WORK/release2"
wait_until 60 pauses_reached 2 || fail "the second start-up scan did not reach its pause"
kill -HUP "$DAEMON_PID"
touch "$WORK/release2"
wait_until 60 started || fail "the second start-up scan did not finish"
grep -q "received SIGHUP during the start-up scan: reloading now" "$WORK/daemon.log" || fail "SIGHUP not taken"
grep -q "config reloaded: settle 60 ms" "$WORK/daemon.log" || fail "SIGHUP during the scan did not reload"
wait_until 120 '[ "$(status_field files_compacted)" = "$n" ]' || fail "not every file compacted: $(cat "$WORK/status.json")"
stop_daemon
check_raw
[ "$(count_files "$root" 'Add.*')" = 0 ] || fail "raw files left after the second start"
echo PASS
