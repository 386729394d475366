# Coverage is part of the verdict (docs/compare.md "Coverage", issue 40 cases 2 and 6): a rank
# or token of mine without golden, tensors of mine without their golden partner, and a golden
# of another model.
# Case 2: ranks 0 and 1, the golden only rank 0, rank 1 the diverging one.
"$DUMPGEN" model --out two --ops 6 --tokens 2 --ranks 2 --seed 3 > /dev/null
rm -r two/msit_fx_dump/worldsize2_global_rank1
run compare -m two/msit_ge_dump -g two/msit_fx_dump -o out --msit-columns
run compare -q -m two/msit_ge_dump -g two/msit_fx_dump -o json --json
# The JSON (and CSV) say it too: the note of the rank's first row.
python3 -c 'import glob, json, sys; print(json.load(open(glob.glob("json/*.json")[0]))[0]["note"])' | sed "s#$PWD#\$T#g" >> "$W/.transcript"
# The HTML page says it under its title.
"$BIN" compare -q -m two/msit_ge_dump -g two/msit_fx_dump -o html --html cov.html 2> /dev/null || test $? = 4
grep -o '<div id="coverage">.*</div>' cov.html > cov.txt
sed "s#$PWD#\$T#g" cov.txt >> "$W/.transcript"
# A token of mine without golden.
"$DUMPGEN" model --out tok --ops 6 --tokens 3 --seed 3 > /dev/null
rm -r tok/msit_fx_dump/worldsize1_global_rank0/gm_*/2
run compare -q -m tok/msit_ge_dump -g tok/msit_fx_dump -o out
# Case 6: a golden of another model (18 ops against 12), then one whose tensors mostly do not pair.
"$DUMPGEN" model --out big --ops 18 --tokens 1 --seed 3 > /dev/null
"$DUMPGEN" model --out small --ops 12 --tokens 1 --seed 3 > /dev/null
"$DUMPGEN" model --out tiny --ops 2 --tokens 1 --seed 3 > /dev/null
run compare -q -m big/msit_ge_dump -g small/msit_fx_dump -o out
run compare -q -m big/msit_ge_dump -g tiny/msit_fx_dump -o out
# ATB/torch: a token of mine without golden (when neither path names a token directory).
"$DUMPGEN" atb --out atb --layers 2 --tokens 2 --seed 2 > /dev/null
rm -r atb/torch/msit_dump_20260101_000000/torch_tensors/cpu_100/1
run compare -q -gp atb/torch/msit_dump_20260101_000000/torch_tensors/cpu_100 \
  -mp atb/atb/msit_dump_20260101_000000/tensors/0_200 -o out --cl api
