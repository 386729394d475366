# What the user points compare, inspect and export at on msProbe trees (docs/resolve.md "msProbe
# trees", issue 40): dump_paths, step and rank folders on either side, at different levels; the
# pairing said in one line; ranks and steps one side lacks reported and counted in the exit
# status; the same tree twice, and a step or rank the other side lacks, refused with what to type.
"$DUMPGEN" msprobe --out ms --steps 2 --ranks 2 --ops 4 --hidden 8 --rows 2 --seed 3 --dtype float32 > /dev/null
# Two dump_paths (steps by name, ranks by number), a dump_path against a step or a rank folder.
run compare -tp ms/npu -gp ms/bench -o out
run compare -q -tp ms/npu -gp ms/bench/step1 -o out
run compare -tp ms/npu/step0/rank1 -gp ms/bench -o out
run compare -tp ms/npu/step0 -gp ms/bench/step0/rank1/dump.json -o out
# A rank and a step only my side has: reported, and exit 4 (they could hold the divergence).
cp -r ms/bench short
rm -r short/step0/rank1 short/step1
run compare -tp ms/npu -gp short -o out
# The golden has ranks the my side lacks: reported, not counted.
run compare -q -tp short/step0 -gp ms/bench/step0 -o out
# APIs of mine without a golden partner are coverage too (docs/compare.md "Coverage"), per rank
# over its steps: exit 4 when nothing failed. A golden of another model (most of my APIs unpaired,
# or paired with tensors of other shapes) is not two runs of one model: exit 3.
"$DUMPGEN" msprobe --out fewer --steps 2 --ranks 2 --ops 3 --hidden 8 --rows 2 --seed 3 --dtype float32 > /dev/null
"$DUMPGEN" msprobe --out other --ops 1 --hidden 8 --rows 2 --seed 3 --dtype float32 > /dev/null
"$DUMPGEN" msprobe --out wide --ops 4 --hidden 16 --rows 2 --seed 3 --dtype float32 > /dev/null
run compare -q -tp ms/npu -gp fewer/bench -o out
run compare -q -tp ms/npu/step0/rank0 -gp other/bench -o out
run compare -q -tp ms/npu/step1/rank1 -gp wide/bench/step0/rank0 -o out
# The same dump on both sides, also a dump_path against its own step folder.
run compare -tp ms/npu -gp ms/npu -o out
run compare -tp ms/npu -gp ms/npu/step1 -o out
# dump_tensor_data/ on one side is its rank folder (not msProbe's files read as GE ops); a
# directory holding both dump_paths, or summaries without their dump.json, refused with what they
# hold; a step folder is not narrowed to the rank folder of another step.
run compare -tp ms/npu/step1/rank0/dump_tensor_data -gp ms/bench -o out
run compare -q -tp ms -gp ms/bench -o out
mkdir db && echo x > db/msit-summary.db
run compare -q -tp db -gp ms/bench/step0/rank0 -o out
run compare -q -tp ms/npu/step0/rank0 -gp ms/bench/step1 -o out
# A step or rank the other side lacks: refused with what was found and what to type.
run compare -tp ms/npu/step1 -gp short -o out
run compare -tp ms/npu/step0/rank1 -gp short/step0 -o out
# inspect says what each level is.
run inspect ms/npu
run inspect ms/npu/step0
run inspect ms/npu/step0/rank0
# export: the summaries of a compacted tree with dump.json and its companions, which compare as the
# tree did; a raw tree has nothing to export and says what it is.
run export ms/npu/step0
cp -r ms/npu c
"$BIN" compact c -q
run export c/step0/rank1 -o ex
run compare -q -tp ex -gp ms/bench/step0/rank1 -o out
# A MindSpore graph/pynative split against one run's tree (here a MindSpore dump without the
# split): the pynative half pairs with it, the graph half is said as not compared (exit 4) with the
# command that compares it on its own; the golden's graph half is said and changes nothing; a
# split without a pynative half is refused with the command for its graph half.
"$DUMPGEN" msprobe --out sp --framework mindspore --ms-split --level mix --ops 6 --hidden 8 --rows 2 --seed 3 --dtype float32 > /dev/null
"$DUMPGEN" msprobe --out one --framework mindspore --level mix --ops 6 --hidden 8 --rows 2 --seed 3 --dtype float32 > /dev/null
run compare -tp sp/npu -gp one/bench -o out
run compare -q -tp one/npu -gp sp/bench -o out
mkdir gonly && cp -r sp/npu/graph gonly/graph
run compare -tp gonly -gp one/bench -o out
