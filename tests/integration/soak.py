#!/usr/bin/env python3
"""Soak with faults (docs/benchmarks.md "Soak with faults"): 4 ranks dump GE, FX and ATB trees at
changing rates into a watched root on a small tmpfs while `watch` is killed -9 about once a
minute and restarted, reloaded with SIGHUP, starved by full-filesystem windows, stopped into an
inotify queue overflow, its directories swapped for symlinks, and a live golden compare runs on
a second root. Checked all along and at the end: no raw file lost (gone only with a committed
summary), RSS and open fds flat once the faults' backlog has drained (within 10%), no temp or
claim left, every file written compacted by the end, the bait behind the symlinks untouched, at
least one live divergence reported. The latency of files written after the faults
(once the backlog they left has drained) is measured against the target and reported; it fails
the run only with --enforce-latency (a bench on a machine whose cores it has).
Usage: soak.py MSIT DUMPGEN [--seconds 180] [--work DIR] [--json OUT] [--latency-target-s 15]
       [--enforce-latency] [--rate 1.0] [--fs-mib 256]
       [--max-watches-per-root N] [--prefill-steps N]
       [--rescan-interval-s 5]
Exit 0 when every check held, 1 otherwise, 77 when no tmpfs can be mounted (not root)."""
import argparse
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak_lib  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("msit")
    p.add_argument("dumpgen")
    p.add_argument("--seconds", type=float, default=180)
    p.add_argument("--work")
    p.add_argument("--json")
    p.add_argument("--latency-target-s", type=float, default=15)
    p.add_argument("--enforce-latency", action="store_true",
                   help="fail when a file of the judged window misses the latency target (else it is reported)")
    p.add_argument("--fs-mib", type=int, default=256, help="size of the tmpfs holding the watched roots")
    p.add_argument("--rate", type=float, default=1.0, help="scales every rank's write rate")
    p.add_argument("--max-watches-per-root", type=int, default=0,
                   help="the daemon's max_watches_per_root (0: its default); a low cap reaches in minutes the "
                        "degraded state (directories found by rescans only) an hour's run reaches at ~65,000 directories")
    p.add_argument("--rescan-interval-s", type=int, default=5,
                   help="the daemon's rescan_interval_s (a full walk of the tree every that many seconds)")
    p.add_argument("--prefill-steps", type=int, default=0,
                   help="empty ATB steps (6 directories each) made in the watched root before the daemon starts: the "
                        "directory count an hour's run reaches (~65,000 at --rate 0.5 after 33 min), from the start")
    a = p.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="msit-soak-")
    os.makedirs(work, exist_ok=True)
    fs = os.path.join(work, "fs")
    os.makedirs(fs, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm" % a.fs_mib, "tmpfs", fs],
                      capture_output=True).returncode != 0:
        print("soak: cannot mount a tmpfs (needs root): skipped")
        sys.exit(77)
    s = soak_lib.Soak(a, work, fs)
    try:
        ok = s.run()
    finally:
        s.kill_daemon()  # after a failure of the script itself: nothing of ours keeps running
        subprocess.run(["umount", "-l", fs], capture_output=True)
    if not a.work and ok:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
