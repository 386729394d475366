#!/usr/bin/env python3
"""First-divergence grids (docs/compare.md "First divergence", docs/divergence-grids.md): dumps
from a generator with kernel noise, one op perturbed or none, compared raw, mixed (golden
summarised) and summarised; prints precision and recall of the named first divergence per cell,
the suspects (names with a thin margin), and for clean grids the false alarms per run. A
benchmark, not a test. Flows and grids: bench/divergence_flows.py, bench/divergence_grid_defs.py.

  bench/divergence_grid.py --gen build/tests/tools/msit-dumpgen --bin build/cli/msit-compact \\
      --grid tuning [--jobs 2] [--levels FILE.jsonl] [--modes raw,mixed,summarised] [--results RUNS.jsonl]

--results FILE appends one JSON line per scenario as it finishes (and a progress line on stderr);
rerun with the same FILE to resume a stopped grid, or to print the report of a finished one.

The flow follows from the grid: msit-dumpgen llama chains GE vs FX (tuning, heldout, heldout3-6),
msit-dumpgen ATB vs torch with `--cl api --op-mapping-file` (atb-*), npgen, the second generator
(np-*: injected; clean-*: noise only, npgen and msit-dumpgen runs; needs a python3 with numpy).
--only KEY=VALUE,... runs a subset (e.g. --only type=SoftmaxV2,local=0,seed=1).

One unit is one (run, mode, rank, token): the rule names at most one op per token. Named op ==
injected op is a true positive; a name on a noise-only run is a false positive; a wrong name is a
false positive and a false negative. A suspect is counted apart (it does not fail a compare).
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import divergence_flows as F  # noqa: E402


class Ctx:
    def __init__(self, args, grid, tmp):
        self.bin, self.gen, self.grid, self.tmp, self.levels = args.bin, args.gen, grid, tmp, bool(args.levels)
        self.modes = args.modes.split(",")
        self.python = numpy_python()
        self.cache = {}


def numpy_python():
    for p in ("python3", "/usr/bin/python3"):
        try:
            if subprocess.run([p, "-c", "import numpy"], capture_output=True).returncode == 0:
                return p
        except OSError:
            pass
    return "python3"


def flow_of(grid):
    return next(name for name, fl in F.FLOWS.items() if grid in fl.grids)


def selected(sc, only):
    """--only KEY=VALUE,...: the scenario's fields (seed, noise, type (none: noise only), nth, op,
    red, local (0/1), dtype, golden, topo, gen) all equal to the values given."""
    for kv in only.split(",") if only else []:
        k, v = kv.split("=", 1)
        have = sc.get(k)
        if k in ("type", "op"):
            ok = (have or "none") == v
        elif k == "local":
            ok = have == (v in ("1", "true", "local"))
        elif isinstance(have, (int, float)) and not isinstance(have, bool):
            ok = float(have) == float(v)
        else:
            ok = str(have) == v
        if not ok:
            return False
    return True


def injection(x):
    return "none" if x["type"] is None else "%g %s" % (x["red"], "local" if x["local"] else "prop")


def cell_of(x):
    """The report's cell of a unit: dtype (npgen), noise, injection; clean runs by configuration."""
    if x.get("topo"):
        return (x["gen"], x["dtype"], x["golden"], x["topo"])
    return tuple(v for v in (x.get("dtype"), x["noise"], injection(x)) if v is not None)


def score(x):
    tp = x["want"] is not None and x["named"] == x["want"]
    fp = x["named"] is not None and x["named"] != x["want"]
    fn = x["want"] is not None and x["named"] != x["want"]
    stp = x["named"] is None and x["want"] is not None and x["suspect"] == x["want"]
    sfp = x["named"] is None and x["suspect"] is not None and x["suspect"] != x["want"]
    return [int(tp), int(fp), int(fn), int(stp), int(sfp), 1]


