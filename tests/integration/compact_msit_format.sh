#!/usr/bin/env bash
# (e) --summary-format msit writes STEM_min_max.npy / NAME_min_max.npz that match the manifest,
# checked by msit-dumpgen's own reader and, when available, by numpy itself.
source "$(dirname "$0")/compact_lib.sh" "$@"

"$DUMPGEN" tree --out "$T/d" --layout all --files 300 --seed 17 \
  --dtypes float16,bfloat16,float32,float64,int8,uint8,int16,uint16,int32,uint32,int64,uint64,bool,float8_e4m3fn,float8_e5m2
rc=$(run_compact "$T/d" --summary-format msit --jobs 2)
expect_rc 0 "$rc" "compact --summary-format msit"
"$DUMPGEN" verify --manifest "$T/d/manifest.json" --tree "$T/d" --format msit --expect-raw-gone
[ -z "$(find "$T/d" -name '*.summary.json')" ] || fail "rich summaries written in msit mode"

PY=$(numpy_python)
if [ -z "$PY" ]; then
  echo "SKIP: no python3 with numpy; numpy check of _min_max files skipped"
  exit 0
fi
"$PY" - "$T/d" <<'PYEOF'
import json, math, os, sys
import numpy as np
root = sys.argv[1]
man = json.load(open(os.path.join(root, "manifest.json")))

def want(t):
    if t["count"] == 0:
        return None
    if t["nan_count"]:
        return (math.nan, math.nan)
    finite = t["count"] - t["posinf_count"] - t["neginf_count"]
    mn = -math.inf if t["neginf_count"] else (t["min"] if finite else math.inf)
    mx = math.inf if t["posinf_count"] else (t["max"] if finite else -math.inf)
    return (mn, mx)

def same(w, g, dt):
    w = np.array(w).astype(dt)
    return (np.isnan(w) and np.isnan(g)) or w == g

n = 0
for e in man["files"]:
    if e.get("corrupt") or e["kind"] == "graph_txt":
        continue
    p = os.path.join(root, e["path"])
    if e["kind"] == "npy":
        a = np.load(p[:-4] + "_min_max.npy")
        t = e["tensors"][0]
        assert a.shape == (2,) and a.dtype == np.dtype(t["dtype"]), (p, a.shape, a.dtype)
        w = want(t)
        assert w is None or (same(w[0], a[0], a.dtype) and same(w[1], a[1], a.dtype)), (p, w, a)
    else:
        z = np.load(p + "_min_max.npz")
        for role in ("input", "output"):
            a = z[role + "s"]
            ts = [t for t in e["tensors"] if t["role"] == role]
            assert a.shape == ((len(ts), 2) if ts else (0,)), (p, role, a.shape)
            for row, t in zip(a, ts):
                w = want(t)
                assert w is None or (same(w[0], row[0], a.dtype) and same(w[1], row[1], a.dtype)), (p, role, w, row)
    n += 1
print("numpy check: %d _min_max files agree with the manifest" % n)
PYEOF
echo "compact_msit_format: ok"
