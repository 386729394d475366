"""The independent checker of a recovered crash state (docs/safety.md "Crash states"): it knows
the original raw files' bytes and the summaries a clean run made of them, reads stores with
Python's sqlite3 and JSON summaries with json, restores archives with `restore` and compares
bytes; it shares no code with msit-compact."""
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import tempfile

STORE = "msit-summary.db"
OURS = re.compile(r"(^\.msit-tmp\.|^\.msit-claim\.|^\.msit-compact\.lock|^msit-summary\.db(-wal|-shm|-journal)?$"
                  r"|\.summary\.json$|_min_max\.np[yz]$|\.zst$)")
LEFTOVER = re.compile(r"^\.msit-(tmp|claim)\.")


def is_raw(rel):
    """Dump files of the scenario trees (by construction, not by msit-compact's rules)."""
    base = os.path.basename(rel)
    if base.startswith(".") or OURS.search(base) or base.endswith((".json", ".txt", ".part")):
        return False
    if "/dump_tensor_data/" in "/" + rel:  # msProbe's tensor files (dump.json and the rest are kept)
        return base.endswith((".pt", ".npy"))
    if "/tensors/" in "/" + rel:
        return re.match(r"^(in|out)tensor\d+(_\d+)?\.bin$", base) is not None
    if "/torch_tensors/" in "/" + rel:
        return re.match(r"^(input(_\d+)*|output(_\d+)*)\.pth$", base) is not None
    return "_dump/" in rel or "msit_ge_dump/" in rel


def walk(root):
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            yield os.path.relpath(p, root), p


def file_digest(p):
    with open(p, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def store_rows(db):
    """{path relative to the store's directory: fingerprint} and integrity_check's answer.
    The fingerprint leaves out what a materialised state changes (inode, mtime, time stored)."""
    con = sqlite3.connect(db)
    try:
        ok = con.execute("PRAGMA integrity_check").fetchone()[0]
        if not con.execute("SELECT 1 FROM sqlite_schema WHERE name='files'").fetchone():
            return {}, ok
        cols = [r[1] for r in con.execute("PRAGMA table_info(tensors)") if r[1] != "key"]
        rows = {}
        q = ("SELECT f.id, iif(d.path='', f.name, d.path || '/' || f.name), f.kind, f.size_bytes, f.op_type, "
             "f.op_name, f.extra_block_count FROM files f JOIN dirs d ON d.id = f.dir_id")
        for fid, path, *head in con.execute(q):
            ts = con.execute("SELECT %s FROM tensors WHERE key BETWEEN ? AND ? ORDER BY key" % ",".join(cols),
                             (fid << 20, (fid << 20) + 1048575)).fetchall()
            rows[path] = json.dumps([head, ts], default=lambda b: b.hex())
        return rows, ok
    finally:
        con.close()


def json_fingerprint(p):
    with open(p) as f:
        s = json.load(f)
    return json.dumps([s["source"]["size_bytes"], s["tensors"], s.get("op")], sort_keys=True)


def summaries(root):
    """Every summary under ROOT: {raw rel path: [fingerprint, ...]} (a list: twice is a finding),
    and the stores' integrity_check answers."""
    out, checks = {}, {}
    for rel, p in walk(root):
        base = os.path.basename(rel)
        if base == STORE:
            rows, ok = store_rows(p)
            checks[rel] = ok
            d = os.path.dirname(rel)
            for r, fp in rows.items():
                out.setdefault(os.path.normpath(os.path.join(d, r)), []).append(fp)
        elif base.endswith(".summary.json") and not base.startswith("."):
            out.setdefault(rel[: -len(".summary.json")], []).append(json_fingerprint(p))
        elif re.search(r"_min_max\.np[yz]$", base):
            raw = re.sub(r"_min_max\.np[yz]$", "", rel)
            raw = raw if raw.endswith(".npy") or not rel.endswith(".npy") else raw + ".npy"
            out.setdefault(raw, []).append(file_digest(p))
    return out, checks


def restored_all(msit, root):
    """{raw rel path: bytes} that one `restore` gives back for every archive under ROOT (in a
    scratch copy; nothing in the state changes)."""
    after = {rel: p for rel, p in walk(root)}
    zs = [rel for rel in after if rel.endswith(".zst") and not os.path.basename(rel).startswith(".")]
    if not zs:
        return {}
    # Beside ROOT (in memory when the states are): restore's fsyncs then cost nothing.
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(root))) as tmp:
        for rel in zs:
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(after[rel], "rb") as src, open(os.path.join(tmp, rel), "wb") as dst:
                dst.write(src.read())
        subprocess.run([msit, "restore", tmp], capture_output=True, timeout=120)
        out = {}
        for rel in zs:
            p = os.path.join(tmp, rel[: -len(".zst")])
            if os.path.exists(p):
                with open(p, "rb") as f:
                    out[rel[: -len(".zst")]] = f.read()
        return out


def check_state(root, before, originals, golden, arrived, archive, restored):
    """Problems of the recovered tree ROOT (empty list: none).
    before: {rel: sha256} of the materialised state before recovery;
    originals: {rel: bytes} of every raw file; golden: {rel: fingerprint} of a clean run;
    arrived: the originals the state must account for (present, or written before the crash);
    restored: {rel: bytes} that `restore` made of the state's archives (restored_all())."""
    problems = []
    after = {rel: p for rel, p in walk(root)}
    got, checks = summaries(root)
    for rel, ok in checks.items():
        if ok != "ok":
            problems.append("store %s fails integrity_check: %s" % (rel, ok))
    for rel in after:
        if LEFTOVER.match(os.path.basename(rel)):
            problems.append("left behind: %s" % rel)
    for rel, digest in before.items():
        base = os.path.basename(rel)
        if not is_raw(rel) and not OURS.search(base) and not LEFTOVER.match(base):
            if rel not in after or file_digest(after[rel]) != digest:
                problems.append("a file that is not a dump was changed or removed: %s" % rel)
    for rel, data in originals.items():
        fps = got.get(rel, [])
        if len(fps) > 1:
            problems.append("%s has %d summaries" % (rel, len(fps)))
        if rel in after:
            with open(after[rel], "rb") as f:
                if f.read() != data:
                    problems.append("raw file changed: %s" % rel)
            continue
        if rel not in arrived:
            if fps:
                problems.append("summary of a file that never arrived: %s" % rel)
            continue
        if not fps:
            problems.append("LOST: %s is gone and has no summary" % rel)
            continue
        if fps[0] != golden.get(rel):
            problems.append("LOST: %s is gone and its summary differs from a clean run's" % rel)
        if archive:
            if rel + ".zst" not in after:
                problems.append("LOST: %s is gone and has no archive" % rel)
            elif restored.get(rel) != data:
                problems.append("LOST: the archive of %s does not restore its bytes" % rel)
    for rel in got:
        if rel not in originals:
            problems.append("a summary for a file that is no dump of ours: %s" % rel)
    return problems


def unfinished(root, originals, arrived):
    """Arrived raw files still raw after a recovery that should have compacted them."""
    return sorted(r for r in arrived if os.path.exists(os.path.join(root, r)) and r in originals)
