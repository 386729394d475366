#!/usr/bin/env python3
"""Crash-state exploration (docs/safety.md "Crash states"): records the file-system operations
of one `compact` or `watch` scenario with strace, builds every crash state the prefix, ext4 and
weak models allow (crash_states.py), materialises each in a scratch directory, runs recovery as
a user would (the same `compact` again, or `watch` starting) and checks it (crash_check.py).
Usage: crash_explore.py MSIT DUMPGEN --scenario NAME [--max-states N] [--models prefix,ext4,weak]
       [--work DIR] [--json OUT] [--keep-failed]"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crash_check  # noqa: E402
import crash_states  # noqa: E402
import crash_trace  # noqa: E402

SCENARIOS = {
    "compact-store": (["compact", "-j", "2"], "ge,fx,atb"),
    "compact-json": (["compact", "-j", "2", "--summary-format", "json"], "ge,fx,atb"),
    "compact-msit": (["compact", "-j", "2", "--summary-format", "msit"], "ge,fx"),
    "compact-archive": (["compact", "-j", "2", "--archive"], "ge,fx,atb"),
    "compact-msprobe": (["compact", "-j", "2"], "msprobe"),
    "watch-store": (["watch", "-j", "2", "--settle-ms", "20"], "ge,fx,atb"),
    "watch-json": (["watch", "-j", "2", "--settle-ms", "20", "--summary-format", "json"], "ge,fx,atb"),
    "watch-msprobe": (["watch", "-j", "2", "--settle-ms", "20"], "msprobe"),
    "watch-archive": (["watch", "-j", "2", "--settle-ms", "20", "--archive"], "ge,fx,atb"),
}


def build_tree(dumpgen, dest, families, files):
    """A small GE + FX + ATB tree under DEST (float dtypes only: msit's _min_max has no complex)."""
    tmp = dest + ".gen"
    if "ge" in families:
        subprocess.run([dumpgen, "tree", "--out", tmp + "/ge", "--layout", "ge-rank", "--files", str(files),
                        "--seed", "43", "--dtypes", "float16,float32", "--max-elements", "2048"], check=True, capture_output=True)
        shutil.copytree(tmp + "/ge/ge-rank", dest + "/ge", dirs_exist_ok=True)
    if "fx" in families:
        subprocess.run([dumpgen, "tree", "--out", tmp + "/fx", "--layout", "fx-rank", "--files", str(files),
                        "--seed", "44", "--dtypes", "float16,float32", "--max-elements", "2048"], check=True, capture_output=True)
        shutil.copytree(tmp + "/fx/fx-rank", dest + "/fx", dirs_exist_ok=True)
    if "atb" in families:
        subprocess.run([dumpgen, "atb", "--out", tmp + "/atb", "--layers", "1", "--tokens", "1", "--hidden", "16",
                        "--rows", "2"], check=True, capture_output=True)
        shutil.copytree(tmp + "/atb/atb", dest + "/atb", dirs_exist_ok=True)
    if "msprobe" in families:  # an msProbe PyTorch tensor dump: dump.json + dump_tensor_data/*.pt
        # 6 ops a rank (26 tensor files in all); fewer for a reduced run's smaller tree (--files 3)
        subprocess.run([dumpgen, "msprobe", "--out", tmp + "/msprobe", "--framework", "pytorch", "--task", "tensor",
                        "--steps", "1", "--ranks", "2", "--ops", str(min(6, files)), "--hidden", "16", "--rows", "4"],
                       check=True, capture_output=True)
        shutil.copytree(tmp + "/msprobe/npu", dest + "/msprobe", dirs_exist_ok=True)
    shutil.rmtree(tmp)


def snapshot(root):
    files, dirs, contents = {}, set(), {}
    for d, ds, fs in os.walk(root):
        rd = os.path.relpath(d, root)
        dirs.add("" if rd == "." else rd)
        for f in fs:
            rel = os.path.relpath(os.path.join(d, f), root)
            with open(os.path.join(d, f), "rb") as fh:
                data = fh.read()
            files[rel] = len(files) + 1
            contents[files[rel]] = data
    return files, dirs, contents


def wait_status(status, pred, timeout, proc=None):
    end = time.time() + timeout
    while time.time() < end:
        if proc is not None and proc.poll() is not None:
            return None
        try:
            with open(status) as f:
                s = json.load(f)
            if pred(s):
                return s
        except (OSError, ValueError):
            pass
        time.sleep(0.02)  # a poll interval, not an assumption about how long anything takes
    return None


def idle(s):
    return s.get("state") == "running" and s.get("pending") == 0 and s.get("in_flight") == 0


def run_watch(msit, args, roots, status, log, until=idle, timeout=120, env=None):
    """`watch` of ROOTS until UNTIL holds for its status file, then SIGTERM; its exit status."""
    if os.path.exists(status):
        os.unlink(status)
    roots = [roots] if isinstance(roots, str) else roots
    with open(log, "ab") as lf:
        p = subprocess.Popen([msit] + args + ["--json-status", status] + roots, stdout=lf, stderr=lf, env=env)
    s = wait_status(status, until, timeout, p)
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    return rc if s is not None else ("no idle status within %d s (exit %s)" % (timeout, rc))


def compacted(n):
    """A status predicate: N raw files compacted (or found summarised) and nothing left to do.
    A status file written before the daemon saw the latest files also says pending 0, so
    idleness alone proves nothing while a writer is adding files (the count does)."""
    return lambda s: idle(s) and s.get("files_compacted", 0) + s.get("verified_existing", 0) >= n


def write_while_watched(msit, args, src, root, work):
    """The recorded part of a watch scenario: `watch` runs while a writer puts SRC's files into
    ROOT the way a careful dump writer does (write NAME.part, fsync, rename, fsync the directory),
    so every raw file in any crash state is whole; waits until all are compacted (exit 3 when
    they are not: a recording that ends with raw files left explores nothing of the daemon)."""
    status, log = os.path.join(work, "rec-status.json"), os.path.join(work, "rec-watch.log")
    with open(log, "ab") as lf:
        p = subprocess.Popen([msit] + args + ["--json-status", status, root], stdout=lf, stderr=lf)
    wait_status(status, lambda s: s.get("state") == "running", 60, p)
    n = raws = 0
    for d, ds, fs in os.walk(src):
        ds.sort()
        rd = os.path.relpath(d, src)
        target = os.path.normpath(os.path.join(root, rd))
        if not os.path.isdir(target):
            os.makedirs(target)
            fd = os.open(os.path.dirname(target), os.O_RDONLY | os.O_DIRECTORY)
            os.fsync(fd)
            os.close(fd)
        for f in sorted(fs):
            with open(os.path.join(d, f), "rb") as fh:
                data = fh.read()
            part = os.path.join(target, "." + f + ".part")
            fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, data[: len(data) // 2])
            os.write(fd, data[len(data) // 2:])
            os.fsync(fd)
            os.close(fd)
            os.rename(part, os.path.join(target, f))
            dfd = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
            os.fsync(dfd)
            os.close(dfd)
            n += 1
            raws += crash_check.is_raw(os.path.relpath(os.path.join(target, f), root))
            if n % 5 == 0:  # let the daemon catch up now and then: other interleavings
                wait_status(status, compacted(raws), 60, p)
    done = wait_status(status, compacted(raws), 300, p)
    p.send_signal(signal.SIGTERM)
    rc = p.wait()
    if done is None:
        print("the recorded watch did not compact the %d raw files written (see %s)" % (raws, log), file=sys.stderr)
        return 3
    return rc


def record(msit, sc, tree, work):
    args, _fam = SCENARIOS[sc]
    run = os.path.join(work, "rec")
    trace = os.path.join(work, "trace.txt")
    if args[0] == "compact":
        shutil.copytree(tree, run)
        cmd = [msit] + args + [run]
    else:
        os.makedirs(run)
        cmd = [sys.executable, os.path.abspath(__file__), "--write-while-watched", msit, tree, run, work,
               "--scenario", sc]
    r = subprocess.run(["strace"] + crash_trace.STRACE_ARGS + ["-o", trace, "--"] + cmd,
                       capture_output=True, timeout=600)
    if r.returncode != 0:
        sys.exit("recording failed (%d): %s" % (r.returncode, r.stderr.decode()[-2000:]))
    return run, trace


def golden_summaries(msit, sc, tree, work):
    args, _ = SCENARIOS[sc]
    g = os.path.join(work, "golden")
    shutil.copytree(tree, g)
    if args[0] == "compact":
        subprocess.run([msit] + args + [g], capture_output=True, timeout=300)
    else:
        run_watch(msit, args, g, os.path.join(work, "golden-status.json"), os.path.join(work, "golden.log"))
    got, _ = crash_check.summaries(g)
    return {k: v[0] for k, v in got.items()}


def arrivals(ops, originals, watch):
    """Raw file -> index of the op that put it under its name (None: present from the start)."""
    out = {rel: None for rel in originals}
    if watch:
        for i, op in enumerate(ops):
            if op.kind == "rename" and op.dst in originals and os.path.basename(op.path).endswith(".part"):
                out[op.dst] = i
    return out


def op_story(ops, k, dropped, context=10):
    lines = ["  crash after op %d of %d" % (k, len(ops))]
    for i in range(max(0, k - context), k):
        lines.append("  %5d %s %s" % (i, "LOST" if i in dropped else "    ", ops[i].describe()))
    early = sorted(i for i in dropped if i < k - context)
    for i in early[:12]:
        lines.append("  %5d LOST %s" % (i, ops[i].describe()))
    if len(early) > 12:
        lines.append("  ... and %d more lost ops before" % (len(early) - 12))
    return "\n".join(lines)


def recover(msit, sc, roots, work):
    """Recovery as a user runs it, over every state of a batch at once: one `compact` of all
    the trees (each its own tree, lock and stores), or one `watch` of all of them as roots."""
    args, _ = SCENARIOS[sc]
    if args[0] == "compact":
        r = subprocess.run([msit] + args + roots, capture_output=True, timeout=600)
        return r.returncode, (r.stdout + r.stderr).decode(errors="replace")[-1500:]
    log = os.path.join(work, "recover.log")
    if os.path.exists(log):
        os.unlink(log)
    rc = run_watch(msit, args, roots, os.path.join(work, "recover-status.json"), log)
    with open(log, errors="replace") as f:
        return rc, f.read()[-1500:]


def check_batch(a, ctx, batch, work):
    """Materialises BATCH's states side by side, recovers them in one run and checks each;
    when that run fails, each state is done again on its own to say which failed.
    Returns [(state, problems)]."""
    base = os.path.join(work, "batch")
    if os.path.exists(base):
        shutil.rmtree(base)
    roots, befores = [], []
    for j, (m, k, d) in enumerate(batch):
        r = os.path.join(base, "s%d" % j)
        ctx["rep"].state(k, d).write_out(r)
        roots.append(r)
        befores.append({rel: crash_check.file_digest(p) for rel, p in crash_check.walk(r)})
    rc, out = recover(a.msit, a.scenario, roots, work)
    if rc != 0 and len(batch) > 1:
        return [res for st in batch for res in check_batch(a, ctx, [st], work)]
    restored = crash_check.restored_all(a.msit, base) if ctx["archive"] else {}
    results = []
    for j, (m, k, d) in enumerate(batch):
        prefix = "s%d/" % j
        mine = {rel[len(prefix):]: b for rel, b in restored.items() if rel.startswith(prefix)}
        arrived = {r for r, i in ctx["arrive"].items() if i is None or (i < k and i not in d)}
        problems = crash_check.check_state(roots[j], befores[j], ctx["originals"], ctx["golden"], arrived,
                                           ctx["archive"], mine)
        if rc != 0:
            problems.append("recovery exited %s: %s" % (rc, out.strip().splitlines()[-3:] if out else ""))
        left = crash_check.unfinished(roots[j], ctx["originals"], arrived)
        if left and not problems:
            problems.append("recovery left %d raw files uncompacted, e.g. %s" % (len(left), left[0]))
        if problems and a.keep_failed:
            shutil.copytree(roots[j], os.path.join(work, "failed-%d-%s" % (k, m)), dirs_exist_ok=True)
        results.append(((m, k, d), problems))
    return results


def verify_recording(final, run, originals):
    """The recording must replay to the tree the recorded run left (names and bytes; a -shm
    file's bytes are written through a mapping strace does not see), with every raw file
    compacted: else its crash states are not the run's, or hold nothing of the compaction."""
    real = {rel: p for rel, p in crash_check.walk(run)}
    diffs = ["only in the replay: %s" % n for n in sorted(set(final.names) - set(real))]
    diffs += ["not in the replay: %s" % n for n in sorted(set(real) - set(final.names))]
    for n in sorted(set(real) & set(final.names)):
        with open(real[n], "rb") as f:
            if not n.endswith("-shm") and f.read() != bytes(final.data.get(final.names[n], b"")):
                diffs.append("other bytes in the replay: %s" % n)
    diffs += ["the recorded run left a raw file: %s" % n for n in sorted(set(final.names) & set(originals))]
    if diffs:
        sys.exit("the recording does not show the run (%d differences):\n  %s" % (len(diffs), "\n  ".join(diffs[:20])))


def checker_selftest(rep, ops, originals, golden, archive, msit, work):
    """The checker must see a loss: the final state (every raw file compacted, verify_recording())
    less its summaries must show every raw file lost, and a changed user file be seen."""
    d = os.path.join(work, "selftest")
    if os.path.exists(d):
        shutil.rmtree(d)
    rep.state(len(ops)).write_out(d)
    before = {rel: crash_check.file_digest(p) for rel, p in crash_check.walk(d)}
    for rel, p in crash_check.walk(d):
        b = os.path.basename(rel)
        if b.startswith(crash_check.STORE) or b.endswith((".summary.json", "_min_max.npy", "_min_max.npz", ".zst")):
            os.unlink(p)
        elif not crash_check.is_raw(rel) and b.endswith((".json", ".txt")):
            with open(p, "ab") as f:
                f.write(b"x")
    problems = crash_check.check_state(d, before, originals, golden, set(originals), archive,
                                       crash_check.restored_all(msit, d) if archive else {})
    shutil.rmtree(d)
    lost = {rel for rel in originals if any(p.startswith("LOST") and " %s " % rel in p + " " for p in problems)}
    if lost != set(originals) or not any("not a dump" in p for p in problems):
        sys.exit("checker self-test failed: of %d raw files whose summaries were removed, %d were seen lost; "
                 "a changed user file %s: %s" % (len(originals), len(lost),
                                                 "seen" if any("not a dump" in p for p in problems) else "unseen",
                                                 problems[:10]))


def choose(states, limit):
    """At most LIMIT states, spread evenly, every model kept (a deterministic sample)."""
    if limit is None or len(states) <= limit:
        return states
    by_model = {}
    for s in states:
        by_model.setdefault(s[0], []).append(s)
    share = max(1, limit // len(by_model))
    out = []
    for m, ss in by_model.items():
        step = len(ss) / min(share, len(ss))
        out += [ss[int(i * step)] for i in range(min(share, len(ss)))]
    return out


def explore(a):
    # States live in memory (tmpfs) when it can: recovery's fsyncs then cost nothing, and what a
    # state holds does not depend on where it is materialised.
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    work = a.work or tempfile.mkdtemp(prefix="msit-crash-", dir=shm)
    if a.work and os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work, exist_ok=True)
    args, families = SCENARIOS[a.scenario]
    watch = args[0] == "watch"
    tree = os.path.join(work, "tree")
    build_tree(a.dumpgen, tree, families, a.files)
    files, dirs, contents = snapshot(tree)
    originals = {rel: contents[ino] for rel, ino in files.items() if crash_check.is_raw(rel)}
    golden = golden_summaries(a.msit, a.scenario, tree, work)
    missing = [r for r in originals if r not in golden]
    if missing:
        sys.exit("a clean run left %d raw files unsummarised, e.g. %s" % (len(missing), missing[:3]))
    run, trace = record(a.msit, a.scenario, tree, work)
    if watch:
        base = crash_states.Tree({}, set(), {})
        ops = crash_trace.record_ops(trace, run, {}, set())
    else:
        base = crash_states.Tree(files, dirs, contents)
        ops = crash_trace.record_ops(trace, run, files, dirs)
    arrive = arrivals(ops, originals, watch)
    models = a.models.split(",")
    t0 = time.time()
    points = None
    if a.points:  # evenly spread crash points, the last one always (a reduced run)
        points = {len(ops)} | {int(i * len(ops) / a.points) for i in range(a.points)}
    cands = crash_states.candidates(ops, models, points)
    n_cands = len(cands)
    if a.max_states is not None and len(cands) > 3 * a.max_states:
        cands = choose(cands, 3 * a.max_states)  # a reduced run builds a sample only
    states = [(m, k, d) for m, k, d, _t in crash_states.enumerate_states(ops, base, cands)]
    gen_s = time.time() - t0
    counts = {m: sum(1 for s in states if s[0] == m) for m in models}
    chosen = choose(states, a.max_states)
    rep = crash_states.Replayer(base, ops)
    verify_recording(rep.state(len(ops)), run, originals)
    checker_selftest(rep, ops, originals, golden, "--archive" in args, a.msit, work)
    ctx = {"rep": rep, "arrive": arrive, "originals": originals, "golden": golden, "archive": "--archive" in args}
    vulns, t1 = [], time.time()
    size = 8 if watch else 16
    for i in range(0, len(chosen), size):
        for (m, k, d), problems in check_batch(a, ctx, chosen[i:i + size], work):
            if not problems:
                continue
            vulns.append({"model": m, "crash_point": k, "lost_ops": sorted(d), "problems": problems[:6],
                          "ops": op_story(ops, k, d)})
            print("VULNERABILITY (%s, crash after op %d, %d ops lost):\n  %s\n%s" %
                  (m, k, len(d), "\n  ".join(problems[:6]), op_story(ops, k, d)), flush=True)
    report = {"scenario": a.scenario, "ops": len(ops), "raw_files": len(originals),
              "candidates": n_cands, "states_built": len(cands), "states_by_model": counts,
              "states_distinct": len(states), "states_checked": len(chosen),
              "vulnerabilities": len(vulns), "generate_s": round(gen_s, 1),
              "check_s": round(time.time() - t1, 1), "work": work}
    print(json.dumps(report), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(report, details=vulns), f, indent=1)
    if not a.work and not vulns:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if vulns else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--write-while-watched":
        msit, src, root, work = sys.argv[2:6]
        sc = sys.argv[sys.argv.index("--scenario") + 1]
        sys.exit(write_while_watched(msit, SCENARIOS[sc][0], src, root, work))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("msit")
    p.add_argument("dumpgen")
    p.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    p.add_argument("--models", default="prefix,ext4,weak")
    p.add_argument("--max-states", type=int)
    p.add_argument("--points", type=int, help="crash points to look at (default: after every op)")
    p.add_argument("--files", type=int, default=8, help="GE and FX raw files each (ATB adds 14)")
    p.add_argument("--work")
    p.add_argument("--json")
    p.add_argument("--keep-failed", action="store_true")
    sys.exit(explore(p.parse_args()))


if __name__ == "__main__":
    main()
