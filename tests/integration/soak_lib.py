"""The parts of the soak with faults (soak.py): the daemon under test, the 4 rank writers, the
faults, the continuous checker and the report (docs/benchmarks.md "Soak with faults")."""
import errno
import hashlib
import json
import math
import os
import shutil
import signal
import sqlite3
import subprocess
import threading
import time

import daemon_dumps

FAMILIES = ("ge", "fx", "atb")
LEFTOVER = (".msit-tmp.", ".msit-claim.")


def now():
    return time.monotonic()


class Daemon:
    """`watch` as systemd runs it: restarted at once after a kill."""

    def __init__(self, msit, args, status, log):
        self.msit, self.args, self.status, self.log = msit, args, status, log
        self.p, self.started_at, self.kills, self.hups = None, 0.0, 0, 0

    def start(self):
        with open(self.log, "ab") as lf:
            self.p = subprocess.Popen([self.msit, "watch", "--json-status", self.status] + self.args,
                                      stdout=lf, stderr=lf)
        self.started_at = now()
        deadline = now() + 120
        while now() < deadline:  # its own status line: the new instance has started
            s = self.read_status()
            if s.get("pid") == self.p.pid and s.get("state") == "running":
                return
            if self.p.poll() is not None:
                raise RuntimeError("watch exited with %s at start" % self.p.returncode)
            time.sleep(0.05)
        raise RuntimeError("watch did not report running within 120 s")

    def read_status(self):
        try:
            with open(self.status) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def kill9(self):
        self.p.kill()
        self.p.wait()
        self.kills += 1
        self.start()

    def hup(self):
        self.p.send_signal(signal.SIGHUP)
        self.hups += 1

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        return self.p.wait(timeout=120)

    def sample(self):
        pid = self.p.pid
        try:
            with open("/proc/%d/status" % pid) as f:
                rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
            return rss, len(os.listdir("/proc/%d/fd" % pid))
        except (OSError, StopIteration):
            return None


def templates(dumpgen, work):
    """{family: [(path below a step directory, bytes)]} and the non-dump files of each root."""
    gen = os.path.join(work, "gen")
    subprocess.run([dumpgen, "tree", "--out", gen + "/ge", "--layout", "ge-rank", "--files", "6", "--seed", "5",
                    "--dtypes", "float16,float32", "--max-elements", "4096"], check=True, capture_output=True)
    subprocess.run([dumpgen, "tree", "--out", gen + "/fx", "--layout", "fx-rank", "--files", "6", "--seed", "6",
                    "--dtypes", "float16,float32", "--max-elements", "4096"], check=True, capture_output=True)
    subprocess.run([dumpgen, "atb", "--out", gen + "/atb", "--layers", "1", "--tokens", "1", "--hidden", "16",
                    "--rows", "2"], check=True, capture_output=True)
    out = {}
    for fam, top in (("ge", gen + "/ge/ge-rank"), ("fx", gen + "/fx/fx-rank"),
                     ("atb", gen + "/atb/atb/msit_dump_20260101_000000/tensors/0_200/0")):
        files = []
        for d, _ds, fs in os.walk(top):
            for f in sorted(fs):
                p = os.path.join(d, f)
                if f.endswith((".txt", ".json")):
                    continue
                with open(p, "rb") as fh:
                    files.append((os.path.relpath(p, top) if fam == "atb" else f, fh.read()))
        out[fam] = files
    return out, gen


def step_dir(fam, rank, step):
    if fam == "ge":
        return "msit_ge_dump/worldsize4_global_rank%d/20250601080000/%d/graph_1_0/1/%d" % (rank, rank, step)
    if fam == "fx":
        return "msit_fx_dump/worldsize4_global_rank%d/gm_20250601080000123456_dump/%d" % (rank, step)
    return "msit_dump_20260101_000000/tensors/%d_200/%d" % (rank, step)


class Ledger:
    """Every raw file written whole: its digest, size, close time and every path it had."""

    def __init__(self):
        self.lock = threading.Lock()
        self.files = {}      # current path -> record
        self.done = {}       # path -> record, once seen summarised
        self.skipped = 0     # writes that hit ENOSPC (removed by the writer, never recorded)

    def add(self, path, data):
        rec = {"sha": hashlib.sha256(data).hexdigest(), "size": len(data), "closed": now(), "aliases": [path]}
        with self.lock:
            self.files[path] = rec

    def moved(self, old_dir, new_dir):
        with self.lock:
            for p in [p for p in self.files if p.startswith(old_dir + "/")]:
                rec = self.files.pop(p)
                q = new_dir + p[len(old_dir):]
                rec["aliases"].append(q)
                self.files[q] = rec


