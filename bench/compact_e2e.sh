#!/usr/bin/env bash
# End-to-end `compact --jobs 1` throughput against `cat FILES > /dev/null` on the same
# page-cached files, and peak RSS while compacting one 4 GB tensor.
# Usage: bench/compact_e2e.sh [BUILD_DIR] [WORK_DIR]   (needs python3-numpy, ~6 GB of disk)
set -euo pipefail
build=${1:-build}
work=${2:-$(mktemp -d /tmp/msit-bench.XXXXXX)}
bin=$build/cli/msit-compact
mkdir -p "$work/many/msit_fx_dump" "$work/big/msit_fx_dump"  # dump roots: nothing else is compacted

"${PYTHON:-/usr/bin/python3}" - "$work" <<'PY'
import os, sys, numpy as np
work = sys.argv[1]
rng = np.random.default_rng(1)
# 3 dtypes x 8 files x 32 MiB: FX-style npy activations (bf16 arrives as fp32 in FX dumps).
for dt in ("float16", "float32"):
    for i in range(8):
        n = (32 << 20) // np.dtype(dt).itemsize
        a = rng.standard_normal(n, dtype=np.float32).astype(dt)
        np.save(f"{work}/many/msit_fx_dump/act_{dt}_{i}-aten.mm.default.OUTPUT.0.20250101000000000000.npy", a)
big = f"{work}/big/msit_fx_dump/huge-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy"
if not os.path.exists(big):
    n = 1 << 30  # 4 GiB of float32, written in slabs to keep this script small too
    with open(big, "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": (n,)})
        slab = rng.standard_normal(1 << 24, dtype=np.float32)
        for _ in range(n // slab.size):
            f.write(slab.tobytes())
PY

files=("$work"/many/msit_fx_dump/*.npy)
bytes=$(cat "${files[@]}" | wc -c)
cat "${files[@]}" > /dev/null  # warm the page cache
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# Interleaved pairs (the cores are shared: one run of each is mostly noise); medians reported.
: > "$work/runs.txt"
for _ in $(seq "${RUNS:-9}"); do
  rm -f "$work"/many/msit_fx_dump/*.summary.json
  t0=$(now_ms); "$bin" compact --jobs 1 --keep-raw "$work/many" > /dev/null; t1=$(now_ms)
  cat "${files[@]}" > /dev/null; t2=$(now_ms)
  echo "$((t1 - t0)) $((t2 - t1))" >> "$work/runs.txt"
done
"${PYTHON:-/usr/bin/python3}" - "$work/runs.txt" "$bytes" "${#files[@]}" <<'PY'
import statistics as st, sys
runs = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
mb, n = int(sys.argv[2]) / 1e6, int(sys.argv[3])
comp = st.median(r[0] for r in runs); cat = st.median(r[1] for r in runs)
ratios = sorted(r[1] / r[0] for r in runs)
print(f"files: {n}, {mb:.1f} MB, {len(runs)} interleaved runs (medians)")
print(f"cat > /dev/null:        {cat / 1e3:.3f} s  {mb / cat * 1e3:.0f} MB/s")
print(f"compact --jobs 1:       {comp / 1e3:.3f} s  {mb / comp * 1e3:.0f} MB/s")
print(f"ratio compact/cat:      median {st.median(ratios):.2f}, best {ratios[-1]:.2f}, worst {ratios[0]:.2f}")
PY

rm -f "$work"/big/msit_fx_dump/*.summary.json
/usr/bin/time -f '%M' -o "$work/rss.txt" "$bin" compact --jobs 1 --keep-raw "$work/big" > /dev/null
printf 'peak RSS compacting a 4 GiB tensor: %.1f MB\n' "$(echo "$(cat "$work/rss.txt") / 1024" | bc -l)"
echo "work dir: $work (delete when done)"
