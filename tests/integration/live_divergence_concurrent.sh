#!/bin/bash
# Live divergence with a golden dumped at the same time (issue 30, docs/live-divergence.md "When a
# token's answer is final", rule 5): `watch GE --golden FX` while both sides of an msit-dumpgen
# stream are written side by side, their files interleaved (live_replay_pair.py), every token
# diverging (the last one too).
#  (a) the last token's event names the injected op, and the log says the golden side was done
#      with it by its shape (rule 5: the ops of its previous token, the same whole files at two
#      passes). The golden side's time rules are off for that watch (MSIT_TEST_NO_TIME_RULES=golden,
#      common/base/test_hooks.h), so on a loaded machine too only rule 5 can make the golden done
#      with its last token;
#  (d) a golden that writes another file of that token after the rule fired (a node no GE op
#      names), seen by the running watch or, at the latest, by a restarted one (which judges the
#      token again, by rule 3 now): no second event;
#  (b) the live events equal `compare`'s first divergences on the same trees afterwards;
#  (c) the fallback: a golden whose last token differs from its previous one (an FX node missing
#      in it) is never done by its shape: the last token waits for the time rules (rule 3), is
#      reported once, and equals `compare` as well; the GE op of the missing node is said once
#      as not compared.
# Usage: live_divergence_concurrent.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"  # BIN, GEN, HERE, wait_lib.sh
PAIR="python3 $HERE/live_replay_pair.py"

gen() {  # NAME GEN_ARGS...: the llama-chain pair of live_divergence.sh
  local name=$1
  shift
  "$GEN" model --chain llama --ops 31 --tokens 2 --rows 8 --hidden 64 --noise 1e-3 --ge-dtype float32 \
    --reduced MatMul=bfloat16 --out "$T/$name" "$@" >/dev/null
}
rule5='golden by the ops of its previous token, the same whole files (rule 5)'

check_events() {  # EVENTS WANT: one event per token, the last one naming WANT
  python3 - "$1" "$2" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert sorted(e["token"] for e in ev) == ["0", "1"], ev
last = [e for e in ev if e["token"] == "1"]
assert last[0]["op"] == sys.argv[2] and last[0]["error_jump"] > 1, ev
assert last[0]["my_path"] and last[0]["golden_path"], last
PY
}

equals_compare() {  # MINE GOLDEN EVENTS OUT
  mkdir -p "$4"
  "$BIN" compare -m "$1" -g "$2" -o "$4" -q >"$4/log" 2>&1 || true
  python3 - "$3" "$4" <<'PY'
import csv, glob, json, os, sys
ev = {(e["token"], e["op"]) for e in map(json.loads, open(sys.argv[1]))}
rows = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/msit_cmp_report_*.csv")[0])))
cmp = {(r["token_id"], os.path.basename(r["my_data_path"].split(",")[0]).split(".")[1]) for r in rows
       if r["divergence"] == "first"}
assert ev == cmp and any(t == "1" for t, _ in ev), (ev, cmp)
PY
}

# (a) + (b): a MatMul perturbed at RED 0.05 in both tokens; both sides written at once.
gen mm --seed 7 --diverge-type MatMul --diverge-nth 2 --diverge-scale 0.05
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence']['ge_name'])" "$T/mm/scenario.json")
mkdir -p "$T/w1" "$T/g1"
MSIT_TEST_NO_TIME_RULES=golden start_watch "$T/watch1.log" "$T/w1" "$T/g1" "$T/ev1.jsonl"
# --keep-up: the watch summarises as the stream goes (on a slow machine too), so the answer does
# not wait for a backlog while the golden's write times run towards rule 3.
$PAIR "$T/mm/msit_ge_dump" "$T/w1" "$T/mm/msit_fx_dump" "$T/g1" --keep-up 8 || fail "(a) the watch did not keep up"
wait_until 60 "[ \$(lines '$T/ev1.jsonl') -ge 2 ]" || fail "(a) no event for the last token: $(cat "$T/ev1.jsonl" 2>/dev/null)"
check_events "$T/ev1.jsonl" "$want" || fail "(a) events: $(cat "$T/ev1.jsonl")"
grep -q "rank 0, token 1 final: .*, $rule5" "$T/watch1.log" ||
  fail "(a) the golden's last token was not done by its shape: $(grep 'token 1 final' "$T/watch1.log")"
