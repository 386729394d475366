#!/usr/bin/env bash
# kill -9 at random moments (50 times, seeded): after every kill each raw file written so far
# still exists or has a valid summary (a file, or a committed row of the summary store), and no partial summary is visible under a final name;
# after a last clean run everything is compacted and no temp file is left.
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"
KILLS=${MSIT_KILLS:-50}
SEED=${MSIT_KILL_SEED:-20240611}
d="$WORK/msit_ge_dump"; m="$WORK/manifest"; mkdir -p "$d"; : > "$m"
# Each round: 8 new files, start, SIGKILL after 0-149 ms (before, during and after the
# start-up scan and the first batches), then check every file written so far.
$DUMPS killloop "$MSIT_BIN" "$d" "$m" "$KILLS" "$SEED" "$WORK/daemon.log" || fail "invariant broken (seed $SEED)"
next=$(wc -l < "$m")
# No wait: the start-up scan removes every temp it finds (a dead predecessor's, whatever its age).
start_daemon --settle-ms 0 "$d"
left() { find "$d" -type f ! -name "*.summary.json" ! -name .msit-compact.lock ! -name "msit-summary.db*"; }
wait_until 60 '[ "$(status_field pending)" = 0 ] && [ "$(status_field in_flight)" = 0 ] && [ -f "$WORK/status.json" ] && [ "$(left | wc -l)" = 0 ]' \
  || fail "final run did not finish: $(left | head -3)"
out=$($DUMPS verify "$d" "$m") || fail "final: $out"
echo "final: $out"
case "$out" in *'"temps": 0}'*) ;; *) fail "temp files left: $out" ;; esac
if [ "${MSIT_COMPACT_SUMMARY_FORMAT:-store}" = store ]; then
  rows=$(sqlite3 -cmd ".timeout 5000" "file:$d/msit-summary.db?mode=ro" "select count(*) from files")
  [ "$rows" = "$next" ] || fail "expected $next stored summaries, found $rows"
  [ "$(sqlite3 -cmd ".timeout 5000" "file:$d/msit-summary.db?mode=ro" "pragma integrity_check")" = ok ] || fail "store damaged"
else
  [ "$(count_files "$d" '*.summary.json')" = "$next" ] || fail "expected $next summaries"
fi
stop_daemon
echo PASS
