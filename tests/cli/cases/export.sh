# export: a missing root (3), a tree without a store (3), a bad --format (2).
run export
run export missing
mkdir -p empty
run export empty
run export --format xml empty
# What ROOT is comes from the resolver (docs/resolve.md): a dump_path or a rank folder without
# summaries says so and what to type; a rank folder is exported as that rank of its dump, with
# the dump's graph texts, so that the export compares as the dump restricted to that rank.
"$DUMPGEN" model --out run --ops 4 --tokens 1 --ranks 2 --seed 3 > /dev/null
run export run
run export run/msit_ge_dump/worldsize2_global_rank1
"$BIN" compact -q run
run export run/msit_ge_dump/worldsize2_global_rank1 -o out1
run compare -q -m out1 -g run/msit_fx_dump -o rep
