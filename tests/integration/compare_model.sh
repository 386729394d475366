#!/bin/bash
# compare on msit-dumpgen model scenarios: every layout (rank / old), fused and unfused, raw,
# rich summaries, _min_max files and a mix; the report and the terminal summary must name the
# scenario's first divergent op, summaries must agree with the full compare (same first
# divergence, relative_euclidean_distance within 25%), and bad input must give clear errors.
# Usage: compare_model.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
BIN=$1
GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# Column index of a CSV header name (1-based), for awk.
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

# First failing row's my_data_path op name (report order = execution order).
first_fail_op() {
  local csv=$1 v
  v=$(col "$csv" verdict)
  python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["verdict"] == "fail":
        print(r["my_data_path"].split("/")[-1].split(",")[0].split(".")[1]); break
EOF
}

run_compare() {  # DIR OUT -> sets CSV, LOG; checks exit code 1 (divergence found)
  local dir=$1 out=$2 rc=0
  mkdir -p "$out"
  "$BIN" compare --my-path "$dir/msit_ge_dump" --golden-path "$dir/msit_fx_dump" -o "$out" -j 2 >"$out/log" 2>&1 || rc=$?
  if [ "$rc" != 1 ]; then echo "expected exit 1 (divergence), got $rc"; cat "$out/log"; exit 1; fi
  CSV=$(ls "$out"/msit_cmp_report_*.csv | head -1)
}

expect_first() {  # CSV LOG OP
  local got
  got=$(first_fail_op "$1")
  [ "$got" = "$3" ] || { echo "first divergence: expected $3, got $got ($1)"; exit 1; }
  grep -A1 "^first divergence" "$2" | grep -q "token 0: $3 (" || { echo "terminal summary does not name $3"; cat "$2"; exit 1; }
}

for variant in "rank rank" "old data-dump" "rank-fused rank"; do
  set -- $variant
  ge=${1%-fused}; fx=$2
  extra=""; [ "$1" = "rank-fused" ] && extra="--fused"
  S="$T/$1"
  "$GEN" model --out "$S" --ops 12 --tokens 2 --diverge-at 7 --seed 5 --ge-layout "$ge" --fx-layout "$fx" $extra >/dev/null
  want=$(python3 -c "import json;print(json.load(open('$S/scenario.json'))['first_divergence']['ge_file_op_name'])")
  run_compare "$S" "$T/out-$1-raw"
  RAW=$CSV
  expect_first "$RAW" "$T/out-$1-raw/log" "$want"
  # Header: msit's 24 columns first, in order.
  head -1 "$RAW" | cut -d, -f1-24 | grep -qx "token_id,data_id,golden_data_path,golden_op_type,golden_dtype,golden_shape,golden_max_value,golden_min_value,golden_mean_value,my_data_path,my_op_type,my_dtype,my_shape,my_max_value,my_min_value,my_mean_value,cosine_similarity,max_relative_error,mean_relative_error,max_absolute_error,mean_absolute_error,kl_divergence,relative_euclidean_distance,cmp_fail_reason"

  # Same scenario, compacted into rich summaries (sketch width 128).
  cp -r "$S" "$S-sum"
  "$BIN" compact "$S-sum/msit_ge_dump" "$S-sum/msit_fx_dump" >/dev/null
  run_compare "$S-sum" "$T/out-$1-sum"
  expect_first "$CSV" "$T/out-$1-sum/log" "$want"
  python3 - "$RAW" "$CSV" <<'EOF'
import csv, sys
raw = list(csv.DictReader(open(sys.argv[1])))
est = list(csv.DictReader(open(sys.argv[2])))
assert len(raw) == len(est), (len(raw), len(est))
checked = 0
for a, b in zip(raw, est):
    assert a["my_data_path"].split("/")[-1] == b["my_data_path"].split("/")[-1], (a["my_data_path"], b["my_data_path"])
    if b["compare_mode"] != "sketch" or not a["relative_euclidean_distance"]:
        continue
    x, y = float(a["relative_euclidean_distance"]), float(b["relative_euclidean_distance"])
    if x > 1e-3:
        assert abs(y / x - 1) <= 0.25, (a["my_data_path"], x, y)
        checked += 1
print("sketch rows checked:", checked)
EOF

  # Mixed: raw GE vs summarised FX.
  cp -r "$S" "$S-mix"
  "$BIN" compact "$S-mix/msit_fx_dump" >/dev/null
  run_compare "$S-mix" "$T/out-$1-mix"
  expect_first "$CSV" "$T/out-$1-mix/log" "$want"
done

# Old converter files on both sides: stats mode, no cosine.
S="$T/rank"
cp -r "$S" "$T/minmax"
"$BIN" compact --summary-format msit "$T/minmax/msit_ge_dump" "$T/minmax/msit_fx_dump" >/dev/null
rc=0; "$BIN" compare -m "$T/minmax/msit_ge_dump" -g "$T/minmax/msit_fx_dump" -o "$T/out-minmax" --json >/dev/null 2>&1 || rc=$?
[ "$rc" = 4 ] || [ "$rc" = 1 ] || { echo "min_max compare exit $rc (want 4: inconclusive, or 1)"; exit 1; }
python3 - "$T"/out-minmax/*.json <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
assert rows and all(r["compare_mode"] == "stats" for r in rows if not r["cmp_fail_reason"]), rows[:2]
assert all(r["cosine_similarity"] is None for r in rows)
assert any(r["max_stat_absolute_error"] is not None for r in rows)
EOF

# msit's filters and columns reproduce a 24-column report.
"$BIN" compare -m "$S/msit_ge_dump" -g "$S/msit_fx_dump" -o "$T/out-msit" --msit-filters --msit-columns -q || true
[ "$(head -1 "$T"/out-msit/*.csv | tr ',' '\n' | wc -l)" = 24 ]

# Bad input: no common rank -> exit 3 with a clear message.
cp -r "$S" "$T/norank"
mv "$T/norank/msit_fx_dump/worldsize1_global_rank0" "$T/norank/msit_fx_dump/worldsize2_global_rank1"
rc=0; "$BIN" compare -m "$T/norank/msit_ge_dump" -g "$T/norank/msit_fx_dump" -o "$T/o3" >"$T/o3.log" 2>&1 || rc=$?
[ "$rc" = 3 ] && grep -q "no common rank" "$T/o3.log" || { echo "no-common-rank: rc=$rc"; cat "$T/o3.log"; exit 1; }
# Missing graph text -> exit 3.
rm "$T"/norank/msit_ge_dump/*.txt
rc=0; "$BIN" compare -m "$T/norank/msit_ge_dump" -g "$T/norank/msit_fx_dump" -o "$T/o4" >"$T/o4.log" 2>&1 || rc=$?
[ "$rc" = 3 ] && grep -qi "graph" "$T/o4.log" || { echo "missing graph: rc=$rc"; cat "$T/o4.log"; exit 1; }
# Usage error -> exit 2.
rc=0; "$BIN" compare --my-path "$S/msit_ge_dump" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ]
echo "compare_model: ok"
