#!/usr/bin/env python3
"""Replays the first-divergence rule (docs/compare.md "First divergence") offline over the rows
that `bench/divergence_grid.py --levels FILE` kept, to measure how far the rule is from naming
every injected op: per output its margin (level over the rule's threshold; named above 1), the
worst margin of any noise-only output, and where the misses sit against it. A benchmark tool,
not a second home of the rule: it first checks that it names the same op as the binary did in
every unit of the file (`differences from the binary: 0`), so a drift between the two shows.

  bench/divergence_replay.py LEVELS.jsonl...             # the rule as in the binary
  bench/divergence_replay.py --variant exact-copies ...  # a type of bit-identical copies: no noise floor
  bench/divergence_replay.py --variant sketch-spread=0.1 ...  # the sketch's error taken out of the spread
"""
import argparse
import bisect
import collections
import json
import math
import re

# The rule's constants (common/compare/divergence.h).
JUMP, JUMP_SKETCH, NOISE_FACTOR, DTYPE_FACTOR, MIN_FLOOR = 1.3, 1.5, 2.5, 5.0, 1e-4
CAP_UNITS, COARSEST_ROUNDOFF, MAX_GAIN_SQ = 4.0, 2.0**-8, 4.0
ROUNDOFF = {"torch.float16": 2.0**-11, "torch.bfloat16": 2.0**-8, "float16": 2.0**-11, "bfloat16": 2.0**-8}


def error_level(cos, red):
    level = None
    try:
        if math.isfinite(float(red)):
            level = float(red)
    except ValueError:
        pass
    try:
        if math.isfinite(float(cos)):
            level = max(level or 0.0, math.sqrt(2 * max(0.0, 1 - float(cos))))
    except ValueError:
        pass
    return level


