#!/bin/bash
# Raw GE vs FX compare, msit-compact against msit's own Python torchair compare
# (msit_llm.compare.torchair_acc_cmp.acc_compare), same tensors, runs interleaved.
#
# Usage: MSIT_SRC=/path/to/msit msit_compare_vs.sh MSIT_COMPACT_BIN [SIZE_MB_PER_SIDE=512] [RUNS=3]
# BASE_BIN=another msit-compact (e.g. an older build) is timed in the same loop, right after the
# first, and gets its own ratio to the same msit runs.
#
# MSIT_SRC is a checkout of https://github.com/Ascend/msit (git clone https://github.com/Ascend/msit).
# The script copies exactly these four files of it, unmodified, into a scratch directory:
#   msit/components/llm/msit_llm/compare/torchair_acc_cmp.py   (measured: Ascend/msit 48266fd2cff5)
#   msit/components/llm/msit_llm/compare/cmp_utils.py          (measured: Ascend/msit 625ac1909683)
#   msit/components/utils/acc_cmp.py                           (measured: 0964342c8b2c of the msit mirror)
#   msit/components/utils/cmp_algorithm.py                     (measured: 181f0c2fcca5 of the msit mirror)
# msit's master no longer has the llm component (removed in 695f15251); take each file at its
# commit: git -C msit show 48266fd2cff5:msit/components/llm/msit_llm/compare/torchair_acc_cmp.py > ...
# Everything else those files import is replaced by the small shims written below (our code,
# not msit's): logging, path/permission checkers, constants, the unused .bin/.pt readers, and an
# empty CANN `conversion` module. None of them is on the load-and-compare path except ms_open,
# see the note at its shim.
#
# What msit cannot do here: msit parses a raw GE dump only through CANN's msaccucmp
# ($ASCEND_TOOLKIT_HOME/tools/operator_cmp/compare: dump_parse.dump_utils.parse_dump_file), which
# ships with the CANN toolkit and is not part of msit. Without CANN, msit's own no-CANN path is a
# GE dump converted to .npz (acc_cmp.parse_torchair_dump_data: `if dump_file.endswith(".npz")`).
# So msit gets the same tensors as an uncompressed .npz (inputs=[x], outputs=[y]) next to the same
# graph text, while msit-compact reads the raw GE binary. msit's time therefore leaves out the
# CANN parse of the raw file (which reads the whole file at least once more); it is a lower bound
# for msit raw vs raw.
#
# Needs (Debian): python3-numpy python3-pandas python3-torch (PYTHON=/usr/bin/python3 by default).
set -euo pipefail
BIN=$(realpath "$1")
MB=${2:-512}
RUNS=${3:-3}
PY=${PYTHON:-/usr/bin/python3}
: "${MSIT_SRC:?set MSIT_SRC to a checkout of https://github.com/Ascend/msit}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# ---- msit runtime tree: msit's four files + our shims ----------------------------------------
R=$T/msit_run
mkdir -p "$R/msit_llm/compare" "$R/msit_llm/common" "$R/components/utils/check" \
         "$R/cann/tools/operator_cmp/compare/conversion"
cp "$MSIT_SRC/msit/components/llm/msit_llm/compare/torchair_acc_cmp.py" \
   "$MSIT_SRC/msit/components/llm/msit_llm/compare/cmp_utils.py" "$R/msit_llm/compare/"
cp "$MSIT_SRC/msit/components/utils/acc_cmp.py" "$MSIT_SRC/msit/components/utils/cmp_algorithm.py" \
   "$R/components/utils/"
for d in msit_llm msit_llm/common msit_llm/compare components components/utils components/utils/check \
         cann/tools/operator_cmp/compare/conversion; do : > "$R/$d/__init__.py"; done
