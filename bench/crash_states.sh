#!/usr/bin/env bash
# The full crash-state exploration (docs/safety.md "Crash states"): every crash point of every
# scenario, every state the prefix, ext4 and weak models allow, each recovered and checked.
# ctest's crash_states_* run the same explorer on a few points of each scenario.
# Usage: [SCENARIOS="compact-store ..."] [FILES=8] [MAX_STATES=N] bench/crash_states.sh MSIT DUMPGEN [WORK_DIR]
#        MAX_STATES checks an even sample of N of each scenario's states (all are still built
#        and counted); without it every state is recovered and checked.
#        Prints one JSON line per scenario (ops, states per model, vulnerabilities) and, for
#        each vulnerability, the operation sequence that shows it; exit 1 if any was found.
set -euo pipefail
msit=$1 dumpgen=$2
work=${3:-$(mktemp -d /tmp/msit-crash-bench.XXXXXX)}
here="$(cd "$(dirname "$0")" && pwd)"
rc=0
for sc in ${SCENARIOS:-compact-store compact-json compact-msit compact-archive compact-msprobe watch-store watch-json watch-msprobe watch-archive}; do
  rm -rf "${work:?}/$sc"
  python3 "$here/../tests/integration/crash_explore.py" "$msit" "$dumpgen" --scenario "$sc" \
    --files "${FILES:-8}" ${MAX_STATES:+--max-states "$MAX_STATES"} --work "$work/$sc" --json "$work/$sc.json" || rc=1
done
exit $rc
