#!/usr/bin/env bash
# kill -9 of `compact` at random moments (12 times, seeded), writing into summary stores: after
# every kill each raw file is in place or has a committed row (never both lost), the stores pass
# quick_check; a last clean run compacts everything and leaves no temp or claim file.
source "$(dirname "$0")/compact_lib.sh" "$@"
CHECK="python3 $(dirname "$0")/store_check.py"
"$DUMPGEN" tree --out "$T/d" --layout all --files 1500 --seed 31 > /dev/null
RANDOM=4242
for k in $(seq 1 12); do
  "$MSIT" compact --jobs 2 "$T/d" > /dev/null 2>&1 &
  pid=$!
  sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"  # the kill's random moment (the scenario)
  kill -9 "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  out=$($CHECK "$T/d" "$T/d/manifest.json") || fail "after kill $k: $out"
done
echo "after kills: $out"
rc=$(run_compact "$T/d" --jobs 2)
expect_rc 0 "$rc" "final run"
out=$($CHECK "$T/d" "$T/d/manifest.json" --all-stored) || fail "final: $out"
left=$(find "$T/d" -name '.msit-tmp.*' -o -name '.msit-claim.*')
[ -z "$left" ] || { cat "$T/compact.out" "$T/compact.err" >&2; ls -la --time-style=full-iso $left >&2; fail "temp or claim files left: $left"; }
"$DUMPGEN" verify --manifest "$T/d/manifest.json" --tree "$T/d" --expect-raw-gone > /dev/null || fail "values differ from the manifest"
echo "store_compact_kill9: ok ($out)"
