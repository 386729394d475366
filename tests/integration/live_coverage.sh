#!/bin/bash
# Coverage in live events (docs/live-divergence.md "Coverage", issue 40): `watch DUMP_PATH
# --golden G_DUMP_PATH`, the watched dump appearing in the dump_path after the start with ranks
# 0 and 1, the golden holding rank 0 only. Rank 1 is not compared: once rank 0's tokens are
# answered, an event of kind not_compared names it in the events file and the log, the status
# counts it, and a restart reads it back without writing it again.
# Usage: live_coverage.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"

"$GEN" model --out "$T/run" --ops 6 --tokens 2 --ranks 2 --seed 5 >/dev/null
mkdir -p "$T/dump_path" "$T/golden"
cp -r "$T/run/msit_fx_dump" "$T/golden/"
rm -rf "$T/golden/msit_fx_dump/worldsize2_global_rank1"
start_watch "$T/watch.log" "$T/dump_path" "$T/golden" "$T/ev.jsonl" --json-status "$T/status.json"
cp -r "$T/run/msit_ge_dump" "$T/dump_path/"  # the root appears after the start
# gaps FILE: the not_compared events of an events file, one "RANK<TAB>TEXT" line each.
gaps() {
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e.get("kind") == "not_compared": print("%s\t%s" % (e["rank"], e["not_compared"]))' "$1" 2>/dev/null
}
# status_gaps FILE: the status file's not_compared count (empty while it is not written).
status_gaps() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["not_compared"])' "$1" 2>/dev/null; }
wait_until 60 "[ -n \"\$(gaps '$T/ev.jsonl')\" ]" || fail "no not_compared event for rank 1"
ev=$(gaps "$T/ev.jsonl")
[ "$(cut -f1 <<<"$ev")" = 1 ] || fail "the not_compared event names another rank: $ev"
cut -f2 <<<"$ev" | grep -q "^rank 1 of $T/dump_path/msit_ge_dump has no counterpart in the golden $T/golden/msit_fx_dump: not compared" ||
  fail "the event does not say what was not compared: $ev"
grep -q "coverage: rank 1 of $T/dump_path/msit_ge_dump has no counterpart" "$T/watch.log" ||
  fail "the log does not name rank 1 as not compared"
wait_until 30 "[ \"\$(status_gaps '$T/status.json')\" = 1 ]" || fail "the status does not count the gap"
stop_watch
echo "live_coverage: rank 1 without golden reported as not compared (event, log, status): ok"

# A restart reads the gap back: counted, not written again.
start_watch "$T/watch2.log" "$T/dump_path" "$T/golden" "$T/ev.jsonl" --json-status "$T/status2.json"
wait_until 30 "[ \"\$(status_gaps '$T/status2.json')\" = 1 ]" ||
  fail "the restarted watch does not count the gap read back"
stop_watch
[ "$(gaps "$T/ev.jsonl" | wc -l)" = 1 ] || fail "the gap was written again after the restart"
echo "live_coverage: the gap read back at restart, not written twice: ok"
