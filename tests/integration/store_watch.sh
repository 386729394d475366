#!/usr/bin/env bash
# watch into a summary store: a burst of files ends up as committed rows (raw files removed),
# the store is readable while the daemon writes it, a restart after kill -9 verifies a raw file
# that is already stored instead of storing it twice, and other bytes under a stored name are a
# conflict (raw file kept); a SIGHUP with another sketch_bits reaches the store already open.
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"
d="$WORK/msit_ge_dump"; mkdir -p "$d/x"
rows() { sqlite3 -cmd ".timeout 5000" "file:$d/msit-summary.db?mode=ro" "select count(*) from files" 2>/dev/null || echo 0; }
raw_left() { find "$d" -type f ! -name 'msit-summary.db*' ! -name .msit-compact.lock | wc -l; }
$DUMPS one "$WORK/keep.bin" 64
cp "$WORK/keep.bin" "$d/x/Add.Add_1.1.1.1700000000000001"
start_daemon --settle-ms 0 --jobs 2 "$d"
$DUMPS burst "$d" 600 &
burst=$!
# Readers while the daemon commits: row counts only grow, never an error.
last=0
while kill -0 "$burst" 2> /dev/null; do
  n=$(sqlite3 -cmd ".timeout 5000" "file:$d/msit-summary.db?mode=ro" "select count(*) from files" 2> "$WORK/reader.err" || echo err)
  if [ "$n" != err ]; then
    [ "$n" -ge "$last" ] || fail "row count went back from $last to $n"
    last=$n
  elif grep -q "unable to open" "$WORK/reader.err"; then
    :  # no store yet
  elif [ "$last" = 0 ] && grep -q "no such table" "$WORK/reader.err"; then
    :  # the file exists a moment before the first commit creates its tables
  else
    fail "reader error while the daemon writes: $(cat "$WORK/reader.err")"
  fi
done
wait "$burst"
wait_until 60 '[ "$(raw_left)" = 0 ]' || fail "raw files left: $(raw_left)"
[ "$(rows)" = 601 ] || fail "expected 601 stored files, found $(rows)"
[ -z "$(find "$d" -name '*.summary.json')" ] || fail "JSON summaries written"
# kill -9, then the same bytes again under a stored name: verified and removed, not stored twice.
kill -9 "$DAEMON_PID"; wait "$DAEMON_PID" 2> /dev/null || true; DAEMON_PID=""
cp "$WORK/keep.bin" "$d/x/Add.Add_1.1.1.1700000000000001"
start_daemon --settle-ms 0 "$d"
wait_until 30 '[ "$(raw_left)" = 0 ]' || fail "stored file not verified and removed after restart"
[ "$(rows)" = 601 ] || fail "a verified file was stored twice: $(rows) rows"
# Other bytes under a stored name: never replaced, raw file kept and reported.
$DUMPS one "$d/x/Add.Add_1.1.1.1700000000000001" 512
wait_until 30 'grep -q "different summary" "$WORK/daemon.log"' || fail "no conflict reported"
[ -f "$d/x/Add.Add_1.1.1.1700000000000001" ] || fail "raw file with other bytes removed"
stop_daemon
[ "$(sqlite3 -cmd ".timeout 5000" "file:$d/msit-summary.db?mode=ro" 'pragma integrity_check')" = ok ] || fail "store damaged"
# SIGHUP with another sketch_bits reaches the store the daemon already holds open: float32
# buckets (4 bytes each) before the reload, float64 (8) after it, in one store.
e="$WORK/reload/msit_ge_dump"; mkdir -p "$e/x"
sketch_bytes() {
  sqlite3 -cmd ".timeout 5000" "file:$e/msit-summary.db?mode=ro" \
    "select length(t.sketch) from dirs d join files f on f.dir_id = d.id join tensors t on t.key = f.id * 1048576 where d.path = 'x' and f.name = '$1'" 2> /dev/null
}
printf 'settle_ms = 0\nsketch_width = 128\nsketch_bits = 32\n' > "$WORK/r.conf"
start_daemon --config "$WORK/r.conf" "$e"
$DUMPS one "$e/x/Add.Add_1.1.1.1700000000000001" 4096
wait_until 30 '[ "$(sketch_bytes Add.Add_1.1.1.1700000000000001)" = 512 ]' || fail "no float32 sketch stored"
printf 'settle_ms = 0\nsketch_width = 128\nsketch_bits = 64\n' > "$WORK/r.conf"
kill -HUP "$DAEMON_PID"
wait_until 5 'grep -q "config reloaded: settle 0 ms" "$WORK/daemon.log"' || fail "SIGHUP did not reload"
$DUMPS one "$e/x/Add.Add_2.2.1.1700000000000002" 4096
wait_until 30 '[ "$(sketch_bytes Add.Add_2.2.1.1700000000000002)" = 1024 ]' ||
  fail "reloaded sketch_bits = 64 not used by the open store: $(sketch_bytes Add.Add_2.2.1.1700000000000002) bytes"
stop_daemon
echo "store_watch: ok"
