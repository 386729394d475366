#!/usr/bin/env bash
# Close -> deleted latency of `watch` under the default settle, A/B against a baseline build
# (issue 31 part 4): the three streams of the issue, 10% slow writers (half written, held open
# 500 ms) and 10% renamed into place, each run alternating baseline and this build (A B A B ...)
# so both see the same load. Prints every run, the medians of p50/p99 and the ratio new/base,
# and this build's stage breakdown (status JSON latency_stages_ms).
# Usage: bench/daemon_latency_ab.sh BASE_MSIT_COMPACT [BUILD_DIR] [ROUNDS] [SECONDS] [SCENARIOS]
#   SCENARIOS: any of small1 small9 large (default: all three).
set -euo pipefail
BASE=${1:?usage: bench/daemon_latency_ab.sh BASE_MSIT_COMPACT [BUILD_DIR] [ROUNDS] [SECONDS] [SCENARIOS]}
BUILD=${2:-build}; ROUNDS=${3:-3}; SECS=${4:-8}; SCENARIOS=${5:-small1 small9 large}
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(mktemp -d "${TMPDIR:-/var/tmp}/msit-ab.XXXXXX")"; trap 'rm -rf "$OUT"' EXIT
export STREAM_FLAGS="--slow-fraction 0.1 --rename-fraction 0.1" SKIP_BASELINES=1
unset SETTLE_MS

args() {  # args SCENARIO: RATE MIN MAX
  case $1 in
    small1) echo "1 8192 8192" ;;      # 1 MB/s of 8 KB files (~120 files/s)
    small9) echo "9 8192 8192" ;;      # 9 MB/s of 8 KB files (~1,100 files/s)
    large) echo "1000 65536 67108864" ;;  # 1 GB/s of 64 KB-64 MB files
    *) echo "unknown scenario $1" >&2; exit 2 ;;
  esac
}

echo "daemon latency A/B: base $BASE, new $BUILD/cli/msit-compact, $ROUNDS rounds of $SECS s, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for sc in $SCENARIOS; do
  read -r rate min max <<< "$(args "$sc")"
  for r in $(seq "$ROUNDS"); do
    for side in base new; do
      bin=$BASE; [ $side = base ] || bin="$BUILD/cli/msit-compact"
      log="$OUT/$sc.$side.$r"
      WATCH_BIN="$bin" "$HERE/daemon_e2e.sh" "$BUILD" "$rate" "$SECS" "$min" "$max" > "$log" 2>&1 || { cat "$log"; exit 1; }
      line=$(grep -E '^  daemon: ' "$log"); gen=$(grep -oE '\([0-9.]+ MB/s\)' "$log" | head -1)
      echo "$sc $side round $r: generator $gen;${line#  daemon:} [load $(cut -d' ' -f1 /proc/loadavg)]"
      grep -E '^  stages' "$log" || true
    done
  done
done | tee "$OUT/all"
python3 - "$OUT/all" <<'PY'
import re, statistics, sys
runs = {}
for l in open(sys.argv[1]):
    m = re.match(r"(\S+) (base|new) round \d+: .*p50 (\d+) ms, p99 (\d+) ms", l)
    if m:
        runs.setdefault((m[1], m[2]), []).append((int(m[3]), int(m[4])))
print("\nscenario: median p50 / p99 (ms) base -> new, ratio of p99 medians")
for sc in dict.fromkeys(k[0] for k in runs):
    b, n = runs.get((sc, "base"), []), runs.get((sc, "new"), [])
    if not b or not n:
        continue
    med = lambda rs, i: statistics.median(x[i] for x in rs)
    print("  %-7s p50 %5.0f -> %5.0f, p99 %5.0f -> %5.0f  (p99 ratio %.2f; p99 runs base %s, new %s)" % (
        sc, med(b, 0), med(n, 0), med(b, 1), med(n, 1), med(n, 1) / med(b, 1),
        [x[1] for x in b], [x[1] for x in n]))
PY
