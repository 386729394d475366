# msit's torchair command lines (docs/compare.md "msit's command lines"), verbatim with
# `msit-compact compare` for `msit llm compare`, on msit-dumpgen models of the three PTA
# generations: rank layout, FX data_dump under msit_fx_dump (PTA 7.1.0), data_dump in the
# working directory (PTA < 7.1.0).
"$DUMPGEN" model --out new --ops 6 --tokens 2 --seed 3 > /dev/null
"$DUMPGEN" model --out old --ops 6 --tokens 2 --seed 3 --ge-layout old --fx-layout data-dump > /dev/null
dump_path=new
run compare --my-path ${dump_path}/msit_ge_dump --golden-path ${dump_path}/msit_fx_dump
dump_path=old
run compare --my-path ${dump_path}/msit_ge_dump --golden-path ${dump_path}/msit_fx_dump/data_dump
mv old/msit_fx_dump/data_dump data_dump
run compare --my-path ${dump_path}/msit_ge_dump --golden-path data_dump
