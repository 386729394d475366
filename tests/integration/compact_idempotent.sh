#!/usr/bin/env bash
# (b) a second compact over an already compacted tree changes nothing.
source "$(dirname "$0")/compact_lib.sh" "$@"

"$DUMPGEN" tree --out "$T/d" --layout all --files 300 --corrupt 12 --seed 12
rc=$(run_compact "$T/d" --jobs 2)
expect_rc 1 "$rc" "first compact"
snapshot "$T/d" > "$T/before"
rc=$(run_compact "$T/d" --jobs 2 --json)
expect_rc 1 "$rc" "second compact (corrupt files still fail)"
snapshot "$T/d" > "$T/after"
diff -u "$T/before" "$T/after" || fail "second compact changed the tree"
[ "$(json_field "$T/compact.out" compacted)" = 0 ] || fail "second compact wrote summaries"
[ "$(json_field "$T/compact.out" raw_removed)" = 0 ] || fail "second compact removed files"
"$DUMPGEN" verify --manifest "$T/d/manifest.json" --tree "$T/d" --expect-raw-gone
echo "compact_idempotent: ok"
