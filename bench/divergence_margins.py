#!/usr/bin/env python3
"""How far the first-divergence rule is from every run (docs/divergence-grids.md): reads the
units that `bench/divergence_grid.py --levels FILE` kept, with the margins the binary wrote
(column `margin`: an output's error level over the level it is named at; a divergence from
kConfirmMargin up, a suspect between 1 and that), and prints per file: the worst margin of any
output of a noise-only unit, the margins of the injected ops (named and missed), and the
trade-off of a confirming margin c: how many injected units it names and how many noise-only
units. It reads the binary's numbers and holds no copy of the rule.

  bench/divergence_margins.py LEVELS.jsonl... [--confirm 1.2]
"""
import argparse
import collections
import json


def margins_of(unit):
    """(margin, op) of every judged output row of the unit's rank and token."""
    out = []
    for row in unit["levels"] or []:
        rank, token, op, role, mode, margin = row[0], row[1], row[2], row[3], row[4], row[10]
        if rank == unit["rank"] and token == unit["token"] and role == "outputs" and margin:
            out.append((float(margin), op))
    return out


def q(v, p):
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("levels", nargs="+")
    ap.add_argument("--confirm", type=float, default=1.2, help="the binary's kConfirmMargin")
    args = ap.parse_args()
    for path in args.levels:
        noise, injected = [], []  # worst margin per noise-only unit; the injected op's margin
        by_mode = collections.Counter()
        for line in open(path):
            u = json.loads(line)
            ms = margins_of(u)
            if u["want"] is None:
                worst = max(ms, default=(0.0, None))
                noise.append((worst[0], worst[1], u["mode"]))
            else:
                own = [m for m, op in ms if op == u["want"]]
                injected.append(own[0] if own else 0.0)
                by_mode[u["mode"]] += 1
        noise.sort(reverse=True)
        injected.sort()
        print("%s: %d noise-only units, %d injected units" % (path, len(noise), len(injected)))
        if noise:
            print("  noise-only: worst margin %.3f (%s, %s pair); p99 %.3f p90 %.3f p50 %.3f" % (
                noise[0][0], noise[0][1], noise[0][2], q([n[0] for n in noise], 0.01), q([n[0] for n in noise], 0.1),
                q([n[0] for n in noise], 0.5)))
        if injected:
            print("  injected op's margin: p10 %.3f p50 %.3f; under 1: %d, 1 to %.2f (suspects): %d" % (
                q(injected, 0.1), q(injected, 0.5), sum(m <= 1 for m in injected), args.confirm,
                sum(1 < m < args.confirm for m in injected)))
        for c in (1.0, 1.1, args.confirm, 1.5, 2.0):
            print("  confirming margin %.2f: injected named %d of %d, noise-only units named %d of %d" % (
                c, sum(m >= c for m in injected), len(injected), sum(n[0] >= c for n in noise), len(noise)))


if __name__ == "__main__":
    main()
