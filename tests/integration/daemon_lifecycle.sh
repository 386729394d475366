#!/usr/bin/env bash
# watch: a root that does not exist yet, SIGHUP reload, clean SIGTERM, exit 78 on a bad
# config, and `status` reading the counters.
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"

root="$WORK/later/msit_ge_dump"
printf 'settle_ms = 50\nrescan_interval_s = 30\n' > "$WORK/m.conf"
start_daemon --config "$WORK/m.conf" "$root"
wait_until 5 '[ -f "$WORK/status.json" ]' || fail "no status file"
[ "$(status_field missing_roots)" = 1 ] || fail "root should be reported missing"
mkdir -p "$root/0/graph/1"
$DUMPS one "$root/0/graph/1/Add.Add_1.1.6.1706596912100001"
wait_until 10 'summarised "$root/0/graph/1/Add.Add_1.1.6.1706596912100001"' || fail "not compacted after the root appeared"
[ ! -e "$root/0/graph/1/Add.Add_1.1.6.1706596912100001" ] || fail "raw file still there"

printf 'settle_ms = 60\nsummary_format = msit\n' > "$WORK/m.conf"
kill -HUP "$DAEMON_PID"
wait_until 5 'grep -q "config reloaded: settle 60 ms" "$WORK/daemon.log"' || fail "SIGHUP did not reload"
$DUMPS one "$root/0/graph/1/Add.Add_2.2.6.1706596912100002"
wait_until 10 '[ -f "$root/0/graph/1/Add.Add_2.2.6.1706596912100002_min_max.npz" ]' || fail "reloaded format not used"
printf 'settle_ms = soon\n' > "$WORK/m.conf"
kill -HUP "$DAEMON_PID"
wait_until 5 'grep -q "keeping the current settings" "$WORK/daemon.log"' || fail "bad reload not reported"
kill -0 "$DAEMON_PID" || fail "daemon died on a bad reload"

wait_until 5 '[ "$(status_field files_compacted)" = 2 ]' || fail "counters: $(cat "$WORK/status.json")"
"$MSIT_BIN" status --json-status "$WORK/status.json" > "$WORK/status.txt" || fail "status failed"
grep -q "files compacted     2" "$WORK/status.txt" || fail "status output: $(cat "$WORK/status.txt")"
grep -q ", running" "$WORK/status.txt" || fail "status should say running"
stop_daemon
grep -q '"state": "stopped"' "$WORK/status.json" || fail "final status not written"

rc=0; "$MSIT_BIN" watch --config "$WORK/m.conf" "$root" 2>"$WORK/bad.log" || rc=$?
[ "$rc" = 78 ] || fail "bad config should exit 78, got $rc"
grep -q "m.conf:1" "$WORK/bad.log" || fail "config error should name file:line"
rc=0; "$MSIT_BIN" watch --config "$WORK/none.conf" "$root" 2>/dev/null || rc=$?
[ "$rc" = 78 ] || fail "missing config should exit 78, got $rc"
echo PASS
