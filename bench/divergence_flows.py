"""The flows of bench/divergence_grid.py (docs/divergence-grids.md): one entry per generator and
compare flow, each with its grids, how a grid expands into scenarios, and how one scenario is
generated, compared (raw, mixed, summarised) and read back into units (one per rank and token).
A new flow (msProbe) is one more `Flow(...)` in FLOWS: a dict of grids, scenarios(grid) and
run(ctx, sc, idx) returning units; the runner and the report are shared.
"""
import csv
import json
import os
import shutil
import subprocess
import sys

MODES = ["raw", "mixed", "summarised"]
HERE = os.path.dirname(os.path.abspath(__file__))


class Flow:
    def __init__(self, grids, scenarios, run, doc):
        self.grids, self.scenarios, self.run, self.doc = grids, scenarios, run, doc


def run_cmd(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def check_cmd(cmd):
    """Runs cmd; its output in the error if it fails."""
    r = run_cmd(cmd)
    if r.returncode:
        raise RuntimeError(" ".join(cmd) + ": " + r.stdout)
    return r


def dumpgen_scenario(ctx, what, d, sc, model):
    """msit-dumpgen WHAT (e.g. model --chain llama) writes 2 tokens of scenario sc into d: its seed and
    noise, and its injected divergence if it has one."""
    cmd = [ctx.gen] + what + ["--out", d, "--tokens", "2", "--seed", str(sc["seed"]), "--noise",
                              str(sc["noise"])] + model
    if sc["type"]:
        cmd += ["--diverge-type", sc["type"], "--diverge-nth", str(sc["nth"]), "--diverge-scale", str(sc["red"])]
        if sc["local"]:
            cmd.append("--diverge-local")
    check_cmd(cmd)


def report_rows(out):
    """Every row of every report CSV compare wrote into `out` (one per rank), with its rank."""
    rows = []
    for f in sorted(os.listdir(out)):
        if f.endswith(".csv") and "cmp_report" in f:
            rank = f.split("_rank")[1].split("_")[0] if "_rank" in f else "-"
            with open(os.path.join(out, f)) as fh:
                rows += [dict(r, rank=rank) for r in csv.DictReader(fh)]
    if not rows:
        raise RuntimeError("no report in " + out)
    return rows


def units_of(rows, op_of, sc, mode, want, keep_levels):
    """One unit per (rank, token): the op named first (a divergence) and the first suspect."""
    units = {}
    for r in rows:
        u = units.setdefault((r["rank"], r["token_id"]), dict(named=None, margin=None, suspect=None, floor=0.0,
                                                              worst=None, worst_margin=0.0))
        if r.get("detection_floor"):
            u["floor"] = max(u["floor"], float(r["detection_floor"]))
        if r.get("margin") and float(r["margin"]) > u["worst_margin"]:  # the output nearest its threshold
            u["worst"], u["worst_margin"] = op_of(r), float(r["margin"])
        if r["divergence"] == "first" and u["named"] is None:
            u["named"], u["margin"] = op_of(r), r.get("margin")
        elif r["divergence"] == "suspect" and u["suspect"] is None:
            u["suspect"] = op_of(r)
    levels = None
    if keep_levels:
        levels = [[r["rank"], r["token_id"], op_of(r), r["my_data_path"].split(",")[1] if "," in r["my_data_path"] else "?",
                   r["compare_mode"], r["my_dtype"], r["golden_dtype"], r["cosine_similarity"],
                   r["relative_euclidean_distance"], r["divergence"], r.get("margin", ""), r.get("detection_floor", "")]
                  for r in rows]
    return [dict(sc, mode=mode, rank=k[0], token=k[1], want=want, levels=levels, **u) for k, u in sorted(units.items())]


def compare_modes(ctx, d, my, golden, idx, extra=(), roots=None):
    """Compares the tree raw, mixed (golden summarised) and summarised (both); yields (mode, rows).
    roots: the (my, golden) dump roots to compact when they are not the compared paths."""
    my_root, golden_root = roots or (my, golden)
    for mode in ctx.modes:
        root, m, g = d, my, golden
        if mode == "mixed":
            root = d + "-mix"
            shutil.copytree(d, root, symlinks=True)
            m, g = my.replace(d, root, 1), golden.replace(d, root, 1)
            run_cmd([ctx.bin, "compact", "-q", golden_root.replace(d, root, 1)])
        elif mode == "summarised":
            run_cmd([ctx.bin, "compact", "-q", golden_root, my_root])
        out = os.path.join(ctx.tmp, "o%d-%s" % (idx, mode))
        os.makedirs(out, exist_ok=True)
        run_cmd([ctx.bin, "compare", "-m", m, "-g", g, "-o", out, "-j", "1", "-q"] + list(extra))
        yield mode, report_rows(out)
        shutil.rmtree(out, ignore_errors=True)
        if root != d:
            shutil.rmtree(root, ignore_errors=True)


def ge_op(r):
    return os.path.basename(r["my_data_path"].split(",")[0]).split(".")[1]


# --- flow "ge": msit-dumpgen model --chain llama (GE vs FX) ------------------------------------
TYPES = ["GatherV2", "RmsNorm", "MatMul", "Reshape", "Transpose", "BatchMatMul", "SoftmaxV2", "Add", "Mul"]
BLOCK = ["RmsNorm", "MatMul", "Reshape", "Transpose", "BatchMatMul", "SoftmaxV2", "BatchMatMul", "Transpose",
         "Reshape", "MatMul", "Add", "RmsNorm", "MatMul", "Mul", "MatMul"]
sys.path.insert(0, HERE)
from divergence_grid_defs import ATB_GRIDS, GE_GRIDS  # noqa: E402  (every grid, committed before it is run)


def ge_scenarios(grid, ctx=None):
    g = GE_GRIDS[grid]
    ops = int(g["model"][g["model"].index("--ops") + 1])
    chain = ["GatherV2"] + [BLOCK[(i - 1) % len(BLOCK)] for i in range(1, ops)]
    out = []
    for seed in g["seeds"]:
        for noise in g["noise"]:
            out.append(dict(seed=seed, noise=noise, type=None, nth=0, red=0.0, local=False))
            for ri, red in enumerate(g["red"]):
                for t in TYPES:
                    count = chain.count(t)
                    if count == 0:
                        continue
                    nth = (seed + ri) % count  # which instance: varies over the grid
                    for local in (False, True):
                        out.append(dict(seed=seed, noise=noise, type=t, nth=nth, red=red, local=local))
    for seed in g.get("noise_seeds", []):
        for noise in g["noise"]:
            out.append(dict(seed=seed, noise=noise, type=None, nth=0, red=0.0, local=False))
    return out


def ge_run(ctx, sc, idx):
    d = os.path.join(ctx.tmp, "s%d" % idx)
    dumpgen_scenario(ctx, ["model", "--chain", "llama"], d, sc, GE_GRIDS[ctx.grid]["model"])
    want = json.load(open(d + "/scenario.json"))["first_divergence"]
    want = want["ge_name"] if want else None
    res = []
    for mode, rows in compare_modes(ctx, d, d + "/msit_ge_dump", d + "/msit_fx_dump", idx):
        res += units_of(rows, ge_op, sc, mode, want, ctx.levels)
    shutil.rmtree(d, ignore_errors=True)
    return res


# --- flow "atb": msit-dumpgen atb --model llama (ATB vs torch, --cl api) ------------------------
# ElewiseOperation has no torch module: propagated, its error enters the next compared op through
# that op's inputs (no jump there), so the op to name is the smallest compared one around it, its
# DecoderLayer; local, no compared tensor carries it (counted as noise-only).
ATB_TYPES = ["RmsNormOperation", "LinearOperation", "SelfAttentionOperation", "ActivationOperation",
             "ElewiseOperation"]
ATB_LAYER = ["RmsNormOperation", "LinearOperation", "LinearOperation", "LinearOperation", "SelfAttentionOperation",
             "LinearOperation", "ElewiseOperation", "RmsNormOperation", "LinearOperation", "LinearOperation",
             "ActivationOperation", "ElewiseOperation", "LinearOperation", "ElewiseOperation"]


def atb_scenarios(grid, ctx=None):
    g = ATB_GRIDS[grid]
    layers = int(g["model"][g["model"].index("--layers") + 1])
    out = []
    for seed in g["seeds"]:
        for noise in g["noise"]:
            out.append(dict(seed=seed, noise=noise, type=None, nth=0, red=0.0, local=False))
            for ri, red in enumerate(g["red"]):
                for t in ATB_TYPES:
                    count = ATB_LAYER.count(t) * layers
                    nth = (seed * 7 + ri * 5 + ATB_TYPES.index(t) * 3) % count
                    for local in (False, True):
                        out.append(dict(seed=seed, noise=noise, type=t, nth=nth, red=red, local=local))
    return out


def atb_want(sc, layers):
    """The ATB node the rule should name first, or None."""
    if sc["type"] is None:
        return None
    seen = 0
    for layer in range(layers):
        for leaf, t in enumerate(ATB_LAYER):
            if t != sc["type"]:
                continue
            if seen == sc["nth"]:
                if t != "ElewiseOperation":
                    return "%d_DecoderLayer/%d_%s" % (layer, leaf, t)
                return None if sc["local"] else "%d_DecoderLayer" % layer
            seen += 1
    raise ValueError("no such op")


def atb_node(r):
    """The ATB node of a report cell: the path between the token directory and after/."""
    parts = r["my_data_path"].split("/")
    i = parts.index("0_200")
    return "/".join(parts[i + 2:parts.index("after")])


def atb_run(ctx, sc, idx):
    d = os.path.join(ctx.tmp, "s%d" % idx)
    g = ATB_GRIDS[ctx.grid]
    layers = int(g["model"][g["model"].index("--layers") + 1])
    dumpgen_scenario(ctx, ["atb", "--model", "llama"], d, sc, g["model"])
    torch = d + "/torch/msit_dump_20260101_000000"
    atb = d + "/atb/msit_dump_20260101_000000"
    res = []
    # compare_modes compacts the golden (torch) side for "mixed", both roots for "summarised".
    for mode, rows in compare_modes(ctx, d, atb + "/tensors/0_200", torch + "/torch_tensors/cpu_100", idx,
                                    ["--cl", "api", "--op-mapping-file", d + "/op_mapping"], roots=(atb, torch)):
        res += units_of(rows, atb_node, sc, mode, atb_want(sc, layers), ctx.levels)
    shutil.rmtree(d, ignore_errors=True)
    return res


FLOWS = {
    "ge": Flow(GE_GRIDS, ge_scenarios, ge_run, "msit-dumpgen model --chain llama, GE vs FX"),
    "atb": Flow(ATB_GRIDS, atb_scenarios, atb_run, "msit-dumpgen atb --model llama, ATB vs torch (--cl api)"),
}
import divergence_flow_npgen  # noqa: E402,F401  (registers the npgen flow: injected and clean-run grids)
