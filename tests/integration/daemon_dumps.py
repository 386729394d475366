#!/usr/bin/env python3
"""Writes small valid GE dump files (and npy files) for the watch-daemon tests.

A GE dump is: uint64 LE header length H, a DumpData protobuf of H bytes (one fp16 input and
one fp16 output, docs/formats/ge-dump.md §3), then the payloads. Used as a module or as a command:
  daemon_dumps.py burst DIR N          N files spread over DIR/{0..9}/ as fast as possible
  daemon_dumps.py slow PATH SECONDS [DONE]    one file written in pieces over SECONDS (fd kept
                                              open); DONE is created once the file is closed
  daemon_dumps.py pieces PATH SECONDS [DONE]  same, but reopening and closing for every piece;
                                              DONE is created after the last piece
  daemon_dumps.py rename PATH          written under a temp name, then renamed into place
  daemon_dumps.py one PATH [ELEMS]     one file
  daemon_dumps.py check DIR            every .summary.json parses; prints counts as JSON
"""
import json
import os
import struct
import sys
import time


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num, wire, payload):
    key = _varint((num << 3) | wire)
    if wire == 2:
        return key + _varint(len(payload)) + payload
    return key + payload


def _shape(dims):
    packed = b"".join(_varint(d) for d in dims)
    return _field(1, 2, packed)


def _tensor(size, dims, shape_field, size_field, orig_field):
    # data_type=DT_FLOAT16 (proto 2), format=ND (2)
    return (_field(1, 0, _varint(2)) + _field(2, 0, _varint(2)) +
            _field(shape_field, 2, _shape(dims)) + _field(size_field, 0, _varint(size)) +
            _field(orig_field, 2, _shape(dims)))


def ge_dump_bytes(elems=6, seed=0):
    size = elems * 2
    header = (_field(1, 2, b"2.0") + _field(2, 0, _varint(1706596912161941)) +
              _field(3, 2, _tensor(size, [elems], 3, 6, 7)) +   # OpOutput: shape 3, size 6, orig 7
              _field(4, 2, _tensor(size, [elems], 3, 5, 6)) +   # OpInput: shape 3, size 5, orig 6
              _field(6, 2, b"Add_op"))
    vals = [((seed + i) % 7) * 0.5 for i in range(elems)]
    payload = struct.pack("<%de" % elems, *vals)
    return struct.pack("<Q", len(header)) + header + payload + payload


def ge_name(i, op="Add"):
    return "%s.%s_%d.%d.6.17065969121%05d" % (op, op, i, i, i % 100000)


def npy_bytes(elems=6):
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % elems
    hdr = hdr + " " * (63 - (10 + len(hdr)) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() +
            struct.pack("<%df" % elems, *[float(i) for i in range(elems)]))


def write_file(path, data):
    with open(path, "wb") as f:
        f.write(data)


def burst(root, n):
    dirs = [os.path.join(root, str(d)) for d in range(10)]
    for d in dirs:
        os.makedirs(d, exist_ok=True)
    data = ge_dump_bytes()
    for i in range(n):
        write_file(os.path.join(dirs[i % 10], ge_name(i)), data)


def slow(path, seconds, reopen, done=None):
    data = ge_dump_bytes(elems=2048)
    pieces = 20
    step = (len(data) + pieces - 1) // pieces
    if reopen:
        open(path, "wb").close()
        for k in range(pieces):
            with open(path, "ab") as f:
                f.write(data[k * step:(k + 1) * step])
            if k + 1 < pieces:  # complete once the last piece is in: the writer is done
                time.sleep(seconds / pieces)
    else:
        with open(path, "wb") as f:
            for k in range(pieces):
                f.write(data[k * step:(k + 1) * step])
                f.flush()
                time.sleep(seconds / pieces)
    # The process lives on for a while after this (interpreter shutdown): tests must not take
    # "still running" for "still writing".
    if done:
        open(done, "w").close()


def check(root):
    summaries = raws = temps = bad = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            if name.startswith(".msit-tmp."):
                temps += 1
            elif name == ".msit-compact.lock":
                continue  # the running watch's tree lock
            elif name.startswith("msit-summary.db"):
                continue  # the summary store (its rows are counted below) and its WAL
            elif name.endswith(".summary.json"):
                summaries += 1
                try:
                    with open(p) as f:
                        j = json.load(f)
                    if j.get("schema") != "msit-compact/summary" or not j.get("tensors"):
                        bad += 1
                except (ValueError, OSError):
                    bad += 1
            elif not os.path.islink(p):
                raws += 1
    summaries += len(stored_paths(root))  # the store's committed rows (default format)
    print(json.dumps({"summaries": summaries, "raws": raws, "temps": temps, "bad": bad}))


def _summary_ok(path):
    try:
        with open(path) as f:
            j = json.load(f)
        return j.get("schema") == "msit-compact/summary" and bool(j.get("tensors"))
    except (ValueError, OSError):
        return False


