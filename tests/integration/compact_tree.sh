#!/usr/bin/env bash
# (a) >= 1000 files over every layout with corrupt files: compact, then verify every summary
# against the generator's manifest; corrupt files fail the run but stay byte-identical.
source "$(dirname "$0")/compact_lib.sh" "$@"

"$DUMPGEN" tree --out "$T/d" --layout all --files 1000 --corrupt 24 --ranks 2 --tokens 2 --seed 11
rc=$(run_compact "$T/d" --jobs 2)
expect_rc 1 "$rc" "compact of a tree with corrupt files"
grep -q "24 files failed" "$T/compact.err" || fail "expected 24 failures: $(tail -3 "$T/compact.err")"
"$DUMPGEN" verify --manifest "$T/d/manifest.json" --tree "$T/d" --expect-raw-gone
echo "compact_tree: ok"
