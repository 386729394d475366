#!/usr/bin/env bash
# compact into summary stores (the default): every value checked against the generator's
# manifest, reruns idempotent, compare reports byte-identical to the JSON format's (64-bit
# sketch buckets), the README's sqlite3 query, and hostile stores refused with raw files kept.
source "$(dirname "$0")/compact_lib.sh" "$@"
"$DUMPGEN" tree --out "$T/d" --layout all --files 300 --seed 7 > /dev/null
rc=$(run_compact "$T/d" --jobs 2)
expect_rc 0 "$rc" "compact into stores"
[ -z "$(find "$T/d" -name '*.summary.json')" ] || fail "JSON summaries written although the store is the default"
[ -n "$(find "$T/d" -name msit-summary.db)" ] || fail "no store written"
"$DUMPGEN" verify --manifest "$T/d/manifest.json" --tree "$T/d" --expect-raw-gone > "$T/verify.out" || { cat "$T/verify.out"; fail "stored values"; }
for db in $(find "$T/d" -name msit-summary.db); do
  [ "$(sqlite3 "file:$db?mode=ro" 'pragma integrity_check')" = ok ] || fail "$db damaged"
  [ "$(sqlite3 "file:$db?mode=ro" 'pragma user_version')" = 2 ] || fail "$db version"
done
rc=$(run_compact "$T/d" --json)
expect_rc 0 "$rc" "second run"
[ "$(json_field "$T/compact.out" compacted)" = 0 ] || fail "second run compacted again: $(cat "$T/compact.out")"

# The README's query: the ten tensors with the largest abs_max.
db=$(find "$T/d" -name msit-summary.db | sort | head -n 1)
rows=$(sqlite3 -readonly "$db" "SELECT path, role, idx, abs_max FROM tensor_stats ORDER BY abs_max DESC LIMIT 10" | wc -l)
[ "$rows" -ge 1 ] || fail "README query returned nothing"

# Compare on stores equals compare on JSON summaries (64-bit buckets: bit-exact sketches).
"$DUMPGEN" model --out "$T/s" --ops 10 --tokens 2 --diverge-at 4 > /dev/null
cp -a "$T/s" "$T/j"
"$MSIT" compact --sketch-bits 64 "$T/s/msit_ge_dump" "$T/s/msit_fx_dump" > /dev/null
"$MSIT" compact --summary-format json "$T/j/msit_ge_dump" "$T/j/msit_fx_dump" > /dev/null
rc=0; "$MSIT" compare --my-path "$T/s/msit_ge_dump" --golden-path "$T/s/msit_fx_dump" -o "$T/rs" > /dev/null || rc=$?
[ "$rc" = 1 ] || fail "compare on stores: exit $rc (expected 1, the injected divergence)"
rc=0; "$MSIT" compare --my-path "$T/j/msit_ge_dump" --golden-path "$T/j/msit_fx_dump" -o "$T/rj" > /dev/null || rc=$?
[ "$rc" = 1 ] || fail "compare on JSON: exit $rc"
cmp <(sed "s#$T/j/#$T/s/#g" "$T"/rj/*.csv) "$T"/rs/*.csv || fail "store and JSON reports differ"
[ "$(wc -l < "$T"/rs/*.csv)" -gt 10 ] || fail "report too short"

# FX vs FX with 24 ops: the store numbers files in name order (_softmax_15 before _softmax_3), the report
# runs in execution order, and compare reads the store in its own order (order_by_stored_rows):
# the report is still the JSON tree's, row for row.
"$DUMPGEN" model --out "$T/fs" --ops 24 --tokens 2 --diverge-at 13 > /dev/null
cp -a "$T/fs" "$T/fj"; cp -a "$T/fs" "$T/fg"
"$MSIT" compact --sketch-bits 64 "$T/fs/msit_fx_dump" > /dev/null
"$MSIT" compact --summary-format json "$T/fj/msit_fx_dump" "$T/fg/msit_fx_dump" > /dev/null
fx_db=$(find "$T/fs" -name msit-summary.db)
# (a later timestamp, the last 24 characters of a name, with a smaller id)
[ "$(sqlite3 -readonly "$fx_db" "SELECT count(*) FROM files a, files b WHERE a.id < b.id AND substr(a.name, -24) > substr(b.name, -24)")" -gt 0 ] \
  || fail "the store's file order is the report's: this case no longer tests the reordering"
"$MSIT" compare -q --my-path "$T/fs/msit_fx_dump" --golden-path "$T/fg/msit_fx_dump" -o "$T/rfs" > /dev/null || true
"$MSIT" compare -q --my-path "$T/fj/msit_fx_dump" --golden-path "$T/fg/msit_fx_dump" -o "$T/rfj" > /dev/null || true
cmp <(sed "s#$T/fj/#$T/fs/#g" "$T"/rfj/*.csv) "$T"/rfs/*.csv || fail "FX store and JSON reports differ"
[ "$(wc -l < "$T"/rfs/*.csv)" -gt 100 ] || fail "FX report too short"

# Hostile stores: a link under the store's name, a newer store. Raw files stay, targets untouched.
"$DUMPGEN" model --out "$T/h" --ops 4 --tokens 1 > /dev/null
echo precious > "$T/outside"
ln -s "$T/outside" "$T/h/msit_fx_dump/msit-summary.db"
rc=$(run_compact "$T/h/msit_fx_dump")
expect_rc 1 "$rc" "compact with a linked store"
grep -q "not a regular file" "$T/compact.out" "$T/compact.err" || fail "no error naming the link: $(cat "$T/compact.err")"
[ "$(cat "$T/outside")" = precious ] || fail "link target written"
[ -n "$(find "$T/h/msit_fx_dump" -name '*.npy')" ] || fail "raw files removed without a store"
"$MSIT" compact "$T/h/msit_ge_dump" > /dev/null
sqlite3 "$T/h/msit_ge_dump/msit-summary.db" "pragma user_version = 9"
"$DUMPGEN" model --out "$T/h2" --ops 4 --tokens 1 --seed 5 > /dev/null
cp -a "$T/h2/msit_ge_dump/worldsize1_global_rank0" "$T/h/msit_ge_dump/rank_copy"
before=$(find "$T/h/msit_ge_dump/rank_copy" -type f | wc -l)
rc=$(run_compact "$T/h/msit_ge_dump")
expect_rc 1 "$rc" "compact into a newer store"
grep -q "newer msit-compact" "$T/compact.out" "$T/compact.err" || fail "no newer-store error: $(cat "$T/compact.err")"
[ "$(find "$T/h/msit_ge_dump/rank_copy" -type f | wc -l)" = "$before" ] || fail "raw files removed into a newer store"
echo "store_compact: ok"
