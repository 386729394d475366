#!/usr/bin/env python3
"""First-divergence grid (docs/compare.md "First divergence"): msit-dumpgen llama-chain models
with kernel noise, one op perturbed (every op type, RED 0.02-0.5, local and propagated) or
none, compared raw, summarised and mixed; prints precision and recall of the named first
divergence per cell. A benchmark, not a test: the tuning grid runs ~10 minutes on 2 cores.

  bench/divergence_grid.py --gen build/tests/tools/msit-dumpgen --bin build/cli/msit-compact \
      --grid tuning [--jobs 2] [--levels FILE.jsonl]

--flow atb runs the ATB/torch grid instead (msit-dumpgen atb --model llama: HF Llama layers,
kernel noise on the ATB side, torch golden), grids atb-tuning and atb-heldout, compared with
`--cl api --op-mapping-file` (the generator's mapping for the types msit's tables do not pair):

  bench/divergence_grid.py --flow atb --grid atb-tuning --gen ... --bin ...

--grid heldout is the held-out grid (other seeds, model size, dtype mix and noise level): it
was run once, after the rule was fixed; --grid heldout3 a third one, heldout4-heldout6 the fourth to sixth, atb-heldout2 and atb-heldout3
more ATB ones (each run once, docs/divergence-grids.md).
--only KEY=VALUE,... runs a subset (e.g. --only type=SoftmaxV2,local=0,seed=1). One unit of the counts is one (run, token): the rule
names at most one op per token (bench/divergence_replay.py replays the rule over --levels files). Named op == injected op is a true positive; a name on a
noise-only run is a false positive; a wrong name is a false positive and a false negative.
"""
import argparse
import collections
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

TYPES = ["GatherV2", "RmsNorm", "MatMul", "Reshape", "Transpose", "BatchMatMul", "SoftmaxV2", "Add", "Mul"]
BLOCK = ["RmsNorm", "MatMul", "Reshape", "Transpose", "BatchMatMul", "SoftmaxV2", "BatchMatMul", "Transpose",
         "Reshape", "MatMul", "Add", "RmsNorm", "MatMul", "Mul", "MatMul"]

