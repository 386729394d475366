"""Turns an strace recording (strace -f -y -xx, see crash_explore.py) into the file-system
operations that changed the tree below one root: creations, writes, truncations, renames, links,
unlinks, mkdir/rmdir and the fsyncs that make them durable (docs/safety.md "Crash states")."""
import os
import re
from dataclasses import dataclass, field

# Syscalls recorded; reads are traced raw (no buffer) only to keep file positions right.
TRACED = ("open,openat,openat2,creat,write,pwrite64,writev,pwritev,pwritev2,read,readv,lseek,"
          "ftruncate,truncate,fallocate,rename,renameat,renameat2,link,linkat,unlink,unlinkat,"
          "mkdir,mkdirat,rmdir,fsync,fdatasync,syncfs,sync,close,dup,dup2,dup3,fcntl,"
          "clone,clone3,fork,vfork")
STRACE_ARGS = ["-f", "-qq", "-y", "-xx", "-s", "16777216", "-e", "trace=" + TRACED,
               "-e", "raw=read,readv", "-e", "signal=none"]

LINE = re.compile(r"^(\d+)\s+(.*)$")
CALL = re.compile(r"^([a-z0-9_]+)\((.*)$")
HEX = re.compile(r"\\x([0-9a-f]{2})")
SPECIAL = re.compile(r'[",<>()\[\]{}]')  # what split_args() and split_call() act on


@dataclass
class Op:
    """One operation on the tree. kind: creat mkdir write trunc rename link unlink rmdir
    fsync (a file's data and size) fsync_dir (a directory's entries) sync (everything)."""
    kind: str
    path: str = ""        # relative to the root; rename/link: the source
    dst: str = ""         # rename/link target
    ino: int = 0          # the file acted on (creat, write, trunc, fsync, rename, link, unlink)
    off: int = 0
    data: bytes = b""
    size: int = 0         # trunc
    noreplace: bool = False
    datasync: bool = False  # fsync: an fdatasync
    tid: int = 0
    line: int = 0         # line of the recording, for reports

    def describe(self):
        if self.kind == "write":
            return "write(%s, %d bytes at %d)" % (self.path, len(self.data), self.off)
        if self.kind == "trunc":
            return "truncate(%s, %d)" % (self.path, self.size)
        if self.kind in ("rename", "link"):
            return "%s(%s -> %s%s)" % (self.kind, self.path, self.dst, ", noreplace" if self.noreplace else "")
        return "%s(%s)" % (self.kind, self.path or "/")


def num(ret):
    """The number a syscall returned ('0x340' when traced raw, '-1 ENOENT (...)' on failure)."""
    t = ret.split(" ")[0].split("<")[0]
    v = int(t, 0)
    return v - (1 << 64) if v >= 1 << 63 else v


def unhex(s):
    parts = s.split("\\x")
    if not parts[0] and all(len(x) == 2 for x in parts[1:]):  # -xx: every byte escaped (fast path)
        try:
            return bytes.fromhex("".join(parts[1:]))
        except ValueError:
            pass
    return HEX.sub(lambda m: chr(int(m.group(1), 16)), s).encode("latin-1")


def split_args(s):
    """Top-level comma split of an argument list (strings are all \\x-escaped by -xx). Only the
    characters that change the state are visited (a buffer of megabytes is one skip)."""
    out, depth, start, quote, angle = [], 0, 0, False, 0
    for m in SPECIAL.finditer(s):
        ch = m.group()
        if quote:
            quote = ch != '"'
        elif ch == '"':
            quote = True
        elif ch == "<" and not angle:
            angle = 1
        elif ch == ">" and angle:
            angle = 0
        elif not angle and ch in "([{":
            depth += 1
        elif not angle and ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0 and not angle:
            out.append(s[start:m.start()].strip())
            start = m.end()
    if start < len(s):
        out.append(s[start:].strip())
    return out


def fd_of(arg):
    """'5<\\x2f...>' or 'AT_FDCWD<...>' -> (fd number or None, path bytes or None)."""
    m = re.match(r"^(-?\d+|0x[0-9a-f]+|AT_FDCWD)(?:<(.*)>)?$", arg)
    if not m:
        return None, None
    fd = None if m.group(1) == "AT_FDCWD" else int(m.group(1), 0)
    return fd, (unhex(m.group(2)) if m.group(2) is not None else None)


