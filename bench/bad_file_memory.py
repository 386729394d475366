#!/usr/bin/env python3
"""Daemon memory per bad file (docs/benchmarks.md "Daemon memory per bad file"): `watch` of a
root into which BATCHES x PER files with a corrupt GE header are written, each batch once the
previous one is all counted as failed; prints VmRSS after each batch.
Usage: bench/bad_file_memory.py MSIT [BATCHES=6] [PER=10000] [WORK_DIR]"""
import json
import os
import shutil
import struct
import subprocess
import sys
import time

msit = sys.argv[1]
batches = int(sys.argv[2]) if len(sys.argv) > 2 else 6
per = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
w = sys.argv[4] if len(sys.argv) > 4 else "/dev/shm/msit-bad-file-memory"
shutil.rmtree(w, ignore_errors=True)
os.makedirs(w + "/msit_ge_dump/flood")
conf = w + ".conf"
open(conf, "w").write("max_watches_per_root = 40\nrescan_interval_s = 30\n")
st = w + ".status"
p = subprocess.Popen([msit, "watch", "--config", conf, "--settle-ms", "20", "--summary-format", "json",
                      "--json-status", st, w], stdout=open(w + ".log", "w"), stderr=subprocess.STDOUT)
def status():
    try: return json.load(open(st))
    except Exception: return {}
def rss():
    return int([l for l in open("/proc/%d/status" % p.pid) if l.startswith("VmRSS")][0].split()[1])
while status().get("state") != "running": time.sleep(0.1)
print("start", rss(), flush=True)
junk = struct.pack("<Q", 16) + b"\xff" * 48
n = 0
for b in range(batches):
    for i in range(per):
        with open(os.path.join(w, "msit_ge_dump/flood", "Add.Junk_%d.%d.6.1706596912100000" % (n, n)), "wb") as f:
            f.write(junk)
        n += 1
    t = time.time()
    while status().get("files_failed", 0) < n and time.time() - t < 1200: time.sleep(0.5)
    s = status()
    print("batch", b, "files", n, "failed", s.get("files_failed"), "remembered", s.get("bad_files_remembered"),
          "pending", s.get("pending"), "rss_kib", rss(), flush=True)
p.terminate(); p.wait()
shutil.rmtree(w, ignore_errors=True)
