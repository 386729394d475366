"""The soak's timeline (soak.py): writers and the live replay run from the start; faults from 10%
to 70% of the run; then the writers pause until the daemon has drained the backlog the faults
left (its status counters and the ledger say so), write again for the judged window (to 90% of
the run, at least 15% of it): its files' latency is measured and the daemon's RSS and fds must be
flat across it; then every file must be compacted, the daemon stops cleanly and the tree, the
stores and the daemon's resource curve are checked. Every wait is for an event (a status line,
the ledger); the limits on them only catch a daemon that is stuck, so a loaded machine makes the
run longer, not red. The latency target is a check only with --enforce-latency (the bench)."""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time

from soak_lib import (Daemon, FAMILIES, Ledger, StoreRows, copy_nondump, fill_fs, leftovers, median, now,
                      percentile, rate_delay, step_dir, templates, tiny_ge, write_whole)

HERE = os.path.dirname(os.path.abspath(__file__))
# The longest wait for an event (the backlog drained, every file summarised) before the daemon is
# called stuck: far beyond any load seen (the hour's 23,000-file backlog drained in ~13 minutes
# at load 30, 2 cores), so that a slow machine never fails the run.
HANG_S = 1200.0


class Soak:
    def __init__(self, a, work, fs):
        self.a, self.work, self.fs = a, work, fs
        self.root = os.path.join(fs, "dump")
        self.live = os.path.join(fs, "live")
        self.bait = os.path.join(work, "bait")
        self.ledger = Ledger()
        self.stop_writing = threading.Event()
        self.may_write = threading.Event()  # cleared while the backlog the faults left drains
        self.may_write.set()
        self.problems, self.events = [], []
        self.samples = []  # (t, pid, rss_kb, fds)
        self.latency = []  # s, files closed after the faults stopped
        self.counts = {"fs_full_windows": 0, "overflow_bursts": 0, "symlink_swaps": 0}
        self.missing_since = {}
        self.quiet_from = float("inf")  # files closed after this are judged against the latency target
        self.drain_s = None

    def kill_daemon(self):
        d = getattr(self, "d", None)
        if d is not None and d.p is not None and d.p.poll() is None:
            d.p.kill()
            d.p.wait()

    # --- setup ---------------------------------------------------------------------------
    def setup(self):
        os.makedirs(os.path.join(self.root, "msit_ge_dump/flood"))
        for i in range(self.a.prefill_steps):  # an ATB step's shape, at a rank no writer uses
            for leaf in ("0_BlockLayer/0_LayerNormOperation/before", "0_BlockLayer/1_LinearOperation/after"):
                os.makedirs(os.path.join(self.root, "msit_dump_20260101_000000/tensors/7_200/%d" % i, leaf))
        os.makedirs(self.live)
        self.tmpl, gen = templates(self.a.dumpgen, self.work)
        self.keep = copy_nondump(gen, self.root)
        os.makedirs(self.bait)
        for i in range(3):  # dump-named files behind the symlinks: never to be touched
            name, data = tiny_ge(900000 + i)
            with open(os.path.join(self.bait, name), "wb") as f:
                f.write(data)
        self.bait_digest = self.digest_dir(self.bait)
        model = os.path.join(self.work, "model")
        subprocess.run([self.a.dumpgen, "model", "--chain", "llama", "--ops", "31", "--tokens", "2", "--rows", "8",
                        "--hidden", "64", "--noise", "1e-3", "--ge-dtype", "float32", "--reduced",
                        "MatMul=bfloat16", "--out", model, "--seed", "7", "--diverge-type", "MatMul",
                        "--diverge-nth", "2", "--diverge-scale", "0.05"], check=True, capture_output=True)
        self.model_ge = os.path.join(model, "msit_ge_dump")
        self.golden = os.path.join(self.work, "golden")
        shutil.copytree(os.path.join(model, "msit_fx_dump"), self.golden)
        self.conf = os.path.join(self.work, "watch.conf")
        self.write_conf(20)
        args = ["--config", self.conf, "--jobs", "2", "--golden", "%s=%s" % (self.live, self.golden),
                "--events", os.path.join(self.work, "events.jsonl"), self.root, self.live]
        self.d = Daemon(self.a.msit, args, os.path.join(self.work, "status.json"), os.path.join(self.work, "watch.log"))
        self.store_rows = StoreRows(self.root)

    def write_conf(self, settle_ms):
        with open(self.conf, "w") as f:
            f.write("settle_ms = %d\nrescan_interval_s = %d\n" % (settle_ms, self.a.rescan_interval_s))
            if self.a.max_watches_per_root:
                f.write("max_watches_per_root = %d\n" % self.a.max_watches_per_root)

    @staticmethod
    def digest_dir(d):
        out = {}
        for dd, _ds, fs in os.walk(d):
            for f in fs:
                with open(os.path.join(dd, f), "rb") as fh:
                    out[os.path.join(dd, f)] = hashlib.sha256(fh.read()).hexdigest()
        return out

    # --- the actors ------------------------------------------------------------------------
    def writer(self, rank):
        step, t0 = 0, now()
        while not self.stop_writing.is_set():
            fam = FAMILIES[(step + rank) % 3]
            d = os.path.join(self.root, step_dir(fam, rank, step))
            for rel, data in self.tmpl[fam]:
                self.may_write.wait()
                if self.stop_writing.is_set():
                    break
                path = os.path.join(d, rel)
                try:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                except OSError:
                    time.sleep(0.2)  # the disk is full: the model run waits too
                    continue
                write_whole(path, data, self.ledger)
                time.sleep(rate_delay(now() - t0, rank) / self.a.rate)
            step += 1

    def replay_live(self):
        r = subprocess.run(["python3", os.path.join(HERE, "live_replay.py"), self.model_ge, self.live],
                           capture_output=True)
        if r.returncode != 0:
            self.problems.append("live replay failed: %s" % r.stderr.decode()[-300:])

    def overflow(self):
        """The daemon stopped (SIGSTOP) while 17,000 files land: more events than its inotify
        queue holds (16,384 by default); after SIGCONT it must rescan."""
        d = os.path.join(self.root, "msit_ge_dump/flood")  # made before the daemon started: watched
        before = self.d.read_status().get("overflows", 0)
        self.d.p.send_signal(signal.SIGSTOP)
        try:
            base = self.counts["overflow_bursts"] * 100000
            for i in range(17000):
                name, data = tiny_ge(base + i)
                write_whole(os.path.join(d, name), data, self.ledger)
        finally:
            self.d.p.send_signal(signal.SIGCONT)
        self.counts["overflow_bursts"] += 1
        deadline = now() + 180  # a deadline for the event, generous: the rescan of 17,000 files under load
        while now() < deadline:  # the event: this instance counted the overflow
            st = self.d.read_status()
            if st.get("pid") == self.d.p.pid and st.get("overflows", 0) > before:
                self.counts["overflows_seen"] = self.counts.get("overflows_seen", 0) + 1
                return
            time.sleep(0.1)
        self.problems.append("no inotify overflow counted after a burst of 17,000 files into a stopped daemon")

    def swap_for_symlink(self):
        """A user moves a directory being compacted aside and puts a symlink to elsewhere in its place."""
        ge = os.path.join(self.root, "msit_ge_dump", "worldsize4_global_rank3")
        with self.ledger.lock:
            dirs = {os.path.dirname(p) for p in list(self.ledger.files) + list(self.ledger.done) if p.startswith(ge)}
        steps = sorted((int(os.path.basename(d)), d) for d in dirs if os.path.basename(d).isdigit()
                       and not os.path.islink(d) and os.path.isdir(d))
        if len(steps) < 2:
            return
        old = steps[-2][1]  # written whole, perhaps still being compacted (the last may be in progress)
        new = old + "_moved_%d" % self.counts["symlink_swaps"]
        with self.ledger.lock:
            os.rename(old, new)
        self.ledger.moved(old, new)
        os.symlink(self.bait, old)
        self.counts["symlink_swaps"] += 1

    def full_fs(self, seconds):
        ballast = os.path.join(self.fs, "ballast")
        fill_fs(ballast)
        self.counts["fs_full_windows"] += 1
        time.sleep(seconds)  # the window's length (the fault itself), not a wait for an outcome
        os.unlink(ballast)

    # --- checks ----------------------------------------------------------------------------
    def check_pass(self, final=False):
        """A raw file that is gone must have a committed row (the daemon commits, then removes).
        A file just moved by the symlink swap may be looked for under its old name once, so a
        miss counts only when it lasts 10 s, or at the end."""
        rows = self.store_rows.read(full=final)
        if rows is None:
            return
        t = now()
        with self.ledger.lock:
            items = list(self.ledger.files.items())
        for path, rec in items:
            if os.path.lexists(path):
                self.missing_since.pop(path, None)
                continue
            size = next((rows[a] for a in rec["aliases"] if a in rows), None)
            if size is None:
                first = self.missing_since.setdefault(path, t)
                if final or t - first > 10:
                    self.problems.append("LOST: %s is gone and no store has its row" % path)
                    with self.ledger.lock:
                        self.ledger.files.pop(path, None)
                continue
            self.missing_since.pop(path, None)
            if size != rec["size"]:
                self.problems.append("%s: stored size %d, written %d" % (path, size, rec["size"]))
            with self.ledger.lock:
                self.ledger.files.pop(path, None)
                self.ledger.done[path] = rec
            if rec["closed"] >= self.quiet_from:
                self.latency.append(t - rec["closed"])

    def sampler(self):
        while not self.finished.is_set():
            s = self.d.sample()
            if s:
                self.samples.append((now(), self.d.p.pid, s[0], s[1]))
            self.check_pass()
            self.finished.wait(1.0)

    # --- the run ---------------------------------------------------------------------------
    def run(self):
        self.setup()
        T, t0 = self.a.seconds, now()
        self.d.start()
        self.finished = threading.Event()
        threads = [threading.Thread(target=self.writer, args=(r,), daemon=True) for r in range(4)]
        threads.append(threading.Thread(target=self.replay_live, daemon=True))
        self.sampler_thread = threading.Thread(target=self.sampler, daemon=True)
        for th in threads + [self.sampler_thread]:
            th.start()
        self.timeline(t0, T)
        self.writing_stopped = now()
        self.stop_writing.set()
        self.may_write.set()
        for th in threads:
            th.join()
        return self.finish(t0, T)

    def timeline(self, t0, T):
        """Faults from 10% to 70% of the run: kill -9 once a minute, SIGHUP every 25 s, a full
        disk for 8 s every 70 s, a symlink swap every 45 s, an inotify overflow every 10 min."""
        nxt = {"kill": 0.1 * T + 35, "hup": 0.1 * T + 10, "full": 0.1 * T + 20, "swap": 0.1 * T + 5,
               "overflow": 0.1 * T + 50}
        every = {"kill": 60, "hup": 25, "full": 70, "swap": 45, "overflow": 600}
        settle = 20
        while now() - t0 < 0.7 * T:
            t = now() - t0
            for f in sorted(nxt, key=nxt.get):
                if t >= nxt[f]:
                    nxt[f] = t + every[f]
                    if f == "kill":
                        self.d.kill9()
                    elif f == "hup":
                        settle = 60 - settle
                        self.write_conf(settle)
                        self.d.hup()
                    elif f == "full":
                        self.full_fs(8)
                    elif f == "swap":
                        self.swap_for_symlink()
                    else:
                        self.overflow()
                    break
            time.sleep(0.2)  # the timeline's tick: faults happen at times, by design
        self.drain()
        end = max(t0 + 0.9 * T, now() + 0.15 * T)  # the judged window: at least 15% of the run
        while now() < end:
            time.sleep(0.5)

    def drained(self):
        """The event the judged window waits for: the instance running now reports nothing
        pending or in flight, and every file written is seen summarised."""
        st = self.d.read_status()
        with self.ledger.lock:
            left = len(self.ledger.files)
        return st.get("pid") == self.d.p.pid and st.get("pending") == 0 and st.get("in_flight") == 0 and left == 0

    def drain(self):
        """After the faults: the writers pause until the daemon has caught up with what the faults
        left (kills, full disk, overflow bursts); then the files of the judged window measure the
        daemon, not a backlog whose size depends on how loaded the machine was. How long it took
        is reported; only a backlog not drained within HANG_S (a daemon stuck) fails."""
        self.may_write.clear()
        t, limit = now(), HANG_S
        while now() - t < limit and not self.drained():
            time.sleep(0.5)  # a poll of the status file and the ledger (the checker updates it each second)
        self.drain_s = now() - t
        if not self.drained():
            with self.ledger.lock:
                left = len(self.ledger.files)
            self.problems.append("the backlog the faults left was not drained within %.0f s (%d files not compacted)"
                                 % (limit, left))
        self.quiet_from = now()
        self.may_write.set()

    def finish(self, t0, T):
        deadline = now() + HANG_S
        while now() < deadline:  # every recorded file summarised: the event we wait for
            with self.ledger.lock:
                left = len(self.ledger.files)
            if left == 0:
                break
            time.sleep(0.5)
        self.finished.set()
        self.sampler_thread.join()
        rc = self.d.stop()
        self.check_pass(final=True)
        with self.ledger.lock:
            for path in self.ledger.files:
                if os.path.lexists(path):
                    self.problems.append("not compacted by the end: %s" % path)
        if rc != 0:
            self.problems.append("watch exited with %s after SIGTERM" % rc)
        left = leftovers(self.fs)
        if left:
            self.problems.append("temps or claims left: %s" % left[:3])
        if self.digest_dir(self.bait) != self.bait_digest:
            self.problems.append("the bait behind a symlink was changed")
        for p, dg in self.keep.items():
            if not os.path.exists(p) or hashlib.sha256(open(p, "rb").read()).hexdigest() != dg:
                self.problems.append("a non-dump file was changed: %s" % p)
        events = os.path.join(self.work, "events.jsonl")
        n_events = sum(1 for _ in open(events)) if os.path.exists(events) else 0
        if n_events == 0:
            self.problems.append("the live golden compare reported no divergence")
        self.check_flat()
        lat = sorted(self.latency)
        over = sum(1 for x in lat if x > self.a.latency_target_s)
        if not lat:
            self.problems.append("no file was written in the judged window after the drain")
        elif over and self.a.enforce_latency:
            self.problems.append("after the faults, %d of %d files took over %.0f s (max %.1f s)"
                                 % (over, len(lat), self.a.latency_target_s, lat[-1]))
        report = {"seconds": round(now() - t0), "files_written": len(self.ledger.done) + len(self.ledger.files),
                  "files_compacted": len(self.ledger.done), "writes_refused_enospc": self.ledger.skipped,
                  "kills": self.d.kills, "reloads": self.d.hups, **self.counts,
                  "live_divergences": n_events, "drain_after_faults_s": round(self.drain_s or 0, 1),
                  "latency_after_faults_s": {"count": len(lat), "p50": round(percentile(lat, 0.5), 2),
                                             "p99": round(percentile(lat, 0.99), 2),
                                             "max": round(lat[-1], 2) if lat else 0,
                                             "target": self.a.latency_target_s, "over_target": over,
                                             "enforced": self.a.enforce_latency},
                  "rss_kib": self.flat_figures(2), "fds": self.flat_figures(3), "problems": self.problems[:20]}
        print(json.dumps(report))
        if self.a.json:
            with open(self.a.json, "w") as f:
                json.dump(report, f, indent=1)
        return not self.problems

    def steady(self, col):
        """The samples of the judged window (after the faults' backlog drained, plus 5 s of
        warm-up; the daemon is not killed after the faults), while the writers still ran: a
        backlog's pending entries are bounded but grow the RSS with its size, which is the
        machine's load, not a leak."""
        pid, start = self.d.p.pid, self.quiet_from + 5
        return [s[col] for s in self.samples if s[1] == pid and start <= s[0] <= self.writing_stopped]

    def flat_figures(self, col):
        xs = self.steady(col)
        if len(xs) < 6:
            return {"samples": len(xs)}
        k = max(3, len(xs) // 4)
        return {"samples": len(xs), "first": median(xs[:k]), "last": median(xs[-k:]), "max": max(xs)}

    def check_flat(self):
        for col, what in ((2, "RSS"), (3, "open fds")):
            f = self.flat_figures(col)
            if "last" not in f:
                self.problems.append("%s: too few samples after warm-up (%d)" % (what, f["samples"]))
            elif f["last"] > 1.10 * f["first"]:
                self.problems.append("%s grew after warm-up: %s -> %s" % (what, f["first"], f["last"]))
