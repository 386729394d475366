#!/bin/bash
# compare on msProbe dumps (docs/formats/msprobe-compare.md) through the CLI as msProbe users type it:
# -tp/-gp on dump.json files and on step folders (a report per rank, msProbe's names), the stack
# column, -i compare.json (8.x's report), --xlsx, -dm, a bad -lm file, and the injected API named as
# first divergence.
# Usage: compare_msprobe.sh MSIT_BIN TESTS_DIR
set -euo pipefail
BIN=$1
TESTS=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
PY=""  # a python3 with numpy (scripts/deps installs Debian's)
for p in python3 /usr/bin/python3; do
  if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import numpy' > /dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "SKIP: no python3 with numpy"; exit 77; }
expect_rc() {  # expect_rc RC LOG cmd...
  local want=$1 log=$2 rc=0
  shift 2
  "$@" > "$log" 2>&1 || rc=$?
  [[ $rc == "$want" ]] || { cat "$log"; fail "expected exit $want, got $rc: $*"; }
}

# Statistics and md5 pairs: msProbe's columns and verdict counts (the cells are pinned against msProbe's
# own output in tests/unit/msprobe_compare_test.cpp).
"$PY" "$TESTS/msprobe_ref/gen_statistics.py" "$T/stat"
"$PY" "$TESTS/msprobe_ref/gen_md5.py" "$T/md5"
expect_rc 1 "$T/log" "$BIN" compare -tp "$T/stat/npu/dump.json" -gp "$T/stat/bench/dump.json" -o "$T/o1"
grep -q "(statistics): 24 rows, 18 pass, 1 warning, 5 error, 2 unmatched" "$T/log" || { cat "$T/log"; fail stat; }
CSV=$(ls "$T"/o1/compare_result_*.csv)
[[ $(basename "$CSV") =~ ^compare_result_[0-9]{14}\.csv$ ]] || fail "report name $CSV"
head -1 "$CSV" | grep -q "^NPU Name,Bench Name,.*,Max diff,.*,Requires_grad Consistent,Result,Err_message$" || fail header
expect_rc 1 "$T/log" "$BIN" compare -tp "$T/md5/npu_md5/dump.json" -gp "$T/md5/bench_md5/dump.json" -o "$T/o2" -q
head -1 "$T"/o2/compare_result_*.csv | grep -q ",NPU MD5,BENCH MD5,Requires_grad Consistent,Result,Err_message$" || fail md5

# A MindSpore tensor dump (.npy) in step folders of two ranks, the error injected at Mint.mul
# (index 2) forward and at Functional.gelu (index 3) backward; construct.json names their Cells.
"$PY" "$TESTS/integration/compare_msprobe_gen.py" "$T/t" --ranks 2 --inject 2
expect_rc 1 "$T/log" "$BIN" compare -tp "$T/t/npu/step0" -gp "$T/t/bench/step0" -o "$T/o3"
[[ $(grep -c "^first divergence: Mint.mul.0.forward (Mint.mul.0.forward.output.0)$" "$T/log") == 2 ]] || { cat "$T/log"; fail divergence; }
[[ $(grep -c "^  in Cell.layers.1.Block.forward.0$" "$T/log") == 2 ]] || { cat "$T/log"; fail module; }
"$PY" "$TESTS/integration/compare_msprobe_gen.py" "$T/bw" --inject-backward 3
expect_rc 1 "$T/log" "$BIN" compare -tp "$T/bw/npu/step0/rank0" -gp "$T/bw/bench/step0/rank0" -o "$T/o3b"
grep -q "^first divergence (backward): Functional.gelu.0.backward " "$T/log" || { cat "$T/log"; fail backward; }
! grep -q "^first divergence: " "$T/log" || { cat "$T/log"; fail "a forward divergence without one injected"; }
for r in 0 1; do
  R=$(ls "$T"/o3/compare_result_rank${r}_*.csv)
  "$PY" - "$R" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 24, len(rows)
assert list(rows[0])[-3:] == ["Err_message", "NPU_Stack_Info", "Data_name"], list(rows[0])[-3:]
errors = [r["NPU Name"] for r in rows if r["Result"] == "error"]
# The backward pass reads Mint.mul's error through the saved activations from softmax on.
assert errors == ["Mint.mul.0.forward.output.0", "Functional.softmax.0.backward.output.0"], errors
assert rows[0]["NPU_Stack_Info"].startswith("['File net.py, line 10"), rows[0]["NPU_Stack_Info"]
assert rows[1]["NPU_Stack_Info"] == "N/A"
assert float(rows[0]["Cosine"]) == 1.0 and float(rows[5]["Cosine"]) < 0.99, rows[5]["Cosine"]
PY
done
# What msProbe refuses: a tensor target against a statistics golden is compared on both sides'
# dump.json statistics, and the first divergence still names Mint.mul (from the statistics' lower
# bound of the error); without an injected error nothing is named.
"$PY" "$TESTS/integration/compare_msprobe_gen.py" "$T/mixed" --inject 2 --golden-task statistics
expect_rc 1 "$T/log" "$BIN" compare -tp "$T/mixed/npu/step0" -gp "$T/mixed/bench/step0" -o "$T/o9"
grep -q "(statistics): 24 rows" "$T/log" || { cat "$T/log"; fail "mixed mode"; }
grep -q "^first divergence: Mint.mul.0.forward " "$T/log" || { cat "$T/log"; fail "mixed divergence"; }
"$PY" "$TESTS/integration/compare_msprobe_gen.py" "$T/clean" --golden-task statistics
expect_rc 0 "$T/log" "$BIN" compare -tp "$T/clean/npu/step0" -gp "$T/clean/bench/step0" -o "$T/o10"
! grep -q "first divergence" "$T/log" || { cat "$T/log"; fail "clean run named a divergence"; }

