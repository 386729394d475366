#!/usr/bin/env bash
# How much float32 sketch buckets (the store's default) move compare's sketch estimates
# against float64 buckets (`--sketch-bits 64`, bit-exact): the same GE-vs-FX model dumps are
# compacted both ways and compared; cosine and RED of every row are paired.
# Usage: bench/store_sketch_precision.sh [BUILD_DIR] [OPS=120] [TOKENS=4]
set -euo pipefail
BUILD=${1:-build}; OPS=${2:-120}; TOKENS=${3:-4}
BIN="$BUILD/cli/msit-compact"; GEN="$BUILD/tests/tools/msit-dumpgen"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
for scale in 0.001 0.05 1.0; do
  for bits in 32 64; do
    "$GEN" model --out "$T/m$bits" --ops "$OPS" --tokens "$TOKENS" --diverge-at $((OPS / 3)) --diverge-scale "$scale" \
      --hidden 256 --rows 16 --seed 11 > /dev/null
    "$BIN" compact --sketch-bits "$bits" "$T/m$bits/msit_ge_dump" "$T/m$bits/msit_fx_dump" > /dev/null
    "$BIN" compare -m "$T/m$bits/msit_ge_dump" -g "$T/m$bits/msit_fx_dump" -o "$T/r$bits" -q > /dev/null || true
  done
  python3 - "$T"/r32/*.csv "$T"/r64/*.csv "$scale" <<'PY'
import csv, sys
a, b = (list(csv.DictReader(open(p))) for p in sys.argv[1:3])
assert len(a) == len(b)
worst = {"cosine_similarity": 0.0, "relative_euclidean_distance": 0.0}
n = 0
for x, y in zip(a, b):
    if x["compare_mode"] != "sketch":
        continue
    n += 1
    for k in worst:
        if x[k] and y[k]:
            u, v = float(x[k]), float(y[k])
            worst[k] = max(worst[k], abs(u - v) / max(abs(v), 1e-12))
print(f"injected error {sys.argv[3]}: {n} sketch rows, max relative change float32 vs float64 buckets: "
      f"cosine {worst['cosine_similarity']:.2e}, RED {worst['relative_euclidean_distance']:.2e}")
PY
  rm -rf "$T"/m32 "$T"/m64 "$T"/r32 "$T"/r64
done
