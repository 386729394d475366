#!/bin/bash
# Live divergence, ATB vs torch, keeping the evidence (issue 30, docs/live-divergence.md "ATB and
# torch"): `watch ATB --golden TORCH --keep-raw-near-divergence 2` while an msit-dumpgen
# Llama-like ATB side with one Linear output injected (RED 0.05) is replayed into the watched dir.
# Once each token is final, the raw files of the diverging ATB node (its intensors and its
# outtensor) and of the 2 nodes before it in report order stay raw, in each token; every other
# file is compacted. After a restart the same files are kept and nothing is reported again.
# Usage: live_divergence_atb_keep.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"
W="$T/w/$DUMP"

# o_proj of layer 6 (LinearOperation #45), as live_divergence_atb.sh (a).
"$GEN" atb --model llama --out "$T/lin" --layers 12 --hidden 64 --rows 8 --noise 1e-3 --tokens 2 --seed 7 \
  --diverge-type LinearOperation --diverge-nth 45 --diverge-scale 0.05 >/dev/null
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence']['atb_node'])" "$T/lin/scenario.json")
[ "$want" = 6_DecoderLayer/5_LinearOperation ] || fail "scenario: $(cat "$T/lin/scenario.json")"
mkdir -p "$W"
cp -r "$T/lin/$TORCH" "$T/g"

# The nodes in report order before o_proj: 4_SelfAttentionOperation and 3_LinearOperation. Their
# files, in both tokens, as the generator wrote them.
expected() {
  (cd "$T/lin/$ATB" && for tok in 0 1; do
    for node in 3_LinearOperation 4_SelfAttentionOperation 5_LinearOperation; do
      find "tensors/0_200/$tok/6_DecoderLayer/$node" -maxdepth 2 -type f
    done
  done) | sort
}
raw_left() { (cd "$W" && find tensors -type f ! -name 'msit-summary*' ! -name '.*' ! -name '*.summary.json' | sort); }
n_files=$(find "$T/lin/$ATB/tensors" -type f | wc -l)
n_keep=$(expected | wc -l)
[ "$n_keep" = 16 ] || fail "expected 16 files to keep, the generator wrote $n_keep: $(expected | tr '\n' ' ')"

start_watch "$T/watch.log" "$W" "$T/g" "$T/ev.jsonl" --op-mapping-file "$T/lin/op_mapping" --keep-raw-near-divergence 2
$REPLAY "$T/lin/$ATB" "$W"
wait_until 60 "[ \$(lines '$T/ev.jsonl') -ge 2 ]" || fail "no event for each token: $(cat "$T/ev.jsonl" 2>/dev/null)"
python3 - "$T/ev.jsonl" "$want" <<'PY' || fail "events: $(cat "$T/ev.jsonl")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert sorted(e["token"] for e in ev) == ["0", "1"], ev
assert all(e["op"] == sys.argv[2] for e in ev), ev
PY
# Everything but the 16 kept files compacted, and exactly those 16 left raw.
wait_until 60 "[ \"\$(summary_count '$W' 2>/dev/null)\" -ge $((n_files - n_keep)) ] 2>/dev/null && [ \$(raw_left | wc -l) = $n_keep ]" ||
  fail "raw files left ($(raw_left | wc -l), want $n_keep): $(raw_left | head -40 | tr '\n' ' ')"
[ "$(raw_left)" = "$(expected)" ] || fail "kept the wrong files: $(diff <(raw_left) <(expected) | tr '\n' ' ')"
stop_watch
echo "live_divergence_atb_keep: the files of $want and of the 2 nodes before it kept raw, the rest compacted: ok"

# A restart holds the raw files again until their tokens are judged again, and keeps the same.
: >"$T/watch2.log"
start_watch "$T/watch2.log" "$W" "$T/g" "$T/ev.jsonl" --op-mapping-file "$T/lin/op_mapping" --keep-raw-near-divergence 2
wait_until 60 "[ \$(grep -c 'kept raw' '$T/watch2.log') -ge $n_keep ]" || fail "kept files not judged again after the restart"
stop_watch
[ "$(raw_left)" = "$(expected)" ] || fail "after the restart: $(diff <(raw_left) <(expected) | tr '\n' ' ')"
[ "$(lines "$T/ev.jsonl")" = 2 ] || fail "events repeated after the restart: $(cat "$T/ev.jsonl")"
echo "live_divergence_atb_keep: after a restart the same files kept, no event repeated: ok"
