#!/usr/bin/env bash
# A directory deleted and re-created while watched, then the root itself deleted and
# re-created: new files in both are still compacted.
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"
d="$WORK/msit_ge_dump"; mkdir -p "$d/rank0/step1"
start_daemon --settle-ms 20 "$d"
wait_until 5 '[ -f "$WORK/status.json" ]' || fail "daemon did not start"
$DUMPS one "$d/rank0/step1/Add.Add_1.1.6.1706596912100001"
wait_until 10 'summarised "$d/rank0/step1/Add.Add_1.1.6.1706596912100001"' || fail "first file"
rm -rf "$d/rank0"
mkdir -p "$d/rank0/step1"
$DUMPS one "$d/rank0/step1/Add.Add_2.2.6.1706596912100002"
wait_until 10 'summarised "$d/rank0/step1/Add.Add_2.2.6.1706596912100002"' || fail "after the directory was re-created"
rm -rf "$d"
wait_until 5 '[ "$(status_field missing_roots)" = 1 ]' || fail "root removal not noticed"
mkdir -p "$d/rank1/step0"
$DUMPS one "$d/rank1/step0/Add.Add_3.3.6.1706596912100003"
wait_until 10 'summarised "$d/rank1/step0/Add.Add_3.3.6.1706596912100003"' || fail "after the root was re-created"
$DUMPS one "$d/Add.Add_4.4.6.1706596912100004"
wait_until 10 'summarised "$d/Add.Add_4.4.6.1706596912100004"' || fail "new file in the re-created root"
wait_until 5 '[ "$(status_field missing_roots)" = 0 ] && [ "$(status_field watches)" = 3 ]' || fail "watches: $(status_field watches)"
stop_daemon
echo PASS
