#!/usr/bin/env bash
# Disk watermarks: with min_free at 100% every filesystem is "low": one warning in the log, the
# low_space_hook runs (no shell) with the root and the free bytes, the status file and
# `msit-compact status` show it; with --min-free 0 nothing is reported.
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"
mkdir -p "$WORK/dump"
cat >"$WORK/hook.sh" <<'SH'
#!/bin/sh
printf '%s\n' "$@" >"$(dirname "$0")/hook.args.tmp" && mv "$(dirname "$0")/hook.args.tmp" "$(dirname "$0")/hook.args"
SH
chmod +x "$WORK/hook.sh"
printf 'low_space_hook = %s\nlow_space_hook_interval_s = 3600\n' "$WORK/hook.sh" >"$WORK/watch.conf"

start_daemon --config "$WORK/watch.conf" --min-free 100% --settle-ms 20 "$WORK/dump"
wait_until 10 '[ -f "$WORK/hook.args" ]' || fail "the low_space_hook did not run"
[ "$(sed -n 1p "$WORK/hook.args")" = "$WORK/dump" ] || fail "hook argument 1: $(cat "$WORK/hook.args")"
[[ "$(sed -n 2p "$WORK/hook.args")" =~ ^[0-9]+$ ]] || fail "hook argument 2: $(cat "$WORK/hook.args")"
wait_until 10 'python3 -c "import json,sys; fs=json.load(open(sys.argv[1]))[\"filesystems\"]; sys.exit(0 if fs and fs[0][\"low\"] else 1)" "$WORK/status.json" 2>/dev/null' \
  || fail "status.json does not show the low filesystem"
out="$("$MSIT_BIN" status --json-status "$WORK/status.json")"
grep -q "free space .*$WORK/dump: .* LOW (under min_free" <<<"$out" || fail "status output: $out"
# More checks (one before each status write, whose updated_unix_s advances): still one warning, one hook run.
updated=$(status_field updated_unix_s)
wait_until 30 status_at_least updated_unix_s $(( updated + 2 )) || fail "the status file is not rewritten"
stop_daemon
[ "$(grep -c 'low disk space' "$WORK/daemon.log")" -eq 1 ] || fail "expected exactly one low-space warning"
[ "$(grep -c 'low_space_hook started' "$WORK/daemon.log")" -eq 1 ] || fail "expected exactly one hook run"

rm -f "$WORK/status.json"
start_daemon --min-free 0 --settle-ms 20 "$WORK/dump"
wait_until 10 '[ -f "$WORK/status.json" ]' || fail "no status file"
out="$("$MSIT_BIN" status --json-status "$WORK/status.json")"
grep -q "free space .*no watermark" <<<"$out" || fail "status output with --min-free 0: $out"
stop_daemon
[ "$(grep -c 'low disk space' "$WORK/daemon.log")" -eq 1 ] || fail "--min-free 0 still warned"
echo PASS