GRIDS = {
    # Looked at while designing the rule.
    "tuning": dict(seeds=[1, 2], noise=[1e-4, 3e-4, 1e-3, 3e-3], red=[0.02, 0.05, 0.2, 0.5],
                   model=["--ops", "46", "--rows", "8", "--hidden", "64", "--ge-dtype", "float32",
                          "--reduced", "MatMul=bfloat16"]),
    # Held out: other seeds (101-102 were the first held-out set, run once with the previous
    # rule; docs/compare.md),  2 blocks, wider hidden, more rows, fp16 matmul outputs (mixed
    # dtypes), a reduced-precision (fp16) BatchMatMul too, and noise levels not in the tuning grid.
    "heldout": dict(seeds=[201, 202], noise=[2e-4, 2e-3], red=[0.02, 0.05, 0.2, 0.5],
                    model=["--ops", "31", "--rows", "16", "--hidden", "128", "--ge-dtype", "mixed",
                           "--reduced", "MatMul=bfloat16,BatchMatMul=float16"]),
    # Third held-out set (issue 29, t29-floor): fixed before the rule change it checks and run
    # once after it: other seeds, 38 ops (2 blocks and the start of a third), fp16 everywhere
    # (graph inputs and weights too), a bf16 BatchMatMul kernel, noise and RED levels in neither
    # grid above, and more noise-only seeds (noise_seeds: noise-only runs only).
    "heldout3": dict(seeds=[701, 702], noise=[5e-4, 1.5e-3], red=[0.03, 0.1, 0.3], noise_seeds=[703, 704, 705, 706],
                     model=["--ops", "38", "--rows", "12", "--hidden", "96", "--ge-dtype", "float16",
                            "--reduced", "BatchMatMul=bfloat16"]),
    # Fourth held-out set (issue 29, stop 37): fixed before any rule change of that round and
    # run once after it: other seeds, 44 ops, mixed dtypes, fp16 MatMul and bf16 BatchMatMul
    # kernels together, noise and RED levels in no grid above, six noise-only seeds.
    "heldout4": dict(seeds=[901, 902], noise=[7e-4, 2.5e-3], red=[0.025, 0.08, 0.4],
                     noise_seeds=[903, 904, 905, 906, 907, 908],
                     model=["--ops", "44", "--rows", "10", "--hidden", "80", "--ge-dtype", "mixed",
                            "--reduced", "MatMul=float16,BatchMatMul=bfloat16"]),
    # Fifth held-out set (issue 29, stop 38): fixed and committed before it was run, with no rule
    # change after it; run once. Other seeds, 40 ops, float32 outputs with bf16 MatMul and fp16
    # BatchMatMul kernels, the ends of the range (noise 3e-3, RED 0.02) as well as a low
    # and a middle level, eight noise-only seeds.
    "heldout5": dict(seeds=[1101, 1102], noise=[1.2e-4, 1.2e-3, 3e-3], red=[0.02, 0.06, 0.25],
                     noise_seeds=[1103, 1104, 1105, 1106, 1107, 1108, 1109, 1110],
                     model=["--ops", "40", "--rows", "14", "--hidden", "112", "--ge-dtype", "float32",
                            "--reduced", "MatMul=bfloat16,BatchMatMul=float16"]),
    # Sixth held-out set (stop 38): fixed and committed before heldout5 was looked at, for a
    # rule change after it; none was made (docs/compare.md), so it was run once with the rule
    # as it was. Other seeds, 43 ops, mixed dtypes with a bf16 MatMul kernel, the ends of the
    # issue's range.
    "heldout6": dict(seeds=[1201, 1202], noise=[3e-4, 2e-3, 3e-3], red=[0.02, 0.04, 0.15],
                     noise_seeds=[1203, 1204, 1205, 1206, 1207, 1208, 1209, 1210],
                     model=["--ops", "43", "--rows", "12", "--hidden", "72", "--ge-dtype", "mixed",
                            "--reduced", "MatMul=bfloat16"]),
    # A few seconds: for trying the script.
    "smoke": dict(seeds=[1], noise=[1e-3], red=[0.05], model=["--ops", "16", "--rows", "8", "--hidden", "32",
                                                             "--ge-dtype", "float32"]),
}
MODES = ["raw", "mixed", "summarised"]

# The ATB/torch grid (--flow atb). Injections go into every ATB op type of the Llama layer;
# ElewiseOperation has no torch module: propagated, its error enters the next compared op
# through that op's inputs (no jump there), so the op to name is the smallest compared one
# around it, its DecoderLayer; local, no compared tensor carries it (counted as noise-only).
ATB_TYPES = ["RmsNormOperation", "LinearOperation", "SelfAttentionOperation", "ActivationOperation",
             "ElewiseOperation"]
ATB_LAYER = ["RmsNormOperation", "LinearOperation", "LinearOperation", "LinearOperation", "SelfAttentionOperation",
             "LinearOperation", "ElewiseOperation", "RmsNormOperation", "LinearOperation", "LinearOperation",
             "ActivationOperation", "ElewiseOperation", "LinearOperation", "ElewiseOperation"]
