#!/usr/bin/env python3
"""The replay driver of the live-divergence benches (bench/live_divergence.sh, _atb.sh): replays
a finished dump tree into the watched dir file by file, as a model dumping it would, and notes
when each file was closed and when each events-file line appeared.

  live_drive.py SRC DST PACE_MS EVENTS|- RESULT [GOLDEN_SRC GOLDEN_DST]

Order: tests/integration/live_replay_pair.py's files() (.txt/.json first, then per token the dump
files by their timestamp field). PACE_MS before each watched file (as a model computes).
GOLDEN_SRC GOLDEN_DST: the golden is replayed at the same time, the two streams interleaved by
progress (live_replay_pair.py's order: both end together, ties to the watched side), paced on
the watched side's files only (a second model running beside it at the same speed).
EVENTS: a thread polls the file every 2 ms (the latency's resolution); the run ends when it has
one line per token of the stream (or 60 s after the stream). `-`: no events; the run ends when
no raw file is left under DST (or 60 s after the stream).
RESULT (JSON): close time per file (its real path), events seen, first write, end of the
stream, done, number of watched files, raw files left.

  live_drive.py latencies EVENTS RESULT

One line per events line, tab-separated: TOKEN KIND OP CLOSE_MS END_MS. KIND is `last` for the stream's last
token with an event, else `next` (a token followed by another). CLOSE_MS: the diverging file's
close (or its golden counterpart's, when the golden was replayed too and closed later) -> the
line seen; END_MS: the end of the stream -> the line seen (negative: before the end).
"""
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))
from live_replay import token_of  # noqa: E402
from live_replay_pair import files, put  # noqa: E402

WAIT_AFTER_STREAM_S = 60


def raw_left(dst):
    return sum(1 for _, _, fs in os.walk(dst) for f in fs
               if not f.endswith((".txt", ".json")) and not f.startswith((".", "msit-summary.db")))


def poll_events(path, seen, stop):
    n = 0
    while not stop.is_set():
        try:
            with open(path) as f:
                lines = f.read().count("\n")
        except FileNotFoundError:
            lines = 0
        now = time.time()
        seen.extend([now] * (lines - n))
        n = max(n, lines)
        time.sleep(0.002)


def latencies(events, result):
    with open(events) as f:
        ev = [json.loads(line) for line in f]
    with open(result) as f:
        res = json.load(f)
    last = max(int(e["token"]) for e in ev) if ev else -1
    for e, seen in zip(ev, res["seen"]):
        closed = res["close"][os.path.realpath(e["my_path"].split(",")[0])]  # PATH,outputs,K
        # A golden replayed at the same time: from its counterpart's close if that came later.
        closed = max(closed, res["close"].get(os.path.realpath(e["golden_path"].split(",")[0]), closed))
        kind = "last" if int(e["token"]) == last else "next"
        print("%s\t%s\t%s\t%.0f\t%.0f" % (e["token"], kind, e["op"], (seen - closed) * 1000, (seen - res["end"]) * 1000))
    return 0


def main(argv):
    if argv[1] == "latencies":
        return latencies(argv[2], argv[3])
    src, dst, pace, events, result = argv[1], argv[2], float(argv[3]) / 1000, argv[4], argv[5]
    streams = [(src, dst)] + ([(argv[6], argv[7])] if len(argv) > 7 else [])
    dumps = []
    for s, (from_dir, to_dir) in enumerate(streams):
        other, d = files(from_dir)
        for rel in other:
            put(from_dir, to_dir, rel)
        dumps.append(d)
    # The i-th of n files of a stream at progress (i + 1) / n; ties: the watched side first.
    order = sorted(((i + 1) / len(d), s, rel) for s, d in enumerate(dumps) for i, rel in enumerate(d))
    seen, stop = [], threading.Event()
    if events != "-":
        threading.Thread(target=poll_events, args=(events, seen, stop), daemon=True).start()
    close, first = {}, time.time()
    for _, s, rel in order:
        if pace and s == 0:
            time.sleep(pace)
        from_dir, to_dir = streams[s]
        put(from_dir, to_dir, rel)
        close[os.path.realpath(os.path.join(to_dir, rel))] = time.time()
    end = time.time()
    deadline = end + WAIT_AFTER_STREAM_S
    if events != "-":
        want = len({token_of(r) for r in dumps[0]})
        while len(seen) < want and time.time() < deadline:
            time.sleep(0.01)
        stop.set()
    else:
        while raw_left(dst) and time.time() < deadline:
            time.sleep(0.005)
    done = time.time()
    with open(result, "w") as f:
        json.dump({"close": close, "seen": seen, "first": first, "end": end, "done": done, "files": len(dumps[0]),
                   "left": raw_left(dst)}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