def write_whole(path, data, ledger):
    """A dump writer: two writes and a close; on ENOSPC the partial file is removed."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EEXIST):
            ledger.skipped += 1
            return False
        raise
    try:
        half = len(data) // 2
        for part in (data[:half], data[half:]):
            view = memoryview(part)
            while view:  # a write near a full disk can be short without an error
                view = view[os.write(fd, view):]
    except OSError as e:
        os.close(fd)
        os.unlink(path)
        if e.errno != errno.ENOSPC:
            raise
        ledger.skipped += 1
        return False
    os.close(fd)
    ledger.add(path, data)
    return True


class StoreRows:
    """{absolute raw path: size} of every committed row of the stores under ROOT, read
    incrementally: rows are only ever inserted (ids grow), so a pass reads the rows past the last
    id it saw, and the checker's CPU does not grow with the hour's rows (a full read each second
    took a core from the daemon it measures). Stores sit at the dump homes (docs/store.md), the
    root's children; a store deeper down would be missed, which shows as a false LOST, never as
    a hidden loss."""

    def __init__(self, root):
        self.root, self.rows, self.last_id = root, {}, {}

    def stores(self):
        for d in [self.root] + [e.path for e in os.scandir(self.root) if e.is_dir(follow_symlinks=False)]:
            if os.path.isfile(os.path.join(d, "msit-summary.db")):
                yield d

    def read(self, full=False):
        """The rows; None when a store cannot be read now (busy, or not made yet). FULL: read
        every row again (the final check)."""
        if full:
            self.rows, self.last_id = {}, {}
        for d in self.stores():
            try:
                con = sqlite3.connect("file:%s?mode=ro" % os.path.join(d, "msit-summary.db"), uri=True, timeout=5)
                try:
                    q = ("SELECT f.id, iif(d.path='', f.name, d.path || '/' || f.name), f.size_bytes "
                         "FROM files f JOIN dirs d ON d.id=f.dir_id WHERE f.id > ? ORDER BY f.id")
                    for fid, rel, size in con.execute(q, (self.last_id.get(d, 0),)):
                        self.rows[os.path.normpath(os.path.join(d, rel))] = size
                        self.last_id[d] = fid
                finally:
                    con.close()
            except sqlite3.Error:
                return None
        return self.rows


def percentile(xs, q):
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def median(xs):
    return percentile(xs, 0.5)


def rate_delay(t, rank):
    """Changing rates: each rank's pause between files swings between 10 and 70 ms, and every
    ~50 s a rank pauses for a few seconds (a model between steps)."""
    phase = math.sin(2 * math.pi * t / 40 + rank)
    if math.sin(2 * math.pi * t / 50 + rank * 1.3) > 0.97:
        return 2.0
    return 0.01 + 0.03 * (1 + phase)


def fill_fs(path, stop_at_bytes=None):
    """A user's ballast file that takes every free byte of the filesystem (a full disk)."""
    chunk = b"\0" * (1 << 20)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        while True:
            os.write(fd, chunk)
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise
    finally:
        os.close(fd)


def leftovers(root):
    return [os.path.join(d, f) for d, _ds, fs in os.walk(root) for f in fs if f.startswith(LEFTOVER)]


def tiny_ge(i):
    return daemon_dumps.ge_name(i, op="Flood"), daemon_dumps.ge_dump_bytes(elems=8, seed=i % 7)


def copy_nondump(gen, root):
    """The non-dump files of each dump root (graph text, ATB topology): never to be touched."""
    keep = {}
    pairs = [(gen + "/ge/ge-rank/msit_ge_dump", root + "/msit_ge_dump"),
             (gen + "/atb/atb/msit_dump_20260101_000000", root + "/msit_dump_20260101_000000")]
    for src, dst in pairs:
        for d, _ds, fs in os.walk(src):
            for f in fs:
                if f.endswith((".txt", ".json")):
                    s = os.path.join(d, f)
                    t = os.path.join(dst, os.path.relpath(s, src))
                    os.makedirs(os.path.dirname(t), exist_ok=True)
                    shutil.copyfile(s, t)
                    with open(t, "rb") as fh:
                        keep[t] = hashlib.sha256(fh.read()).hexdigest()
    return keep


from soak_run import Soak  # noqa: E402,F401  (the run itself, in its own file)
