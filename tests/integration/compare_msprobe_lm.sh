#!/bin/bash
# compare -lm (msProbe's layer mapping, docs/formats/msprobe-compare.md §3.1) on a generated
# MindSpore/PyTorch statistics pair whose layer and API names differ: every target entry is paired
# with the golden entry the generator intended, the injected API is the first divergence, -lm is
# ignored on a PyTorch target as msProbe ignores it, and bad -lm files or side files are refused
# with an error naming the file (and the line, for YAML).
# Usage: compare_msprobe_lm.sh MSIT_BIN TESTS_DIR
set -euo pipefail
BIN=$1
TESTS=$2
PY=python3
command -v /usr/bin/python3 > /dev/null && PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PY" "$TESTS/integration/compare_msprobe_lm_gen.py" "$T/g"
G=$T/g

"$BIN" compare -tp "$G/ms/dump.json" -gp "$G/pt/dump.json" -o "$T/lm" -lm "$G/layer_mapping.yaml" > "$T/lm.log" ||
  [[ $? == 1 ]]
grep -q '^first divergence: Mint.softmax.1.forward ' "$T/lm.log" || { cat "$T/lm.log"; exit 1; }
"$PY" - "$T"/lm/compare_result_*.csv "$G/expected.json" << 'PYEOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
expected = json.load(open(sys.argv[2]))
# msProbe renumbers backward call counters after the mapping (in file order, per API): the target's
# softmax.1.backward (written first) meets the golden's first backward entry, softmax.0.backward.
expected["Mint.softmax.1.backward"] = "Functional.softmax.0.backward"
expected["Mint.softmax.0.backward"] = "Functional.softmax.1.backward"
seen = set()
for r in rows:
    entry = max((e for e in expected if r["NPU Name"].startswith(e + ".")), key=len)
    want, got = expected[entry], r["Bench Name"]
    ok = got == "N/A" if want == "N/A" else got.startswith(want + ".")
    if not ok:
        sys.exit("%s: paired with %s, expected %s" % (r["NPU Name"], got, want))
    seen.add(entry)
if seen != set(expected):
    sys.exit("entries without rows: %s" % sorted(set(expected) - seen))
print("lm: %d rows paired as intended (%d entries)" % (len(rows), len(seen)))
PYEOF

# Without -lm the names differ everywhere: nothing is paired, and the two sides do not look like
# two runs of one model (exit 3, with the options that pair differently named APIs).
rc=0
"$BIN" compare -tp "$G/ms/dump.json" -gp "$G/pt/dump.json" -o "$T/plain" > "$T/plain.log" 2>&1 || rc=$?
[[ $rc == 3 ]] && grep -q ': 44 rows, .* 44 unmatched' "$T/plain.log" &&
  grep -q 'do not look like two runs of one model.*--layer-mapping' "$T/plain.log" || { cat "$T/plain.log"; exit 1; }
# -lm on a PyTorch target: msProbe ignores it, so do we (the rows of a plain compare).
cp -r "$G/pt" "$G/pt2"
"$BIN" compare -q -tp "$G/pt/dump.json" -gp "$G/pt2/dump.json" -o "$T/pt_lm" -lm "$G/layer_mapping.yaml" || [[ $? == 1 ]]
"$BIN" compare -q -tp "$G/pt/dump.json" -gp "$G/pt2/dump.json" -o "$T/pt_plain" || [[ $? == 1 ]]
cmp <(tail -n +2 "$T"/pt_lm/compare_result_*.csv) <(tail -n +2 "$T"/pt_plain/compare_result_*.csv)

refused() {  # refused WHAT EXPECTED_TEXT compare-args...: exit 3 and the text on stderr
  local what=$1 text=$2
  shift 2
  local rc=0
  "$BIN" compare -q -tp "$G/ms/dump.json" -gp "$G/pt/dump.json" -o "$T/bad" "$@" 2> "$T/err" || rc=$?
  [[ $rc == 3 ]] || { echo "$what: exit $rc, expected 3"; cat "$T/err"; exit 1; }
  grep -qF -- "$text" "$T/err" || { echo "$what: expected '$text' in:"; cat "$T/err"; exit 1; }
}
printf 'TopLayer:\n  - a\n' > "$T/list.yaml"
printf 'TopLayer:\n  a:\n    b: c\n' > "$T/deep.yaml"
printf 'TopLayer: x\n' > "$T/flat.yaml"
printf 'TopLayer:\n  a: b\n  a: c\n' > "$T/twice.yaml"
printf 'TopLayer:\n  a: "b\n' > "$T/broken.yaml"
refused missing "none.yaml: open: cannot open" -lm "$T/none.yaml"
refused list "list.yaml: parse: line 2: the value of 'TopLayer' is not a mapping of names" -lm "$T/list.yaml"
refused deep "deep.yaml: parse: line 3: the value of 'TopLayer.a' is not a name" -lm "$T/deep.yaml"
refused flat "flat.yaml: parse: line 1: the value of 'TopLayer' is not a mapping of names" -lm "$T/flat.yaml"
refused twice "twice.yaml: parse: line 3: 'a' is mapped twice under 'TopLayer'" -lm "$T/twice.yaml"
refused broken "broken.yaml: parse: line 3: found unexpected end of stream" -lm "$T/broken.yaml"
rm "$G/pt/construct.json"
refused one_side_file "pt/construct.json: open: missing: -lm needs both stack.json and construct.json beside" -lm "$G/layer_mapping.yaml"
echo "compare_msprobe_lm: ok"
