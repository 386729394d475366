# msit's ATB/torch command lines, verbatim (docs/compare.md "msit's command lines"): two single
# tensor files, and a torch token dir against an ATB token dir with a user op mapping, in the
# documented layouts torch_dump/{PID}_npu{device_id}/{TID}/ and ait_dump/tensors/{device_id}_{PID}/{TID}/.
"$DUMPGEN" atb --out gen --layers 2 --tokens 1 --seed 2 > /dev/null
mkdir torch_dump && mv gen/torch/msit_dump_*/torch_tensors/cpu_100 torch_dump/100_npu0
mv gen/atb/msit_dump_* ait_dump
cp ait_dump/tensors/0_200/0/0_BlockLayer/after/outtensor0.bin golden_data.bin
cp ait_dump/tensors/0_200/0/0_BlockLayer/after/outtensor0.bin my-path.bin
run compare --golden-path golden_data.bin --my-path my-path.bin
mkdir mapping && cat > mapping/op_mapping_file.json << 'JSON'
{"LayerNormOperation": "LayerNorm", "LinearOperation": "Linear",
 "CommonLayer_outtensor0": ["GLMBlock_output_0", "BloomBlock_output_0"],
 "MlpGateLayerV2": ["BloomMLP", "MLP"], "RmsNormOperation": ["RMSNorm"],
 "SelfAttentionOperation": ["CoreAttention"]}
JSON
PID=200 device_id=0 TID=0 dir=mapping
run compare -gp torch_dump/100_npu${device_id}/${TID}/ -mp ait_dump/tensors/${device_id}_${PID}/${TID}/ --op-mapping-file ${dir}
# msit's other spellings: -cl/--cmp-level, -mf, -o, -l
run compare -gp torch_dump/100_npu0/0/ -mp ait_dump/tensors/0_200/0/ -mf mapping -cl api -o out -l warning
run compare --golden-path torch_dump/100_npu0/0/ --my-path ait_dump/tensors/0_200/0/ --cmp-level module -o out
# the dump roots instead of the token dirs: exit 3 with the token dirs as hints
run compare -gp torch_dump -mp ait_dump/tensors -q