ATB_GRIDS = {
    # Looked at while building the generator's ATB flow and the inputs the rule reads.
    "atb-tuning": dict(seeds=[1], noise=[1e-4, 1e-3, 3e-3], red=[0.02, 0.05, 0.2, 0.5],
                       model=["--layers", "12", "--hidden", "64", "--rows", "8",
                              "--reduced", "LinearOperation=bfloat16"]),
    # Held out: never run while working; other seeds, size, dtype and noise levels.
    "atb-heldout": dict(seeds=[301, 302], noise=[3e-4, 2e-3], red=[0.03, 0.3],
                        model=["--layers", "11", "--hidden", "96", "--rows", "12", "--atb-dtype", "bfloat16"]),
    # Second ATB held-out set (stop 38): fixed before it was run, run once; other seeds, 13
    # layers, fp16 outputs of bf16 Linear kernels, the ends of the range.
    "atb-heldout2": dict(seeds=[401, 402], noise=[5e-4, 3e-3], red=[0.02, 0.1],
                         model=["--layers", "13", "--hidden", "80", "--rows", "10", "--atb-dtype", "float16",
                                "--reduced", "LinearOperation=bfloat16"]),
    # Third ATB held-out set (stop 38): fixed for a rule change after atb-heldout2; none was
    # made, and it was run once with the rule as it was.
    "atb-heldout3": dict(seeds=[501, 502], noise=[2.5e-3], red=[0.02, 0.2],
                         model=["--layers", "12", "--hidden", "48", "--rows", "16", "--atb-dtype", "bfloat16",
                                "--reduced", "LinearOperation=float16"]),
    "atb-smoke": dict(seeds=[1], noise=[1e-3], red=[0.05],
                      model=["--layers", "11", "--hidden", "32", "--rows", "8"]),
}
GRIDS.update(ATB_GRIDS)


def types_in_chain(ops):
    chain = ["GatherV2"] + [BLOCK[(i - 1) % len(BLOCK)] for i in range(1, ops)]
    return chain


def atb_scenarios(grid):
    g = GRIDS[grid]
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
                if sc["local"]:
                    return None  # no compared tensor carries it
                return "%d_DecoderLayer" % layer
            seen += 1
    raise ValueError("no such op")


def atb_node(path):
    """The ATB node of a report cell: the path between the token directory and after/."""
    parts = path.split("/")
    i = parts.index("0_200")
    return "/".join(parts[i + 2:parts.index("after")])


def atb_one(args, sc, tmp, idx):
    d = os.path.join(tmp, "s%d" % idx)
    g = GRIDS[args.grid]
    layers = int(g["model"][g["model"].index("--layers") + 1])
    cmd = [args.gen, "atb", "--model", "llama", "--out", d, "--tokens", "2", "--seed", str(sc["seed"]),
           "--noise", str(sc["noise"])] + g["model"]
    if sc["type"]:
        cmd += ["--diverge-type", sc["type"], "--diverge-nth", str(sc["nth"]), "--diverge-scale", str(sc["red"])]
        if sc["local"]:
            cmd.append("--diverge-local")
    r = run(cmd)
    if r.returncode:
        raise RuntimeError(" ".join(cmd) + ": " + r.stdout)
    want = atb_want(sc, layers)
    torch = "/torch/msit_dump_20260101_000000"
    atb = "/atb/msit_dump_20260101_000000"
    results = []
    for mode in MODES:
        src = d
        if mode == "mixed":
            src = d + "-mix"
            shutil.copytree(d, src)
            run([args.bin, "compact", src + torch])
        elif mode == "summarised":
            run([args.bin, "compact", d + torch, d + atb])
        out = os.path.join(tmp, "o%d-%s" % (idx, mode))
        os.makedirs(out, exist_ok=True)
        run([args.bin, "compare", "-g", src + torch + "/torch_tensors/cpu_100", "-m", src + atb + "/tensors/0_200",
             "-o", out, "-j", "1", "-q", "--cl", "api", "--op-mapping-file", src + "/op_mapping"])
        csvs = [f for f in os.listdir(out) if f.startswith("msit_cmp_report_") and f.endswith(".csv")]
        if not csvs:
            raise RuntimeError("no report in " + out)
        with open(os.path.join(out, csvs[0])) as f:
            rows = list(csv.DictReader(f))
        named = {}
        for r in rows:
            named.setdefault(r["token_id"], None)
            if r["divergence"] == "first":
                named[r["token_id"]] = (atb_node(r["my_data_path"]), r["error_jump"])
        for tok, n in sorted(named.items()):
            results.append(dict(sc, mode=mode, token=tok, want=want, named=n[0] if n else None,
                                jump=n[1] if n else None, levels=None))
        shutil.rmtree(out, ignore_errors=True)
        if src != d:
            shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(d, ignore_errors=True)
    return results


