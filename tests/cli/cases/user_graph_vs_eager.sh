# The graph-vs-eager case study and ait v0.2.1 command lines, verbatim (docs/compare.md "msit's
# command lines"): a GE dump in dump_{timestamp}/ (graph text beside it), the FX golden as the
# FX dump path and as ait's gm_{time_stamp}_dump/{step}/ directory.
"$DUMPGEN" model --out ge_dump_path --ops 6 --tokens 2 --seed 7 --ge-layout old --fx-layout data-dump > /dev/null
timestamp=20250601080000
mv ge_dump_path/msit_ge_dump ge_dump_path/dump_${timestamp}
mkdir fx_dump_path && mv ge_dump_path/msit_fx_dump fx_dump_path/
run compare --my-path ge_dump_path/dump_${timestamp} --golden-path fx_dump_path
# ait's layout: gm_{time_stamp}_dump/{step}/ in the working directory
for step in fx_dump_path/msit_fx_dump/data_dump/*; do
  for gm in "$step"/gm_*_dump; do
    mkdir -p "$(basename "$gm")/$(basename "$step")" && cp "$gm"/* "$(basename "$gm")/$(basename "$step")/"
  done
done
dump_path=ge_dump_path time_stamp=$timestamp fx_time_stamp=20250601080000000042
run compare --my-path ${dump_path}/dump_${time_stamp} --golden-path gm_${fx_time_stamp}_dump
