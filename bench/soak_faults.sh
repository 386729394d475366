#!/usr/bin/env bash
# The soak with faults as a bench (docs/benchmarks.md "Soak with faults"): an hour by default
# (ctest's soak_faults_3min runs the same script for 3 minutes). Needs root (a tmpfs is mounted
# for the watched root, so the full-disk windows are real).
# Usage: [SECONDS_TOTAL=3600] [LATENCY_TARGET_S=30] [RATE=0.5] [FS_MIB=1536] bench/soak_faults.sh MSIT DUMPGEN [OUT.json]
#        An hour at full rate writes ~400,000 files (~1 GB of store rows): the bench halves the
#        rate and gives the tmpfs 1.5 GiB (memory, used only as it fills).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec python3 "$here/../tests/integration/soak.py" "$1" "$2" --seconds "${SECONDS_TOTAL:-3600}" \
  --latency-target-s "${LATENCY_TARGET_S:-30}" --enforce-latency --rate "${RATE:-0.5}" --fs-mib "${FS_MIB:-1536}" ${3:+--json "$3"}
