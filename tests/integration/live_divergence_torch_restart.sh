#!/bin/bash
# Live divergence, torch vs torch, restart (issue 30, docs/live-divergence.md "Restarts"): `watch
# NPU_TORCH --golden CPU_TORCH` while msit-dumpgen's Llama-like NPU torch side (`atb --model llama
# --torch-mine`, o_proj of layer 6 injected at RED 0.05, 2 tokens) is replayed into the watched
# process directory; kill -9 in the middle of the stream once token 0's event is written, restart,
# replay the rest: exactly one event per token (token 0's not reported again), both naming the
# injected module, and every file summarised.
# Usage: live_divergence_torch_restart.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"  # BIN, GEN, HERE, wait_lib.sh
GOLDEN=torch/msit_dump_20260101_000000/torch_tensors/cpu_100
MINE=torch_npu/msit_dump_20260101_000000/torch_tensors/0_300
W="$T/w/msit_dump_20260101_000000/torch_tensors/0_300"

"$GEN" atb --model llama --out "$T/s" --layers 12 --hidden 64 --rows 8 --noise 1e-3 --tokens 2 --seed 7 \
  --diverge-type LinearOperation --diverge-nth 45 --diverge-scale 0.05 --torch-mine >/dev/null
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence']['torch_module'])" "$T/s/scenario.json")
mkdir -p "$W"
cp -r "$T/s/$GOLDEN" "$T/g"
n_files=$(find "$T/s/$MINE" -type f -name '*.pth' | wc -l)
n_tok0=$(find "$T/s/$MINE/0" -type f -name '*.pth' | wc -l)
# Stop a few files into token 1: token 0 is complete and a later token has started.
stop_at=$((n_tok0 + 5))
[ "$stop_at" -lt "$n_files" ] || fail "stream too short: $n_files files, token 0 has $n_tok0"

start_watch "$T/watch.log" "$W" "$T/g" "$T/ev.jsonl"
$REPLAY "$T/s/$MINE" "$W" --stop-after "$stop_at"
wait_until 60 "[ \$(lines '$T/ev.jsonl') -ge 1 ]" || fail "no event for token 0 before the kill"
kill -9 "$WATCH_PID"
wait "$WATCH_PID" 2>/dev/null || true
start_watch "$T/watch2.log" "$W" "$T/g" "$T/ev.jsonl"
$REPLAY "$T/s/$MINE" "$W" --skip "$stop_at"
wait_until 60 "[ \$(lines '$T/ev.jsonl') -ge 2 ]" || fail "no event for token 1 after the restart: $(cat "$T/ev.jsonl")"
wait_until 60 "[ \"\$(summary_count '$T/w' 2>/dev/null)\" -ge $n_files ] 2>/dev/null" || fail "stream not summarised after the restart"
# Token 0 judged again after the restart (its files in the stores) without a second event.
wait_until 30 "grep -q 'rank -, token 0 final' '$T/watch2.log'" || fail "token 0 not judged again after the restart"
stop_watch
python3 - "$T/ev.jsonl" "$want" <<'PY' || fail "events after the restart: $(cat "$T/ev.jsonl")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert sorted(e["token"] for e in ev) == ["0", "1"], ev
assert len({e["id"] for e in ev}) == 2, ev
assert all(e["op"] == sys.argv[2] for e in ev), ev
PY
echo "live_divergence_torch_restart: kill -9 mid-stream, restart, one event per token: ok"