def median_without(v, skip):
    m = len(v) - (1 if skip < len(v) else 0)
    if m == 0:
        return None
    at = lambda k: v[k + 1 if skip < len(v) and k >= skip else k]
    return at(m // 2) if m % 2 else 0.5 * (at(m // 2 - 1) + at(m // 2))


def median_of_others(sorted_v, own):
    return median_without(sorted_v, bisect.bisect_left(sorted_v, own))


def outputs_by_token(rows):
    """Pass 1: per token, each output's level, input error and flags, in report order."""
    inputs, has_inputs = {}, set()
    for r in rows:
        level = error_level(r[6], r[7])
        if r[2] == "inputs" and level is not None:
            key = (r[0], r[1])
            inputs[key] = max(inputs.get(key, 0.0), level)
            has_inputs.add(r[0])
    tokens = collections.OrderedDict()
    so_far, prev = {}, {}
    for r in rows:
        level = error_level(r[6], r[7])
        if level is None:
            continue
        token = r[0]
        if r[2] != "inputs":
            key = (token, r[1])
            if key in inputs:
                inp = inputs[key]
            else:
                inp = so_far.get(token, 0.0) if token in has_inputs else prev.get(token, 0.0)
            floor = max(MIN_FLOOR, ROUNDOFF.get(r[4], 0.0), ROUNDOFF.get(r[5], 0.0))
            tokens.setdefault(token, []).append(dict(
                op=r[1], type=re.sub(r"_\d+$", "", r[1]), level=level, inputs=max(floor, inp), floor=floor,
                copy=key in inputs and level == inputs[key], sketch=r[3] == "sketch"))
            prev[token] = level
        so_far[token] = max(so_far.get(token, 0.0), level)
    return tokens


def judge_token(outs, variant, margins):
    """Pass 2 for one token: appends (margin, op) of every output judged; returns the first named op."""
    excess = lambda o: o["level"] ** 2 - o["inputs"] ** 2
    has_gain = lambda o: o["inputs"] > o["floor"]
    gain_sq = lambda o: o["level"] ** 2 / o["inputs"] ** 2
    by_type = collections.defaultdict(lambda: dict(gains=[], noises=[], outs=[]))
    spread = []
    computing = {o["type"] for o in outs if not o["copy"]}
    sketch_share = variant.get("sketch-spread", 0.0)
    for o in outs:
        t = by_type[o["type"]]
        if has_gain(o):
            t["gains"].append(gain_sq(o))
        t["noises"].append(excess(o))
        t["outs"].append(o)
        if not o["copy"]:
            e = abs(excess(o))
            if o["sketch"] and sketch_share:
                e = max(0.0, e - sketch_share * max(o["level"], o["inputs"]) ** 2)
            spread.append(e)
        elif o["level"] == 0 and o["type"] in computing:
            spread.append(0.0)
    for t in by_type.values():
        t["gains"].sort()
        t["noises"].sort()
    spread.sort()
    copy_types = {name for name, t in by_type.items()
                  if sum(o["copy"] for o in t["outs"]) >= 2 and sum(not o["copy"] for o in t["outs"]) <= 1}
    for o in outs:
        t = by_type[o["type"]]
        g = median_of_others(t["gains"], gain_sq(o)) if has_gain(o) else median_without(t["gains"], len(t["gains"]))
        g2 = min(max(g, 1.0), MAX_GAIN_SQ) if g is not None else 1.0
        type_noise = median_of_others(t["noises"], excess(o)) or 0.0
        own = len(spread) if o["copy"] else bisect.bisect_left(spread, abs(excess(o)))
        token_spread = median_without(spread, own) or 0.0
        cap = max(CAP_UNITS * max(COARSEST_ROUNDOFF, o["floor"]), o["inputs"]) ** 2
        if type_noise > cap:
            nets = sorted(q["level"] ** 2 - g2 * q["inputs"] ** 2 for q in t["outs"])
            type_noise = max(median_of_others(nets, o["level"] ** 2 - g2 * o["inputs"] ** 2) or 0.0, cap)
        noise_sq = max(0.0, type_noise, min(token_spread, cap))
        if "exact-copies" in variant and o["type"] in copy_types and not o["sketch"] and not o["copy"]:
            noise_sq = 0.0
        k = JUMP_SKETCH if o["sketch"] else JUMP
        threshold = math.sqrt(k * k * g2 * o["inputs"] ** 2 + NOISE_FACTOR**2 * noise_sq)
        margins.append((o["level"] / threshold if threshold > 0 else 0.0, o["op"]))
        if o["level"] > threshold and o["level"] > DTYPE_FACTOR * o["floor"]:
            return o["op"]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("levels", nargs="+", help="JSON lines written by divergence_grid.py --levels")
    ap.add_argument("--variant", default="", help="exact-copies, sketch-spread=SHARE (comma-separated)")
    args = ap.parse_args()
    variant = {}
    for v in filter(None, args.variant.split(",")):
        name, _, value = v.partition("=")
        variant[name] = float(value) if value else 1.0
    for path in args.levels:
        tp = fp = fn = differ = 0
        noise_only, missed = [], []
        runs = {}  # one (scenario, mode): its rows hold every token
        for line in open(path):
            d = json.loads(line)
            key = (d["seed"], d["noise"], d["type"], d["nth"], d["red"], d["local"], d["mode"])
            if key not in runs:
                named, margins = {}, {}
                for token, outs in outputs_by_token(d["levels"]).items():
                    margins[token] = []
                    named[token] = judge_token(outs, variant, margins[token])
                runs[key] = (named, margins)
                if d["type"] is None:
                    worst = max((m for ms in margins.values() for m in ms), default=(0.0, None))
                    noise_only.append((worst[0], worst[1], d["mode"], d["noise"], d["seed"]))
            named, margins = runs[key]
            got, want = named.get(d["token"]), d["want"]
            differ += got != d["named"]
            if want is None:
                fp += got is not None
            elif got == want:
                tp += 1
            else:
                fn += 1
                fp += got is not None
                missed += [m[0] for m in margins.get(d["token"], []) if m[1] == want]
        print("%s: precision %.4f recall %.4f (TP %d FP %d FN %d); differences from the binary: %d" % (
            path, tp / max(1, tp + fp), tp / max(1, tp + fn), tp, fp, fn, differ))
        worst = max(noise_only, default=(0.0, None, None, None, None))
        print("  worst noise-only margin %.3f (%s, %s pair, noise %s, seed %s)" % worst)
        if missed:
            missed.sort()
            print("  misses: margin min %.3f median %.3f max %.3f; above the worst noise-only margin: %d of %d" % (
                missed[0], missed[len(missed) // 2], missed[-1], sum(m > worst[0] for m in missed), len(missed)))


if __name__ == "__main__":
    main()