def stored_paths(root):
    """Raw paths (relative to ROOT) that ROOT's summary store holds in committed rows."""
    import sqlite3
    db = os.path.join(root, "msit-summary.db")
    if not os.path.exists(db):
        return set()
    # Read-write: a WAL left by a killed writer is replayed (mode=ro cannot rebuild its index).
    con = sqlite3.connect(db)
    try:
        # A file a killed writer created before its first commit has no tables yet.
        if not con.execute("SELECT 1 FROM sqlite_schema WHERE name = 'files'").fetchone():
            return set()
        v2 = con.execute("PRAGMA user_version").fetchone()[0] >= 2
        # Version 2 stores a file's directory once, in dirs (docs/store.md).
        sql = ("SELECT iif(d.path = '', f.name, d.path || '/' || f.name) FROM files f JOIN dirs d ON d.id = f.dir_id"
               if v2 else "SELECT path FROM files")
        return {row[0] for row in con.execute(sql)}
    finally:
        con.close()


def verify(root, manifest):
    """Every file ever written still exists raw or has a valid summary (a file or a committed
    store row); no bad summary. Summaries already validated (same size and mtime) are
    remembered in MANIFEST.ok."""
    lost, bad, temps = [], [], []
    stored = stored_paths(root)
    cache_path = manifest + ".ok"
    try:
        with open(cache_path) as f:
            cache = json.load(f)
    except (OSError, ValueError):
        cache = {}

    def ok(path):
        try:
            st = os.lstat(path)
        except OSError:
            return False
        key = "%d:%d" % (st.st_size, st.st_mtime_ns)
        if cache.get(path) == key:
            return True
        if _summary_ok(path):
            cache[path] = key
            return True
        return False

    with open(manifest) as f:
        names = [line.strip() for line in f if line.strip()]
    for rel in names:
        p = os.path.join(root, rel)
        if not os.path.exists(p) and rel not in stored and not ok(p + ".summary.json"):
            lost.append(rel)
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith(".summary.json") and not ok(os.path.join(dirpath, name)):
                bad.append(name)
            if name.startswith(".msit-tmp."):
                temps.append(name)
    with open(cache_path, "w") as f:
        json.dump(cache, f)
    print(json.dumps({"files": len(names), "stored": len(stored), "lost": lost[:5], "bad": bad[:5],
                      "temps": len(temps)}))
    return not lost and not bad


def add_files(root, manifest, start, n, rng_seed):
    """n files of varied sizes (12 B .. 400 KB payloads) spread over 5 dirs; names appended."""
    import random
    rng = random.Random(rng_seed)
    with open(manifest, "a") as m:
        for i in range(start, start + n):
            rel = os.path.join(str(i % 5), ge_name(i))
            os.makedirs(os.path.join(root, str(i % 5)), exist_ok=True)
            write_file(os.path.join(root, rel), ge_dump_bytes(elems=rng.choice([6, 512, 4096, 50000]), seed=i))
            m.write(rel + "\n")


def kill_loop(binary, root, manifest, kills, seed, log_path):
    """Starts the daemon, kills it with SIGKILL after 0-149 ms (seeded), verifies, repeats.
    One process for the whole loop: interpreter start-up would dominate otherwise."""
    import random
    import signal
    import subprocess
    rng = random.Random(seed)
    nxt = 0
    with open(log_path, "ab") as log:
        for k in range(1, kills + 1):
            add_files(root, manifest, nxt, 8, k)
            nxt += 8
            p = subprocess.Popen([binary, "watch", "--settle-ms", "0", "--jobs", "2", root],
                                 stderr=log)
            time.sleep(rng.randrange(150) / 1000.0)
            p.send_signal(signal.SIGKILL)
            p.wait()
            if not verify(root, manifest):
                print("after kill %d" % k)
                return False
    print("%d kills, %d files" % (kills, nxt))
    return True


def main(argv):
    cmd = argv[1]
    if cmd == "burst":
        burst(argv[2], int(argv[3]))
    elif cmd in ("slow", "pieces"):
        slow(argv[2], float(argv[3]), cmd == "pieces", argv[4] if len(argv) > 4 else None)
    elif cmd == "rename":
        d, n = os.path.split(argv[2])
        tmp = os.path.join(d, "." + n + ".partial")
        write_file(tmp, ge_dump_bytes(elems=1024))
        os.rename(tmp, argv[2])
    elif cmd == "one":
        write_file(argv[2], ge_dump_bytes(elems=int(argv[3]) if len(argv) > 3 else 6))
    elif cmd == "npy":
        write_file(argv[2], npy_bytes())
    elif cmd == "verify":
        sys.exit(0 if verify(argv[2], argv[3]) else 1)
    elif cmd == "killloop":
        sys.exit(0 if kill_loop(argv[2], argv[3], argv[4], int(argv[5]), int(argv[6]), argv[7]) else 1)
    elif cmd == "add":
        add_files(argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6]))
    elif cmd == "check":
        check(argv[2])
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
