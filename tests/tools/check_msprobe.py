#!/usr/bin/env python3
"""Cross-checks an `msit-dumpgen msprobe` tree with numpy (docs/formats/msprobe.md, docs/dumpgen.md).
  check_msprobe.py raw OUT        decodes every tensor file with numpy (zip member / np.load, no
                                  pickle is run) and checks the manifest's float64 statistics and
                                  dump.json's Max/Min/Mean/Norm (json.load: bare NaN/Infinity) against it
  check_msprobe.py store OUT CSV  checks `msit-compact export OUT --format csv`: one row per tensor
                                  file of the manifest, every statistic equal to the manifest's
  check_msprobe.py sums OUT FILE  writes the SHA-256 of every dump.json/stack.json/construct.json
Exit 0 when everything agrees; prints each disagreement otherwise."""
import csv, hashlib, json, math, os, sys, zipfile
import numpy as np

STATS = ["min", "max", "mean", "std", "abs_max", "l2norm"]
COUNTS = ["count", "nan_count", "posinf_count", "neginf_count", "zero_count"]


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-12


def decode(path, dtype):
    if path.endswith(".npy"):
        return np.load(path, allow_pickle=False).astype(np.float64).ravel()
    with zipfile.ZipFile(path) as z:
        member = [n for n in z.namelist() if n.endswith("/data/0")][0]
        raw = z.read(member)
    if dtype == "bfloat16":
        return (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return np.frombuffer(raw, np.dtype(dtype)).astype(np.float64)


def numpy_stats(a):
    fin = a[np.isfinite(a)]
    s = {"count": a.size, "nan_count": int(np.isnan(a).sum()), "posinf_count": int(np.isposinf(a).sum()),
         "neginf_count": int(np.isneginf(a).sum()), "zero_count": int((a == 0).sum()),
         "l2norm": float(np.sqrt(np.sum(fin * fin)))}
    if fin.size:
        s.update(min=float(fin.min()), max=float(fin.max()), mean=float(fin.mean()), std=float(fin.std()),
                 abs_max=float(np.abs(fin).max()))
    else:
        s.update({k: None for k in ["min", "max", "mean", "std", "abs_max"]})
    return s


def records(node):
    if isinstance(node, list):
        for x in node:
            yield from records(x)
    elif isinstance(node, dict):
        if "data_name" in node and "dtype" in node:
            yield node
        else:
            for x in node.values():
                yield from records(x)


def msprobe_ok(rec, a):
    """dump.json's statistics (msProbe's rules: NaN propagates; 26.x integer tensors: no Mean/Norm)."""
    if rec.get("Mean") is None and "int" in rec["dtype"].lower():
        return rec["Max"] == a.max() and rec["Min"] == a.min()
    with np.errstate(invalid="ignore", over="ignore"):
        want = [a.max(), a.min(), a.mean(), np.sqrt(np.sum(a * a))]
    got = [rec["Max"], rec["Min"], rec["Mean"], rec["Norm"]]
    return all((math.isnan(w) and math.isnan(g)) or close(float(w), float(g)) for w, g in zip(want, got))


def check_raw(out, man, bad):
    by_path = {f["path"]: f for f in man["files"]}
    for f in man["files"]:
        s = numpy_stats(decode(os.path.join(out, f["path"]), f["dtype"]))
        for k in COUNTS:
            if s[k] != f[k]:
                bad.append("%s: %s numpy %s manifest %s" % (f["path"], k, s[k], f[k]))
        for k in STATS + ["l2norm"]:
            if not close(s.get(k), f.get(k)):
                bad.append("%s: %s numpy %r manifest %r" % (f["path"], k, s.get(k), f.get(k)))
    seen = 0
    for j in man["json_files"]:
        if not j.endswith("dump.json"):
            continue
        d = json.load(open(os.path.join(out, j)))
        rank = os.path.dirname(j)
        for rec in records(d["data"]):
            p = rank + "/dump_tensor_data/" + rec["data_name"]
            f = by_path.get(p)
            if f is None:
                bad.append("%s: data_name %s has no file in the manifest" % (j, rec["data_name"]))
                continue
            seen += 1
            if not msprobe_ok(rec, decode(os.path.join(out, p), f["dtype"])):
                bad.append("%s: dump.json statistics of %s disagree with numpy" % (j, rec["data_name"]))
    return len(man["files"]), seen


def check_store(out, man, csv_path, bad):
    rows = {}
    for r in csv.DictReader(open(csv_path)):
        full = os.path.join(os.path.dirname(r["store"]), r["path"])
        rows[os.path.relpath(full, out)] = r
    for f in man["files"]:
        r = rows.pop(f["path"], None)
        if r is None:
            bad.append("%s: no summary in any store" % f["path"])
            continue
        if r["dtype"] != f["dtype"] or json.loads(r["shape"]) != f["shape"]:
            bad.append("%s: dtype/shape %s %s, manifest %s %s" % (f["path"], r["dtype"], r["shape"], f["dtype"], f["shape"]))
        for k in COUNTS:
            if int(r[k]) != f[k]:
                bad.append("%s: %s store %s manifest %s" % (f["path"], k, r[k], f[k]))
        for k in STATS:
            got = float(r[k]) if r[k] != "" else None
            if not close(got, f.get(k)):
                bad.append("%s: %s store %r manifest %r" % (f["path"], k, got, f.get(k)))
    for p in rows:
        bad.append("%s: a summary the manifest does not know" % p)
    return len(man["files"])


def sums(out, man):
    return {j: hashlib.sha256(open(os.path.join(out, j), "rb").read()).hexdigest() for j in man["json_files"]}


def main():
    mode, out = sys.argv[1], sys.argv[2]
    man = json.load(open(os.path.join(out, "manifest.json")))
    bad = []
    if mode == "raw":
        n, seen = check_raw(out, man, bad)
        msg = "%d tensor files agree with numpy, %d dump.json records too" % (n, seen)
    elif mode == "store":
        n = check_store(out, man, sys.argv[3], bad)
        msg = "%d summaries agree with the manifest" % n
    elif mode == "sums":
        json.dump(sums(out, man), open(sys.argv[3], "w"), indent=1)
        msg = "%d json files hashed" % len(man["json_files"])
    else:
        sys.exit("usage: check_msprobe.py raw|store|sums OUT [CSV|FILE]")
    for b in bad[:50]:
        print("check_msprobe:", b)
    if bad:
        print("check_msprobe: %d disagreements" % len(bad))
        sys.exit(1)
    print("check_msprobe:", msg)


if __name__ == "__main__":
    main()
