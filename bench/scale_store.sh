#!/bin/bash
# A summary store of millions of rows (docs/benchmarks.md "Compare at scale", goal 5): time, CPU
# and peak RSS of `inspect` (the store's overview, as text and JSON; one stored file by name) and
# `export --format csv` of the FX store of a tree bench/scale_gen.py wrote (default: the 5M-pair
# GE/FX tree, whose FX store holds 5,004,000 files of one tensor each).
# Usage: scale_store.sh MSIT_BIN [TREE=/work/scale-data/gefx-5000000]
set -euo pipefail
BIN=$(realpath "$1")
TREE=${2:-/work/scale-data/gefx-5000000}
FX=$TREE/msit_fx_dump
[ -f "$FX/msit-summary.db" ] || { echo "no store at $FX (bench/scale_compare.sh generates the trees)"; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# The first stored file: a raw file that is gone, inspected through its store.
first=$(sqlite3 -readonly "file:$FX/msit-summary.db?immutable=1" \
  "SELECT d.path || '/' || f.name FROM dirs d JOIN files f ON f.dir_id = d.id ORDER BY d.path, f.name LIMIT 1")
printf "%-24s %8s %8s %8s %10s\n" what wall_s cpu_s rss_MB out_MB
run() {
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$T/time" "$@" >"$T/out" 2>"$T/err" || { echo "$name failed: $(tail -2 "$T/err")"; return; }
  read -r wall user sys kb < <(tail -n 1 "$T/time")
  printf "%-24s %8.2f %8.2f %8d %10d\n" "$name" "$wall" "$(echo "$user + $sys" | bc)" $((kb / 1024)) \
    $(($(stat -c %s "$T/out") / 1048576))
  rm -f "$T/out"
}
run "inspect store" "$BIN" inspect "$FX/msit-summary.db"
run "inspect --json store" "$BIN" inspect --json "$FX/msit-summary.db"
run "inspect stored file" "$BIN" inspect "$FX/$first"
run "export --format csv" "$BIN" export --format csv "$FX"