def string_of(arg):
    m = re.match(r'^"(.*)"(\.\.\.)?$', arg)
    if not m:
        return None
    if m.group(2):
        raise ValueError("a string was cut off; raise strace -s")
    return unhex(m.group(1))


def split_call(rest):
    """'name(args) = ret' -> (name, args text, ret text); None for other lines."""
    m = CALL.match(rest)
    if not m:
        return None
    body, depth, quote = m.group(2), 1, False
    for c in SPECIAL.finditer(body):
        ch, i = c.group(), c.start()
        if quote:
            quote = ch != '"'
        elif ch == '"':
            quote = True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return m.group(1), body[:i], body[i + 1:].strip()
    return None


@dataclass
class Desc:
    ino: int
    pos: int = 0
    append: bool = False


@dataclass
class Tracer:
    """Replays the recording on a model of the tree's names to give every file an inode id."""
    root: bytes
    names: dict = field(default_factory=dict)     # rel path -> ino (files)
    dirs: set = field(default_factory=set)        # rel paths of directories ("" is the root)
    sizes: dict = field(default_factory=dict)     # ino -> size
    tables: dict = field(default_factory=dict)    # tid -> fd table (dict fd -> Desc)
    next_ino: int = 1
    ops: list = field(default_factory=list)
    pending: dict = field(default_factory=dict)   # tid -> unfinished call text

    def rel(self, path):
        if path is None:
            return None
        if path.endswith(b" (deleted)"):
            return None
        r = os.path.normpath(path)
        if r == self.root:
            return ""
        if not r.startswith(self.root + b"/"):
            return None
        return r[len(self.root) + 1:].decode("utf-8", "surrogateescape")

    def table(self, tid):
        return self.tables.setdefault(tid, {})

    def resolve(self, dirarg, patharg):
        _fd, dpath = fd_of(dirarg) if dirarg is not None else (None, None)
        p = string_of(patharg)
        if p is None:
            return None
        if not p.startswith(b"/"):
            if dpath is None:
                return None
            p = dpath + b"/" + p
        return self.rel(p)

    def add(self, op, tid, line):
        op.tid, op.line = tid, line
        self.ops.append(op)

    def new_file(self, rel, tid, line):
        ino = self.next_ino
        self.next_ino += 1
        self.names[rel] = ino
        self.sizes[ino] = 0
        self.add(Op("creat", rel, ino=ino), tid, line)
        return ino

    # --- one handler per syscall family -------------------------------------------------
    def on_open(self, tid, line, name, args, ret):
        fd, fpath = fd_of(ret.split(" ")[0])
        if fd is None or fd < 0:
            return
        flags = args[2] if name in ("openat", "openat2") else (args[1] if name == "open" else "O_CREAT|O_TRUNC|O_WRONLY")
        tbl = self.table(tid)
        tbl.pop(fd, None)
        if "O_DIRECTORY" in flags:
            return
        if "O_TMPFILE" in flags:
            ino = self.next_ino
            self.next_ino += 1
            self.sizes[ino] = 0
            tbl[fd] = Desc(ino)
            return
        rel = self.rel(fpath)
        if rel is None or rel in self.dirs:
            return
        ino = self.names.get(rel)
        if ino is None:
            ino = self.new_file(rel, tid, line)
        elif "O_TRUNC" in flags and "O_RDONLY" not in flags:
            self.sizes[ino] = 0
            self.add(Op("trunc", rel, ino=ino, size=0), tid, line)
        tbl[fd] = Desc(ino, 0, "O_APPEND" in flags)

    def desc(self, tid, arg):
        fd, fpath = fd_of(arg)
        d = self.table(tid).get(fd)
        rel = self.rel(fpath)
        if rel is not None and rel in self.names and (d is None or d.ino != self.names[rel]):
            d = self.table(tid)[fd] = Desc(self.names[rel])  # a descriptor opened before we looked
        return d, rel

    def on_write(self, tid, line, name, args, ret):
        n = num(ret)
        d, rel = self.desc(tid, args[0])
        if n <= 0 or d is None:
            return
        if name in ("write", "pwrite64"):
            data = string_of(args[1])
        else:
            data = b"".join(string_of(a.split("=", 1)[1]) for a in re.findall(r'iov_base=("[^"]*")', args[1]))
        data = data[:n]
        if name in ("write", "writev"):
            off = self.sizes.get(d.ino, 0) if d.append else d.pos
            d.pos = off + n
        else:
            off = int(args[3] if name == "pwrite64" else args[3])
        self.sizes[d.ino] = max(self.sizes.get(d.ino, 0), off + n)
        self.add(Op("write", rel or "", ino=d.ino, off=off, data=data), tid, line)

    def on_seek(self, tid, line, name, args, ret):
        d, _ = self.desc(tid, args[0])
        n = num(ret)
        if d is None or n < 0:
            return
        if name == "lseek":
            d.pos = n
        else:
            d.pos += n

    def on_trunc(self, tid, line, name, args, ret):
        if not ret.startswith("0"):
            return
        if name == "truncate":
            rel = self.resolve(None, args[0])
            ino = self.names.get(rel)
        else:
            d, rel = self.desc(tid, args[0])
            ino = d.ino if d else None
        if ino is None:
            return
        size = int(args[1])
        if name == "fallocate":
            if args[1] != "0":
                return
            size = max(self.sizes.get(ino, 0), int(args[2]) + int(args[3]))
        self.sizes[ino] = size
        self.add(Op("trunc", rel or "", ino=ino, size=size), tid, line)

    def on_rename(self, tid, line, name, args, ret):
        if not ret.startswith("0"):
            return
        if name == "rename":
            src, dst, flags = self.resolve(None, args[0]), self.resolve(None, args[1]), ""
        else:
            src, dst = self.resolve(args[0], args[1]), self.resolve(args[2], args[3])
            flags = args[4] if len(args) > 4 else ""
        if src is None and dst is None:
            return
        if "RENAME_EXCHANGE" in flags:
            raise ValueError("line %d: RENAME_EXCHANGE is not modelled" % line)
        if src in self.dirs:
            self.rename_dir(src, dst, tid, line)
            return
        ino = self.names.pop(src, None) if src is not None else None
        if dst is not None and ino is not None:
            self.names[dst] = ino
        self.add(Op("rename", src or "", dst or "", ino=ino or 0, noreplace="NOREPLACE" in flags), tid, line)

    def rename_dir(self, src, dst, tid, line):
        for tbl in (self.names,):
            for k in [k for k in tbl if k.startswith(src + "/")]:
                tbl[dst + k[len(src):]] = tbl.pop(k)
        self.dirs = {(dst + d[len(src):]) if d == src or d.startswith(src + "/") else d for d in self.dirs}
        self.add(Op("rename", src, dst, ino=-1), tid, line)

    def on_link(self, tid, line, name, args, ret):
        if not ret.startswith("0"):
            return
        if name == "link":
            src, dst, ino = self.resolve(None, args[0]), self.resolve(None, args[1]), None
        else:
            dst = self.resolve(args[2], args[3])
            if "AT_EMPTY_PATH" in args[4]:
                d, src = self.desc(tid, args[0])
                ino = d.ino if d else None
            else:
                src = self.resolve(args[0], args[1])
                ino = None
        if ino is None:
            ino = self.names.get(src)
        if dst is None or ino is None:
            return
        self.names[dst] = ino
        self.add(Op("link", src or "", dst, ino=ino, noreplace=True), tid, line)

    def on_unlink(self, tid, line, name, args, ret):
        if not ret.startswith("0"):
            return
        if name == "unlinkat":
            rel, is_dir = self.resolve(args[0], args[1]), "AT_REMOVEDIR" in args[2]
        else:
            rel, is_dir = self.resolve(None, args[0]), name == "rmdir"
        if rel is None:
            return
        if is_dir:
            self.dirs.discard(rel)
            self.add(Op("rmdir", rel), tid, line)
        else:
            ino = self.names.pop(rel, 0)
            self.add(Op("unlink", rel, ino=ino), tid, line)

    def on_mkdir(self, tid, line, name, args, ret):
        if not ret.startswith("0"):
            return
        rel = self.resolve(args[0], args[1]) if name == "mkdirat" else self.resolve(None, args[0])
        if rel is not None:
            self.dirs.add(rel)
            self.add(Op("mkdir", rel), tid, line)

    def on_sync(self, tid, line, name, args, ret):
        if not ret.startswith("0"):
            return
        if name in ("sync", "syncfs"):
            self.add(Op("sync"), tid, line)
            return
        fd, fpath = fd_of(args[0])
        rel = self.rel(fpath)
        d = self.table(tid).get(fd)
        if rel is not None and rel in self.dirs:
            self.add(Op("fsync_dir", rel), tid, line)
        elif d is not None or (rel is not None and rel in self.names):
            ino = d.ino if d is not None else self.names[rel]
            self.add(Op("fsync", rel or "", ino=ino, datasync=name == "fdatasync"), tid, line)

    def on_fdtable(self, tid, line, name, args, ret):
        if name == "fcntl" and "F_DUPFD" not in args[1]:
            return
        n = num(ret)
        if n < 0:
            return
        if name in ("clone", "clone3", "fork", "vfork"):
            flags = " ".join(args)
            shared = "CLONE_FILES" in flags or "CLONE_THREAD" in flags
            self.tables[n] = self.table(tid) if shared else dict(self.table(tid))
        elif name == "close":
            self.table(tid).pop(fd_of(args[0])[0], None)
        elif name in ("dup", "dup2", "dup3") or (name == "fcntl" and "F_DUPFD" in args[1]):
            d = self.table(tid).get(fd_of(args[0])[0])
            if d is not None:
                self.table(tid)[n] = d

    HANDLERS = {
        "open": on_open, "openat": on_open, "openat2": on_open, "creat": on_open,
        "write": on_write, "pwrite64": on_write, "writev": on_write, "pwritev": on_write, "pwritev2": on_write,
        "read": on_seek, "readv": on_seek, "lseek": on_seek,
        "ftruncate": on_trunc, "truncate": on_trunc, "fallocate": on_trunc,
        "rename": on_rename, "renameat": on_rename, "renameat2": on_rename,
        "link": on_link, "linkat": on_link, "unlink": on_unlink, "unlinkat": on_unlink, "rmdir": on_unlink,
        "mkdir": on_mkdir, "mkdirat": on_mkdir,
        "fsync": on_sync, "fdatasync": on_sync, "syncfs": on_sync, "sync": on_sync,
        "close": on_fdtable, "dup": on_fdtable, "dup2": on_fdtable, "dup3": on_fdtable, "fcntl": on_fdtable,
        "clone": on_fdtable, "clone3": on_fdtable, "fork": on_fdtable, "vfork": on_fdtable,
    }

    def feed(self, lineno, text):
        m = LINE.match(text)
        if not m:
            return
        tid, rest = int(m.group(1)), m.group(2)
        if rest.endswith("<unfinished ...>"):
            self.pending[tid] = rest[: -len("<unfinished ...>")].rstrip()
            return
        r = re.match(r"^<\.\.\. ([a-z0-9_]+) resumed>(.*)$", rest)
        if r:
            rest = self.pending.pop(tid, r.group(1) + "(") + r.group(2)
        parts = split_call(rest)
        if parts is None:
            return
        name, args, ret = parts
        handler = self.HANDLERS.get(name)
        if handler is None or not ret.startswith("="):
            return
        handler(self, tid, lineno, name, split_args(args), ret[1:].strip())


def record_ops(trace_path, root, initial_files, initial_dirs):
    """The operations below ROOT in the recording. initial_files: rel path -> ino of the files
    present before the run (ids 1..n); initial_dirs: their directories."""
    t = Tracer(os.path.normpath(os.fsencode(root)))
    t.names = dict(initial_files)
    t.dirs = set(initial_dirs) | {""}
    t.next_ino = max(initial_files.values(), default=0) + 1
    with open(trace_path, "r", encoding="latin-1") as f:
        for i, text in enumerate(f, 1):
            t.feed(i, text.rstrip("\n"))
    return t.ops
