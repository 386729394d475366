#!/usr/bin/env python3
"""First-divergence grid on msProbe dumps (docs/formats/msprobe-compare.md §8, §9): pairs from
tests/integration/compare_msprobe_gen.py (a chain of APIS MindSpore APIs, kernel noise on both
sides, one API's output perturbed by RED or none), compared as real data (both sides tensor
dumps), mixed (statistics golden, tensor target: msProbe refuses it) and statistics (both
statistics dumps); prints precision and recall of the named forward first divergence per cell.
The rule is main's (common/compare/divergence.h), not tuned here: every grid is held out.

  bench/divergence_grid_msprobe.py --bin build/cli/msit-compact [--grid heldout] [--jobs 2]

One unit of the counts is one run. Named API == injected API is a true positive; a name on a
noise-only run is a false positive; a wrong name is a false positive and a false negative.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "tests", "integration", "compare_msprobe_gen.py")
APIS = ["Mint.add", "Functional.linear", "Mint.mul", "Functional.gelu", "Mint.sub", "Functional.softmax"]
MODES = {"real data": ("tensor", "tensor"), "mixed": ("tensor", "statistics"), "statistics": ("statistics", "statistics")}
GRIDS = {
    "heldout": dict(seeds=range(10, 20), noise=[1e-4, 1e-3, 3e-3], red=[0.02, 0.05, 0.2], apis=24),
    "heldout2": dict(seeds=range(40, 50), noise=[3e-4, 2e-3], red=[0.03, 0.1, 0.5], apis=36),
}


def api_name(i):
    return "%s.%d.forward" % (APIS[i % len(APIS)], i // len(APIS))


def run(py, binary, mode, noise, red, seed, inject, apis):
    tmp = tempfile.mkdtemp(prefix="msgrid-")
    try:
        tt, gt = MODES[mode]
        subprocess.run([py, GEN, tmp, "--apis", str(apis), "--noise", str(noise), "--magnitude", str(red),
                        "--seed", str(seed), "--inject", str(inject), "--target-task", tt, "--golden-task", gt],
                       check=True)
        out = subprocess.run([binary, "compare", "-tp", os.path.join(tmp, "npu/step0/rank0"),
                              "-gp", os.path.join(tmp, "bench/step0/rank0"), "-o", os.path.join(tmp, "o")],
                             capture_output=True, text=True)
        if out.returncode not in (0, 1):
            sys.exit("compare failed: " + out.stderr)
        m = re.search(r"^first divergence: (\S+) ", out.stdout, re.M)
        return m.group(1) if m else None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--grid", default="heldout", choices=sorted(GRIDS))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--python", default=sys.executable)
    a = p.parse_args()
    g = GRIDS[a.grid]
    jobs = []
    for mode in MODES:
        for noise in g["noise"]:
            for seed in g["seeds"]:
                inject = 1 + (seed * 7) % (g["apis"] - 2)  # an API with inputs and an API after it
                jobs.append((mode, noise, None, seed, -1))
                for red in g["red"]:
                    jobs.append((mode, noise, red, seed, inject))
    with ThreadPoolExecutor(a.jobs) as ex:
        named = list(ex.map(lambda j: run(a.python, a.bin, j[0], j[1], j[2] or 0.0, j[3], j[4], g["apis"]), jobs))
    cells = collections.defaultdict(lambda: collections.Counter())
    for (mode, noise, red, seed, inject), name in zip(jobs, named):
        c = cells[(mode, noise, red)]
        c["runs"] += 1
        if inject < 0:
            c["fp"] += name is not None
        elif name == api_name(inject):
            c["tp"] += 1
        else:
            c["fn"] += 1
            c["fp"] += name is not None
    print("| mode | kernel noise | injected RED | runs | TP | FP | FN | precision | recall |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    totals = collections.defaultdict(collections.Counter)
    for (mode, noise, red), c in sorted(cells.items(), key=lambda kv: (list(MODES).index(kv[0][0]), kv[0][1],
                                                                       kv[0][2] or 0)):
        prec = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else float("nan")
        rec = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else float("nan")
        print("| %s | %g | %s | %d | %d | %d | %d | %s | %s |" % (
            mode, noise, "none" if red is None else "%g" % red, c["runs"], c["tp"], c["fp"], c["fn"],
            "-" if prec != prec else "%.2f" % prec, "-" if rec != rec else "%.2f" % rec))
        totals[mode].update(c)
    for mode, c in totals.items():
        print("%s: precision %.3f, recall %.3f over %d runs" % (
            mode, c["tp"] / max(1, c["tp"] + c["fp"]), c["tp"] / max(1, c["tp"] + c["fn"]), c["runs"]))


if __name__ == "__main__":
    main()
