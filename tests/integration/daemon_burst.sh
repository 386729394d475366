#!/usr/bin/env bash
# Burst: 20,000 small dump files created in under 10 s while the daemon runs; every file ends
# summarised exactly once, none lost. (The forced IN_Q_OVERFLOW path is driven through the
# fake event source in daemon_watcher_test.)
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"
N=${MSIT_BURST_FILES:-20000}
d="$WORK/msit_ge_dump"; mkdir -p "$d"
start_daemon --settle-ms 50 "$d"
wait_until 5 '[ -f "$WORK/status.json" ]' || fail "daemon did not start"
t0=$(date +%s%N)
$DUMPS burst "$d" "$N"
t1=$(date +%s%N)
echo "created $N files in $(( (t1 - t0) / 1000000 )) ms"
[ $(( (t1 - t0) / 1000000000 )) -lt 10 ] || echo "warning: the burst took longer than 10 s on this machine"
wait_until 150 '[ "$(status_field files_compacted)" -ge "$N" ] && [ "$(status_field pending)" = 0 ] && [ "$(status_field in_flight)" = 0 ]' \
  || fail "not all compacted: $(cat "$WORK/status.json")"
t2=$(date +%s%N)
echo "all compacted $(( (t2 - t1) / 1000000 )) ms after the burst ended"
check=$($DUMPS check "$d")
echo "$check"
[ "$check" = "{\"summaries\": $N, \"raws\": 0, \"temps\": 0, \"bad\": 0}" ] || fail "tree: $check"
[ "$(status_field files_compacted)" = "$N" ] || fail "some file compacted twice: $(status_field files_compacted)"
[ "$(status_field errors)" = 0 ] || fail "errors: $(status_field errors)"
stop_daemon
echo PASS
