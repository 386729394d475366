#!/bin/bash
# compare --legacy-ait (layer and token), manual mapping (golden_tensor/metadata.json) and -w
# through the CLI: report names and columns, the rows ait writes, exit codes.
# Usage: compare_atb_legacy.sh MSIT_BIN TREE_WRITER(atb_tree.py)
set -euo pipefail
BIN=$1
WRITER=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

G=$T/d/torch/msit_dump_20260101_000000/torch_tensors/cpu_100
M=$T/d/atb/msit_dump_20260101_000001/tensors/0_200

# Fixtures in one interpreter start (a python start takes seconds on a loaded 2-core machine):
# atb_tree.py's model (11 layers, layer 7's LayerNorm diverging), token dirs, safetensors.
python3 - "$T" "$WRITER" <<'PY'
import json, os, runpy, struct, sys, zipfile
T = sys.argv[1]
writer = sys.argv[2]
sys.argv = [writer, os.path.join(T, "d"), "--layers", "11", "--diverge", "7"]
runpy.run_path(writer)
out = os.path.join(T, "tok")
tp = os.path.join(out, "torch", "msit_dump_1", "torch_tensors", "cpu_1")
ap = os.path.join(out, "atb", "msit_dump_2", "tensors", "0_2")
os.makedirs(tp, exist_ok=True)
open(os.path.join(tp, "model_tree.json"), "w").write('{"name": "root", "type": "M", "children": []}')
def pth(path, vals):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storagectorch\nFloatStorage\n"
           b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpuK" + bytes([len(vals)]) + b"tQK\x00K" + bytes([len(vals)]) +
           b"\x85K\x01\x85\x89ccollections\nOrderedDict\n)RtR.")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("output/data.pkl", pkl)
        z.writestr("output/data/0", struct.pack("<%df" % len(vals), *vals))
        z.writestr("output/version", b"3\n")
def atb(path, vals):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    raw = struct.pack("<%df" % len(vals), *vals)
    head = (f"$Version=1.0\n$Object.Count=1\n$Object.Length={len(raw)}\nformat=2\ndtype=0\n"
            f"dims={len(vals)}\n$Object.data=0,{len(raw)}\n$End=1\n")
    open(path, "wb").write(head.encode() + raw)
for t in range(3):
    pth(os.path.join(tp, str(t), "root.lm_head", "output.pth"), [1.0, 2.0, 3.0 + t])
    atb(os.path.join(ap, str(t), "7_LmHead", "after", "outtensor0.bin"), [1.0, 2.0, 3.0 + t if t != 1 else -9.0])
def save(path, tensors):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    head, data = {}, b""
    for name, (dt, shape, vals) in tensors.items():
        raw = struct.pack("<%d%s" % (len(vals), "b" if dt == "I8" else "f"), *vals)
        head[name] = {"dtype": dt, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(head).encode()
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + data)
save(os.path.join(os.path.join(T, "w"), "float", "model.safetensors"), {
    "l.0.weight": ("F32", [2, 2], [0.5, 1.0, -1.0, 1.0]), "l.1.weight": ("F32", [2], [1.0, 2.0])})
save(os.path.join(os.path.join(T, "w"), "quant", "quant_model_weight.safetensors"), {
    "l.0.weight": ("I8", [2, 2], [1, 2, -1, 1]), "l.0.weight_offset": ("F32", [2, 1], [0.0, 0.0]),
    "l.0.weight_scale": ("F32", [2, 1], [0.5, 1.0]),
    "l.1.weight": ("I8", [2], [3, 1]), "l.1.weight_offset": ("F32", [1], [0.0]), "l.1.weight_scale": ("F32", [1], [1.0])})
PY

# Layer level: per layer LayerNorm and Linear rows (built-in table), layer 7's LN fails, exit 1.
rc=0
"$BIN" compare --legacy-ait -g "$G/0" -m "$M/0" -o "$T/out1" > "$T/log1" || rc=$?
[[ $rc == 1 ]] || { echo "expected exit 1, got $rc"; cat "$T/log1"; exit 1; }

# --cl token without --legacy-ait is a usage error; --legacy-ait takes only layer or token.
rc=0; "$BIN" compare -g "$G" -m "$M" --cl token -o "$T/x" -q 2> /dev/null || rc=$?
[[ $rc == 2 ]]
rc=0; "$BIN" compare --legacy-ait -g "$G/0" -m "$M/0" --cl api -o "$T/x" -q 2> /dev/null || rc=$?
[[ $rc == 2 ]]