# CANN msaccucmp stand-in: acc_compare() always calls set_msaccucmp_path_from_cann(), which
# imports `conversion.tensor_conversion`; an empty module makes msit fall back to its
# default_tensor_converter (only used for raw GE files, which msit does not get here).
: > "$R/cann/tools/operator_cmp/compare/conversion/tensor_conversion.py"
cat > "$R/msit_llm/common/log.py" <<'EOF'
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(message)s")
logger = logging.getLogger("msit_llm")
EOF
cp "$R/msit_llm/common/log.py" "$R/components/utils/log.py"
cat > "$R/msit_llm/common/utils.py" <<'EOF'
import os
def load_file_to_read_common_check(path, exts=None):  # msit: path/owner/permission/size checks
    return os.path.realpath(path)
EOF
cat > "$R/msit_llm/common/tool.py" <<'EOF'
def read_atb_data(path):  # ATB .bin reader, not used for GE vs FX
    raise NotImplementedError(path)
EOF
cat > "$R/msit_llm/common/constant.py" <<'EOF'
# Column names as in msit_llm/common/constant.py.
from components.utils.cmp_algorithm import CMP_ALG_MAP
DATA_ID, TOKEN_ID = "data_id", "token_id"
MY_DATA_PATH, MY_DTYPE, MY_SHAPE = "my_data_path", "my_dtype", "my_shape"
MY_MAX_VALUE, MY_MIN_VALUE, MY_MEAN_VALUE = "my_max_value", "my_min_value", "my_mean_value"
GOLDEN_DATA_PATH, GOLDEN_DTYPE, GOLDEN_SHAPE = "golden_data_path", "golden_dtype", "golden_shape"
GOLDEN_MAX_VALUE, GOLDEN_MIN_VALUE, GOLDEN_MEAN_VALUE = "golden_max_value", "golden_min_value", "golden_mean_value"
GOLDEN_OP_TYPE, MY_OP_TYPE = "golden_op_type", "my_op_type"
CMP_FAIL_REASON = "cmp_fail_reason"
GLOBAL_HISTORY_AIT_DUMP_PATH_LIST = ["ait_dump", "msit_dump"]
CSV_GOLDEN_HEADER = [TOKEN_ID, DATA_ID, GOLDEN_DATA_PATH, GOLDEN_DTYPE, GOLDEN_SHAPE, GOLDEN_MAX_VALUE,
                     GOLDEN_MIN_VALUE, GOLDEN_MEAN_VALUE, MY_DATA_PATH, MY_DTYPE, MY_SHAPE, MY_MAX_VALUE,
                     MY_MIN_VALUE, MY_MEAN_VALUE] + list(CMP_ALG_MAP.keys()) + [CMP_FAIL_REASON]
STAT_CPM, CSV_STATISTICS_HEADER = [], []  # statistics compare, not used here
EOF
cat > "$R/components/utils/util.py" <<'EOF'
def safe_torch_load(path, **kwargs):  # .pt reader, not used for GE vs FX
    raise NotImplementedError(path)
EOF
cat > "$R/components/utils/check/rule.py" <<'EOF'
class _Pass:
    def check(self, *args, **kwargs):
        return True
class Rule:  # msit: path security rules
    @staticmethod
    def input_file():
        return _Pass()
EOF
cat > "$R/components/utils/check/string_checker.py" <<'EOF'
class StringChecker:  # msit: string security rules
    def is_str_safe(self):
        return self
    def check(self, *args, **kwargs):
        return True
EOF
cat > "$R/components/utils/constants.py" <<'EOF'
class FileCheckConst:
    DIR, FILE, READ_ABLE = "dir", "file", "read"
    MAX_BIN_SIZE = 10 * 1024 * 1024 * 1024
EOF
cat > "$R/components/utils/file_utils.py" <<'EOF'
import os
class FileChecker:  # msit: owner/permission/size checks
    def __init__(self, file_path, path_type, ability=None, file_type=None, max_size=None, **kwargs):
        self.file_path = file_path
    def common_check(self):
        return os.path.realpath(self.file_path)
