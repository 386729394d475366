#!/usr/bin/env bash
# The paired GE/FX model scenario (fused ops, FRACTAL_NZ weights and TransData outputs, two
# ranks) compacts cleanly; graph text files and scenario.json are left alone.
source "$(dirname "$0")/compact_lib.sh" "$@"

"$DUMPGEN" model --out "$T/m" --ops 14 --tokens 2 --ranks 2 --diverge-at 6 --fused --nz-weights
graphs_before=$(find "$T/m/msit_ge_dump" -maxdepth 1 -name 'dynamo_original_graph_*.txt' -exec sha256sum {} + | sort)
raw=$(find "$T/m/msit_ge_dump" "$T/m/msit_fx_dump" -type f ! -name '*.txt' | wc -l)
rc=$(run_compact "$T/m/msit_ge_dump" "$T/m/msit_fx_dump" --jobs 2 --json)
expect_rc 0 "$rc" "compact of the model scenario"
[ "$(json_field "$T/compact.out" compacted)" = "$raw" ] || fail "expected $raw files compacted: $(head -5 "$T/compact.out")"
left=$(find "$T/m/msit_ge_dump" "$T/m/msit_fx_dump" -type f ! -name '*.txt' ! -name '*.summary.json' ! -name 'msit-summary.db*' | wc -l)
[ "$left" = 0 ] || fail "$left raw files left"
[ "$graphs_before" = "$(find "$T/m/msit_ge_dump" -maxdepth 1 -name 'dynamo_original_graph_*.txt' -exec sha256sum {} + | sort)" ] \
  || fail "graph text files changed"
[ -f "$T/m/scenario.json" ] || fail "scenario.json removed"
echo "compact_model: ok"
