#!/bin/bash
# compare on ATB and torch-hook dumps (docs/formats/atb-torch.md §3) through the CLI: the dispatch, the -cl CSV,
# the default three-sheet xlsx, torch vs torch, and an injected divergence named in the report.
# Usage: compare_atb.sh MSIT_BIN TREE_WRITER(atb_tree.py) MSIT_DUMPGEN
set -euo pipefail
BIN=$1
WRITER=$2
GEN=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

python3 "$WRITER" "$T/d" --layers 12 --diverge 7
G=$T/d/torch/msit_dump_20260101_000000/torch_tensors/cpu_100
M=$T/d/atb/msit_dump_20260101_000001/tensors/0_200

# -cl api: one CSV, exit 1 (a divergence), exactly one failing row, on layer 7's LayerNorm.
rc=0
"$BIN" compare -g "$G" -m "$M" --cl api -o "$T/out1" > "$T/log1" || rc=$?
[[ $rc == 1 ]] || { echo "expected exit 1, got $rc"; cat "$T/log1"; exit 1; }
grep -q "mode: torch (golden) vs ATB (my)" "$T/log1"
CSV=$(ls "$T"/out1/msit_cmp_report_*.csv)
python3 - "$CSV" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
fails = [r for r in rows if r["verdict"] == "fail"]
assert len(fails) == 1, [r["my_data_path"] for r in fails]
f = fails[0]
assert f["my_data_path"].endswith("/0/7_BlockLayer/0_LayerNormOperation/after/outtensor0.bin"), f["my_data_path"]
assert f["golden_data_path"].endswith("/0/root.layers.7.ln/output.pth"), f["golden_data_path"]
assert f["my_op_type"] == "LayerNormOperation" and f["golden_op_type"] == "LayerNorm"
assert [int(r["data_id"]) for r in rows] == list(range(len(rows)))
assert all(r["token_id"] == "0" for r in rows)
PY

# No -cl: the xlsx with msit HEAD's three sheets, and --msit-columns gives the 24 columns.
rc=0
"$BIN" compare -g "$G" -m "$M" -o "$T/out2" -q --msit-columns || rc=$?
[[ $rc == 1 ]]
X=$(ls "$T"/out2/msit_cmp_report_*.xlsx)
python3 - "$X" <<'PY'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = re.findall(r'<sheet name="([^"]+)"', z.read("xl/workbook.xml").decode())
assert names == ["layer", "module", "api"], names
layer = z.read("xl/worksheets/sheet1.xml").decode()  # constant-memory mode: inline strings
api = z.read("xl/worksheets/sheet3.xml").decode()
assert layer.count("<row ") == 13 and api.count("<row ") > 13, (layer.count("<row "), api.count("<row "))
assert "relative_euclidean_distance" in layer and "verdict" not in layer
PY

# torch vs torch on two copies of one tree: every row equal, exit 0 (the same directory twice is
# refused: docs/resolve.md).
mkdir -p "$T/gcopy"
cp -r "$G" "$T/gcopy/"
"$BIN" compare -g "$G" -m "$T/gcopy/cpu_100" --cl api -o "$T/out3" -q
python3 - "$T"/out3/msit_cmp_report_*.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["cosine_similarity"] == "1.0" for r in rows), len(rows)
PY

# Two tensor files: metrics printed, no report (msit logs them), exit 1 on the diverging pair.
rc=0
"$BIN" compare -g "$G/0/root.layers.7.ln/output.pth" -m "$M/0/7_BlockLayer/0_LayerNormOperation/after/outtensor0.bin" \
  -o "$T/out6" -q > "$T/log6" || rc=$?
[[ $rc == 1 ]] && grep -q "^cosine_similarity=-0.99" "$T/log6" && [[ ! -e "$T/out6" ]]

# A bad op_mapping_file is a warning; built-in tables still run.
mkdir -p "$T/map" && echo '{"a-b": 1}' > "$T/map/op_mapping_file.json"
rc=0
"$BIN" compare -g "$G" -m "$M" --cl api --op-mapping-file "$T/map" -o "$T/out4" -q 2> "$T/err4" || rc=$?
[[ $rc == 1 ]] && grep -q "op_mapping_file.json: op mapping" "$T/err4"

# An ATB dump without model/ topology is not an ATB dump: compare says it cannot tell the mode.
rm -rf "$T/d/atb/msit_dump_20260101_000001/model"
rc=0
"$BIN" compare -g "$G" -m "$M" --cl api -o "$T/out5" -q 2> "$T/err5" || rc=$?
[[ $rc == 3 ]] || { echo "expected exit 3, got $rc"; cat "$T/err5"; exit 1; }
# msit-dumpgen's ATB + torch model (2 tokens, a Linear diverging in layer 7): the first failing
# row is that layer's output, the first failing leaf its LinearOperation, in both tokens.
"$GEN" atb --out "$T/g" --layers 12 --tokens 2 --hidden 16 --rows 2 --diverge-at 15 --diverge-scale 0.5 > /dev/null
rc=0
"$BIN" compare -g "$T/g/torch/msit_dump_20260101_000000/torch_tensors/cpu_100" \
  -m "$T/g/atb/msit_dump_20260101_000000/tensors/0_200" --cl api -o "$T/out7" > "$T/log7" || rc=$?
[[ $rc == 1 ]] || { echo "dumpgen tree: expected exit 1, got $rc"; cat "$T/log7"; exit 1; }
python3 - "$T"/out7/msit_cmp_report_*.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for token in ("0", "1"):
    fails = [r for r in rows if r["token_id"] == token and r["verdict"] == "fail"]
    assert fails, token
    assert fails[0]["my_data_path"].endswith(f"/{token}/7_BlockLayer/after/outtensor0.bin"), fails[0]["my_data_path"]
    leaf = [r for r in fails if r["my_op_type"] != "BlockLayer"][0]
    assert "/7_BlockLayer/1_LinearOperation/after/" in leaf["my_data_path"], leaf["my_data_path"]
    assert leaf["golden_data_path"].endswith(f"/{token}/root.layers.7.fc/output.pth"), leaf["golden_data_path"]
    early = [r for r in rows if r["token_id"] == token and "/6_BlockLayer/" in r["my_data_path"]]
    assert early and all(r["verdict"] == "pass" for r in early)
PY
echo OK