def report(res, grid, modes):
    cells = collections.OrderedDict()
    for x in res:
        c = cells.setdefault(cell_of(x), {m: [0] * 6 for m in modes})
        c[x["mode"]] = [a + b for a, b in zip(c[x["mode"]], score(x))]
    print("grid %s: %d units (run x mode x rank x token)" % (grid, len(res)))
    print("| cell | " + " | ".join(modes) + " |")
    print("| --- | " + " | ".join("---" for _ in modes) + " |")
    tot = {m: [0] * 6 for m in modes}
    for key, c in cells.items():
        cols = []
        for m in modes:
            tp, fp, fn, stp, sfp, n = c[m]
            tot[m] = [a + b for a, b in zip(tot[m], c[m])]
            clean = key[-1] == "none" or len(key) == 4
            col = "%d FP/%d" % (fp, n) if clean else "%d/%d" % (tp, n)
            if fp and not clean:
                col += " (%d FP)" % fp
            if stp or sfp:
                col += " [%d susp%s]" % (stp + sfp, " FP" if sfp and clean else "")
            cols.append(col)
        print("| %s | %s |" % (" ".join(str(k) for k in key), " | ".join(cols)))
    for m in modes:
        tp, fp, fn, stp, sfp, n = tot[m]
        print("%s: precision %.4f recall %.4f (TP %d FP %d FN %d over %d units); suspects: %d right op, %d other" % (
            m, tp / max(1, tp + fp), tp / max(1, tp + fn), tp, fp, fn, n, stp, sfp))
    tp, fp, fn, stp, sfp = (sum(tot[m][i] for m in modes) for i in range(5))
    print("all: precision %.4f recall %.4f (TP %d FP %d FN %d); named as divergence or suspect: recall %.4f; "
          "suspects %d right op, %d other" % (tp / max(1, tp + fp), tp / max(1, tp + fn), tp, fp, fn,
                                              (tp + stp) / max(1, tp + fn), stp, sfp))
    clean_runs(res)
    misses(res)


