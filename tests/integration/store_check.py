#!/usr/bin/env python3
"""Invariant of a tree compacted into summary stores, after any kill:
every manifest file is either still in place (byte-identical) or has a committed row in the
store covering it, and no row names a file that is not in the manifest.
Usage: store_check.py TREE MANIFEST.json [--all-stored]"""
import json
import os
import sqlite3
import sys

import hashlib

# Each file's path and size, per store version (docs/store.md): version 2 keeps directories in dirs.
FILES_SQL = {
    1: "SELECT path, size_bytes FROM files",
    2: "SELECT iif(d.path = '', f.name, d.path || '/' || f.name), f.size_bytes FROM files f JOIN dirs d ON d.id = f.dir_id",
}


def store_version(con):
    return 2 if con.execute("PRAGMA user_version").fetchone()[0] >= 2 else 1


def stores(tree):
    out = {}
    for dirpath, _dirs, files in os.walk(tree):
        if "msit-summary.db" in files:
            db = os.path.join(dirpath, "msit-summary.db")
            # Read-write: a WAL left by a killed writer is replayed (mode=ro cannot rebuild its index).
            con = sqlite3.connect(db)
            try:
                # A file a killed writer created before its first commit has no tables yet.
                has = con.execute("SELECT 1 FROM sqlite_schema WHERE name = 'files'").fetchone()
                rows = {r[0]: r[1] for r in con.execute(FILES_SQL[store_version(con)])} if has else {}
                ok = con.execute("PRAGMA quick_check").fetchone()[0]
            finally:
                con.close()
            if ok != "ok":
                sys.exit("damaged store %s: %s" % (db, ok))
            out[os.path.relpath(dirpath, tree)] = rows
    return out


def stored_size(st, rel):
    for d, rows in st.items():
        prefix = "" if d == "." else d + "/"
        if rel.startswith(prefix) and rel[len(prefix):] in rows:
            return rows[rel[len(prefix):]]
    return None


def main():
    tree, manifest = sys.argv[1], sys.argv[2]
    all_stored = "--all-stored" in sys.argv
    m = json.load(open(manifest))
    st = stores(tree)
    lost, changed, missing = [], [], []
    names = set()
    for e in m["files"]:
        rel = e["path"]
        names.add(rel)
        if e.get("corrupt") or e["kind"] == "graph_txt":
            continue
        p = os.path.join(tree, rel)
        size = stored_size(st, rel)
        if os.path.lexists(p):
            with open(p, "rb") as f:
                data = f.read()
            if len(data) != e["size"]:
                changed.append(rel)
            if all_stored:
                missing.append(rel)
        elif size is None:
            lost.append(rel)
        elif size != e["size"]:
            changed.append(rel)
    extra = [d + "/" + r for d, rows in st.items() for r in rows
             if os.path.normpath(os.path.join(d, r)) not in names]
    print(json.dumps({"files": len(names), "stored": sum(len(r) for r in st.values()), "lost": lost[:3],
                      "changed": changed[:3], "raw_left": missing[:3], "unknown_rows": extra[:3]}))
    sys.exit(1 if lost or changed or missing or extra else 0)


if __name__ == "__main__":
    main()
