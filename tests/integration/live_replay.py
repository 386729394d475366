#!/usr/bin/env python3
"""Replays a finished dump tree into a directory file by file, in execution order, as a model
dumping it would: graph text first, then per token the dump files by their timestamp field.

  live_replay.py FROM TO [--hold-after-token N --until FILE] [--stop-after K]

--hold-after-token N --until FILE: after every file of tokens <= N and the first file of token
N+1 are written, wait until FILE exists and is not empty (an event the test waits for), then
write the rest; exit 3 if it does not appear within --timeout seconds. This proves "before the
stream ends" without timing assumptions.
--mark FILE: created when the replay starts holding.
--stop-after K: write only the first K dump files, then exit (a stream killed mid-way).
"""
import argparse
import os
import re
import shutil
import sys
import time

DIGITS = re.compile(r"^\d+$")


def token_of(rel):
    """The last all-digit directory of the path: the token (step) directory."""
    parts = rel.split(os.sep)[:-1]
    for p in reversed(parts):
        if DIGITS.match(p) and len(p) < 12:
            return int(p)
    return -1


def natural(rel):
    """Numbers compared as numbers: ATB node paths (2_DecoderLayer/10_LinearOperation) in execution order."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", rel)]


def ts_of(name):
    """The timestamp field: GE Type.Name.task.stream.ts, FX node.OUTPUT.k.ts.npy."""
    parts = name.split(".")
    if name.endswith(".npy") and len(parts) >= 3:
        parts = parts[:-1]
    for p in reversed(parts):
        if p.isdigit():
            return int(p)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--hold-after-token", type=int, default=None)
    ap.add_argument("--until", default=None)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--mark", default=None, help="file created when the stream starts holding")
    ap.add_argument("--stop-after", type=int, default=None)
    ap.add_argument("--skip", type=int, default=0, help="dump files already written by an earlier run")
    a = ap.parse_args()
    other, dumps = [], []
    for root, dirs, files in os.walk(a.src):
        dirs.sort()
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), a.src)
            if f.endswith(".txt") or f.endswith(".json"):
                other.append(rel)
            else:
                dumps.append(rel)
    dumps.sort(key=lambda r: (token_of(r), ts_of(os.path.basename(r)), natural(r)))

    def put(rel):
        out = os.path.join(a.dst, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(os.path.join(a.src, rel), out)

    for rel in sorted(other):
        put(rel)
    held = False
    for i, rel in enumerate(dumps):
        if a.stop_after is not None and i >= a.stop_after:
            return 0
        if i < a.skip:
            continue
        if (a.hold_after_token is not None and not held and token_of(rel) > a.hold_after_token):
            put(rel)  # the next token has started
            held = True
            if a.mark:
                open(a.mark, "w").close()
            deadline = time.monotonic() + a.timeout
            while not (os.path.exists(a.until) and os.path.getsize(a.until) > 0):
                if time.monotonic() > deadline:
                    print("live_replay: %s did not appear while the stream was held" % a.until, file=sys.stderr)
                    return 3
                time.sleep(0.05)  # poll interval, not a timing assumption
            continue
        put(rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
