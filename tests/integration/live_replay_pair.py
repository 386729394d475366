#!/usr/bin/env python3
"""Replays two finished dump trees at the same time, their files interleaved (A B A B ...), as a
watched model and its golden run dumping side by side: each tree in the order of live_replay.py
(its .txt/.json files first, then per token the dump files by their timestamp field), the two
merged by progress so that both streams end together.

  live_replay_pair.py MINE_FROM MINE_TO GOLDEN_FROM GOLDEN_TO [--keep-up N]

--keep-up N: before each golden file, wait until at most N of the watched side's files written so
far are not summarised yet (summaries under MINE_TO: stores and JSON files), so that the watch
keeps up with the stream however slow the machine is: when the golden's last file is written,
the watched side is at most N summaries from done. Exit 3 if it does not within --timeout s.
"""
import argparse
import os
import shutil
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from live_replay import natural, token_of, ts_of  # noqa: E402


def files(src):
    other, dumps = [], []
    for root, dirs, names in os.walk(src):
        dirs.sort()
        for f in names:
            rel = os.path.relpath(os.path.join(root, f), src)
            (other if f.endswith((".txt", ".json")) else dumps).append(rel)
    dumps.sort(key=lambda r: (token_of(r), ts_of(os.path.basename(r)), natural(r)))
    return sorted(other), dumps


def put(src, dst, rel):
    out = os.path.join(dst, rel)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    shutil.copyfile(os.path.join(src, rel), out)


def summaries(root):
    n = 0
    for r, _, names in os.walk(root):
        for f in names:
            if f.endswith(".summary.json"):
                n += 1
            elif f == "msit-summary.db":
                try:
                    con = sqlite3.connect("file:%s?mode=ro" % os.path.join(r, f), uri=True, timeout=1)
                    n += con.execute("select count(*) from files").fetchone()[0]
                    con.close()
                except sqlite3.Error:
                    pass  # being created: counted at the next look
    return n


def main():
    ap = argparse.ArgumentParser()
    for a in ("mine_src", "mine_dst", "gold_src", "gold_dst"):
        ap.add_argument(a)
    ap.add_argument("--keep-up", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=60.0)
    a = ap.parse_args()
    mine_src, mine_dst, gold_src, gold_dst = a.mine_src, a.mine_dst, a.gold_src, a.gold_dst
    streams = []
    for src, dst in ((mine_src, mine_dst), (gold_src, gold_dst)):
        other, dumps = files(src)
        for rel in other:
            put(src, dst, rel)
        streams.append((src, dst, dumps))
    # The i-th of n files of a stream goes at progress (i + 1) / n; ties: the watched side first.
    order = sorted(((i + 1) / len(d), s, rel) for s, (_, _, d) in enumerate(streams) for i, rel in enumerate(d))
    written = 0
    for _, s, rel in order:
        if s == 1 and a.keep_up is not None:
            deadline = time.monotonic() + a.timeout
            while summaries(mine_dst) < written - a.keep_up:
                if time.monotonic() > deadline:
                    print("live_replay_pair: %s not summarised in time" % mine_dst, file=sys.stderr)
                    return 3
                time.sleep(0.02)  # poll interval, not a timing assumption
        put(streams[s][0], streams[s][1], rel)
        written += s == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
