#!/bin/bash
# One compare flow on one kind of input, a row of compare_flows.tsv (docs/compare.md "Flows"):
# make the trees with msit-dumpgen, summarise none, both or the golden side only into the default
# store format, compare, and check the row count, the failing rows, the first divergence as the
# terminal prints it and the exit status.
# Usage: compare_flows.sh MSIT_BIN MSIT_DUMPGEN TSV CASE      (CASE: the row's name)
#        compare_flows.sh MSIT_BIN MSIT_DUMPGEN TSV CASE --observe  (print what this build gives)
set -euo pipefail
BIN=$1
GEN=$2
TSV=$3
CASE=$4
OBSERVE=${5:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

line=$(awk -F'\t' -v c="$CASE" '$1 == c' "$TSV")
[[ -n $line ]] || { echo "compare_flows: no row $CASE in $TSV" >&2; exit 2; }
IFS=$'\t' read -r name gens golden my opts variant want_rows want_fails want_first want_exit note <<< "$line"
[[ $opts == - ]] && opts=""

# gens: NAME:ARGS|NAME:ARGS  (each one msit-dumpgen call writing $T/w/NAME); what msit-dumpgen
# does not write comes from compare_flows_prep.py: +weights:NAME:ARGS (safetensors pair in
# $T/w/NAME), +stats:DIR (statistics.csv in every module dir of the torch tree $T/w/DIR).
PREP=$(dirname "$0")/compare_flows_prep.py
IFS='|' read -ra calls <<< "$gens"
for c in "${calls[@]}"; do
  case $c in
    +weights:*)
      c=${c#+weights:}
      # shellcheck disable=SC2086
      python3 "$PREP" weights "$T/w/${c%%:*}" ${c#*:}
      ;;
    +stats:*)
      c=${c#+stats:}
      cp -a "$T/w/$c" "$T/stats-src"
      MSIT_COMPACT_SUMMARY_FORMAT=json "$BIN" compact "$T/stats-src" -q > /dev/null
      python3 "$PREP" stats "$T/w/$c" "$T/stats-src"
      rm -rf "$T/stats-src"
      ;;
    *)
      # shellcheck disable=SC2086
      "$GEN" ${c#*:} --out "$T/w/${c%%:*}" > /dev/null
      ;;
  esac
done
W=$T/w
G=$W/$golden
M=$W/$my
# Options may name a generated file: @W@ is the directory the msit-dumpgen calls wrote into.
opts=${opts//@W@/$W}
# The default summary format (the SQLite store), whatever the test environment says.
compact() { MSIT_COMPACT_SUMMARY_FORMAT=store "$BIN" compact "$1" -q > "$T/compact.log" 2>&1; }
case $variant in
  raw) ;;
  store) compact "$G" && compact "$M" ;;
  mixed) compact "$G" ;;
  *) echo "compare_flows: unknown variant $variant" >&2; exit 2 ;;
esac

rc=0
# shellcheck disable=SC2086
"$BIN" compare -g "$G" -m "$M" -o "$T/out" $opts > "$T/stdout" 2> "$T/stderr" || rc=$?
# Rows and failing rows of every CSV report written; the first divergence of the terminal.
read -r rows fails < <(python3 - "$T/out" <<'PY'
import csv, glob, sys
rows = fails = 0
for f in sorted(glob.glob(sys.argv[1] + "/*.csv")):
    for r in csv.DictReader(open(f)):
        rows += 1
        fails += r.get("verdict") == "fail"
print(rows, fails)
PY
)
first=$(sed -n 's/^  token [^:]*: \(.*\), error [^ ]*x its floor.*$/\1/p' "$T/stdout" | head -1)
[[ -n $first ]] || first=none
got="rows=$rows fails=$fails first=$first exit=$rc"
want="rows=$want_rows fails=$want_fails first=$want_first exit=$want_exit"
if [[ -n $OBSERVE ]]; then
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$rows" "$fails" "$first" "$rc"
  exit 0
fi
if [[ $got != "$want" ]]; then
  echo "compare_flows $name ($variant): got  $got" >&2
  echo "compare_flows $name ($variant): want $want" >&2
  [[ $note == - ]] || echo "compare_flows $name: note: $note" >&2
  echo "--- stdout" >&2; cat "$T/stdout" >&2
  echo "--- stderr" >&2; cat "$T/stderr" >&2
  exit 1
fi
echo "compare_flows $name: $got"
