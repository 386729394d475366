#!/usr/bin/env bash
# The deletion contract with the real binary, daemon side (docs/safety.md rows W1-W5): dump
# roots only, a directory swapped for a symlink while files settle, leftovers of a killed
# predecessor, writers without leases. Usage: safety_watch.sh MSIT_BIN
set -euo pipefail
MSIT_BIN="$1"
source "$(dirname "$0")/daemon_lib.sh"
ge() { $DUMPS one "$1"; }
name() { echo "Add.Add_$1.$1.6.17065969121$(printf %05d "$1")"; }

echo "W1: a watched directory without a dump root: nothing is touched until one appears"
mkdir -p "$WORK/w1"
ge "$WORK/w1/$(name 1)"
$DUMPS one "$WORK/w1/embeddings.npy"
start_daemon "$WORK/w1" --settle-ms 50
sleep 1
[ -f "$WORK/w1/$(name 1)" ] && [ -f "$WORK/w1/embeddings.npy" ] || fail "W1: a file outside a dump root was removed"
mkdir -p "$WORK/w1/msit_ge_dump/0"
ge "$WORK/w1/msit_ge_dump/0/$(name 2)"
wait_until 10 '[ -f "$WORK/w1/msit_ge_dump/0/$(name 2).summary.json" ] && [ ! -e "$WORK/w1/msit_ge_dump/0/$(name 2)" ]' \
  || fail "W1: the dump root that appeared was not compacted"
[ -f "$WORK/w1/$(name 1)" ] || fail "W1: the file outside the root was removed later"
stop_daemon

echo "W2: a directory swapped for a symlink while its files settle is never followed"
mkdir -p "$WORK/w2/msit_ge_dump/b" "$WORK/outside"
start_daemon "$WORK/w2" --settle-ms 1500
sleep 0.3
for i in 1 2 3; do ge "$WORK/w2/msit_ge_dump/b/$(name $i)"; cp "$WORK/w2/msit_ge_dump/b/$(name $i)" "$WORK/outside/"; done
sleep 0.3
mv "$WORK/w2/msit_ge_dump/b" "$WORK/w2/msit_ge_dump/b_real"
ln -s "$WORK/outside" "$WORK/w2/msit_ge_dump/b"
sleep 3
[ "$(ls "$WORK/outside" | wc -l)" = 3 ] || fail "W2: files outside the tree were removed or added"
[ -z "$(find "$WORK/outside" -name '*.summary.json')" ] || fail "W2: summary written outside the tree"
stop_daemon

echo "W3: a restarted watch removes a dead predecessor's temps and gives claimed files their names back"
mkdir -p "$WORK/w3/msit_ge_dump"
ge "$WORK/w3/msit_ge_dump/.msit-claim.abc123-$(id -u).$(name 1)"  # ours: our uid in the name (docs/safety.md P5)
echo partial > "$WORK/w3/msit_ge_dump/.msit-tmp.abc123.$(name 1).summary.json"
start_daemon "$WORK/w3" --settle-ms 50
wait_until 10 '[ -f "$WORK/w3/msit_ge_dump/$(name 1).summary.json" ] && [ ! -e "$WORK/w3/msit_ge_dump/$(name 1)" ]' \
  || fail "W3: the claimed file was not compacted under its own name"
[ -z "$(find "$WORK/w3" -name '.msit-tmp.*' -o -name '.msit-claim.*')" ] || fail "W3: leftovers remain"
# kill -9 during a burst, restart: no temp survives the restart's start-up scan.
$DUMPS burst "$WORK/w3/msit_ge_dump" 400 &
sleep 0.2
kill -9 "$DAEMON_PID"; wait "$DAEMON_PID" 2>/dev/null || true; DAEMON_PID=""
wait
start_daemon "$WORK/w3" --settle-ms 50
wait_until 30 '[ "$(find "$WORK/w3/msit_ge_dump" -type f -name "Add.*" ! -name "*.summary.json" | wc -l)" = 0 ]' \
  || fail "W3: raw files left after the restart"
[ -z "$(find "$WORK/w3" -name '.msit-tmp.*' -o -name '.msit-claim.*')" ] || fail "W3: temps left after kill -9 + restart"
[ "$(find "$WORK/w3/msit_ge_dump" -name '*.summary.json' | wc -l)" = 401 ] || fail "W3: summaries missing"
stop_daemon

echo "W4: without leases, a pre-sized file still mapped by its writer is not compacted"
mkdir -p "$WORK/w4/msit_fx_dump"
f="$WORK/w4/msit_fx_dump/mm-aten.mm.default.OUTPUT.0.20250101000000000000.npy"
MSIT_TEST_NO_LEASES=1 start_daemon "$WORK/w4" --settle-ms 100
grep -q "no leases" "$WORK/daemon.log" || wait_until 5 'grep -q "no leases" "$WORK/daemon.log"' || fail "W4: settle mode not logged"
/usr/bin/python3 - "$f" "$WORK/w4.mapped" <<'PY' &
import numpy as np, sys, time
m = np.lib.format.open_memmap(sys.argv[1], mode="w+", dtype=np.float32, shape=(1 << 16,))
open(sys.argv[2], "w").close()
for part in range(4):          # pauses far longer than the settle time
    m[part * (1 << 14):(part + 1) * (1 << 14)] = part + 1
    time.sleep(0.6)
m.flush()
del m
PY
writer=$!
wait_until 30 '[ -f "$WORK/w4.mapped" ]' || fail "W4: the writer did not start"
sleep 1
[ -f "$f" ] && [ ! -f "$f.summary.json" ] || fail "W4: a mapped file was summarised or removed"
wait $writer
if grep -q "open-file check (complete)" "$WORK/daemon.log"; then
  wait_until 10 '[ -f "$f.summary.json" ] && [ ! -e "$f" ]' || fail "W4: not compacted after the writer finished"
else
  # This machine hides some processes from /proc even to root: the raw file must be kept.
  wait_until 10 '[ -f "$f.summary.json" ]' || fail "W4: not summarised after the writer finished"
  [ -f "$f" ] || fail "W4: raw removed although /proc could not tell"
  grep -q "KEPT from now on" "$WORK/daemon.log" || fail "W4: no warning that raw files are kept"
fi
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['tensors'][0]; sys.exit(0 if t['min']==1 and t['max']==4 else 1)" "$f.summary.json" \
  || fail "W4: summary of a half-written file"
stop_daemon

echo "W5: without leases and without /proc, the raw file is summarised but kept, said once loudly"
mkdir -p "$WORK/w5/msit_ge_dump"
: > "$WORK/daemon.log"
MSIT_TEST_NO_LEASES=1 MSIT_TEST_PROC_UNREADABLE=1 start_daemon "$WORK/w5" --settle-ms 50
for i in 1 2; do ge "$WORK/w5/msit_ge_dump/$(name $i)"; done
wait_until 10 '[ -f "$WORK/w5/msit_ge_dump/$(name 2).summary.json" ] && [ -f "$WORK/w5/msit_ge_dump/$(name 1).summary.json" ]' \
  || fail "W5: no summaries"
sleep 0.3
[ -f "$WORK/w5/msit_ge_dump/$(name 1)" ] && [ -f "$WORK/w5/msit_ge_dump/$(name 2)" ] || fail "W5: raw removed on a guess"
[ "$(grep -c 'KEPT from now on' "$WORK/daemon.log")" = 1 ] || fail "W5: the warning is not said exactly once"
stop_daemon
echo "safety_watch: all checks passed"
