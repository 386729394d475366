#!/usr/bin/env python3
"""Replays one side of an `msit-dumpgen msprobe` pair (SRC: its npu/ or bench/ dump_path) into a
watched dump_path (DST) the way msProbe dumps a run (docs/formats/msprobe.md §10): step by step,
the ranks interleaved tensor file by tensor file; each rank's dump.json truncated and rewritten
whole under flock every 7 tensor files with a prefix of its entries (a half-written file is what
a reader can catch), its final bytes, stack.json and construct.json at the step's end.

--hold-after-step N: once step N is written and the first 3 tensor files of every rank of step
N+1 (no dump.json of step N+1 yet, as in a run), waits until the events file UNTIL has COUNT
lines (exit 1 after TIMEOUT seconds), then goes on: the events came before the dump ended.
Usage: live_replay_msprobe.py SRC DST [--hold-after-step N --until EVENTS --count K --timeout S]
"""
import argparse
import fcntl
import json
import os
import re
import shutil
import sys
import time


def rank_dirs(src, step):
    d = os.path.join(src, step)
    return sorted(r for r in os.listdir(d) if re.fullmatch(r"rank\d+|proc\d+", r))


def rewrite(path, text):
    with open(path, "w") as out:  # truncates before the lock, as msProbe's save_json does
        fcntl.flock(out, fcntl.LOCK_EX)
        out.write(text)
        fcntl.flock(out, fcntl.LOCK_UN)


def wait_events(path, count, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            with open(path) as f:
                if sum(1 for line in f if line.strip()) >= count:
                    return True
        time.sleep(0.05)  # a poll interval, not a wait for something to happen in time
    return False


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--hold-after-step", type=int, default=-1)
    p.add_argument("--until")
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--timeout", type=float, default=60)
    a = p.parse_args()
    steps = sorted((s for s in os.listdir(a.src) if re.fullmatch(r"step\d+", s)), key=lambda s: int(s[4:]))
    for n, step in enumerate(steps):
        ranks = rank_dirs(a.src, step)
        files, docs = {}, {}
        for r in ranks:
            rel = os.path.join(step, r)
            tdir = os.path.join(a.src, rel, "dump_tensor_data")
            files[r] = sorted(os.listdir(tdir)) if os.path.isdir(tdir) else []
            with open(os.path.join(a.src, rel, "dump.json")) as f:
                docs[r] = json.load(f)
            os.makedirs(os.path.join(a.dst, rel, "dump_tensor_data"), exist_ok=True)
        for i in range(max(len(v) for v in files.values())):
            if n > 0 and i == 3 and a.hold_after_step == n - 1:
                if not wait_events(a.until, a.count, a.timeout):
                    sys.exit("no %d event(s) in %s within %g s while step %s was dumping" %
                             (a.count, a.until, a.timeout, step))
            for r in ranks:
                if i >= len(files[r]):
                    continue
                rel = os.path.join(step, r, "dump_tensor_data", files[r][i])
                shutil.copyfile(os.path.join(a.src, rel), os.path.join(a.dst, rel))
                if i % 7 == 6:
                    keys = list(docs[r]["data"])[: i // 2]
                    part = dict(docs[r], data={k: docs[r]["data"][k] for k in keys})
                    rewrite(os.path.join(a.dst, step, r, "dump.json"), json.dumps(part, indent=1))
        for r in ranks:
            with open(os.path.join(a.src, step, r, "dump.json")) as f:
                rewrite(os.path.join(a.dst, step, r, "dump.json"), f.read())
            for name in ("stack.json", "construct.json"):
                if os.path.exists(os.path.join(a.src, step, r, name)):
                    shutil.copyfile(os.path.join(a.src, step, r, name), os.path.join(a.dst, step, r, name))


if __name__ == "__main__":
    main()
