# msit's "GE fused vs GE with fusion switched off" command line, verbatim (docs/compare.md
# "msit's command lines"): the same msit-dumpgen model dumped with and without fusion.
"$DUMPGEN" model --out dump --ops 6 --tokens 1 --seed 5 --fused > /dev/null
"$DUMPGEN" model --out fusion_off --ops 6 --tokens 1 --seed 5 > /dev/null
dump_path=dump fusion_off_dump_path=fusion_off
run compare --my-path ${dump_path}/msit_ge_dump --golden-path ${fusion_off_dump_path}/msit_ge_dump