EOF
cat > "$R/components/utils/security_check.py" <<'EOF'
import os
def ms_makedirs(name, mode=0o750, exist_ok=False):
    os.makedirs(name, mode=mode, exist_ok=exist_ok)
EOF
cat > "$R/components/utils/file_open_check.py" <<'EOF'
# msit's ms_open = permission/size checks + os.fdopen(os.open(...)). Note: acc_cmp.py does
#   with ms_open(npz, "rb", ...) as f: loaded = np.load(f)
#   return loaded.get("inputs", []), ...
# and np.load of an .npz reads lazily, so with a file that closes on `with` exit the .get raises
# "ValueError: seek of closed file" (numpy 1.24). This shim leaves a binary read file open at
# `with` exit (it closes when the NpzFile is collected), the behaviour of the older
# `np.load(dump_file)` in ait's torchair_acc_cmp.py.
import os
MAX_SIZE_LIMITE_NORMAL_FILE = 4 * 1024 * 1024 * 1024
class _KeepOpen:
    def __init__(self, f):
        self.f = f
    def __enter__(self):
        return self.f
    def __exit__(self, *exc):
        return False
def ms_open(file, mode="r", max_size=None, softlink=False, write_permission=0o640, **kwargs):
    f = open(file, mode, **kwargs)
    return _KeepOpen(f) if "r" in mode and "b" in mode else f
EOF
cat > "$T/run_msit.py" <<'EOF'
import sys, time
t0 = time.perf_counter()
from msit_llm.compare.torchair_acc_cmp import acc_compare
t1 = time.perf_counter()
acc_compare(golden_path=sys.argv[1], my_path=sys.argv[2], output_path=sys.argv[3])
t2 = time.perf_counter()
print(f"msit import {t1 - t0:.2f} s, acc_compare {t2 - t1:.2f} s", file=sys.stderr)
EOF

# ---- data: one Add op, same tensors for both tools --------------------------------------------
# ge/     raw GE binary (header + input + output), read by msit-compact
# ge_npz/ the same tensors as Add.Add_0.1.1.<ts>.npz (np.savez, uncompressed), read by msit
# fx/     FX npy in msit_fx_dump/data_dump/1/gm_<ts20>_dump (msit's FX walk wants token dirs from 1)
PYTHONPATH="$(dirname "$0")" "$PY" - "$T" "$MB" <<'EOF'
import os, sys
import numpy as np
from add_op_dump import GE_FILE_NAME, GRAPH_TEXT, ge_header
root, mb = sys.argv[1], int(sys.argv[2])
n = mb * 1024 * 1024 // 4 // 2          # input + output per side = MB
rel = "20250101000000/0/graph_1/1/0"  # GE layout without a rank dir, paired with data_dump FX
ge, ge_npz, fx = f"{root}/ge/{rel}", f"{root}/ge_npz/{rel}", f"{root}/fx/msit_fx_dump/data_dump/1/gm_20250101000000000001_dump"
for d in (ge, ge_npz, fx):
    os.makedirs(d)

for side in ("ge", "ge_npz"):
    open(f"{root}/{side}/dynamo_original_graph_1_20250101000000000000.txt", "w").write(GRAPH_TEXT)
rng = np.random.default_rng(1)
x = rng.standard_normal(n, dtype=np.float32) * np.float32(1.0001)
y = rng.standard_normal(n, dtype=np.float32) * np.float32(1.0001)
name = GE_FILE_NAME
with open(f"{ge}/{name}", "wb") as f:
    f.write(ge_header(n))
    f.write(x.tobytes()); f.write(y.tobytes())
np.savez(f"{ge_npz}/{name}.npz", inputs=[x], outputs=[y])
for role, t in (("INPUT", x), ("OUTPUT", y)):
    g = t + np.float32(1e-3) * rng.standard_normal(n, dtype=np.float32)
    np.save(f"{fx}/add_0-aten.add.Tensor.{role}.0.20250101000000000000.npy", g)
