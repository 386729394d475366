# Messages a new user meets (issue 40 case 9): an exported tree that compares, inspect of a graph
# text and of a directory, an empty golden blamed on the golden, an exit 4 that says why on the
# terminal (sketches of different widths), and a token none of whose rows could be judged.
"$DUMPGEN" model --out run --ops 6 --tokens 2 --seed 3 > /dev/null
cp -r run c
"$BIN" compact c -q
# export carries the graph text: the exported JSON summaries compare like the store.
run export c -o exported
run compare -q -m exported/msit_ge_dump -g exported/msit_fx_dump -o out
run inspect run/msit_ge_dump/dynamo_original_graph_1_rank_0_pid_1000_ts_20250601080000000000.txt
run inspect run
mkdir empty
run compare -m run/msit_ge_dump -g empty -o out
# Golden summarised with 64 sketch buckets, mine with 128: statistics only, and the terminal says why.
cp -r run w
"$BIN" compact w/msit_fx_dump -q --sketch-width 64
"$BIN" compact w/msit_ge_dump -q
run compare -m w/msit_ge_dump -g w/msit_fx_dump -o out --msit-columns
# Token 1's GE files of mine cut short: its rows are unreadable, and the token is named as not judged.
cp -r run t
for f in t/msit_ge_dump/worldsize1_global_rank0/*/*/*/*/1/*; do truncate -s 7 "$f"; done
run compare -m t/msit_ge_dump -g t/msit_fx_dump -o out --msit-columns
