#!/usr/bin/env python3
"""Bench of `msit-compact opcheck` on one large MatMul (docs/benchmarks.md "opcheck"): writes a
GE dump of A [M, K] x B [K, N] -> C (float16 by default; C from numpy's float32 matmul rounded,
i.e. a correct kernel) with tests/tools/opgen.py's encoder, then runs opcheck under each memory
budget with /usr/bin/time and prints wall time, CPU time, peak RSS and the verdict.
Usage: opcheck_matmul.py MSIT_COMPACT [--m 4096 --k 4096 --n 4096] [--dtype float16]
                         [--budgets 512,64] [--nz] [--keep DIR]"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tools"))
import opgen  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--m", type=int, default=4096)
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--dtype", default="float16")
    ap.add_argument("--budgets", default="512,64")
    ap.add_argument("--keep")
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="opcheck-bench-")
    os.makedirs(os.path.join(work, "0"), exist_ok=True)
    rng = np.random.default_rng(1)
    t0 = time.time()
    x = opgen.to_dtype(rng.standard_normal((a.m, a.k), dtype=np.float32), a.dtype)
    w = opgen.to_dtype(rng.standard_normal((a.k, a.n), dtype=np.float32), a.dtype)
    c = opgen.to_dtype(np.matmul(x.astype(np.float32), w.astype(np.float32)), a.dtype)
    op = opgen.Op("MatMulV2", {"transpose_x1": False, "transpose_x2": False}, [], [], None)
    path = os.path.join(work, "0", "MatMulV2.mm.1.1.1700000000000000")
    with open(path, "wb") as fh:
        fh.write(opgen.ge_dump("mm", [(x, a.dtype), (w, a.dtype)], [(c, a.dtype)]))
    with open(os.path.join(work, "dynamo_original_graph_1_0.txt"), "w") as fh:
        fh.write(opgen.graph_op("mm", op.typ, ["x", "w"], op.attrs))
    del x, w, c
    print("opcheck_matmul: [%d,%d] x [%d,%d] %s, file %.0f MB, written in %.1f s" % (
        a.m, a.k, a.k, a.n, a.dtype, os.path.getsize(path) / 1e6, time.time() - t0))
    for mb in a.budgets.split(","):
        p = subprocess.run(["/usr/bin/time", "-v", a.binary, "opcheck", "--json", "--memory-mb", mb, path],
                           capture_output=True, text=True)
        res = json.loads(p.stdout)["results"][0]["my"]
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
        user = float(re.search(r"User time \(seconds\): (\S+)", p.stderr).group(1))
        o = res["outputs"][0] if res["outputs"] else {}
        print("  --memory-mb %5s: %s wall, %.1f s user, peak RSS %d MiB, %s (max %s ulps, worst %sx bound)" % (
            mb, wall, user, rss // 1024, res["verdict"], o.get("max_ulps"), o.get("max_bound_ratio")))
    if not a.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
