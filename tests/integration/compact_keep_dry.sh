#!/usr/bin/env bash
# (c) --dry-run writes and deletes nothing; --keep-raw writes summaries and keeps raw files
# byte-identical; a later plain compact verifies the existing summaries and removes the raw.
source "$(dirname "$0")/compact_lib.sh" "$@"

"$DUMPGEN" tree --out "$T/d" --layout all --files 200 --seed 13 \
  --dtypes float16,bfloat16,float32,float64,int8,int32,int64,uint8,bool,float8_e4m3fn,float8_e5m2
snapshot "$T/d" > "$T/orig"

rc=$(run_compact "$T/d" --dry-run --jobs 2)
expect_rc 0 "$rc" "dry run"
snapshot "$T/d" > "$T/after_dry"
diff -u "$T/orig" "$T/after_dry" || fail "--dry-run changed the tree"
grep -q "would compact" "$T/compact.out" || fail "dry run did not say what it would do"

rc=$(run_compact "$T/d" --keep-raw --jobs 2)
expect_rc 0 "$rc" "--keep-raw"
"$DUMPGEN" verify --manifest "$T/d/manifest.json" --tree "$T/d" --expect-raw-kept
snapshot "$T/d" | grep -v -e '\.summary\.json$' -e '/msit-summary\.db[^/]*$' > "$T/after_keep"
diff -u "$T/orig" "$T/after_keep" || fail "--keep-raw changed raw files"

rc=$(run_compact "$T/d" --jobs 2 --json)
expect_rc 0 "$rc" "compact after --keep-raw"
[ "$(json_field "$T/compact.out" compacted)" = 0 ] || fail "existing summaries were rewritten"
[ "$(json_field "$T/compact.out" verified_existing)" -gt 0 ] || fail "existing summaries not verified"
"$DUMPGEN" verify --manifest "$T/d/manifest.json" --tree "$T/d" --expect-raw-gone
echo "compact_keep_dry: ok"
