#!/usr/bin/env bash
# Writers that are slow or indirect are never claimed early: a file written in pieces over
# seconds (fd kept open: the lease probe; reopened per piece: the header's declared size),
# and a file written under a temp name and renamed into place.
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"
d="$WORK/msit_ge_dump"; mkdir -p "$d"
start_daemon --settle-ms 30 "$d"
wait_until 5 '[ -f "$WORK/status.json" ]' || fail "daemon did not start"

a="$d/Add.Add_1.1.6.1706596912100001"; b="$d/Add.Add_2.2.6.1706596912100002"
$DUMPS slow "$a" 3 "$WORK/a.done" & w1=$!
$DUMPS pieces "$b" 3 "$WORK/b.done" & w2=$!
wait_until 30 '[ -e "$a" ] && [ -e "$b" ]' || fail "writers did not start"
# Until a writer says it is done (closed its fd / wrote its last piece), its raw file must stay
# and no summary may appear. Each check reads the marker after the file state, so a writer
# finishing in between is never mistaken for an early claim.
while kill -0 $w1 2>/dev/null || kill -0 $w2 2>/dev/null; do
  if [ ! -e "$a" ] && [ ! -e "$WORK/a.done" ]; then fail "slow writer's file claimed while still open"; fi
  if summarised "$a" && [ ! -e "$WORK/a.done" ]; then fail "summary of a file still being written"; fi
  if summarised "$b" && [ ! -e "$WORK/b.done" ]; then fail "summary of an incomplete reopened file"; fi
  sleep 0.02  # the interval between two looks at the invariant, not a wait for an event
done
wait $w1 $w2
wait_until 15 'summarised "$a" && summarised "$b"' || fail "slow files never compacted"
for f in "$a" "$b"; do
  summary_json "$f" | python3 -c 'import json, sys; t = json.load(sys.stdin)["tensors"]; assert [x["count"] for x in t] == [2048, 2048], t' \
    || fail "summary does not describe the whole file: $f"
done
c="$d/Add.Add_3.3.6.1706596912100003"
$DUMPS rename "$c"
wait_until 10 'summarised "$c" && [ ! -e "$c" ]' || fail "renamed-into-place file not compacted"
stop_daemon  # in-flight work finished: no transient claim name is left to see
[ -z "$(ls -A "$d" | grep -v -e summary.json -e '^.msit-compact.lock$' -e '^msit-summary.db' || true)" ] || fail "left over: $(ls -A "$d")"
grep -q "never completed" "$WORK/daemon.log" && fail "a slow file was given up"
echo PASS
