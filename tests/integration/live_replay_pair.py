#!/usr/bin/env python3
"""Replays two finished dump trees at the same time, their files interleaved (A B A B ...), as a
watched model and its golden run dumping side by side: each tree in the order of live_replay.py
(its .txt/.json files first, then per token the dump files by their timestamp field), the two
merged by progress so that both streams end together.

  live_replay_pair.py MINE_FROM MINE_TO GOLDEN_FROM GOLDEN_TO
"""
import os
import shutil
import sys

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


def main():
    mine_src, mine_dst, gold_src, gold_dst = sys.argv[1:5]
    streams = []
    for src, dst in ((mine_src, mine_dst), (gold_src, gold_dst)):
        other, dumps = files(src)
        for rel in other:
            put(src, dst, rel)
        streams.append((src, dst, dumps))
    # The i-th of n files of a stream goes at progress (i + 1) / n; ties: the watched side first.
    order = sorted(((i + 1) / len(d), s, rel) for s, (_, _, d) in enumerate(streams) for i, rel in enumerate(d))
    for _, s, rel in order:
        put(streams[s][0], streams[s][1], rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