EOF
du -sh "$T/ge" "$T/ge_npz" "$T/fx"
find "$T/ge" "$T/ge_npz" "$T/fx" -type f -exec cat {} + >/dev/null   # warm the page cache
uptime
s=$(date +%s.%N); find "$T/ge" "$T/fx" -type f -exec cat {} + >/dev/null; e=$(date +%s.%N)
echo "cat of both raw sides (ge + fx): $(echo "$e - $s" | bc) s"

# ---- interleaved runs ----------------------------------------------------------------------------
: > "$T/ours.times"; : > "$T/msit.times"; : > "$T/base.times"
for i in $(seq "$RUNS"); do
  rm -rf "$T/out_ours" "$T/out_msit"
  /usr/bin/time -f "%e %M %U %S" -o "$T/t" "$BIN" compare --my-path "$T/ge" --golden-path "$T/fx" -o "$T/out_ours" -q
  cat "$T/t" >> "$T/ours.times"; echo "run $i msit-compact: $(cat "$T/t") (wall s, peak RSS KB, user s, sys s)"
  if [ -n "${BASE_BIN:-}" ]; then
    rm -rf "$T/out_base"
    /usr/bin/time -f "%e %M %U %S" -o "$T/t" "$BASE_BIN" compare --my-path "$T/ge" --golden-path "$T/fx" -o "$T/out_base" -q
    cat "$T/t" >> "$T/base.times"; echo "run $i BASE_BIN: $(cat "$T/t") (wall s, peak RSS KB, user s, sys s)"
  fi
  ASCEND_TOOLKIT_HOME="$R/cann" PYTHONPATH="$R" /usr/bin/time -f "%e %M %U %S" -o "$T/t" \
    "$PY" "$T/run_msit.py" "$T/fx" "$T/ge_npz" "$T/out_msit" 2> "$T/msit.log" || { cat "$T/msit.log"; exit 1; }
  cat "$T/t" >> "$T/msit.times"; echo "run $i msit (Python): $(cat "$T/t") (wall s, peak RSS KB, user s, sys s); $(tail -1 "$T/msit.log")"
done
uptime
med() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
o=$(cut -d' ' -f1 "$T/ours.times" | med); m=$(cut -d' ' -f1 "$T/msit.times" | med)
orss=$(cut -d' ' -f2 "$T/ours.times" | sort -n | tail -1); mrss=$(cut -d' ' -f2 "$T/msit.times" | sort -n | tail -1)
cpu() { awk '{ print $3 + $4 }' "$1" | med; }
oc=$(cpu "$T/ours.times"); mc=$(cpu "$T/msit.times")
echo "median CPU (user+sys) of $RUNS: msit-compact $oc s, msit $mc s, msit / msit-compact = $(echo "scale=1; $mc / $oc" | bc)x (robust to other load on the machine)"
echo "median of $RUNS: msit-compact $o s (peak RSS $orss KB), msit $m s (peak RSS $mrss KB), msit / msit-compact = $(echo "scale=1; $m / $o" | bc)x"
if [ -n "${BASE_BIN:-}" ]; then
  b=$(cut -d' ' -f1 "$T/base.times" | med); bc_=$(cpu "$T/base.times")
  echo "BASE_BIN, same runs: median $b s, CPU $bc_ s; msit / BASE_BIN = $(echo "scale=1; $m / $b" | bc)x wall, $(echo "scale=1; $mc / $bc_" | bc)x CPU"
fi

# ---- the two reports, metric columns side by side ----------------------------------------------
echo "--- msit log (last run):"; cat "$T/msit.log"
echo "--- msit-compact report:"; find "$T/out_ours" -name '*.csv' -exec cat {} + || true
echo "--- msit report:"; find "$T/out_msit" -name '*.csv' -exec cat {} + || true
