#!/usr/bin/env bash
# opcheck against files numpy wrote (tests/tools/opgen.py), scored by tests/tools/opgrid_check.py.
#   crosscheck: every op, two seeds, inputs salted with NaN/Inf/0/extremes; all must agree.
#   grid_small: the 'small' variant of bench/opcheck_grid.json; every verdict as expected.
set -euo pipefail
mode=$1 BIN=$2 SRC=$3
source "$SRC/tests/integration/compact_lib.sh"
PY=$(numpy_python)
if [ -z "$PY" ]; then
  echo "opcheck_$mode: SKIPPED: no python3 with numpy (scripts/deps installs python3-numpy)"
  exit 77
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
case "$mode" in
  crosscheck)
    for seed in 1 2; do
      "$PY" "$SRC/tests/tools/opgen.py" crosscheck --out "$WORK/c$seed" --seed "$seed"
      "$PY" "$SRC/tests/tools/opgrid_check.py" "$BIN" "$WORK/c$seed" | tail -2
    done ;;
  grid_small)
    "$PY" "$SRC/tests/tools/opgen.py" grid --grid "$SRC/bench/opcheck_grid.json" --variant small --out "$WORK/g"
    "$PY" "$SRC/tests/tools/opgrid_check.py" "$BIN" "$WORK/g" ;;
  *) echo "opcheck_numpy.sh: unknown mode $mode" >&2; exit 2 ;;
esac
