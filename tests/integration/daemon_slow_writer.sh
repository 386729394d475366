#!/usr/bin/env bash
# Writers that are slow or indirect are never claimed early: a file written in pieces over
# seconds (fd kept open: the lease probe; reopened per piece: the header's declared size),
# and a file written under a temp name and renamed into place.
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"
d="$WORK/dump"; mkdir -p "$d"
start_daemon --settle-ms 30 "$d"
wait_until 5 '[ -f "$WORK/status.json" ]' || fail "daemon did not start"

a="$d/Add.Add_1.1.6.1706596912100001"; b="$d/Add.Add_2.2.6.1706596912100002"
$DUMPS slow "$a" 3 & w1=$!
$DUMPS pieces "$b" 3 & w2=$!
wait_until 5 '[ -e "$a" ] && [ -e "$b" ]' || fail "writers did not start"
# While the writers run, neither raw file may vanish and no summary may appear.
while kill -0 $w1 2>/dev/null || kill -0 $w2 2>/dev/null; do
  if kill -0 $w1 2>/dev/null; then
    [ -e "$a" ] || fail "slow writer's file claimed while still open"
    [ ! -e "$a.summary.json" ] || fail "summary of a file still being written"
  fi
  if kill -0 $w2 2>/dev/null; then
    [ ! -e "$b.summary.json" ] || fail "summary of an incomplete reopened file"
  fi
  sleep 0.02
done
wait $w1 $w2
wait_until 15 '[ -f "$a.summary.json" ] && [ -f "$b.summary.json" ]' || fail "slow files never compacted"
python3 - "$a.summary.json" "$b.summary.json" <<'PY' || fail "summary does not describe the whole file"
import json, sys
for p in sys.argv[1:]:
    j = json.load(open(p))
    assert [t["count"] for t in j["tensors"]] == [2048, 2048], j["tensors"]
PY
c="$d/Add.Add_3.3.6.1706596912100003"
$DUMPS rename "$c"
wait_until 10 '[ -f "$c.summary.json" ] && [ ! -e "$c" ]' || fail "renamed-into-place file not compacted"
[ -z "$(ls -A "$d" | grep -v summary.json || true)" ] || fail "left over: $(ls -A "$d")"
grep -q "never completed" "$WORK/daemon.log" && fail "a slow file was given up"
stop_daemon
echo PASS
