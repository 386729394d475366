#!/bin/bash
# `watch --golden` against a golden of millions of files (docs/benchmarks.md "Compare at scale",
# issue 42 goal 4): the golden is the FX store of a GE/FX tree bench/scale_gen.py writes with
# --my-tokens 2 (DATA/golden-N: N golden files, 7,200 a token; the watched side holds its first 2
# tokens only, as a dump that has just begun). For each N and each build: `watch` of a copy of the
# watched side with --golden until both its tokens are answered (an event or "judged clean" in the
# log; token 1, the last, waits 3 s of quiet: rule 3), against `watch` of the same copy without
# it: the daemon's peak RSS (VmHWM) each, the difference (what the golden costs) and the seconds
# from the start to the second answer. (bench/live_pass_bench times the comparer's passes alone,
# without the watcher: it stops once its passes change nothing, a golden token ahead still pending.)
# Usage: scale_golden.sh BUILD [BASE_BUILD|-] [DATA=/work/scale-data] [N...=100000 500000 2000000 5000000]
# Both builds run one after the other for each N (base first when given).
set -euo pipefail
BUILDS=("$(realpath "$1")")
[ "${2:--}" = - ] || BUILDS=("$(realpath "$2")" "${BUILDS[0]}")
DATA=${3:-/work/scale-data}
shift $(($# < 3 ? $# : 3))
NS=("${@:-100000 500000 2000000 5000000}")
read -r -a NS <<<"${NS[*]}"
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
WATCH_PID=""
trap '[ -z "$WATCH_PID" ] || kill -9 "$WATCH_PID" 2>/dev/null; rm -rf "$T"' EXIT
mkdir -p "$DATA"

hwm_kb() { awk '/VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null || true; }

# watch_run BIN MINE GOLDEN|-: prints "VMHWM_KB SECONDS" once both tokens are answered (with a
# golden; without one, once the start-up scan is done).
watch_run() {
  local bin=$1 mine=$2 golden=$3 d="$T/watched" log="$T/watch.log" args=() s e
  rm -rf "$d" "$log"
  cp -r "$mine" "$d"
  [ "$golden" = - ] || args=(--golden "$golden" --events "$T/events.jsonl")
  s=$(date +%s.%N)
  "$bin" watch "$d" "${args[@]}" >"$log" 2>&1 &
  WATCH_PID=$!
  for _ in $(seq 36000); do
    if [ "$golden" = - ]; then grep -q 'start-up scan done' "$log" && break
    else [ "$(grep -c -E 'divergence: rank|judged clean' "$log" || true)" -lt 2 ] || break; fi
    sleep 0.05
  done
  e=$(date +%s.%N)
  local kb
  kb=$(hwm_kb "$WATCH_PID")
  [ -n "$kb" ] || { echo "watch ended early: $(tail -3 "$log")" >&2; kb=0; }
  echo "$kb $(echo "$e - $s" | bc)"
  kill -TERM "$WATCH_PID"
  wait "$WATCH_PID" || true
  WATCH_PID=""
}

echo "scale golden bench: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$HERE" rev-parse --short HEAD)"
printf "%-9s %-28s %9s %9s %9s %9s\n" golden build plain_MB golden_MB extra_MB answered_s
for n in "${NS[@]}"; do
  d="$DATA/golden-$n"
  if [ ! -f "$d/compare.args" ]; then
    rm -rf "$d"
    python3 "$HERE/scale_gen.py" --flow gefx --pairs "$n" --my-tokens 2 --out "$d" >&2
  fi
  files=$(sqlite3 -readonly "file:$d/msit_fx_dump/msit-summary.db?immutable=1" "SELECT count(*) FROM files")
  for b in "${BUILDS[@]}"; do
    read -r plain _ < <(watch_run "$b/cli/msit-compact" "$d/msit_ge_dump" -)
    read -r gold secs < <(watch_run "$b/cli/msit-compact" "$d/msit_ge_dump" "$d/msit_fx_dump")
    printf "%-9s %-28s %9.1f %9.1f %9.1f %9.1f\n" "$files" "$(basename "$(dirname "$b")")/$(basename "$b")" \
      "$(echo "$plain / 1024" | bc -l)" "$(echo "$gold / 1024" | bc -l)" \
      "$(echo "($gold - $plain) / 1024" | bc -l)" "$secs"
  done
done
