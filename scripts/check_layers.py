#!/usr/bin/env python3
"""The folder layers of the library (docs/architecture.md "Layers"), and their check.

A file may include headers of its own folder and of folders listed before it in LAYERS, never of
one listed after it: the folder graph then has no cycles, and a folder can be understood (and
tested) with only the folders below it. Run in ctest (tests/integration/layers.cmake).

Usage: check_layers.py [SOURCE_ROOT]   (exit 0: no upward include; 1: each one is named)
"""
import os
import re
import sys

# Lowest first. The home of the layer order: docs/architecture.md shows it and cites this list.
LAYERS = [
    "common/base",         # Result, Error, fds
    "common/io",           # safe opens, file identity, byte sources, output files
    "common/dtype",        # element types and scalar decoders
    "common/formats",      # headers of the dump formats, file-name classification
    "common/layout",       # device formats streamed in logical order
    "common/stats",        # streaming reducers and the sketch
    "common/safety",       # the deletion contract: dump roots, beneath, publish, locks
    "common/archive",      # lossless archives, restore
    "common/summary",      # the summary model, its JSON, its readers, summarize a raw file
    "common/report",       # report rows, CSV, HTML
    "common/store",        # the SQLite summary store
    "common/opcheck",      # recompute a dumped op from its own inputs (float64, BLAS)
    "common/compare",      # compare engine, torchair flows, terminal summary
    "common/compare_msprobe",  # msProbe's compare: matching, cells, verdicts, its table
    "common/compare_atb",  # ATB/torch flows; which flow two paths select
    "common/resolve",      # what a path the user gave is: dump roots, ranks, tokens
    "common/compaction",   # compact_file, publish, formats by name, compact runs, settings
    "daemon",              # watch
    "cli",                 # one file per subcommand
]
CHECKED_TOPS = ("common", "daemon", "cli")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel_path):
    """The LAYERS entry a repository path belongs to, or None."""
    for name in sorted(LAYERS, key=len, reverse=True):
        if rel_path == name or rel_path.startswith(name + "/"):
            return name
    return None


def folder_of(rel_path):
    """common/X for common/X/..., else the top folder: what a new folder would be named."""
    parts = rel_path.split("/")
    return "/".join(parts[:2]) if parts[0] == "common" else parts[0]


def check(root):
    rank = {name: i for i, name in enumerate(LAYERS)}
    problems = []
    for top in CHECKED_TOPS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith((".h", ".cpp", ".hpp", ".cc")):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, root)
                src = layer_of(rel)
                if src is None:
                    problems.append(f"{rel}: folder {folder_of(rel)} is not in LAYERS of scripts/check_layers.py; "
                                    "add it where it belongs (docs/architecture.md \"Layers\")")
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        inc = m.group(1)
                        if inc.split("/")[0] not in CHECKED_TOPS:
                            continue  # same-folder name, generated or third-party header
                        dst = layer_of(inc)
                        if dst is None:
                            problems.append(f"{rel}:{lineno}: includes {inc}, whose folder {folder_of(inc)} is not "
                                            "in LAYERS of scripts/check_layers.py")
                        elif rank[dst] > rank[src]:
                            problems.append(f"{rel}:{lineno}: includes {inc}: {src} (layer {rank[src]}) may not "
                                            f"include {dst} (layer {rank[dst]}), which is above it; move what is "
                                            "needed down or this file up (docs/architecture.md \"Layers\")")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if not os.path.isdir(os.path.join(root, "common")):
        print(f"check_layers: {root}: no common/ folder here; pass the source root", file=sys.stderr)
        return 2
    problems = check(root)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check_layers: {len(problems)} finding(s) against the layer order", file=sys.stderr)
        return 1
    print(f"check_layers: {len(LAYERS)} layers, no upward include")
    return 0


if __name__ == "__main__":
    sys.exit(main())