def clean_runs(res):
    """Clean grids: a run (one scenario) is a false alarm when any of its units names an op."""
    runs = collections.OrderedDict()
    for x in res:
        if x["want"] is None and x["type"] is None:
            key = json.dumps({k: x[k] for k in x if k not in UNIT_FIELDS}, sort_keys=True)
            r = runs.setdefault(key, dict(fa=set(), sus=set(), worst=(0.0, None)))
            if x["named"]:
                r["fa"].add(x["mode"])
            if x["suspect"]:
                r["sus"].add(x["mode"])
            if x.get("worst_margin", 0.0) > r["worst"][0]:
                r["worst"] = (x["worst_margin"], "%s %s token %s rank %s" % (x["worst"], x["mode"], x["token"],
                                                                             x["rank"]))
    if runs:
        fa = sum(bool(r["fa"]) for r in runs.values())
        sus = sum(bool(r["sus"]) and not r["fa"] for r in runs.values())
        print("noise-only runs: %d; a divergence named in %d (any mode), a suspect only in %d" % (len(runs), fa, sus))
        worst = sorted(((r["worst"], k) for k, r in runs.items()), reverse=True)
        margins = sorted(w[0][0] for w in worst)
        if margins:
            print("noise-only runs' largest margin: median %.3f, 90th percentile %.3f, max %.3f" % (
                margins[len(margins) // 2], margins[int(0.9 * (len(margins) - 1))], margins[-1]))
        for (m, where), k in worst[:8]:
            print("  margin %.3f at %s: %s" % (m, where, k))


UNIT_FIELDS = ("mode", "rank", "token", "named", "margin", "suspect", "floor", "levels", "want", "worst", "worst_margin")


def misses(res):
    bad = [x for x in res if x["named"] != x["want"]]
    groups = collections.Counter()
    for x in bad:
        what = "noise only" if x["type"] is None else "%s %s" % (x.get("op") or "%s#%d" % (x["type"], x["nth"]),
                                                                 "local" if x["local"] else "prop")
        groups[(what, x["mode"], "FP" if x["named"] else "FN")] += 1
    for (what, mode, kind), n in sorted(groups.items()):
        print("misses: %s %s %s: %d" % (what, mode, kind, n))
    for x in bad[:40]:
        print("miss: %s %s token %s rank %s: want %s named %s (margin %s) suspect %s" % (
            json.dumps({k: x[k] for k in ("seed", "noise", "type", "red", "local", "dtype", "golden") if k in x}),
            x["mode"], x["token"], x["rank"], x["want"], x["named"], x["margin"], x["suspect"]))
    if len(bad) > 40:
        print("... and %d more misses" % (len(bad) - 40))


def run_key(grid, sc):
    return json.dumps(dict(sc, grid=grid), sort_keys=True)


def load_results(path, grid):
    """--results FILE: the scenarios of this grid already run (one JSON line each), by key."""
    done = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:  # a line cut off by a stopped run: that scenario runs again
                    continue
                if r.get("grid") == grid:
                    done[run_key(grid, r["scenario"])] = r["units"]
    return done


def run_all(ctx, flow, args, todo, done):
    """Runs the scenarios `jobs` at a time; each one's units are appended to --results (flushed)
    as soon as it finishes, with one progress line on stderr, so a stopped grid resumes."""
    out = open(args.results, "a") if args.results else None
    try:
        with ThreadPoolExecutor(args.jobs) as ex:
            futs = {ex.submit(flow.run, ctx, sc, i): sc for i, sc in todo}
            for n, f in enumerate(as_completed(futs), 1):
                sc, units = futs[f], f.result()
                done[run_key(args.grid, sc)] = units
                if out:
                    out.write(json.dumps(dict(grid=args.grid, scenario=sc, units=units)) + "\n")
                    out.flush()
                named = sorted({"%s:%s" % (u["mode"], u["named"]) for u in units if u["named"]})
                susp = sorted({"%s:%s" % (u["mode"], u["suspect"]) for u in units if u["suspect"] and not u["named"]})
                print("[%d/%d] %s named %s suspect %s" % (n, len(todo), json.dumps(sc, sort_keys=True),
                                                         ",".join(named) or "-", ",".join(susp) or "-"),
                      file=sys.stderr, flush=True)
    finally:
        if out:
            out.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", required=True, help="msit-dumpgen")
    ap.add_argument("--bin", required=True, help="msit-compact")
    ap.add_argument("--grid", default="smoke", choices=sorted(g for fl in F.FLOWS.values() for g in fl.grids))
    ap.add_argument("--flow", choices=sorted(F.FLOWS), help="checked against the grid's flow")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--modes", default=",".join(F.MODES))
    ap.add_argument("--levels", help="write every unit with its rows' levels and margins here, JSON lines")
    ap.add_argument("--results", help="append each scenario's units here as it finishes (JSON lines); "
                    "scenarios of the grid already in the file are not run again (resume)")
    ap.add_argument("--only", help="run only the scenarios whose fields match: KEY=VALUE,...")
    args = ap.parse_args()
    flow = flow_of(args.grid)
    if args.flow and args.flow != flow:
        ap.error("grid %s belongs to flow %s" % (args.grid, flow))
    tmp = tempfile.mkdtemp(prefix="divgrid-")
    ctx = Ctx(args, args.grid, tmp)
    scs = [sc for sc in F.FLOWS[flow].scenarios(args.grid, ctx) if selected(sc, args.only)]
    done = load_results(args.results, args.grid) if args.results else {}
    todo = [(i, sc) for i, sc in enumerate(scs) if run_key(args.grid, sc) not in done]
    print("grid %s: %d scenarios, %d already in %s, %d to run" % (args.grid, len(scs), len(scs) - len(todo),
                                                                 args.results, len(todo)), file=sys.stderr)
    try:
        run_all(ctx, F.FLOWS[flow], args, todo, done)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res = [x for sc in scs for x in done.get(run_key(args.grid, sc), [])]
    if args.levels:
        with open(args.levels, "w") as f:
            for x in res:
                f.write(json.dumps(x) + "\n")
    report(res, args.grid, ctx.modes)


if __name__ == "__main__":
    sys.exit(main())
