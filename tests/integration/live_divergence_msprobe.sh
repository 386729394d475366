#!/bin/bash
# Live divergence on msProbe dumps (issue 41 §4, docs/live-divergence.md "msProbe"): `watch
# DUMP_PATH --golden G` while an `msit-dumpgen msprobe` PyTorch tensor dump (3 steps x 2 ranks,
# one API's output injected at RED 0.2 in every step) is replayed into the watched dump_path as
# msProbe writes it (tensor files as each API finishes, dump.json rewritten whole mid-step and at
# the step's end; live_replay_msprobe.py).
#  (a) the events of step 0 (both ranks) name the injected API before the dump goes on (the replay
#      holds in step 1 until they are written); every step and rank gets its event, the same API
#      `compare -tp -gp` names on the compacted trees afterwards; the --on-divergence command is
#      told the first; every tensor file is compacted;
#      dump.json, stack.json and construct.json are byte-identical to what the job wrote;
#  (b) --keep-raw-near-divergence 1: exactly the files of the injected API and of the API before
#      it stay raw in each step and rank, every other tensor file is compacted.
# Usage: live_divergence_msprobe.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"
REPLAY_MS="python3 $HERE/live_replay_msprobe.py"

"$GEN" msprobe --out "$T/gen" --framework pytorch --level mix --steps 3 --ranks 2 --ops 16 --hidden 16 --rows 4 \
  --seed 3 --noise 1e-3 --diverge-at 6 --diverge-scale 0.2 >/dev/null
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence'])" "$T/gen/scenario.json")
cp -r "$T/gen/bench" "$T/golden"

raw_left() { find "$1" -type f -path '*/dump_tensor_data/*' -name '*.pt' | sort; }
events_named() {  # EVENTS [N]: "rank step op" of each event (of the first N written), sorted
  python3 - "$@" <<'PY'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])][: int(sys.argv[2]) if len(sys.argv) > 2 else None]
print("\n".join(sorted("%s %s %s" % (e["rank"], e["token"], e["op"]) for e in events)))
PY
}
expected_events() {  # STEPS: each rank and step naming the injected API
  for r in 0 1; do for s in $(seq 0 $(($1 - 1))); do echo "$r step$s $want"; done; done | sort
}
json_same() {  # DIR: the json files as the job wrote them
  local f
  for f in $(cd "$T/gen/npu" && find . -name '*.json'); do
    cmp -s "$T/gen/npu/$f" "$1/$f" || fail "$f differs from what the job wrote"
  done
}

# (a) the injected API named while the run dumps; the on_divergence command told it.
mkdir -p "$T/w1/npu"
printf '#!/bin/sh\necho "$MSIT_DIVERGENCE_TOKEN $MSIT_DIVERGENCE_OP" >> "%s"\n' "$T/hook.out" >"$T/hook.sh"
chmod +x "$T/hook.sh"
start_watch "$T/watch1.log" "$T/w1/npu" "$T/golden" "$T/ev1.jsonl" --on-divergence "$T/hook.sh"
$REPLAY_MS "$T/gen/npu" "$T/w1/npu" --hold-after-step 0 --until "$T/ev1.jsonl" --count 2 --timeout 60 ||
  fail "(a) no event for step 0 while step 1 was dumping"
[ "$(events_named "$T/ev1.jsonl" 2)" = "$(printf '0 step0 %s\n1 step0 %s' "$want" "$want")" ] ||
  fail "(a) step 0 events: $(events_named "$T/ev1.jsonl"), injected $want"
wait_until 60 "[ \"\$(lines '$T/ev1.jsonl')\" = 6 ]" || fail "(a) events: $(events_named "$T/ev1.jsonl")"
[ "$(events_named "$T/ev1.jsonl")" = "$(expected_events 3)" ] || fail "(a) events: $(events_named "$T/ev1.jsonl")"
wait_until 60 "[ -z \"\$(raw_left '$T/w1/npu')\" ]" || fail "(a) raw tensor files left: $(raw_left "$T/w1/npu" | head -3)"
wait_until 30 "[ -s '$T/hook.out' ]" || fail "(a) on_divergence did not run"
stop_watch
[ "$(head -1 "$T/hook.out")" = "step0 $want" ] || fail "(a) on_divergence was told: $(cat "$T/hook.out")"
json_same "$T/w1/npu"
[ "$(summary_count "$T/w1/npu")" = "$(raw_left "$T/gen/npu" | wc -l)" ] || fail "(a) summaries: $(summary_count "$T/w1/npu")"
rc=0
"$BIN" compare -tp "$T/w1/npu" -gp "$T/golden" -o "$T/c1" >"$T/c1.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "(a) compare exited $rc: $(tail -3 "$T/c1.log")"
[ "$(grep -c "^first divergence: $want " "$T/c1.log")" = 6 ] || fail "(a) compare names: $(grep '^first' "$T/c1.log")"
echo "live_divergence_msprobe: (a) $want named for step 0 of both ranks while step 1 dumped, 6 events as compare: ok"

# (b) the evidence kept: the injected API's files and those of the API before it (dump.json's
# order of the entries with tensor files), two steps.
rm -rf "$T/gen2" && mkdir -p "$T/gen2" && cp -r "$T/gen/npu" "$T/gen2/npu" && rm -rf "$T/gen2/npu/step2"
keep=$(python3 - "$T/gen2/npu" "$want" <<'PY'
import json, os, sys
def names(v):
    if isinstance(v, dict):
        if "data_name" in v:
            yield v["data_name"]
        for x in v.values():
            yield from names(x)
    elif isinstance(v, list):
        for x in v:
            yield from names(x)
for step in ("step0", "step1"):
    for rank in ("rank0", "rank1"):
        d = os.path.join(sys.argv[1], step, rank)
        data = json.load(open(os.path.join(d, "dump.json")))["data"]
        with_files = [k for k in data if any(True for _ in names(data[k]))]
        i = with_files.index(sys.argv[2])
        for k in with_files[i - 1:i + 1]:
            for n in names(data[k]):
                print(os.path.join(d, "dump_tensor_data", n))
PY
)
mkdir -p "$T/w2/npu"
start_watch "$T/watch2.log" "$T/w2/npu" "$T/golden" "$T/ev2.jsonl" --keep-raw-near-divergence 1
$REPLAY_MS "$T/gen2/npu" "$T/w2/npu" --hold-after-step 0 --until "$T/ev2.jsonl" --count 2 --timeout 60 ||
  fail "(b) no event for step 0 while step 1 was dumping"
want_left=$(sed "s|^$T/gen2/|$T/w2/|" <<<"$keep" | sort)
wait_until 60 "[ \"\$(raw_left '$T/w2/npu')\" = \"\$want_left\" ]" ||
  fail "(b) raw files left: $(raw_left "$T/w2/npu" | head -20); want $want_left"
[ "$(events_named "$T/ev2.jsonl")" = "$(expected_events 2)" ] || fail "(b) events: $(events_named "$T/ev2.jsonl")"
stop_watch
echo "live_divergence_msprobe: (b) --keep-raw-near-divergence 1 kept $(wc -l <<<"$want_left") files: ok"
