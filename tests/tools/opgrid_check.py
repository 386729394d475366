#!/usr/bin/env python3
"""Runs `msit-compact opcheck --json` on every file of an opgen.py directory and scores the
verdicts against cases.json: per op, precision and recall of "disagrees" (the positive class:
an injected or upstream kernel error) and the cases that went wrong.
Usage: opgrid_check.py MSIT_COMPACT DIR [--report FILE] [--allow-misses] [--by op,dtype]
--by: the case fields the table is grouped by (default op). The last column is the largest
error / bound opcheck saw on a noise-only case of the group: how close a correct kernel comes to
its bound (1 would be a bound as tight as the kernel).
Exit 1 when any file's verdict differs from its expectation (unless --allow-misses)."""
import argparse, collections, json, os, subprocess, sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("dir")
    ap.add_argument("--report")
    ap.add_argument("--allow-misses", action="store_true")
    ap.add_argument("--by", default="op")
    a = ap.parse_args()
    with open(os.path.join(a.dir, "cases.json")) as fh:
        rows = json.load(fh)
    tally = collections.defaultdict(lambda: collections.Counter())
    misses, worst_ulps, noise_ratio = [], collections.defaultdict(float), collections.defaultdict(float)
    by = a.by.split(",")
    verdicts = []
    for i in range(0, len(rows), 200):  # one opcheck run checks a batch of files
        batch = rows[i:i + 200]
        p = subprocess.run([a.binary, "opcheck", "--json"] + [os.path.join(a.dir, r["file"]) for r in batch],
                           capture_output=True, text=True)
        if p.returncode not in (0, 1, 4):
            sys.exit("opgrid_check: opcheck exited %d: %s" % (p.returncode, p.stderr.strip()))
        verdicts += [res["my"] for res in json.loads(p.stdout)["results"]]
    for r, got in zip(rows, verdicts):
        verdict = got["verdict"]
        op = r["op"] if r["case"] != "upstream" else "Mul (upstream)"
        group = " ".join([op] + [str(r.get(k, "-")) for k in by if k != "op"])
        positive, said = r["expect"] == "disagrees", verdict == "disagrees"
        tally[group]["tp" if positive and said else "fn" if positive else "fp" if said else "tn"] += 1
        for o in got["outputs"]:
            if r["case"] == "noise" and isinstance(o.get("max_bound_ratio"), (int, float)):
                noise_ratio[group] = max(noise_ratio[group], o["max_bound_ratio"])
            if isinstance(o["max_ulps"], (int, float)):
                worst_ulps[(op, r.get("dtype"))] = max(worst_ulps[(op, r.get("dtype"))], o["max_ulps"])
        if verdict != r["expect"]:
            misses.append((r, verdict + (": " + got.get("detail", "") if verdict == "not recomputed" else "")))
    lines = ["| %s | injected (disagrees) | clean (agrees) | precision | recall | noise: worst error / bound |" % " ".join(by),
             "| --- | --- | --- | --- | --- | --- |"]
    for op in sorted(tally):
        t = tally[op]
        prec = t["tp"] / (t["tp"] + t["fp"]) if t["tp"] + t["fp"] else float("nan")
        rec = t["tp"] / (t["tp"] + t["fn"]) if t["tp"] + t["fn"] else float("nan")
        worst = "%.3g" % noise_ratio[op] if op in noise_ratio else "-"
        lines.append("| %s | %d of %d | %d of %d | %.3f | %.3f | %s |" % (op, t["tp"], t["tp"] + t["fn"], t["tn"], t["tn"] + t["fp"],
                                                                     prec, rec, worst))
    tot = sum(tally.values(), collections.Counter())
    lines.append("| all | %d of %d | %d of %d | %.4f | %.4f | %.3g |" % (
        tot["tp"], tot["tp"] + tot["fn"], tot["tn"], tot["tn"] + tot["fp"],
        tot["tp"] / max(1, tot["tp"] + tot["fp"]), tot["tp"] / max(1, tot["tp"] + tot["fn"]),
        max(noise_ratio.values(), default=0.0)))
    text = "\n".join(lines)
    print(text)
    if a.report:
        with open(a.report, "w") as fh:
            json.dump({"table": lines, "max_ulps": {"%s %s" % k: v for k, v in worst_ulps.items()},
                       "misses": [dict(r, got=g) for r, g in misses]}, fh, indent=1)
    for r, g in misses[:40]:
        print("MISS %s (%s, expected %s): %s" % (r["file"], r.get("case"), r["expect"], g), file=sys.stderr)
    print("opgrid_check: %d files, %d misses" % (len(rows), len(misses)))
    return 1 if misses and not a.allow_misses else 0


if __name__ == "__main__":
    sys.exit(main())
