# MindIE Torch (--ops-json): raw, summary store (the default of compact) and JSON summaries on
# both sides, with -mp at the NPU dump root (msit debug dump --output) as msit's documentation
# names it; -gp at the process dir instead of the token dir is exit 3 with a hint.
"$DUMPGEN" model --out npu --ops 6 --tokens 1 --hidden 16 --rows 4 --ge-layout old > /dev/null
"$DUMPGEN" atb --out cpu --layers 2 --tokens 1 --hidden 16 --rows 4 > /dev/null
cat > mindie_torch_op_mapping.json << 'JSON'
[{"rt_layer": "r0", "jit_node": "%1 = aten::linear(%x), scope: __module.layers/__module.layers.0/__module.layers.0.fc # m.py:9"},
 {"rt_layer": "r1", "jit_node": "%2 = aten::layer_norm(%1), scope: __module.layers/__module.layers.1/__module.layers.1.ln # m.py:8"},
 {"rt_layer": "r2", "jit_node": "%3 = aten::linear(%2), scope: __module.layers/__module.layers.1/__module.layers.1.fc # m.py:9"}]
JSON
cat > mindie_rt_op_mapping.json << 'JSON'
[{"id": 0, "ge_op": "MatMul_0", "rt_layer": "r0"}, {"id": 1, "ge_op": "Add_1", "rt_layer": "r1"},
 {"id": 2, "ge_op": "Mul_4", "rt_layer": "r2"}]
JSON
CPU=cpu/torch/msit_dump_20260101_000000/torch_tensors/cpu_100
run compare --ops-json . -gp $CPU/0 -mp npu -o raw
# --json: the same rows as every row-report flow writes them.
run compare --ops-json . -gp $CPU/0 -mp npu -o rawjson -q --json
python3 -c "import json, sys; d = json.load(open('rawjson/comparison_results.json')); print(type(d).__name__, len(d))"
cp -r cpu cpu_store && cp -r npu npu_store
"$BIN" compact -q cpu_store && "$BIN" compact -q npu_store
test -z "$(find npu_store/msit_ge_dump -type f -name 'MatMul.*')"
run compare --ops-json . -gp cpu_store/${CPU#cpu/}/0 -mp npu_store -o store -q
cmp raw/comparison_results.csv store/comparison_results.csv
cp -r cpu cpu_json && cp -r npu npu_json
MSIT_COMPACT_SUMMARY_FORMAT=json "$BIN" compact -q cpu_json
MSIT_COMPACT_SUMMARY_FORMAT=json "$BIN" compact -q npu_json
run compare --ops-json . -gp cpu_json/${CPU#cpu/}/0 -mp npu_json -o json -q
cmp raw/comparison_results.csv json/comparison_results.csv
run compare --ops-json . -gp $CPU -mp npu -q