def scenarios(grid):
    g = GRIDS[grid]
    ops = int(g["model"][g["model"].index("--ops") + 1])
    chain = types_in_chain(ops)
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


def selected(sc, only):
    """--only KEY=VALUE,...: the scenario's fields (seed, noise, type (none: noise only), nth,
    red, local (0/1)) all equal to the values given."""
    for kv in only.split(",") if only else []:
        k, v = kv.split("=", 1)
        have = sc[k]
        if k == "type":
            ok = (have or "none") == v
        elif k == "local":
            ok = have == (v in ("1", "true", "local"))
        else:
            ok = float(have) == float(v)
        if not ok:
            return False
    return True


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def compare(bin_, d, out):
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ)
    run([bin_, "compare", "-m", d + "/msit_ge_dump", "-g", d + "/msit_fx_dump", "-o", out, "-j", "1", "-q"], env=env)
    csvs = [f for f in os.listdir(out) if f.startswith("msit_cmp_report_") and f.endswith(".csv")]
    if not csvs:
        raise RuntimeError("no report in " + out)
    with open(os.path.join(out, csvs[0])) as f:
        return list(csv.DictReader(f))


def op_of(path):
    return os.path.basename(path.split(",")[0]).split(".")[1]


def one(args, sc, tmp, idx):
    d = os.path.join(tmp, "s%d" % idx)
    g = GRIDS[args.grid]
    cmd = [args.gen, "model", "--chain", "llama", "--out", d, "--tokens", "2", "--seed", str(sc["seed"]),
           "--noise", str(sc["noise"])] + g["model"]
    if sc["type"]:
        cmd += ["--diverge-type", sc["type"], "--diverge-nth", str(sc["nth"]), "--diverge-scale", str(sc["red"])]
        if sc["local"]:
            cmd.append("--diverge-local")
    r = run(cmd)
    if r.returncode:
        raise RuntimeError(" ".join(cmd) + ": " + r.stdout)
    want = json.load(open(d + "/scenario.json"))["first_divergence"]
    want = want["ge_name"] if want else None
    results = []
    for mode in MODES:
        src = d
        if mode == "mixed":
            src = d + "-mix"
            shutil.copytree(d, src)
            run([args.bin, "compact", src + "/msit_fx_dump"])
        elif mode == "summarised":
            run([args.bin, "compact", d + "/msit_ge_dump", d + "/msit_fx_dump"])
        rows = compare(args.bin, src, os.path.join(tmp, "o%d-%s" % (idx, mode)))
        named = {}
        for r in rows:
            named.setdefault(r["token_id"], None)
            if r["divergence"] == "first":
                named[r["token_id"]] = (op_of(r["my_data_path"]), r["error_jump"], r.get("error_floor", ""))
        levels = [[r["token_id"], op_of(r["my_data_path"]), r["my_data_path"].split(",")[1] if "," in r["my_data_path"]
                   else "?", r["compare_mode"], r["my_dtype"], r["golden_dtype"], r["cosine_similarity"],
                   r["relative_euclidean_distance"]] for r in rows]
        for tok, n in sorted(named.items()):
            results.append(dict(sc, mode=mode, token=tok, want=want, named=n[0] if n else None,
                                jump=n[1] if n else None, levels=levels if args.levels else None))
        shutil.rmtree(os.path.join(tmp, "o%d-%s" % (idx, mode)), ignore_errors=True)
        if src != d:
            shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(d, ignore_errors=True)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--grid", choices=sorted(GRIDS), default="smoke")
    ap.add_argument("--flow", choices=["ge", "atb"], default="ge", help="ge: GE vs FX; atb: ATB vs torch")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--levels", help="write every run's rows (levels) here, JSON lines")
    ap.add_argument("--only", help="run only the scenarios whose fields match: KEY=VALUE,... "
                    "(seed, noise, type (none: noise only), nth, red, local 0/1); for iterating on a subset")
    args = ap.parse_args()
    if (args.flow == "atb") != args.grid.startswith("atb-"):
        ap.error("--flow atb takes the atb-* grids, --flow ge the others")
    scs = atb_scenarios(args.grid) if args.flow == "atb" else scenarios(args.grid)
    scs = [sc for sc in scs if selected(sc, args.only)]
    fn = atb_one if args.flow == "atb" else one
    tmp = tempfile.mkdtemp(prefix="divgrid-")
    try:
        with ThreadPoolExecutor(args.jobs) as ex:
            futs = [ex.submit(fn, args, sc, tmp, i) for i, sc in enumerate(scs)]
            res = [x for f in futs for x in f.result()]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.levels:
        with open(args.levels, "w") as f:
            for x in res:
                f.write(json.dumps(x) + "\n")
    report(res, args.grid)


