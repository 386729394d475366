#!/bin/bash
# compare of compacted msProbe dumps (docs/formats/msprobe-compare.md §10): after `compact` the
# tensor files are gone and the rows come from the stores. Checks, on a generated llama pair with
# an injected op: summaries that keep every value and equal hashes give the raw compare's cells
# exactly, sketches estimate Cosine/EucDist, the mixed (compacted vs raw) pair equals the
# compacted pair, and each names the injected API as the raw compare does.
# Usage: compare_msprobe_summarised.sh MSIT_BIN MSIT_DUMPGEN ; exit 77 (skip) without numpy.
set -euo pipefail
BIN=$1
GEN=$2
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
PY=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import csv' > /dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "SKIP: no python3"; exit 77; }

"$GEN" msprobe --out "$T/g" --framework pytorch --chain llama --ops 31 --hidden 64 --rows 32 --dtype bfloat16 \
  --noise 2e-3 --diverge-at 12 --diverge-scale 0.05 --seed 5 > /dev/null
cp -r "$T/g" "$T/c"
"$BIN" compact "$T/c/npu" -q > /dev/null
"$BIN" compact "$T/c/bench" -q > /dev/null
[ -z "$(find "$T/c" -name '*.pt')" ] || fail "tensor files left after compact"
R=step0/rank0/dump.json
run() {  # run OUT TARGET GOLDEN: the log's first divergence line
  local rc=0
  "$BIN" compare -tp "$1/$R" -gp "$2/$R" -o "$T/$3" > "$T/$3.log" 2>&1 || rc=$?
  [[ $rc -le 1 ]] || { cat "$T/$3.log"; fail "compare $3: exit $rc"; }
  grep '^first divergence: ' "$T/$3.log" || true
}
want="first divergence: NPU.npu_rms_norm.1.forward (NPU.npu_rms_norm.1.forward.output.0)"
[[ $(run "$T/g/npu" "$T/g/bench" raw) == "$want" ]] || { cat "$T/raw.log"; fail "raw divergence"; }
[[ $(run "$T/c/npu" "$T/c/bench" sum) == "$want" ]] || { cat "$T/sum.log"; fail "summarised divergence"; }
[[ $(run "$T/c/npu" "$T/g/bench" mix) == "$want" ]] || { cat "$T/mix.log"; fail "mixed divergence"; }
cp -r "$T/g/npu" "$T/g2"  # the same bytes in another dump (compare refuses a dump against itself)
run "$T/c/npu" "$T/g2" self > /dev/null
run "$T/g/npu" "$T/g2" rawself > /dev/null

"$PY" - "$T" <<'PY'
import csv, glob, sys
T = sys.argv[1]
def rows(d):
    return list(csv.DictReader(open(glob.glob(T + "/" + d + "/compare_result_*.csv")[0])))
raw, summ, mix, self_, rawself = (rows(d) for d in ("raw", "sum", "mix", "self", "rawself"))
assert "Compare_mode" not in raw[0], "a raw pair has msProbe's columns only"
assert list(summ[0])[-1] == "Compare_mode", list(summ[0])[-3:]
METRICS = ["Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio"]
modes = {}
for r, s in zip(raw, summ):
    m = s["Compare_mode"]
    modes[m] = modes.get(m, 0) + 1
    if m in ("exact", "N/A"):  # every value kept (small tensors), or no tensor: the raw cells
        assert all(r[k] == s[k] for k in r), (r["NPU Name"], [(k, r[k], s[k]) for k in r if r[k] != s[k]])
    else:
        assert m == "sketch", m
        assert abs(float(s["Cosine"]) - float(r["Cosine"])) < 2e-3, (r["NPU Name"], r["Cosine"], s["Cosine"])
        e, es = float(r["EucDist"]), float(s["EucDist"])
        assert abs(es - e) <= 0.3 * e + 1e-9, (r["NPU Name"], e, es)
        assert all(s[k] == "unsupported" for k in METRICS[2:]), s
        for k in r:  # the names, dtypes, shapes and msProbe's statistics are dump.json's
            if k not in METRICS and k != "Result":
                assert r[k] == s[k], (k, r[k], s[k])
assert modes.get("sketch", 0) > 50 and modes.get("exact", 0) > 0, modes
# A raw golden is summarised on the fly with float64 sketch buckets, the store keeps float32 ones:
# the estimates move in the 6th digit, nothing else does.
for a, b in zip(summ, mix):
    for k in a:
        if a["Compare_mode"] == "sketch" and k in ("Cosine", "EucDist"):
            assert abs(float(a[k]) - float(b[k])) <= 1e-5 * abs(float(a[k])) + 1e-9, (a["NPU Name"], k, a[k], b[k])
        else:
            assert a[k] == b[k], (a["NPU Name"], k, a[k], b[k])
# Equal bytes (a compacted side against the same raw files): the hash gives msProbe's cells.
assert {r["Compare_mode"] for r in self_} == {"hash", "exact", "N/A"}, {r["Compare_mode"] for r in self_}
for r, s in zip(rawself, self_):
    assert all(r[k] == s[k] for k in r), (r["NPU Name"], [(k, r[k], s[k]) for k in r if r[k] != s[k]])
print("rows: %d, by Compare_mode %s" % (len(summ), modes))
PY
echo "compare_msprobe_summarised: ok"
