#!/usr/bin/env bash
# Files written by `msit-dumpgen stream` (pieces, renames, GE + FX) compact and match the
# stream manifest (count, NaN count, min, max, hash). No timing is asserted.
source "$(dirname "$0")/compact_lib.sh" "$@"

"$DUMPGEN" stream --out "$T/s" --rate 40 --seconds 1 --min-size 4096 --max-size 200000 \
  --fx-fraction 0.3 --rename-fraction 0.3 --chunk 8192 --files-per-step 50 --manifest "$T/s.json"
rc=$(run_compact "$T/s" --jobs 2)
expect_rc 0 "$rc" "compact of a stream dump"
"$DUMPGEN" verify --manifest "$T/s.json" --tree "$T/s" --expect-raw-gone
echo "compact_stream: ok"
