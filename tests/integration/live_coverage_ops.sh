#!/bin/bash
# Tensors of mine without golden partner in live events (docs/live-divergence.md "Coverage",
# issue 40): a token of the watched dump whose golden token lacks an op is said once, as an event
# of kind not_compared naming the op, with the count `compare` gives on the same trees after the
# run; the token's clean log line says it; a restart does not write it again.
#  (a) torchair GE vs FX: the golden's token 1 lacks the FX node add_1 (GE's Add_1);
#  (b) msProbe: the golden's step 0 lacks the API Torch.mul.0.forward.
# Usage: live_coverage_ops.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"

# gaps FILE: the not_compared events of an events file, one "RANK<TAB>TOKEN<TAB>TEXT" line each.
gaps() {
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e.get("kind") == "not_compared": print("%s\t%s\t%s" % (e["rank"], e["token"], e["not_compared"]))' "$1" 2>/dev/null
}
status_gaps() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["not_compared"])' "$1" 2>/dev/null; }
# counted TEXT: "N (OPS)" of "N of my M tensors have no golden counterpart (OPS)" in TEXT.
counted() { sed -n 's/.* \([0-9]*\) of my [0-9]* tensors ha[sv]e* no golden counterpart (\([^)]*\)).*/\1 (\2)/p' <<<"$1"; }

# (a) torchair, GE vs FX.
"$GEN" model --out "$T/run" --ops 6 --tokens 3 --ranks 1 --seed 5 >/dev/null
mkdir -p "$T/dump_path" "$T/golden"
cp -r "$T/run/msit_fx_dump" "$T/golden/"
rm "$T"/golden/msit_fx_dump/*/gm_*/1/add_1-*
start_watch "$T/watch_a.log" "$T/dump_path" "$T/golden" "$T/ev_a.jsonl" --json-status "$T/status_a.json"
cp -r "$T/run/msit_ge_dump" "$T/dump_path/"
wait_until 60 "[ -n \"\$(gaps '$T/ev_a.jsonl')\" ]" || fail "(a) no not_compared event for token 1's Add_1"
wait_until 30 "[ \"\$(status_gaps '$T/status_a.json')\" = 1 ]" || fail "(a) the status does not count the gap"
stop_watch
ev=$(gaps "$T/ev_a.jsonl")
[ "$(wc -l <<<"$ev")" = 1 ] || fail "(a) more than one gap: $ev"
[ "$(cut -f1,2 <<<"$ev")" = "$(printf '0\t1')" ] || fail "(a) the gap is not rank 0, token 1: $ev"
grep -q "^token 1 of rank 0 of $T/dump_path/msit_ge_dump: 1 of my [0-9]* tensors has no golden counterpart (Add_1) in the golden $T/golden/msit_fx_dump: not compared" <<<"$(cut -f3 <<<"$ev")" ||
  fail "(a) the event does not say what was not compared: $ev"
grep -q "rank 0, token 1 judged clean (no divergence above [^;]*; 1 of my [0-9]* tensors not compared (no golden counterpart)); final" "$T/watch_a.log" ||
  fail "(a) token 1's clean line does not say what it did not compare"
grep "token [02] judged clean" "$T/watch_a.log" | grep -q "not compared" && fail "(a) a token with every partner says not compared"
rc=0
"$BIN" compare --my-path "$T/dump_path" --golden-path "$T/golden" -o "$T/ca" >"$T/ca.log" 2>&1 || rc=$?
[ "$rc" = 4 ] || fail "(a) compare exited $rc"
[ "$(counted "$(grep 'no golden counterpart' "$T/ca.log")")" = "$(counted "$ev")" ] ||
  fail "(a) compare counts $(grep 'no golden counterpart' "$T/ca.log"), the live event $ev"
echo "live_coverage_ops: (a) torchair: Add_1 of token 1 said once as not compared, as compare counts it: ok"

# A restart reads it back: counted, not written again.
start_watch "$T/watch_a2.log" "$T/dump_path" "$T/golden" "$T/ev_a.jsonl" --json-status "$T/status_a2.json"
wait_until 30 "grep -q 'token 2 judged clean' '$T/watch_a2.log'" || fail "(a) the restarted watch judged nothing"
wait_until 30 "[ \"\$(status_gaps '$T/status_a2.json')\" = 1 ]" || fail "(a) the restarted watch does not count the gap"
stop_watch
[ "$(gaps "$T/ev_a.jsonl" | wc -l)" = 1 ] || fail "(a) the gap was written again after the restart"
echo "live_coverage_ops: (a) not written again after a restart: ok"

# (b) msProbe: two steps (step 0 final once step 1 has begun).
"$GEN" msprobe --out "$T/ms" --framework pytorch --level mix --steps 2 --ranks 1 --ops 8 --hidden 16 --rows 4 \
  --seed 3 --noise 1e-3 >/dev/null
cp -r "$T/ms/bench" "$T/msgold"
python3 -c 'import json,sys
p = sys.argv[1]; d = json.load(open(p)); del d["data"]["Torch.mul.0.forward"]; json.dump(d, open(p, "w"), indent=1)' \
  "$T/msgold/step0/rank0/dump.json"
mkdir -p "$T/w"
start_watch "$T/watch_b.log" "$T/w" "$T/msgold" "$T/ev_b.jsonl"
cp -r "$T/ms/npu/." "$T/w/"
wait_until 60 "[ -n \"\$(gaps '$T/ev_b.jsonl')\" ]" || fail "(b) no not_compared event for step 0's Torch.mul.0.forward"
wait_until 60 "grep -q 'rank 0, step 1 ' '$T/watch_b.log'" || fail "(b) step 1 was not answered"
stop_watch
ev=$(gaps "$T/ev_b.jsonl")
[ "$(wc -l <<<"$ev")" = 1 ] || fail "(b) more than one gap: $ev"
[ "$(cut -f1,2 <<<"$ev")" = "$(printf '0\tstep0')" ] || fail "(b) the gap is not rank 0, step0: $ev"
grep -q "^step 0 of rank 0 of $T/w: [0-9]* of my [0-9]* tensors have no golden counterpart (Torch.mul.0.forward) in the golden $T/msgold: not compared" <<<"$(cut -f3 <<<"$ev")" ||
  fail "(b) the event does not say what was not compared: $ev"
rc=0
"$BIN" compare -tp "$T/w" -gp "$T/msgold" -o "$T/cb" >"$T/cb.log" 2>&1 || rc=$?
[ "$(counted "$(grep 'no golden counterpart' "$T/cb.log")")" = "$(counted "$ev")" ] ||
  fail "(b) compare (exit $rc) counts $(grep 'no golden counterpart' "$T/cb.log"), the live event $ev"
echo "live_coverage_ops: (b) msProbe: Torch.mul.0.forward of step 0 said once as not compared, as compare counts it: ok"
