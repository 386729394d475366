# compact: usage errors (2), input errors (3), grouped failures (1), quarantine, -q and -v.
run compact
run compact --bogus .
run compact --zstd-level 20 .
run compact --sketch-width 100 .
run compact --jobs 0 .
run compact -v -q .
run compact --quarantine ../outside .
run compact --quarantine /abs .
run compact missing
touch plain-file
run compact plain-file
mkdir -p empty
run compact empty
"$DUMPGEN" tree --out t --layout ge-rank --files 3 --corrupt 5 --seed 7 > /dev/null
run compact --keep-raw t
run compact --keep-raw -q t
run compact --keep-raw -v t
run compact --keep-raw --quarantine bad t
run compact --keep-raw --quarantine bad t
