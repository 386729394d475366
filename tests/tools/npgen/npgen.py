#!/usr/bin/env python3
"""npgen: the second dump generator (docs/dumpgen.md "npgen"), independent of msit-dumpgen: its
own op graph (a decoder with rotary embedding, LayerNorm from reductions, a compare-and-select
MLP, casts, an all-reduce under tensor parallelism, argmax and top-k), its own kernel model
(relative or absolute noise per op type, reduced-precision accumulation, rounding to the output
dtype) and its own writers (GE binary dumps and graph text, FX npy), in Python and numpy.

  npgen.py --out DIR [--dtype float32|float16|bfloat16|mixed] [--noise 1e-3] [--golden fp32|same|ge]
           [--layers 2] [--tokens 1] [--ranks 1 [--tp]] [--seed 1]
           [--inject OP --inject-red 0.05 [--inject-local] [--inject-rank R]] [--list-ops]

Compare DIR/msit_ge_dump against DIR/msit_fx_dump (--golden fp32|same) or DIR/golden/msit_ge_dump
(--golden ge: a second NPU run with its own kernel noise). DIR/scenario.json says what was made.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npgen_model as M  # noqa: E402
import npgen_write as W  # noqa: E402


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--rows", type=int, default=8)
    ap.add_argument("--vocab", type=int, default=96)
    ap.add_argument("--ffn", type=int, default=128)
    ap.add_argument("--mask-value", type=float, default=-30.0,
                    help="attention mask value (-1e4: rounding of the masked scores fails msit's max_abs_err > 1)")
    ap.add_argument("--pv-type", default="BatchMatMulV2",
                    help="GE type of the attention's probabilities x values product (BatchMatMul: another type "
                         "than the scores' BatchMatMulV2)")
    ap.add_argument("--head-scale", type=float, default=1.0, help="scale of the LM head's weights")
    ap.add_argument("--dtype", choices=["float32", "float16", "bfloat16", "mixed"], default="bfloat16",
                    help="NPU output dtype of computing ops; mixed: fp32 residual stream and norms, bf16 matmuls")
    ap.add_argument("--noise", type=float, default=1e-3, help="relative kernel noise (times the type's factor)")
    ap.add_argument("--noise-shape", choices=["auto", "rel", "abs"], default="auto")
    ap.add_argument("--acc", choices=["float32", "float16", "bfloat16"], default="float32",
                    help="accumulator precision of matmuls and reductions on the NPU side")
    ap.add_argument("--golden", choices=["fp32", "same", "ge"], default="fp32",
                    help="fp32: FX golden in fp32; same: FX golden in the NPU's dtypes; ge: a second NPU run")
    ap.add_argument("--tokens", type=int, default=1)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--tp", action="store_true", help="tensor parallel: ranks share inputs, all-reduce partials")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--inject", help="GE op name whose output gets an error")
    ap.add_argument("--inject-red", type=float, default=0.05)
    ap.add_argument("--inject-local", action="store_true", help="later ops get the op's output without the error")
    ap.add_argument("--inject-rank", type=int, help="only this rank (default: every rank)")
    ap.add_argument("--list-ops", action="store_true", help="print the ops (JSON) and write nothing")
    return ap.parse_args(argv)


def feeds_for(net, cfg, rank, token, cache):
    out = {}
    for v, make, kind in net.feeds:
        if kind == "weight":
            key = (v, rank if cfg.tp else 0)
            if key not in cache:
                cache[key] = make(np.random.default_rng([cfg.seed, v, key[1]]))
            out[v] = cache[key]
        else:
            out[v] = make(np.random.default_rng([cfg.seed, v, 1000 + token, 0 if cfg.tp else rank]))
    return out


def fx_dtype(net, v, golden32):
    dt = net.dtype[v]
    if dt in ("int32", "int64"):
        return "int64"
    if dt == "bool":
        return "bool"
    return "float32" if golden32 else dt


def write_ge(net, layout, token, vals, dumped):
    d = layout.ge_token_dir(token)
    for i, op in enumerate(net.ops):
        ins = [(vals[v], net.dtype[v]) for v in op.ins]
        outs = [(dumped[v], net.dtype[v]) for v in op.outs]
        W.write_ge_file(os.path.join(d, W.ge_file_name(op.type, op.name, i, token)), op.name,
                        1748764800000000 + token, ins, outs)


def write_fx(net, layout, token, vals, golden32):
    d = layout.fx_token_dir(token)
    for i, op in enumerate(net.ops):
        if not op.fx:
            continue
        args = [W.npy_value(vals[v], fx_dtype(net, v, golden32)) for v in op.ins if not net.is_const(v)]
        files = []
        if op.fx_list:
            files += [("INPUT", 0, j, a) for j, a in enumerate(args)]
            files += [("INPUT", k + 1, None, e) for k, e in enumerate(op.fx_extra)]
        else:
            files += [("INPUT", k, None, a) for k, a in enumerate(args + op.fx_extra)]
        files += [("OUTPUT", k, None, W.npy_value(vals[v], fx_dtype(net, v, golden32))) for k, v in enumerate(op.outs)]
        for role, k, sub, a in files:
            np.save(os.path.join(d, W.fx_file_name(op.fx, role, k, i, token, sub)), a)


def graph_ops(net):
    names = {}
    out = []
    for n, (v, _, kind) in enumerate(net.feeds):
        names[v] = "arg%d_1" % n
        out.append(dict(name=names[v], type="Const" if kind == "const" else "Data", out_dtypes=[net.dtype[v]]))
    for op in net.ops:
        for k, v in enumerate(op.outs):
            names[v] = "%s:%d" % (op.name, k)
        out.append(dict(name=op.name, type=op.type, inputs=[names[v] if ":" in names[v] else names[v] + ":0"
                                                              for v in op.ins],
                        out_dtypes=[net.dtype[v] for v in op.outs], fx=op.fx))
    return out


def main(argv):
    cfg = parse(argv)
    net = M.build(cfg)
    ops = [dict(name=op.name, type=op.type, kind=op.kind, fx=op.fx, out_dtypes=[net.dtype[v] for v in op.outs])
           for op in net.ops]
    if cfg.list_ops:
        print(json.dumps(ops, indent=1))
        return 0
    if cfg.inject and cfg.inject not in [o["name"] for o in ops]:
        sys.exit("npgen: no op named %s (--list-ops lists them)" % cfg.inject)
    my = [W.Layout(cfg.out, cfg.ranks, r) for r in range(cfg.ranks)]
    golden = [W.Layout(os.path.join(cfg.out, "golden"), cfg.ranks, r) for r in range(cfg.ranks)]
    cache = {}
    for token in range(cfg.tokens):
        feeds = [feeds_for(net, cfg, r, token, cache) for r in range(cfg.ranks)]
        rng = lambda side: [np.random.default_rng([cfg.seed, side, r, token]) for r in range(cfg.ranks)]
        inj = None
        if cfg.inject:
            inj = (cfg.inject, cfg.inject_red, cfg.inject_local, cfg.inject_rank, rng(9))
        vals, dumped = M.run(net, "npu", feeds, rng(7), inj)
        side = {"fp32": "golden32", "same": "golden", "ge": "npu"}[cfg.golden]
        gvals, _ = M.run(net, side, feeds, rng(8))
        for r in range(cfg.ranks):
            write_ge(net, my[r], token, vals[r], dumped[r])
            if cfg.golden == "ge":
                write_ge(net, golden[r], token, gvals[r], gvals[r])
            else:
                write_fx(net, my[r], token, gvals[r], cfg.golden == "fp32")
    for r in range(cfg.ranks):
        with open(my[r].graph_path(), "w") as f:
            f.write(W.graph_text(graph_ops(net)))
        if cfg.golden == "ge":
            with open(golden[r].graph_path(), "w") as f:
                f.write(W.graph_text(graph_ops(net)))
    scenario = dict(generator="npgen", config={k: v for k, v in vars(cfg).items() if k != "list_ops"}, ops=ops,
                    my=my[0].ge_root, golden=golden[0].ge_root if cfg.golden == "ge" else my[0].fx_root,
                    first_divergence=cfg.inject)
    with open(os.path.join(cfg.out, "scenario.json"), "w") as f:
        json.dump(scenario, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
