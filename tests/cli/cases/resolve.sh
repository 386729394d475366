# What the user points compare at (docs/resolve.md, issue 40 cases 3, 7, 8): the dump_path,
# rank and token folders, the same tree twice, a missing path, and a summary store copied
# elsewhere without the dump's directories (also a compacted tree whose empty directories were
# removed). Every compare says in one line what it paired.
"$DUMPGEN" model --out run --ops 6 --tokens 2 --seed 3 > /dev/null
# Case 3: the dump_path as --my-path (torchair creates msit_ge_dump/ and msit_fx_dump/ in it).
run compare -q -m run -g run/msit_fx_dump -o out
run compare -m run -g run/msit_fx_dump -o out --msit-columns
# Case 7: the same tree on both sides, also reached two ways, and the dump_path on both sides.
run compare -m run -g run -o out
run compare -m run/msit_ge_dump -g run/./msit_ge_dump/ -o out
run compare -m run/msit_ge_dump -g run/msit_ge_dump/worldsize1_global_rank0 -o out
# A rank folder as golden (its hint used to lead to another failure), a token folder as my path.
run compare -q -m run/msit_ge_dump -g run/msit_fx_dump/worldsize1_global_rank0 -o out
run compare -m run/msit_ge_dump/worldsize1_global_rank0/20250601080000/0/graph_1_0/1/1 -g run/msit_fx_dump -o out \
  --msit-columns
# Case 9: a missing path says so, with the path.
run compare -m run/msit_ge_dump -g nowhere -o out
# Case 8: the summaries alone travel (the store and the graph text, nothing else), and a
# compacted tree whose emptied directories were removed.
cp -r run c
"$BIN" compact c -q
mkdir -p copy/ge copy/fx
cp c/msit_ge_dump/msit-summary.db c/msit_ge_dump/*.txt copy/ge/
cp c/msit_fx_dump/msit-summary.db copy/fx/
run compare -m copy/ge -g copy/fx -o out --msit-columns
run compare -q -m copy/ge/msit-summary.db -g copy/fx/msit-summary.db -o out
find c -type d -empty -delete
run compare -q -m c -g c/msit_fx_dump -o out
