"""Crash states of a recorded operation sequence (crash_trace.py) under three models of what a
file system keeps when the machine stops, and their materialisation as directory trees.
The models are written down in docs/safety.md "Crash states"; in short:
  prefix: the process dies, the kernel writes out everything issued (every prefix of the ops);
  ext4:   ext4 data=ordered: directory operations and size changes are journalled and reach the
          disk in program order (any prefix of them, at least up to the last fsync of anything:
          an fsync commits the whole journal); a file's data writes not yet fsynced may be lost
          (any suffix of them per file), independently of the journal;
  weak:   any operation not yet followed by an fsync of its file (data, size) or of its
          directory (names; both directories for a rename) may be lost, whatever came after it:
          lost singly, all together, or all but one (which then reached the disk ahead of the
          earlier ones: a reordering)."""
import os

METADATA = ("creat", "mkdir", "rename", "link", "unlink", "rmdir", "trunc")
SYNCS = ("fsync", "fsync_dir", "sync")


def parent(rel):
    return os.path.dirname(rel)


def journal_commits(ops):
    """Indices of the syncs that commit ext4's journal: an fsync of anything and every
    directory fsync do; an fdatasync only when its file's size changed since that file's
    previous sync (ext4 must then get the size to disk; after an overwrite inside the file it
    flushes the data blocks alone, and the metadata before it stays uncommitted)."""
    out, size, changed = set(), {}, set()
    for i, op in enumerate(ops):
        if op.kind == "write":
            end = op.off + len(op.data)
            if end > size.get(op.ino, 0):
                size[op.ino] = end
                changed.add(op.ino)
        elif op.kind == "trunc":
            size[op.ino] = op.size
            changed.add(op.ino)
        elif op.kind in ("sync", "fsync_dir") or (op.kind == "fsync" and not op.datasync):
            out.add(i)
            changed.discard(op.ino)
        elif op.kind == "fsync":
            if op.ino in changed:
                out.add(i)
            changed.discard(op.ino)
    return out


def covers(model, op, sync, commits):
    """Does SYNC (a later op) make OP durable under MODEL? COMMITS: journal_commits()."""
    if sync.kind == "sync":
        return True
    if model == "ext4" and op.kind in METADATA:
        return commits  # the journal's running transaction, every earlier metadata op in it
    if op.kind in ("write", "trunc"):
        return sync.kind == "fsync" and sync.ino == op.ino
    if op.kind in ("creat", "mkdir", "unlink", "rmdir", "link"):
        where = parent(op.dst if op.kind == "link" else op.path)
        return sync.kind == "fsync_dir" and sync.path == where
    return False  # rename: handled by durable_at (needs both directories)


def durable_at(model, ops):
    """For each op, the index of the first later op after which it is durable (len(ops): never)."""
    n = len(ops)
    out = [n] * n
    commits = journal_commits(ops)
    for i, op in enumerate(ops):
        if op.kind in SYNCS:
            out[i] = i
            continue
        if op.kind == "rename" and not (model == "ext4"):
            need = {parent(op.path), parent(op.dst)}
            for j in range(i + 1, n):
                s = ops[j]
                if s.kind == "sync":
                    need.clear()
                elif s.kind == "fsync_dir":
                    need.discard(s.path)
                if not need:
                    out[i] = j
                    break
            continue
        for j in range(i + 1, n):
            if ops[j].kind in SYNCS and covers(model, op, ops[j], j in commits):
                out[i] = j
                break
    return out


def drop_sets(model, ops, durable, k):
    """Sets of op indices below K that a crash after op K-1 may lose under MODEL."""
    unsynced = [i for i in range(k) if durable[i] >= k]
    if not unsynced:
        return []
    if model == "weak":
        sets = [frozenset([i]) for i in unsynced]
        sets.append(frozenset(unsynced))
        sets += [frozenset(unsynced) - {j} for j in unsynced]
        return sets
    meta = [i for i in unsynced if ops[i].kind in METADATA]
    writes = {}
    for i in unsynced:
        if ops[i].kind == "write":
            writes.setdefault(ops[i].ino, []).append(i)
    all_writes = frozenset(i for w in writes.values() for i in w)
    sets = []
    for c in range(len(meta)):
        sets.append(frozenset(meta[c:]))
        sets.append(frozenset(meta[c:]) | all_writes)
    for w in writes.values():
        sets += [frozenset(w[c:]) for c in range(len(w))]
    sets.append(frozenset(unsynced))
    return sets


