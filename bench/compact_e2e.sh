#!/usr/bin/env bash
# End-to-end `compact --jobs 1` throughput against `cat FILES > /dev/null` on the same
# page-cached files, and peak RSS while compacting one 4 GB tensor.
# Usage: bench/compact_e2e.sh [BUILD_DIR] [WORK_DIR]   (needs python3-numpy, ~6 GB of disk)
set -euo pipefail
build=${1:-build}
work=${2:-$(mktemp -d /tmp/msit-bench.XXXXXX)}
bin=$build/cli/msit-compact
mkdir -p "$work/many" "$work/big"

"${PYTHON:-/usr/bin/python3}" - "$work" <<'PY'
import os, sys, numpy as np
work = sys.argv[1]
rng = np.random.default_rng(1)
# 3 dtypes x 8 files x 32 MiB: FX-style npy activations (bf16 arrives as fp32 in FX dumps).
for dt in ("float16", "float32"):
    for i in range(8):
        n = (32 << 20) // np.dtype(dt).itemsize
        a = rng.standard_normal(n, dtype=np.float32).astype(dt)
        np.save(f"{work}/many/act_{dt}_{i}-aten.mm.default.OUTPUT.0.20250101000000000000.npy", a)
big = f"{work}/big/huge-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy"
if not os.path.exists(big):
    n = 1 << 30  # 4 GiB of float32, written in slabs to keep this script small too
    with open(big, "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": (n,)})
        slab = rng.standard_normal(1 << 24, dtype=np.float32)
        for _ in range(n // slab.size):
            f.write(slab.tobytes())
PY

files=("$work"/many/*.npy)
bytes=$(cat "${files[@]}" | wc -c)
cat "${files[@]}" > /dev/null  # warm the page cache
t0=$(date +%s.%N); cat "${files[@]}" > /dev/null; t1=$(date +%s.%N)
cat_s=$(echo "$t1 - $t0" | bc -l)
rm -f "$work"/many/*.summary.json
t0=$(date +%s.%N); "$bin" compact --jobs 1 --keep-raw "$work/many" > /dev/null; t1=$(date +%s.%N)
compact_s=$(echo "$t1 - $t0" | bc -l)
printf 'files: %d, %.1f MB\n' "${#files[@]}" "$(echo "$bytes / 1000000" | bc -l)"
printf 'cat > /dev/null:        %.3f s  %.0f MB/s\n' "$cat_s" "$(echo "$bytes / $cat_s / 1000000" | bc -l)"
printf 'compact --jobs 1:       %.3f s  %.0f MB/s\n' "$compact_s" "$(echo "$bytes / $compact_s / 1000000" | bc -l)"
printf 'ratio compact/cat:      %.2f\n' "$(echo "$cat_s / $compact_s" | bc -l)"

rm -f "$work"/big/*.summary.json
/usr/bin/time -f '%M' -o "$work/rss.txt" "$bin" compact --jobs 1 --keep-raw "$work/big" > /dev/null
printf 'peak RSS compacting a 4 GiB tensor: %.1f MB\n' "$(echo "$(cat "$work/rss.txt") / 1024" | bc -l)"
echo "work dir: $work (delete when done)"
