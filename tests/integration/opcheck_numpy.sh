#!/usr/bin/env bash
# opcheck against files numpy wrote (tests/tools/opgen.py), scored by tests/tools/opgrid_check.py.
#   crosscheck: every op of each family (GE, ATB, torch, msProbe), inputs salted with NaN/Inf/0/extremes;
#               all must agree with numpy's float64 result.
#   grid_small: the 'small' variant of bench/opcheck_grid.json for each family; every verdict as
#               expected (injected and upstream errors disagree, noise-only and downstream agree);
#               and its near_small variant (one element at 0.5x, 1.5x, 3x its bound).
set -euo pipefail
mode=$1 BIN=$2 SRC=$3
source "$SRC/tests/integration/compact_lib.sh"
require_numpy_python "opcheck_$mode"
WORK=$T  # compact_lib.sh's temporary directory, removed on exit
case "$mode" in
  crosscheck)
    for run in ge:1 ge:2 atb:1 torch:1 msprobe:1; do
      fam=${run%:*} seed=${run#*:}
      "$PY" "$SRC/tests/tools/opgen.py" crosscheck --family "$fam" --out "$WORK/$fam$seed" --seed "$seed"
      "$PY" "$SRC/tests/tools/opgrid_check.py" "$BIN" "$WORK/$fam$seed" | tail -2
    done ;;
  grid_small)
    for fam in ge atb torch msprobe; do
      "$PY" "$SRC/tests/tools/opgen.py" grid --family "$fam" --grid "$SRC/bench/opcheck_grid.json" --variant small \
        --out "$WORK/$fam"
      "$PY" "$SRC/tests/tools/opgrid_check.py" "$BIN" "$WORK/$fam" | tail -3
    done
    # Near the bounds: one element at 0.5, 1.5 and 3 times its bound, matmuls with K = 1024.
    "$PY" "$SRC/tests/tools/opgen.py" grid --grid "$SRC/bench/opcheck_grid.json" --variant near_small --out "$WORK/near"
    "$PY" "$SRC/tests/tools/opgrid_check.py" "$BIN" "$WORK/near" | tail -3 ;;
  *) echo "opcheck_numpy.sh: unknown mode $mode" >&2; exit 2 ;;
esac
