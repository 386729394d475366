#!/usr/bin/env bash
# compact's publish pipeline keeps the durability order (docs/safety.md, "Commit before removal"):
# a raw file is removed only after the store commit that holds its row. Commits made to fail
# (MSIT_TEST_FAIL_COMMIT_AFTER, common/base/test_hooks.h): from the first one, every raw file stays
# byte-identical and nothing is stored; from the third one, what the two good commits held is
# stored and removed, everything else is in place; a clean run then compacts the rest.
source "$(dirname "$0")/compact_lib.sh" "$@"
export MSIT_COMPACT_SUMMARY_FORMAT=store
CHECK="python3 $(dirname "$0")/store_check.py"
"$DUMPGEN" tree --out "$T/d" --layout all --files 600 --seed 31 > /dev/null
raw_snapshot() { (cd "$T/d" && find . -type f ! -name 'msit-summary.db*' -print0 | xargs -0 sha256sum | LC_ALL=C sort); }
before=$(raw_snapshot)
json_num() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

# Every commit fails: nothing removed, nothing stored, no temp or claim left.
rc=0; MSIT_TEST_FAIL_COMMIT_AFTER=0 "$MSIT" compact --jobs 2 --json "$T/d" > "$T/all.json" 2> "$T/all.err" || rc=$?
[ "$rc" = 1 ] || { cat "$T/all.err"; fail "failing commits: exit $rc, expected 1"; }
grep -q "commit failed" "$T/all.json" "$T/all.err" || fail "the failed commit is not reported: $(head -c 400 "$T/all.json")"
[ "$(json_num "$T/all.json" raw_removed)" = 0 ] || fail "raw files removed although no commit succeeded"
[ "$before" = "$(raw_snapshot)" ] || fail "raw files changed or removed although no commit succeeded"
out=$($CHECK "$T/d" "$T/d/manifest.json") || fail "after failing commits: $out"
[ "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["stored"])' "$out")" = 0 ] || fail "rows stored: $out"
[ -z "$(find "$T/d" -name '.msit-tmp.*' -o -name '.msit-claim.*')" ] || fail "temp or claim files left"

# Two commits succeed, later ones fail: the committed files are removed, the rest stay.
rc=0; MSIT_TEST_FAIL_COMMIT_AFTER=2 "$MSIT" compact --jobs 2 --json "$T/d" > "$T/two.json" 2> "$T/two.err" || rc=$?
[ "$rc" = 1 ] || { cat "$T/two.err"; fail "third commit failing: exit $rc, expected 1"; }
out=$($CHECK "$T/d" "$T/d/manifest.json") || fail "after the third commit failed: $out"
removed=$(json_num "$T/two.json" raw_removed)
stored=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["stored"])' "$out")
[ "$removed" -gt 0 ] && [ "$removed" = "$stored" ] || fail "removed $removed raw files, stored $stored rows: $out"
[ -n "$(find "$T/d" -name '*.npy' -o -name '*.pt' | head -n 1)" ] || fail "no raw file left although commits failed"
[ -z "$(find "$T/d" -name '.msit-tmp.*' -o -name '.msit-claim.*')" ] || fail "temp or claim files left"

rc=$(run_compact "$T/d" --jobs 2)
expect_rc 0 "$rc" "clean run"
out=$($CHECK "$T/d" "$T/d/manifest.json" --all-stored) || fail "final: $out"
echo "store_commit_order: ok ($out)"
