#!/bin/bash
# Live divergence, torch vs torch (issue 30, docs/live-divergence.md "ATB and torch"): `watch
# NPU_TORCH --golden CPU_TORCH --keep-raw-near-divergence 1` while msit-dumpgen's Llama-like NPU
# torch side (`atb --model llama --torch-mine`: kernel noise 1e-3, o_proj of layer 6 injected at
# RED 0.05) is replayed into the watched process directory file by file.
#  - the event names the injected module before the stream ends (the replay holds after token 0
#    until the event is written), and `compare --cl api` names the same module afterwards;
#  - once each token is final, the raw files of that module and of the module before it in report
#    order stay raw, every other file is compacted.
# Usage: live_divergence_torch.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"
GOLDEN=$TORCH
MINE=torch_npu/msit_dump_20260101_000000/torch_tensors/0_300
# The watched dir is the torch process directory the model dumps into (model_tree.json first).
W="$T/w/msit_dump_20260101_000000/torch_tensors/0_300"

"$GEN" atb --model llama --out "$T/s" --layers 12 --hidden 64 --rows 8 --noise 1e-3 --tokens 2 --seed 7 \
  --diverge-type LinearOperation --diverge-nth 45 --diverge-scale 0.05 --torch-mine >/dev/null
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence']['torch_module'])" "$T/s/scenario.json")
[ "$want" = root.model.layers.6.self_attn.o_proj ] || fail "scenario: $(cat "$T/s/scenario.json")"
mkdir -p "$W"
cp -r "$T/s/$GOLDEN" "$T/g"

# The injected module and the one before it in report order (self_attn.attn), in both tokens.
expected() {
  (cd "$T/s/$MINE" && for tok in 0 1; do
    find "$tok/root.model.layers.6.self_attn.attn" "$tok/$want" -type f
  done) | sort
}
raw_left() { (cd "$W" && find . -mindepth 2 -type f ! -name 'msit-summary*' ! -name '.*' ! -name '*.summary.json' -printf '%P\n' | sort); }
n_files=$(find "$T/s/$MINE" -type f -name '*.pth' | wc -l)
n_keep=$(expected | wc -l)
[ "$n_keep" = 12 ] || fail "expected 12 files to keep, the generator wrote $n_keep: $(expected | tr '\n' ' ')"

start_watch "$T/watch.log" "$W" "$T/g" "$T/ev.jsonl" --keep-raw-near-divergence 1
$REPLAY "$T/s/$MINE" "$W" --hold-after-token 0 --until "$T/ev.jsonl" --timeout 60 ||
  fail "no event while the stream was held after token 0"
python3 - "$T/ev.jsonl" "$want" <<'PY' || fail "first event: $(head -n 1 "$T/ev.jsonl")"
import json, sys
e = json.loads(open(sys.argv[1]).readline())
assert e["op"] == sys.argv[2] and e["token"] == "0", e
PY
echo "live_divergence_torch: the event names $want before the stream ended: ok"

wait_until 60 "[ \$(lines '$T/ev.jsonl') -ge 2 ]" || fail "no event for token 1: $(cat "$T/ev.jsonl")"
wait_until 60 "[ \"\$(summary_count '$T/w' 2>/dev/null)\" -ge $((n_files - n_keep)) ] 2>/dev/null && [ \$(raw_left | wc -l) = $n_keep ]" ||
  fail "raw files left ($(raw_left | wc -l), want $n_keep): $(raw_left | head -40 | tr '\n' ' ')"
[ "$(raw_left)" = "$(expected)" ] || fail "kept the wrong files: $(diff <(raw_left) <(expected) | tr '\n' ' ')"
stop_watch
[ "$(lines "$T/ev.jsonl")" = 2 ] || fail "events: $(cat "$T/ev.jsonl")"
echo "live_divergence_torch: the files of $want and of the module before it kept raw, the rest compacted: ok"

# compare on the same trees afterwards (the watched one partly summarised) names the same module.
mkdir -p "$T/c"
"$BIN" compare -m "$W" -g "$T/g" -o "$T/c" --cl api -q >"$T/c/log" 2>&1 || true
got=$(python3 - "$T/c" <<'PY'
import csv, glob, re, sys
rows = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/msit_cmp_report_*.csv")[0])))
first = [r for r in rows if r["divergence"] == "first" and r["token_id"] == "0"]
m = re.search(r"/0/([^/]*)/output\.pth$", first[0]["my_data_path"]) if first else None
print(m.group(1) if m else "-")
PY
)
[ "$got" = "$want" ] || fail "compare names $got, live named $want"
echo "live_divergence_torch: compare names $want too: ok"
