#!/usr/bin/env bash
# Write failures while writing a summary (ENOSPC on write/fsync, then EIO), injected with an
# LD_PRELOAD shim: the raw file stays, the error is logged once per file, the daemon keeps
# running and retries until the fault is gone. Usage: daemon_write_failure.sh MSIT SHIM [ERRNO...]
# (one ctest per errno: daemon_write_failure_ENOSPC, daemon_write_failure_EIO).
MSIT_BIN="$1"; SHIM="$2"; source "$(dirname "$0")/daemon_lib.sh"
ERRNOS=("${@:3}"); [ ${#ERRNOS[@]} -gt 0 ] || ERRNOS=(ENOSPC EIO)
d="$WORK/msit_ge_dump"; mkdir -p "$d"
export MSIT_FAULT_FLAG="$WORK/fault-on" MSIT_FAULT_MATCH="$d/.msit-tmp."
touch "$MSIT_FAULT_FLAG"
for errname in "${ERRNOS[@]}"; do
  rm -f "$WORK/status.json"; : > "$WORK/daemon.log"
  MSIT_FAULT_ERRNO=$errname LD_PRELOAD="$SHIM" start_daemon --settle-ms 20 --rescan-interval-s 1 "$d"
  files=()
  for i in 1 2 3; do f="$d/Add.Add_$i$errname.$i.6.170659691210000$i"; $DUMPS one "$f"; files+=("$f"); done
  wait_until 10 '[ "$(status_field errors)" -ge 9 ]' || fail "$errname: failures not retried: $(cat "$WORK/status.json")"
  kill -0 "$DAEMON_PID" || fail "daemon died on $errname"
  for f in "${files[@]}"; do
    [ -f "$f" ] || fail "$errname: raw file removed although its summary failed: $f"
    [ ! -e "$f.summary.json" ] || fail "$errname: summary visible although writing it failed"
    n=$(grep -c "$(basename "$f")" "$WORK/daemon.log" || true)
    [ "$n" = 1 ] || fail "$errname: expected one log line for $f, got $n"
  done
  # The daemon keeps retrying: a retry's temp file exists for the instant between its creation
  # and its removal after the failed write. A leaked one stays; a retry's is gone on a later look.
  wait_until 3 '[ "$(find "$d" -name ".msit-tmp.*" | wc -l)" = 0 ]' ||
    fail "$errname: temp files left behind: $(find "$d" -name '.msit-tmp.*')"
  rm -f "$MSIT_FAULT_FLAG"
  wait_until 15 '[ "$(status_field files_compacted)" = 3 ]' || fail "$errname: no recovery after the fault: $(cat "$WORK/status.json")"
  for f in "${files[@]}"; do [ ! -e "$f" ] && [ -f "$f.summary.json" ] || fail "$errname: $f not compacted"; done
  [ "$(grep -c 'compacted after earlier failures' "$WORK/daemon.log")" = 3 ] || fail "$errname: recovery not logged"
  stop_daemon
  touch "$MSIT_FAULT_FLAG"
done
echo PASS
