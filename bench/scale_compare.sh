#!/bin/bash
# Compare at decode scale (docs/benchmarks.md "Compare at scale"): time, CPU and peak RSS of
# `compare` on summarised trees of N tensor pairs written by bench/scale_gen.py, the slope of RSS
# and time per pair against the smallest N, and (HTML=1) the same with --html plus the load time of
# the overview, of the first divergence's token page and of an empty page in headless Chromium. Trees are generated once under DATA (reused by later runs).
# Usage: scale_compare.sh MSIT_BIN [DATA=/work/scale-data] [FLOW=gefx] [N...=100000 500000 2000000 5000000]
# FLOW gefx, fxfx or msprobe; a rank count after it (gefx16) makes trees of that many ranks of N pairs each
# (DATA/gefx16-N), compared by one `compare`; the pairs columns count all ranks.
# Env: JOBS (default 2), STEPS (msprobe: the pairs spread over that many step folders, DATA/msprobe-stepsS-N), HTML=1, MAX_RSS_GB (default 12: an N whose last run needed more is skipped
# on a shared machine; the run is cut by ulimit -v at twice that), EXTRA="compare options".
set -euo pipefail
BIN=$(realpath "$1")
DATA=${2:-/work/scale-data}
FLOW=${3:-gefx}
GEN_FLOW=${FLOW%%[0-9]*}
RANKS=${FLOW#"$GEN_FLOW"}
RANKS=${RANKS:-1}
shift $(($# < 3 ? $# : 3))
NS=("${@:-100000 500000 2000000 5000000}")
read -r -a NS <<<"${NS[*]}"
JOBS=${JOBS:-2}
HTML=${HTML:-0}
MAX_KB=$(( ${MAX_RSS_GB:-12} * 1024 * 1024 ))
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$DATA"

chromium_load() {  # "WALL/READY": seconds until headless Chromium dumped the page after its scripts
  # ran (its own start included), and the page's data-ready-ms (navigation to the end of its script)
  local c
  c=$(command -v chromium || true)
  [ -n "$c" ] || { echo "n/a"; return; }
  local s e
  s=$(date +%s.%N)
  timeout 120 "$c" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$T/profile.$RANDOM" --dump-dom "file://$1" >"$T/dom.html" 2>/dev/null || { echo "timeout"; return; }
  e=$(date +%s.%N)
  grep -q 'data-ready="1"' "$T/dom.html" || { echo "not-ready"; return; }
  printf "%.2fs/%sms" "$(echo "$e - $s" | bc)" "$(grep -o 'data-ready-ms="[0-9]*"' "$T/dom.html" | grep -o '[0-9]*')"
}

printf "%-6s %9s %8s %8s %9s %10s %12s %12s %s\n" flow pairs wall_s cpu_s rss_MB pairs/s "KB/pair(d)" "us/pair(d)" extra
base_n="" base_kb="" base_cpu=""
for n in "${NS[@]}"; do
  d="$DATA/$FLOW${STEPS:+-steps$STEPS}-$n"
  if [ ! -f "$d/compare.args" ]; then
    rm -rf "$d"
    python3 "$HERE/scale_gen.py" --flow "$GEN_FLOW" --ranks "$RANKS" --pairs "$n" --out "$d" ${STEPS:+--steps "$STEPS"} >&2
  fi
  # shellcheck disable=SC2046
  set -- $(cat "$d/compare.args")
  out="$T/out"
  rm -rf "$out" "$T/report.html" "$T/report.tokens"
  html_args=()
  [ "$HTML" = 1 ] && html_args=(--html "$T/report.html")
  # shellcheck disable=SC2086
  (ulimit -v $((2 * MAX_KB)); /usr/bin/time -f "%e %U %S %M" -o "$T/time" "$BIN" compare "$@" -o "$out" -j "$JOBS" -q \
    "${html_args[@]}" ${EXTRA:-} >/dev/null 2>"$T/err") || true
  read -r wall user sys kb < <(tail -n 1 "$T/time")
  cpu=$(echo "$user + $sys" | bc)
  rows=$(find "$out" -name '*.csv' -exec cat {} + 2>/dev/null | wc -l)  # msProbe's: in out/step*/
  csvs=$(find "$out" -name '*.csv' | wc -l)
  [ "$rows" -gt "$csvs" ] || { echo "$FLOW $n: no report ($(tail -3 "$T/err"))"; continue; }
  extra="rows=$((rows - csvs)) csv_files=$csvs"
  n=$((n * RANKS))  # pairs of all ranks
  if [ "$HTML" = 1 ]; then
    # The overview, then the page of the run's first divergence (a token of 7,200 rows).
    ov=$(chromium_load "$T/report.html")
    tok=$(grep -o 'data-first-href="[^"]*"' "$T/dom.html" | cut -d'"' -f2)
    extra="$extra html=$(du -k "$T/report.html" | cut -f1)KB+$(du -m "$T/report.tokens" | cut -f1)MB pages=$(find "$T/report.tokens" -name '*.html' | wc -l) load_overview=$ov"
    [ -n "$tok" ] && extra="$extra load_token=$(chromium_load "$T/$tok")"
    extra="$extra load_empty=$(echo '<html><body data-ready="1"></body></html>' >"$T/empty.html"; chromium_load "$T/empty.html")"
  fi
  pps=$(echo "$n / $wall" | bc)
  if [ -z "$base_n" ]; then
    base_n=$n base_kb=$kb base_cpu=$cpu
    slope_kb="-" slope_us=$(echo "scale=2; $cpu * 1000000 / $n" | bc)
  else
    slope_kb=$(echo "scale=3; ($kb - $base_kb) / ($n - $base_n)" | bc)
    slope_us=$(echo "scale=2; ($cpu - $base_cpu) * 1000000 / ($n - $base_n)" | bc)
  fi
  printf "%-6s %9d %8.2f %8.2f %9d %10d %12s %12s %s\n" "$FLOW" "$n" "$wall" "$cpu" $((kb / 1024)) "$pps" \
    "$slope_kb" "$slope_us" "$extra"
done
