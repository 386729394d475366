#!/usr/bin/env bash
# Summary stores out and back: `export` to JSON gives compare the same report bytes as the
# stores themselves (64-bit sketches), the CSV has one row per stored tensor, `inspect` shows a
# store and a raw file that is gone, and export never replaces a file.
source "$(dirname "$0")/compact_lib.sh" "$@"
command -v sqlite3 > /dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

"$DUMPGEN" model --out "$T/m" --ops 10 --tokens 2 --diverge-at 4 > /dev/null
raw_ge=$(find "$T/m/msit_ge_dump" -type f ! -name '*.txt' | LC_ALL=C sort | head -1)
rc=$(run_compact "$T/m/msit_ge_dump" "$T/m/msit_fx_dump" --sketch-bits 64)
expect_rc 0 "$rc" "compact into stores"
for d in msit_ge_dump msit_fx_dump; do
  [ -f "$T/m/$d/msit-summary.db" ] || fail "no store in $d"
done
[ ! -e "$raw_ge" ] || fail "raw file $raw_ge not removed"

# JSON export mirrors the tree under -o; compare reads it like the stores.
"$MSIT" export "$T/m" -o "$T/e" 2> "$T/export.err" || { cat "$T/export.err" >&2; fail "export to JSON"; }
files=$(( $(sqlite3 "$T/m/msit_ge_dump/msit-summary.db" "select count(*) from files") +
          $(sqlite3 "$T/m/msit_fx_dump/msit-summary.db" "select count(*) from files") ))
json=$(find "$T/e" -name '*.summary.json' | wc -l)
[ "$json" = "$files" ] || fail "$json JSON summaries exported for $files stored files"
grep -q "exported $files entries" "$T/export.err" || fail "no summary line: $(cat "$T/export.err")"
cp "$T"/m/msit_ge_dump/*.txt "$T/e/msit_ge_dump/"  # the graph texts compare reads
(cd "$T" && "$MSIT" compare -m m/msit_ge_dump -g m/msit_fx_dump -o r_store -q) || true
(cd "$T" && "$MSIT" compare -m e/msit_ge_dump -g e/msit_fx_dump -o r_json -q) || true
[ "$(ls "$T"/r_store/msit_cmp_report_*.csv | wc -l)" = 1 ] || fail "no report from the stores"
rows=$(($(wc -l < "$T"/r_store/msit_cmp_report_*.csv) - 1))
[ "$rows" -gt 10 ] || fail "only $rows report rows"
cmp <(sed 's#\bm/msit_#TREE/msit_#g' "$T"/r_store/msit_cmp_report_*.csv) \
    <(sed 's#\be/msit_#TREE/msit_#g' "$T"/r_json/msit_cmp_report_*.csv) \
  || fail "compare reports differ between the stores and their JSON export"

# CSV: one row per stored tensor, header first.
"$MSIT" export "$T/m" --format csv -o "$T/all.csv" 2> /dev/null || fail "export to CSV"
tensors=$(( $(sqlite3 "$T/m/msit_ge_dump/msit-summary.db" "select count(*) from tensors") +
            $(sqlite3 "$T/m/msit_fx_dump/msit-summary.db" "select count(*) from tensors") ))
[ "$(head -1 "$T/all.csv" | cut -d, -f1-3)" = "store,path,op_type" ] || fail "CSV header: $(head -1 "$T/all.csv")"
[ "$(($(wc -l < "$T/all.csv") - 1))" = "$tensors" ] || fail "CSV has $(wc -l < "$T/all.csv") lines for $tensors tensors"
"$MSIT" export "$T/m/msit_fx_dump/msit-summary.db" --format csv 2> /dev/null |
  cmp -s - <(head -1 "$T/all.csv"; grep -F "$T/m/msit_fx_dump/msit-summary.db," "$T/all.csv") \
  || fail "CSV of one store (on stdout) differs from its rows in the CSV of the tree"

# inspect: a store's overview, and the raw file that the store now stands for.
"$MSIT" inspect "$T/m/msit_ge_dump/msit-summary.db" > "$T/inspect.out"
grep -q "summary store, version 2" "$T/inspect.out" || fail "store overview: $(cat "$T/inspect.out")"
grep -q "largest abs_max" "$T/inspect.out" || fail "no top tensors: $(cat "$T/inspect.out")"
"$MSIT" inspect "$raw_ge" > "$T/inspect_raw.out" || fail "inspect of removed $raw_ge"
grep -q "^stored summary of $raw_ge (in $T/m/msit_ge_dump/msit-summary.db)" "$T/inspect_raw.out" \
  || fail "stored summary: $(head -2 "$T/inspect_raw.out")"
exported="$T/e/msit_ge_dump/${raw_ge#"$T/m/msit_ge_dump/"}.summary.json"
cmp <("$MSIT" inspect --json "$raw_ge") "$exported" || fail "inspect --json differs from the exported JSON"
rc=0; "$MSIT" inspect "$T/m/msit_ge_dump/no-such-file" > /dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "inspect of an unknown gone file: exit $rc"

# Export again into the same place: every name is taken; nothing is replaced.
before=$(sha256sum "$exported")
echo mine > "$T/mine.csv"
rc=0; "$MSIT" export "$T/m" -o "$T/e" 2> "$T/again.err" || rc=$?
[ "$rc" = 1 ] || fail "export over existing files: exit $rc"
grep -qF "$exported: conflict" "$T/again.err" || fail "conflict not reported by path: $(head -3 "$T/again.err")"
[ "$(sha256sum "$exported")" = "$before" ] || fail "an existing JSON summary was replaced"
rc=0; "$MSIT" export "$T/m" --format csv -o "$T/mine.csv" 2> "$T/again.err" || rc=$?
[ "$rc" = 1 ] || fail "CSV export over an existing file: exit $rc"
[ "$(cat "$T/mine.csv")" = mine ] || fail "an existing CSV was replaced"
[ -z "$(find "$T" -maxdepth 1 -name '.msit-tmp*')" ] || fail "temp file left behind"
rc=0; "$MSIT" export "$T/e" 2> "$T/none.err" || rc=$?
[ "$rc" = 3 ] && grep -q "no msit-summary.db" "$T/none.err" || fail "export of a tree without stores: exit $rc"
echo "store_export: ok"