def report(res, grid):
    cells = collections.OrderedDict()
    for x in res:
        key = (x["noise"], "none" if x["type"] is None else "%g %s" % (x["red"], "local" if x["local"] else "prop"))
        c = cells.setdefault(key, {m: [0, 0, 0, 0] for m in MODES})  # tp fp fn units
        tp = x["want"] is not None and x["named"] == x["want"]
        fp = x["named"] is not None and x["named"] != x["want"]
        fn = x["want"] is not None and x["named"] != x["want"]
        c[x["mode"]][0] += tp
        c[x["mode"]][1] += fp
        c[x["mode"]][2] += fn
        c[x["mode"]][3] += 1
    print("grid %s: %d runs x tokens" % (grid, len(res)))
    print("| noise | injection | " + " | ".join(MODES) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in MODES) + " |")
    tot = {m: [0, 0, 0, 0] for m in MODES}
    for (noise, inj), c in cells.items():
        cols = []
        for m in MODES:
            tp, fp, fn, n = c[m]
            for i, v in enumerate(c[m]):
                tot[m][i] += v
            cols.append("%d/%d" % (tp, n) if inj != "none" else "%d FP/%d" % (fp, n))
            if inj != "none" and fp:
                cols[-1] += " (%d FP)" % fp
        print("| %g | %s | %s |" % (noise, inj, " | ".join(cols)))
    for m in MODES:
        tp, fp, fn, n = tot[m]
        p = tp / (tp + fp) if tp + fp else 1.0
        r = tp / (tp + fn) if tp + fn else 1.0
        print("%s: precision %.4f recall %.4f (TP %d FP %d FN %d over %d units)" % (m, p, r, tp, fp, fn, n))
    tp, fp, fn = (sum(tot[m][i] for m in MODES) for i in range(3))
    print("all: precision %.4f recall %.4f (TP %d FP %d FN %d)" % (tp / max(1, tp + fp), tp / max(1, tp + fn), tp, fp, fn))
    bad = [x for x in res if x["named"] != x["want"]]
    groups = collections.Counter()
    for x in bad:
        what = "noise only" if x["type"] is None else "%s#%d %s" % (x["type"], x["nth"], "local" if x["local"] else "prop")
        groups[(what, x["mode"], "FP" if x["named"] else "FN")] += 1
    for (what, mode, kind), n in sorted(groups.items()):
        print("misses: %s %s %s: %d" % (what, mode, kind, n))
    for x in bad[:40]:
        print("miss: seed %d noise %g %s#%d RED %g %s %s token %s: want %s named %s (%s)" % (
            x["seed"], x["noise"], x["type"], x["nth"], x["red"], "local" if x["local"] else "prop", x["mode"],
            x["token"], x["want"], x["named"], x["jump"]))
    if len(bad) > 40:
        print("... and %d more misses" % (len(bad) - 40))


if __name__ == "__main__":
    sys.exit(main())
