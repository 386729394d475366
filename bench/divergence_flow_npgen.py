"""The npgen flow of bench/divergence_grid.py: injected grids of the second generator
(tests/tools/npgen, docs/dumpgen.md "npgen") and the clean-run grids, whose runs come from npgen
and from msit-dumpgen (docs/divergence-grids.md "Clean runs").
"""
import json
import os
import random
import shutil
import sys

import divergence_flows as F
from divergence_grid_defs import CLEAN_GRIDS, CLEAN_TOPOLOGIES, DUMPGEN_CLEAN, NPGEN_GRIDS

NPGEN = os.path.join(os.path.dirname(F.HERE), "tests", "tools", "npgen", "npgen.py")
# Op types with a float output 0 (what an injection can go into); discrete ones are judged by equality.
DISCRETE_TYPES = {"Greater", "ArgMaxV2"}


def op_list(ctx, dtype, model):
    key = (dtype, tuple(model))
    if key not in ctx.cache:
        r = F.run_cmd([ctx.python, NPGEN, "--out", "-", "--list-ops", "--dtype", dtype] + list(model))
        ctx.cache[key] = json.loads(r.stdout)
    return ctx.cache[key]


def injected_scenarios(grid, ctx):
    g = NPGEN_GRIDS[grid]
    out = []
    for si, seed in enumerate(g["seeds"]):
        golden = g["golden"][si % len(g["golden"])]
        acc = g.get("acc_odd_seeds") if si % 2 else None
        for di, dtype in enumerate(g["dtypes"]):
            ops = [o for o in op_list(ctx, dtype, g["model"]) if o["type"] not in DISCRETE_TYPES]
            all_types = g.get("types") or sorted({o["type"] for o in ops})
            for ni, noise in enumerate(g["noise"]):
                base = dict(gen="npgen", seed=seed, dtype=dtype, noise=noise, golden=golden, acc=acc, type=None,
                            op=None, red=0.0, local=False)
                out.append(base)
                for ri, red in enumerate(g["red"]):
                    types = all_types
                    if g.get("types_per_run"):  # a sample of the types, fixed by the grid's coordinates
                        pick = random.Random("%d/%d/%d/%d" % (seed, di, ni, ri))
                        types = sorted(pick.sample(all_types, min(g["types_per_run"], len(all_types))))
                    for ti, t in enumerate(types):
                        inst = [o["name"] for o in ops if o["type"] == t]
                        op = inst[(seed + ri) % len(inst)]
                        out.append(dict(base, type=t, op=op, red=red, local=(ti + ri) % 2 == 1))
    return out


def clean_scenarios(grid):
    g = CLEAN_GRIDS[grid]
    out = []
    for seed in g["seeds"]:
        for dtype in g["dtypes"]:
            for noise in g["noise"]:
                for golden in g["golden"]:
                    for topo in g["topologies"]:
                        out.append(dict(gen="npgen", seed=seed, dtype=dtype, noise=noise, golden=golden, topo=topo,
                                        acc=None, type=None, op=None, red=0.0, local=False))
    for seed in g["dumpgen_seeds"]:
        for ge_dtype, reduced in DUMPGEN_CLEAN:
            for noise in g["noise"]:
                out.append(dict(gen="dumpgen", seed=seed, dtype=ge_dtype, reduced=reduced, noise=noise, golden="fp32",
                                topo="single", type=None, op=None, red=0.0, local=False))
    return out


def scenarios(grid, ctx):
    return clean_scenarios(grid) if grid in CLEAN_GRIDS else injected_scenarios(grid, ctx)


def in_process_npgen():
    """npgen's module when this python has numpy: a run then costs no interpreter start and numpy
    import (~0.8 s of the ~1 s a small tree takes); npgen keeps no state between calls."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return None
    sys.path.insert(0, os.path.dirname(NPGEN))
    import npgen
    return npgen


NPGEN_MODULE = in_process_npgen()


def gen_npgen(ctx, argv):
    if NPGEN_MODULE is None:
        r = F.run_cmd([ctx.python, NPGEN] + argv)
        if r.returncode:
            raise RuntimeError("npgen " + " ".join(argv) + ": " + r.stdout)
        return
    try:
        rc = NPGEN_MODULE.main(argv)
    except SystemExit as e:
        rc = e.code
    if rc:
        raise RuntimeError("npgen " + " ".join(argv) + ": exit %s" % rc)


def want_for(sc, scenario, rank, inject_rank):
    """The op a rank's report should name first: the injected op on the injected rank; on another
    rank the first all-reduce after it, where its error enters that rank (none when local)."""
    if sc["op"] is None:
        return None
    if inject_rank is None or int(rank) == inject_rank:
        return sc["op"]
    if sc["local"]:
        return None
    names = [o["name"] for o in scenario["ops"]]
    after = names[names.index(sc["op"]) + 1:]
    return next((n for n in after if n.startswith("HcomAllReduce_")), None)


def run_npgen(ctx, sc, idx, d):
    g = NPGEN_GRIDS.get(ctx.grid, {})
    opts = ["--dtype", sc["dtype"], "--noise", str(sc["noise"]), "--golden", sc["golden"], "--seed", str(sc["seed"])]
    opts += g.get("model", []) + CLEAN_TOPOLOGIES.get(sc.get("topo"), [])
    if sc.get("acc"):
        opts += ["--acc", sc["acc"]]
    if sc["op"]:
        opts += ["--inject", sc["op"], "--inject-red", str(sc["red"])] + (["--inject-local"] if sc["local"] else [])
        if g.get("inject_rank") is not None:
            opts += ["--inject-rank", str(g["inject_rank"])]
    gen_npgen(ctx, ["--out", d] + opts)
    scenario = json.load(open(d + "/scenario.json"))
    return scenario["my"], scenario["golden"], lambda rank: want_for(sc, scenario, rank, g.get("inject_rank"))


def run_dumpgen(ctx, sc, d):
    cmd = [ctx.gen, "model", "--chain", "llama", "--out", d, "--tokens", "2", "--seed", str(sc["seed"]), "--noise",
           str(sc["noise"]), "--ops", "31", "--rows", "8", "--hidden", "64", "--ge-dtype", sc["dtype"], "--reduced",
           sc["reduced"]]
    F.check_cmd(cmd)
    return d + "/msit_ge_dump", d + "/msit_fx_dump", lambda rank: None


def run(ctx, sc, idx):
    d = os.path.join(ctx.tmp, "s%d" % idx)
    my, golden, want = run_npgen(ctx, sc, idx, d) if sc["gen"] == "npgen" else run_dumpgen(ctx, sc, d)
    res = []
    for mode, rows in F.compare_modes(ctx, d, my, golden, idx):
        for u in F.units_of(rows, F.ge_op, sc, mode, None, ctx.levels):
            u["want"] = want(u["rank"]) if u["rank"] != "-" else want(0)
            res.append(u)
    shutil.rmtree(d, ignore_errors=True)
    return res


GRIDS = dict(NPGEN_GRIDS, **CLEAN_GRIDS)
F.FLOWS["npgen"] = F.Flow(GRIDS, scenarios, run,
                          "npgen (tests/tools/npgen) injected and clean grids; clean grids add msit-dumpgen")
