#!/bin/bash
# The first divergence on generated msProbe pairs (docs/formats/msprobe-compare.md §8, §9):
# statistics only, an API downstream of the injected one is not named as a divergence (its
# statistics moved more than the injected API's, whose statistics moved too: a suspect, whose
# note names the injected API); statistics that carry it still name the injected API; the
# backward flow names the API whose output gradient was perturbed (msit-dumpgen --diverge-backward).
# Usage: compare_msprobe_divergence.sh MSIT_BIN MSIT_DUMPGEN ; exit 77 (skip) without python3.
set -euo pipefail
BIN=$1
GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 > /dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
# gen DIR SEED TASK ARGS...: a llama chain pair, bf16 target with kernel noise 1e-3, RED 0.2.
gen() {
  local d=$1 seed=$2 task=$3
  shift 3
  "$GEN" msprobe --out "$T/$d" --task "$task" --chain llama --ops 31 --seed "$seed" --noise 1e-3 \
    --diverge-scale 0.2 "$@" > /dev/null
}
compare() {  # compare DIR: the log; exit 0 or 1 (msProbe's own checkers fail rows of a bf16 target)
  local rc=0
  "$BIN" compare -tp "$T/$1/npu/step0/rank0" -gp "$T/$1/bench/step0/rank0" -o "$T/$1/o" > "$T/$1.log" 2>&1 || rc=$?
  [[ $rc -le 1 ]] || { cat "$T/$1.log"; fail "compare $1: exit $rc"; }
}

# Tensor.view.1 injected: its statistics move (level 0.018) but under bf16's rounding floor;
# Torch.bmm.2's, downstream, pass it (margin 1.5). Named as a divergence before the rule for
# statistics rows; now a suspect that points at the injected API.
gen down 403 statistics --diverge-at 9
grep -q '"first_divergence": "Tensor.view.1.forward"' "$T/down/scenario.json" || fail "generator: injected API moved"
compare down
! grep -q "^first divergence: " "$T/down.log" || { cat "$T/down.log"; fail "a downstream API named as divergence"; }
grep -q "^suspect: Torch.bmm.2.forward " "$T/down.log" || { cat "$T/down.log"; fail "no suspect"; }
grep -q "statistics of Tensor.view.1.forward upstream moved too" "$T/down.log" || { cat "$T/down.log"; fail "note"; }
# The same pair with the golden a tensor dump (mixed: both sides' dump.json statistics).
gen mixed 403 tensor --diverge-at 9
python3 - "$T/mixed/bench/step0/rank0/dump.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["task"] = "statistics"
def strip(v):
    if isinstance(v, dict):
        v.pop("data_name", None)
        [strip(x) for x in v.values()]
    elif isinstance(v, list):
        [strip(x) for x in v]
strip(d["data"])
json.dump(d, open(sys.argv[1], "w"))
PY
compare mixed
grep -q "(statistics): " "$T/mixed.log" || { cat "$T/mixed.log"; fail "mixed mode"; }
! grep -q "^first divergence: " "$T/mixed.log" || { cat "$T/mixed.log"; fail "mixed: a downstream API named"; }
grep -q "^suspect: Torch.bmm.2.forward " "$T/mixed.log" || { cat "$T/mixed.log"; fail "mixed: no suspect"; }

# Tensor.view.3 injected, nothing upstream moved: the statistics carry the name.
gen carried 401 statistics --diverge-at 24
compare carried
grep -q "^first divergence: Tensor.view.3.forward (Tensor.view.3.forward.output.0)$" "$T/carried.log" ||
  { cat "$T/carried.log"; fail "statistics that carry it"; }
grep -q "^  margin [0-9.]*, detection floor " "$T/carried.log" || { cat "$T/carried.log"; fail "margin line"; }

# Backward: the output gradient of NPU.npu_rms_norm.1's backward entry perturbed, a clean forward.
gen bw 7 tensor --backward --diverge-backward 12
grep -q '"first_divergence_backward": "NPU.npu_rms_norm.1.backward"' "$T/bw/scenario.json" || fail "generator: bw"
compare bw
grep -q "^first divergence (backward): NPU.npu_rms_norm.1.backward " "$T/bw.log" || { cat "$T/bw.log"; fail backward; }
! grep -q "^first divergence: \|^suspect" "$T/bw.log" || { cat "$T/bw.log"; fail "forward named without an injection"; }
echo "compare_msprobe_divergence: ok"