# The dump_path (step folders paired by name): reports under step0/.
expect_rc 1 "$T/log" "$BIN" compare -tp "$T/t/npu" -gp "$T/t/bench" -o "$T/o4" -q
[[ $(ls "$T"/o4/step0/compare_result_rank*_*.csv | wc -l) == 2 ]] || fail "dump_path reports"
# Unequal rank counts (msProbe refuses them): ranks paired by number, the one the golden lacks
# reported as not compared (docs/resolve.md "msProbe trees").
cp -r "$T/t/npu/step0/rank1" "$T/t/npu/step0/rank7"
expect_rc 1 "$T/log" "$BIN" compare -tp "$T/t/npu/step0" -gp "$T/t/bench/step0" -o "$T/o5"
grep -q "rank 7 of --my-path not in --golden-path: not compared" "$T/log" || { cat "$T/log"; fail ranks; }
rm -rf "$T/t/npu/step0/rank7"

# 8.x's -i compare.json, and the xlsx.
printf '{"npu_path": "%s", "bench_path": "%s", "is_print_compare_log": true}' \
  "$T/t/npu/step0/rank0/dump.json" "$T/t/bench/step0/rank0/dump.json" > "$T/compare.json"
expect_rc 1 "$T/log" "$BIN" compare -i "$T/compare.json" -o "$T/o6" --xlsx
X=$(ls "$T"/o6/compare_result_*.xlsx)
[[ $(head -c 2 "$X") == PK ]] || fail "not an xlsx: $X"
expect_rc 2 "$T/log" "$BIN" compare -i "$T/compare.json" -tp "$T/t/npu" -o "$T/o6"
# 8.x's report: Accuracy Reached or Not (Yes where Cosine and MaxAbsErr pass, No on the injected
# API's output) and the metric notes as Err_message.
expect_rc 1 "$T/log" "$BIN" compare -i "$T/compare.json" -o "$T/o6c"
"$PY" - "$T"/o6c/compare_result_*.csv <<'PY' || fail "8.x report"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
assert head[-4:] == ["Requires_grad Consistent", "Accuracy Reached or Not", "Err_message", "Data_name"] or \
    head[-5:-1] == ["Requires_grad Consistent", "Accuracy Reached or Not", "Err_message", "NPU_Stack_Info"], head
assert "Result" not in head, head
col = {h: i for i, h in enumerate(head)}
seen = {}
for r in rows[1:]:
    cos, mae, acc = r[col["Cosine"]], r[col["MaxAbsErr"]], r[col["Accuracy Reached or Not"]]
    try:
        c, m = float(cos), float(mae)
        want = "No" if (c < 0.99 and m > 0.001) or c < 0.9 or m > 1 else "Yes"
    except ValueError:
        want = {"shape unmatched": "Unmatched", "N/A": "No"}.get(cos, "None")
    assert acc == want, (r[0], cos, mae, acc, want)
    seen[acc] = seen.get(acc, 0) + 1
assert seen.get("Yes") and seen.get("No"), seen
print("8.x report:", seen)
PY

# -dm: a renamed golden row is matched through the mapping; a broken mapping file names itself.
mkdir -p "$T/dm/n" "$T/dm/b"
"$PY" - "$T/stat/npu/dump.json" "$T/dm/n/dump.json" "$T/stat/bench/dump.json" "$T/dm/b/dump.json" <<'PY'
import json, sys
n = json.load(open(sys.argv[1])); json.dump(n, open(sys.argv[2], "w"))
b = json.load(open(sys.argv[3]))
b["data"]["Functional.linear.9.forward"] = b["data"].pop("Functional.linear.0.forward")
json.dump(b, open(sys.argv[4], "w"))
PY
cat > "$T/dm.yaml" <<'YAML'
Functional.linear.0.forward.input.0: Functional.linear.9.forward.input.0
YAML
expect_rc 1 "$T/log" "$BIN" compare -tp "$T/dm/n/dump.json" -gp "$T/dm/b/dump.json" -o "$T/o7" -dm "$T/dm.yaml"
grep -q "^Functional.linear.0.forward.input.0,Functional.linear.9.forward.input.0," "$T"/o7/compare_result_*.csv || fail "-dm"
printf 'a:\n  - b\n' > "$T/bad.yaml"
expect_rc 3 "$T/log" "$BIN" compare -tp "$T/dm/n/dump.json" -gp "$T/dm/b/dump.json" -o "$T/o8" -dm "$T/bad.yaml"
grep -q "bad.yaml.*line 2" "$T/log" || { cat "$T/log"; fail "bad yaml"; }
# A -dm file given to -lm: not a layer mapping (classes of mappings), said with its line.
expect_rc 3 "$T/log" "$BIN" compare -tp "$T/dm/n/dump.json" -gp "$T/dm/b/dump.json" -o "$T/o8" -lm "$T/dm.yaml"
grep -q "dm.yaml: parse: line 1: the value of .* is not a mapping of names" "$T/log" || { cat "$T/log"; fail "-lm"; }
# msProbe's options on paths that are no msProbe dumps: refused naming the family.
mkdir -p "$T/x/a" "$T/x/b"  # not empty (an empty side is refused as empty first)
echo notes > "$T/x/a/notes.txt"; echo notes > "$T/x/b/notes.txt"
expect_rc 3 "$T/log" "$BIN" compare -tp "$T/x/a" -gp "$T/x/b" -fm
grep -q "not msProbe dumps" "$T/log" || { cat "$T/log"; fail "-fm elsewhere"; }
echo "compare_msprobe: ok"
