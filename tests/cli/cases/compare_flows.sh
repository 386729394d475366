# compare's flows share one exit-status table and refuse options that do not apply to them
# (exit 2); a compare that pairs nothing is exit 3 with a hint; unknown options get a hint.
"$DUMPGEN" model --out m --ops 6 --tokens 1 --seed 3 > /dev/null
"$DUMPGEN" atb --out a --layers 2 --tokens 1 --seed 2 > /dev/null
G=a/torch/msit_dump_20260101_000000/torch_tensors/cpu_100
A=a/atb/msit_dump_20260101_000000/tensors/0_200
run compare -m m/msit_ge_dump -g m/msit_fx_dump --cl layer
run compare -m m/msit_ge_dump -g m/msit_fx_dump --stats
run compare -m $A/0 -g $G/0 --rank 0
run compare -m $A/0 -g $G/0 --stats --msit-columns
run compare -m $A/0/0_BlockLayer/after/outtensor0.bin -g $A/0/0_BlockLayer/before/intensor0.bin --json
run compare -m $A/0/0_BlockLayer/after/outtensor0.bin -g $A/0/0_BlockLayer/before/intensor0.bin --msit-columns
run compare -m $A/0 -g $G/0 --ops-json . --msit-columns
# ATB flows: --html and --timings work
run compare -m $A/0 -g $G/0 --cl api -q --html atb.html --timings
test -s atb.html
# ATB-family flows share the exit table: two summaries with different sketch widths are judged
# from statistics only, inconclusive (4)
"$DUMPGEN" atb --out w --layers 1 --tokens 1 --hidden 128 --rows 2 --seed 2 > /dev/null
MSIT_COMPACT_SUMMARY_FORMAT=json "$BIN" compact -q w/torch
MSIT_COMPACT_SUMMARY_FORMAT=json "$BIN" compact -q --sketch-width 64 w/atb
run compare -g w/torch/msit_dump_20260101_000000/torch_tensors/cpu_100/0/root.layers.0.ln/output.pth.summary.json \
  -m w/atb/msit_dump_20260101_000000/tensors/0_200/0/0_BlockLayer/0_LayerNormOperation/after/outtensor0.bin.summary.json
# --stats rows are statistics only: 1 when a max/min/mean error exceeds 1, else 4 (never "always 0")
"$DUMPGEN" atb --out st --layers 1 --tokens 1 --seed 2 > /dev/null
SG=st/torch/msit_dump_20260101_000000/torch_tensors/cpu_100/0 SA=st/atb/msit_dump_20260101_000000/tensors/0_200/0
printf 'NodeName,NodeType,InputOutput,Index,DataType,Shape,Max,Min,Mean,L2Norm\r\nroot.layers.0.fc,Linear,Output,0,torch.float32,"(1, 4)",4.0,1.0,2.5,5.477225575051661\r\n' \
  > $SG/root.layers.0.fc/statistics.csv
stats_bin='$Version=1.0\n$Object.Count=0\n$Object.Length=0\nformat=2\ndtype=0\ndims=1,4\nmax=4.5\nmin=1\nmean=2.75\nl2norm=6.2\n$End=1\n'
printf "$stats_bin" > $SA/0_BlockLayer/1_LinearOperation/after/outtensor0.bin
run compare --stats -g ${SG%/0} -m ${SA%/0} -o st1
printf "$stats_bin" > $SA/0_BlockLayer/after/outtensor0.bin
run compare --stats -g ${SG%/0} -m ${SA%/0} -o st2
# --stats goes through the one engine: --html, --json and --timings as every row-report flow
run compare --stats -g ${SG%/0} -m ${SA%/0} -o st3 -q --json --html st3.html --timings
test -s st3.html
test -s st3/statstics_cmp_report_*.json
# zero pairs: exit 3, what was looked for, what was found, the directory meant
run compare -m $A/0 -g $G/0 --cl layer -q
mkdir fx && mv m/msit_fx_dump fx/
run compare -m m/msit_ge_dump -g fx -q
# unknown options and stray words
run compare -g x -m y --golden_path z
run compare --cmp_level layer -g x -m y
run compare -g x y
run compare -g x -m y --my_pth z
