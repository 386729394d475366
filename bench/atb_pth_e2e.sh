#!/usr/bin/env bash
# `msit-compact inspect` (header + statistics + sketch + XXH3, one thread) on the same tensor
# stored as FX .npy, torch .pth and ATB .bin, page-cached; and peak RSS on one 4 GB .pth.
# Files come from `msit-dumpgen bigfile` (same seed, same values in all three containers).
# Usage: bench/atb_pth_e2e.sh [BUILD_DIR] [WORK_DIR]   (~1.5 GB of disk, +4 GB with BIG=1)
set -euo pipefail
build=${1:-build}
work=${2:-$(mktemp -d /tmp/msit-atb-bench.XXXXXX)}
bin=$build/cli/msit-compact
gen=$build/tests/tools/msit-dumpgen
mb=${MB:-256}
runs=${RUNS:-7}
mkdir -p "$work"

cpu_s() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{ print $1 + $2 }'; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for dt in float16 float32; do
  es=$([ "$dt" = float16 ] && echo 2 || echo 4)
  n=$(( mb * 1048576 / es ))
  "$gen" bigfile --kind npy --dtype "$dt" --elements "$n" --out "$work/act-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy" >/dev/null
  "$gen" bigfile --kind pth --dtype "$dt" --elements "$n" --out "$work/output.pth" >/dev/null
  "$gen" bigfile --kind atb_bin --dtype "$dt" --elements "$n" --out "$work/outtensor0.bin" >/dev/null
  cat "$work"/*.npy "$work"/*.pth "$work"/*.bin > /dev/null
  # Interleaved runs (shared cores): medians of CPU seconds (user + sys).
  : > "$work/runs.txt"
  for _ in $(seq "$runs"); do
    echo "npy $(cpu_s "$bin" inspect --json "$work"/*.npy)" >> "$work/runs.txt"
    echo "pth $(cpu_s "$bin" inspect --json "$work/output.pth")" >> "$work/runs.txt"
    echo "bin $(cpu_s "$bin" inspect --json "$work/outtensor0.bin")" >> "$work/runs.txt"
  done
  npy=$(awk '$1 == "npy" { print $2 }' "$work/runs.txt" | median)
  pth=$(awk '$1 == "pth" { print $2 }' "$work/runs.txt" | median)
  abin=$(awk '$1 == "bin" { print $2 }' "$work/runs.txt" | median)
  awk -v dt="$dt" -v mb="$mb" -v a="$npy" -v p="$pth" -v b="$abin" 'BEGIN {
    printf "%s %d MiB: npy %.3f s (%.2f GB/s)  pth %.3f s (%.2f GB/s, %.2fx)  atb_bin %.3f s (%.2f GB/s, %.2fx)\n",
      dt, mb, a, mb * 1.048576e-3 / a, p, mb * 1.048576e-3 / p, a / p, b, mb * 1.048576e-3 / b, a / b }'
  rm -f "$work"/*.npy "$work"/*.pth "$work"/*.bin
done

if [ "${BIG:-0}" = 1 ]; then
  # 4 GB = 2e9 float16 elements: below 4 GiB, so no ZIP64 member; BIG_ELEMENTS overrides.
  "$gen" bigfile --kind pth --dtype float16 --elements "${BIG_ELEMENTS:-2000000000}" --out "$work/big.pth" >/dev/null
  /usr/bin/time -v "$bin" inspect --json "$work/big.pth" 2> "$work/big.time" > /dev/null
  grep -E "Maximum resident|Elapsed" "$work/big.time"
  ls -l "$work/big.pth" | awk '{ print "big.pth bytes:", $5 }'
  rm -f "$work/big.pth"
fi
rm -rf "$work"
