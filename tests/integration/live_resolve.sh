#!/bin/bash
# watch on the user's dump_path (docs/resolve.md, issue 40 cases 4 and 5): `watch DUMP_PATH
# --golden G_DUMP_PATH`, the model creating DUMP_PATH/msit_ge_dump only once it starts dumping,
# the golden's dump_path holding msit_ge_dump/ and msit_fx_dump/ (the golden side reads the FX
# dump). The injected op is named before the dump ends (the replay holds after token 0 until
# the event is written), and the log says what was paired.
# Usage: live_resolve.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"

"$GEN" model --out "$T/run" --ops 12 --tokens 2 --seed 3 --diverge-at 3 --diverge-scale 0.5 >/dev/null
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence']['ge_name'])" \
  "$T/run/scenario.json")
mkdir -p "$T/dump_path" "$T/golden_dump_path"
cp -r "$T/run/msit_fx_dump" "$T/run/msit_ge_dump" "$T/golden_dump_path/"
start_watch "$T/watch.log" "$T/dump_path" "$T/golden_dump_path" "$T/ev.jsonl"
# Nothing in the dump_path yet: the comparer waits, and says why.
wait_until 30 "grep -q 'nothing to compare yet.*no dump in $T/dump_path yet' '$T/watch.log'" ||
  fail "no 'nothing to compare yet' line before the dump began"
$REPLAY "$T/run/msit_ge_dump" "$T/dump_path/msit_ge_dump" --hold-after-token 0 --until "$T/ev.jsonl" --timeout 60 ||
  fail "no event while the dump was held after token 0"
got=$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['op'])" "$T/ev.jsonl")
[ "$got" = "$want" ] || fail "the event names $got, injected $want"
grep -q "live compare paired: my $T/dump_path/msit_ge_dump (GE dump, in dump_path $T/dump_path) with golden $T/golden_dump_path/msit_fx_dump (FX dump" "$T/watch.log" ||
  fail "the log does not say what was paired"
stop_watch
echo "live_resolve: watch DUMP_PATH --golden G_DUMP_PATH named $got before the dump ended: ok"

# A golden dump_path holding two GE dumps and no FX dump cannot be told apart: refused at start.
mkdir -p "$T/two/msit_ge_dump/a" "$T/two/msprobe_ge_dump/a"
rc=0
"$BIN" watch "$T/dump_path" --golden "$T/two" >"$T/refused.log" 2>&1 || rc=$?
[ "$rc" = 78 ] || fail "a golden dump_path with two GE dumps: exit $rc, expected 78"
grep -q "holds 2 GE dumps" "$T/refused.log" || fail "the refusal does not say what was found: $(cat "$T/refused.log")"
echo "live_resolve: an ambiguous golden dump_path is refused at start: ok"