# Token level: one module dir per token dir (ait's logits compare), token 1 differs.
rc=0
"$BIN" compare --legacy-ait --cl token -g "$T/tok/torch/msit_dump_1/torch_tensors/cpu_1" \
  -m "$T/tok/atb/msit_dump_2/tensors/0_2" -o "$T/out2" -q || rc=$?
[[ $rc == 1 ]]

# Manual mapping: golden_tensor/metadata.json with the ids of msit's dump_data.
GT=$T/man/msit_dump_3/100_0/golden_tensor
mkdir -p "$GT/0"
cp "$G/0/root.layers.7.ln/output.pth" "$GT/0/3_tensor.pth"
cat > "$GT/metadata.json" <<JSON
{"3": {"0": ["$GT/0/3_tensor.pth", "$M/0/7_BlockLayer/0_LayerNormOperation/after/outtensor0.bin"]},
 "4": {"0": ["$GT/0/3_tensor.pth", "$M/0/6_BlockLayer/0_LayerNormOperation/after/outtensor0.bin"]},
 "9": {"1": ["$GT/0/missing.pth", "$M/0/6_BlockLayer/after/outtensor0.bin"]}}
JSON
rc=0
"$BIN" compare -g "$T/man/msit_dump_3/100_0" -m "$M" -o "$T/out3" -q --msit-columns || rc=$?
[[ $rc == 1 || $rc == 3 ]] || { echo "manual mapping: exit $rc"; exit 1; }
echo '{"3": []}' > "$GT/metadata.json"
rc=0; "$BIN" compare -g "$T/man/msit_dump_3/100_0" -m "$M" -o "$T/out4" -q 2> "$T/err4" || rc=$?
[[ $rc == 3 ]] && grep -q "metadata.json" "$T/err4"

# -w: float weights against int8 weights dequantised per channel; one weight diverges.
rc=0
"$BIN" compare -w -g "$T/w/float" -m "$T/w/quant" -o "$T/out5" > "$T/log5" || rc=$?
[[ $rc == 1 ]] || { echo "-w: exit $rc"; cat "$T/log5"; exit 1; }
# Every report checked in one interpreter start.
python3 - "$T" <<'PY'
import csv, glob, sys
T = sys.argv[1]
one = lambda d, p: glob.glob(f"{T}/{d}/{p}_*.csv")[0]
def layer():
    rows = list(csv.DictReader(open(one("out1", "ait_cmp_report"))))
    head = open(one("out1", "ait_cmp_report")).readline()
    assert "op_type" not in head and head.startswith("token_id,data_id,golden_data_path,golden_dtype"), head
    assert len(rows) == 22, len(rows)
    assert all(r["data_id"] == "0" and r["token_id"] == "0" for r in rows)
    fails = [r for r in rows if r["verdict"] == "fail"]
    assert len(fails) == 1 and fails[0]["my_data_path"].endswith("/0/7_BlockLayer/0_LayerNormOperation/after/outtensor0.bin"), fails
    assert rows[0]["golden_data_path"].endswith("/0/root.layers.0.ln/output.pth"), rows[0]["golden_data_path"]
    assert rows[1]["my_data_path"].endswith("/0/0_BlockLayer/1_LinearOperation/after/outtensor0.bin"), rows[1]["my_data_path"]

def token():
    rows = list(csv.DictReader(open(one("out2", "ait_cmp_report"))))
    assert [r["token_id"] for r in rows] == ["0", "1", "2"], rows
    assert [r["verdict"] for r in rows] == ["pass", "fail", "pass"], [r["verdict"] for r in rows]

def manual():
    rows = list(csv.DictReader(open(one("out3", "ait_cmp_report"))))
    assert [(r["data_id"], r["token_id"]) for r in rows] == [("3", "0"), ("4", "0"), ("9", "1")], rows
    assert float(rows[0]["cosine_similarity"]) < 0 and rows[1]["cosine_similarity"] not in ("", "1.0")
    assert rows[2]["cmp_fail_reason"].endswith("missing.pth is not a file."), rows[2]
    assert len(rows[0]) == 22, len(rows[0])

def weight():
    rows = list(csv.DictReader(open(one("out5", "msit_cmp_report"))))
    assert [r["weight_name"] for r in rows] == ["l.0.weight", "l.1.weight"], rows
    assert rows[0]["cosine_similarity"] == "1.0" and rows[0]["my_dtype"] == "torch.float32", rows[0]
    assert rows[1]["verdict"] == "fail", rows[1]

for f in (layer, token, manual, weight):
    f()
PY
echo OK