class Tree:
    """An in-memory tree: names -> inode, inode -> bytes; applies ops, skipping those whose
    object a lost earlier op never made (a write to a file whose creation was lost)."""

    def __init__(self, files, dirs, contents):
        self.names = dict(files)
        self.dirs = set(dirs) | {""}
        self.data = dict(contents)
        self.owned = set()  # inodes whose bytearray only this tree holds (copy on write)
        self.hashes = {}    # inode -> hash of its bytes, dropped when they change

    def copy(self):
        """A copy sharing the bytes: from now on both copy a file's bytes before writing them."""
        t = Tree.__new__(Tree)
        t.names, t.dirs, t.data = dict(self.names), set(self.dirs), dict(self.data)
        t.owned, self.owned = set(), set()
        t.hashes = dict(self.hashes)
        return t

    def mutable(self, ino):
        self.hashes.pop(ino, None)
        if ino not in self.owned:
            self.data[ino] = bytearray(self.data.get(ino, b""))
            self.owned.add(ino)
        return self.data[ino]

    def apply(self, op):
        """Names point to inodes; an inode's bytes exist whether or not a name was kept for it
        (its data may be durable through fsync while the name that made it was lost), so a kept
        rename or link gives the inode its new name even when the name it had was lost."""
        k = op.kind
        if k == "creat":
            if parent(op.path) in self.dirs and op.path not in self.names:
                self.names[op.path] = op.ino
        elif k == "mkdir":
            if parent(op.path) in self.dirs:
                self.dirs.add(op.path)
        elif k == "rmdir":
            if not any(n.startswith(op.path + "/") for n in self.names):
                self.dirs.discard(op.path)
        elif k == "write":
            b = self.mutable(op.ino)
            if len(b) < op.off:
                b.extend(bytes(op.off - len(b)))
            b[op.off:op.off + len(op.data)] = op.data
        elif k == "trunc":
            b = self.mutable(op.ino)
            if len(b) > op.size:
                del b[op.size:]
            else:
                b.extend(bytes(op.size - len(b)))
        elif k == "rename":
            self.rename(op)
        elif k == "link":
            if op.dst not in self.names and parent(op.dst) in self.dirs:
                self.names[op.dst] = op.ino
        elif k == "unlink":
            if self.names.get(op.path) == op.ino:
                del self.names[op.path]

    def rename(self, op):
        if op.ino == -1:  # a directory
            if op.path in self.dirs and parent(op.dst) in self.dirs:
                for n in [n for n in self.names if n.startswith(op.path + "/")]:
                    self.names[op.dst + n[len(op.path):]] = self.names.pop(n)
                self.dirs = {(op.dst + d[len(op.path):]) if d == op.path or d.startswith(op.path + "/") else d
                             for d in self.dirs}
            return
        if op.ino == 0 or parent(op.dst) not in self.dirs:
            return
        if op.noreplace and self.names.get(op.dst, op.ino) != op.ino:
            return
        if self.names.get(op.path) == op.ino:
            del self.names[op.path]
        self.names[op.dst] = op.ino

    def digest(self):
        """Equal trees, equal digests."""
        for i in self.names.values():
            if i not in self.hashes:
                self.hashes[i] = hash(bytes(self.data.get(i, b"")))
        return hash((frozenset(self.dirs), frozenset((n, self.hashes[i]) for n, i in self.names.items())))

    def write_out(self, dest, shm_noise=b"\xff"):
        """Materialise under DEST. A -shm file's bytes are never what a crash leaves (SQLite
        writes it through a shared mapping, not recorded): it gets noise, which SQLite must
        discard (the first connection after a crash rebuilds the index from the WAL)."""
        for d in sorted(self.dirs):
            os.makedirs(os.path.join(dest, d), exist_ok=True)
        for n, ino in self.names.items():
            b = self.data.get(ino, b"")
            if n.endswith("-shm"):
                b = (shm_noise * len(b))[:len(b)]
            with open(os.path.join(dest, n), "wb") as f:
                f.write(b)


class Replayer:
    """Materialises 'ops[0:k) less DROPPED' quickly from snapshots of the full prefixes."""

    def __init__(self, base, ops, every=32):
        self.ops, self.every = ops, every
        self.snaps = [base.copy()]
        t = base.copy()
        for i, op in enumerate(ops, 1):
            t.apply(op)
            if i % every == 0:
                self.snaps.append(t.copy())

    def state(self, k, dropped=frozenset()):
        start = min(min(dropped, default=k), k)
        s = start // self.every
        t = self.snaps[s].copy()
        for i in range(s * self.every, k):
            if i not in dropped:
                t.apply(self.ops[i])
        return t


def candidates(ops, models, crash_points=None):
    """Every (model, k, dropped) the models allow at the crash points, before deduplication."""
    points = sorted(set(crash_points)) if crash_points is not None else range(len(ops) + 1)
    durable = {m: durable_at(m, ops) for m in models if m != "prefix"}
    out = []
    for k in points:
        if "prefix" in models:
            out.append(("prefix", k, frozenset()))
        for m in models:
            if m != "prefix":
                out += [(m, k, d) for d in drop_sets(m, ops, durable[m], k)]
    return out


def enumerate_states(ops, base, cands):
    """Yields (model, k, dropped, tree) for each distinct crash state (by content) among
    CANDS (candidates()), each once across models, in CANDS' order."""
    rep = Replayer(base, ops)
    seen = set()
    for m, k, d in cands:
        t = rep.state(k, d)
        h = t.digest()
        if h in seen:
            continue
        seen.add(h)
        yield m, k, d, t