echo "live_divergence_concurrent: (a) the golden's last token done by its shape (rule 5), event names $want: ok"
late=$(find "$T/g1" -path '*/1/*' -name 'add_*.OUTPUT.0.*.npy' | head -1)
[ -n "$late" ] || fail "(d) no FX add output in the golden's token 1"
cp "$late" "$(dirname "$late")/late_99-aten.add.Tensor.OUTPUT.0.20250601080000099900.npy"
stop_watch
start_watch "$T/watch1b.log" "$T/w1" "$T/g1" "$T/ev1.jsonl"
wait_until 60 "grep -q 'rank 0, token 1 final' '$T/watch1b.log'" || fail "(d) the restarted watch did not judge token 1 again"
grep -q "rank 0, token 1 final: .*golden by .*(rule 3)" "$T/watch1b.log" ||
  fail "(d) token 1 with a node its previous token lacks was not left to rule 3: $(grep 'token 1 final' "$T/watch1b.log")"
stop_watch
[ "$(lines "$T/ev1.jsonl")" = 2 ] || fail "(d) a late golden file gave another event: $(cat "$T/ev1.jsonl")"
check_events "$T/ev1.jsonl" "$want" || fail "(d) events: $(cat "$T/ev1.jsonl")"
echo "live_divergence_concurrent: (d) a late golden file of the answered token, restart: no second event: ok"
equals_compare "$T/w1" "$T/g1" "$T/ev1.jsonl" "$T/c1" || fail "(b) live events differ from compare's first divergences"
echo "live_divergence_concurrent: (b) equals compare on the same trees: ok"

# (c) the golden's last token lacks an FX node that its token 0 has (its last one): the shapes
# differ, the golden waits for rule 3; one event per token, equal to compare.
cp -r "$T/mm/msit_fx_dump" "$T/odd"
node=$(python3 - "$T/odd" "$HERE" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[2])
from live_replay import token_of, ts_of
files = [os.path.join(r, f) for r, _, fs in os.walk(sys.argv[1]) for f in fs if f.endswith(".npy")]
last = max((f for f in files if token_of(os.path.relpath(f, sys.argv[1])) == 1), key=lambda f: ts_of(os.path.basename(f)))
key = lambda f: os.path.basename(f).split(".OUTPUT.")[0].split(".INPUT.")[0]  # msit's FX node key
node = key(last)
for f in files:
    if token_of(os.path.relpath(f, sys.argv[1])) == 1 and key(f) == node:
        os.remove(f)
print(node)
PY
) || fail "(c) could not drop a node from the golden's last token"
mkdir -p "$T/w2" "$T/g2"
start_watch "$T/watch2.log" "$T/w2" "$T/g2" "$T/ev2.jsonl"
$PAIR "$T/mm/msit_ge_dump" "$T/w2" "$T/odd" "$T/g2"
# The dropped node's GE op is a tensor of mine without golden partner: besides the divergences,
# one not_compared event says token 1 did not compare it (docs/live-divergence.md "Coverage").
divergences() { grep -v '"kind":"not_compared"' "$1" 2>/dev/null || true; }
wait_until 60 "[ \$(divergences '$T/ev2.jsonl' | wc -l) -ge 2 ]" ||
  fail "(c) no event for the last token: $(cat "$T/ev2.jsonl" 2>/dev/null)"
divergences "$T/ev2.jsonl" >"$T/ev2d.jsonl"
check_events "$T/ev2d.jsonl" "$want" || fail "(c) events: $(cat "$T/ev2.jsonl")"
grep -q "rank 0, token 1 final: .*, golden by .*(rule 3)" "$T/watch2.log" ||
  fail "(c) the golden's last token (without $node) was not done by a time rule: $(grep 'token 1 final' "$T/watch2.log")"
! grep -q "(rule 5)" "$T/watch2.log" || fail "(c) rule 5 named for a token whose ops differ: $(grep 'rule 5' "$T/watch2.log")"
stop_watch
divergences "$T/ev2.jsonl" >"$T/ev2d.jsonl"
[ "$(lines "$T/ev2d.jsonl")" = 2 ] || fail "(c) a duplicated event: $(cat "$T/ev2.jsonl")"
[ "$(grep -c '"kind":"not_compared".*"token":"1"' "$T/ev2.jsonl")" = 1 ] ||
  fail "(c) token 1's tensor without golden partner is not said once: $(grep not_compared "$T/ev2.jsonl")"
equals_compare "$T/w2" "$T/g2" "$T/ev2d.jsonl" "$T/c2" || fail "(c) live events differ from compare's first divergences"
echo "live_divergence_concurrent: (c) a last token without $node waits for rule 3, one event each, equals compare: ok"
