#!/usr/bin/env bash
# The installed template unit: `systemd-analyze verify` prints nothing (no warning at all) and
# `systemd-analyze security --offline=true` rates its exposure at most 2.0.
set -euo pipefail
CMAKE="$1"; BUILD="$2"
if ! command -v systemd-analyze >/dev/null; then echo "systemd-analyze not installed: skipped"; exit 0; fi
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
"$CMAKE" --install "$BUILD" --prefix "$WORK/prefix" >/dev/null
unit="$WORK/prefix/lib/systemd/system/msit-compact@.service"
[ -f "$unit" ] || { echo "FAIL: unit not installed"; exit 1; }
[ -f "$WORK/prefix/etc/msit-compact/msit-compact.conf" ] || { echo "FAIL: config not installed"; exit 1; }
grep -q "^ExecStart=$WORK/prefix/bin/msit-compact watch " "$unit" || { echo "FAIL: ExecStart path"; exit 1; }
# An instance (the escaped path) of the template, as systemctl enable would create.
mkdir -p "$WORK/units"
cp "$unit" "$WORK/units/"
ln -s "msit-compact@.service" "$WORK/units/msit-compact@data-dump.service"
out=$(systemd-analyze verify "$WORK/units/msit-compact@data-dump.service" 2>&1) || { echo "FAIL: verify: $out"; exit 1; }
[ -z "$out" ] || { echo "FAIL: verify warnings:"; echo "$out"; exit 1; }
sec=$(systemd-analyze security --offline=true --no-pager "$WORK/units/msit-compact@data-dump.service" 2>&1 || true)
level=$(echo "$sec" | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
[ -n "$level" ] || { echo "FAIL: no exposure level:"; echo "$sec" | tail -5; exit 1; }
echo "exposure $level"
awk -v l="$level" 'BEGIN { exit !(l <= 2.0) }' || { echo "FAIL: exposure $level above 2.0"; exit 1; }
# The config file the unit points at parses (exit 78 would mean it does not).
"$WORK/prefix/bin/msit-compact" watch --config "$WORK/prefix/etc/msit-compact/msit-compact.conf" --help >/dev/null
echo PASS
