#!/bin/bash
# Live divergence, the last token of a run (issue 30, docs/live-divergence.md "When a token's
# answer is final", rule 4): `watch GE --golden FX` while an msit-dumpgen stream whose every token
# diverges (the last one too) is replayed into the watched dir. The golden was written beforehand
# (its files' write times an hour old), so it is done with each token by its write times.
#  (a) the last token's event names the injected op, and the log says the watched side was done
#      with it by pairing (rule 4): every golden file of the token paired and the same whole files
#      at two passes. The watched side's time rules are off (MSIT_TEST_NO_TIME_RULES=watched,
#      common/base/test_hooks.h), so on a loaded machine too only an event rule can answer it
#      (how soon it answers is a benchmark's matter: bench/live_divergence.sh);
#  (b) the live events equal `compare`'s first divergences on the same trees afterwards;
#  (c) a noise-only stream: its last token is judged clean by rule 4 as well, nothing raised.
# Usage: live_divergence_last.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"  # BIN, GEN, HERE, wait_lib.sh

gen() {  # NAME GEN_ARGS...: the llama-chain pair of live_divergence.sh, golden written beforehand
  local name=$1
  shift
  "$GEN" model --chain llama --ops 31 --tokens 2 --rows 8 --hidden 64 --noise 1e-3 --ge-dtype float32 \
    --reduced MatMul=bfloat16 --out "$T/$name" "$@" >/dev/null
  cp -r "$T/$name/msit_fx_dump" "$T/$name.golden"
  find "$T/$name.golden" -exec touch -h -d '1 hour ago' {} +
}
rule4='watched side done by every golden file paired, the same whole files (rule 4)'

# (a) + (b): a MatMul perturbed at RED 0.05 in both tokens; the whole stream replayed at once.
gen mm --seed 7 --diverge-type MatMul --diverge-nth 2 --diverge-scale 0.05
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence']['ge_name'])" "$T/mm/scenario.json")
mkdir -p "$T/w1"
MSIT_TEST_NO_TIME_RULES=watched start_watch "$T/watch1.log" "$T/w1" "$T/mm.golden" "$T/ev1.jsonl" --json-status "$T/status1.json"
$REPLAY "$T/mm/msit_ge_dump" "$T/w1"
wait_until 60 "[ \$(lines '$T/ev1.jsonl') -ge 2 ]" || fail "(a) no event for the last token: $(cat "$T/ev1.jsonl" 2>/dev/null)"
python3 - "$T/ev1.jsonl" "$want" <<'PY' || fail "(a) events: $(cat "$T/ev1.jsonl")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
last = [e for e in ev if e["token"] == "1"]
assert len(last) == 1 and last[0]["op"] == sys.argv[2] and last[0]["error_jump"] > 1, ev
assert last[0]["my_path"] and last[0]["golden_path"], last
PY
grep -q "rank 0, token 1 final: $rule4" "$T/watch1.log" ||
  fail "(a) the last token was not final by pairing: $(grep 'token 1 final' "$T/watch1.log")"
wait_until 30 "grep -q '\"divergences\": *2' '$T/status1.json'" || fail "(a) status: $(cat "$T/status1.json")"
stop_watch
echo "live_divergence_last: (a) the last token answered by pairing (rule 4), event names $want: ok"

mkdir -p "$T/c1"
"$BIN" compare -m "$T/w1" -g "$T/mm.golden" -o "$T/c1" -q >"$T/c1/log" 2>&1 || true
python3 - "$T/ev1.jsonl" "$T/c1" <<'PY' || fail "(b) live events differ from compare's first divergences"
import csv, glob, json, os, sys
ev = {(e["token"], e["op"]) for e in map(json.loads, open(sys.argv[1]))}
rows = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/msit_cmp_report_*.csv")[0])))
cmp = {(r["token_id"], os.path.basename(r["my_data_path"].split(",")[0]).split(".")[1]) for r in rows
       if r["divergence"] == "first"}
assert ev == cmp and ("1", list(ev)[0][1]) in ev, (ev, cmp)
PY
echo "live_divergence_last: (b) equals compare on the same trees: ok"

# (c) noise only: the last token judged clean by rule 4, nothing raised.
gen noise --seed 7
mkdir -p "$T/w2"
MSIT_TEST_NO_TIME_RULES=watched start_watch "$T/watch2.log" "$T/w2" "$T/noise.golden" "$T/ev2.jsonl"
$REPLAY "$T/noise/msit_ge_dump" "$T/w2"
wait_until 60 "grep -q 'rank 0, token 1 judged clean' '$T/watch2.log'" || fail "(c) the last token not judged"
grep -F "rank 0, token 1 judged clean (no divergence above " "$T/watch2.log" | grep -qF "); final: $rule4" ||
  fail "(c) the last token was not final by pairing: $(grep 'token 1 judged' "$T/watch2.log")"
stop_watch
[ "$(lines "$T/ev2.jsonl")" = 0 ] || fail "(c) noise only raised: $(cat "$T/ev2.jsonl")"
echo "live_divergence_last: (c) noise only, the last token judged clean by pairing: ok"
