# inspect: a missing file (3), usage errors (2), a summary file with its time shown readably.
run inspect
run inspect missing
run inspect a b
"$DUMPGEN" tree --out t --layout ge-rank --files 1 --seed 3 > /dev/null
raw="$(find t -type f -name 'TransData.*' | head -1)"
touch -d '2025-06-01 08:00:00.123456789 UTC' "$raw"
run compact --keep-raw --summary-format json -q t
run inspect "$raw.summary.json"
run inspect -q "$raw.summary.json"
echo 'not json' > bad.summary.json
run inspect bad.summary.json
