#!/usr/bin/env bash
# compare on archived GE/FX model dumps gives exactly the report of the raw dumps.
source "$(dirname "$0")/compact_lib.sh" "$@"

"$DUMPGEN" model --out "$T/m" --ops 12 --tokens 2 --diverge-at 7 --seed 5 --ge-layout rank --fx-layout rank > /dev/null
cp -a "$T/m" "$T/a"
compare() {  # DIR OUT
  local rc=0
  mkdir -p "$2"
  "$MSIT" compare --my-path "$1/msit_ge_dump" --golden-path "$1/msit_fx_dump" -o "$2" -j 2 > "$2/log" 2>&1 || rc=$?
  [ "$rc" = 1 ] || { cat "$2/log"; fail "compare of $1: exit $rc, expected 1 (divergence)"; }
}
compare "$T/m" "$T/out-raw"
"$MSIT" compact "$T/a/msit_ge_dump" "$T/a/msit_fx_dump" --archive > /dev/null
[ -z "$(find "$T/a" -type f -name '*.npy')" ] || fail "raw npy files left after compact --archive"
n=$(find "$T/a" -name '*.zst' | wc -l)
[ "$n" -gt 20 ] || fail "expected archives, found $n"
compare "$T/a" "$T/out-arc"
raw_csv=$(ls "$T"/out-raw/msit_cmp_report_*.csv)
arc_csv=$(ls "$T"/out-arc/msit_cmp_report_*.csv)
# Paths differ only by the tree's directory name.
diff <(sed "s#$T/m/#ROOT/#g" "$raw_csv") <(sed "s#$T/a/#ROOT/#g" "$arc_csv") || fail "reports differ"
grep -q ",exact," "$arc_csv" || fail "archived rows were not compared exactly"
echo "archive_compare: ok"
