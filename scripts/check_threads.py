#!/usr/bin/env python3
"""Threads start in two places only (docs/architecture.md "Threads"), and their check.

`run_workers()`/`run_indexed()` (common/base/run_workers.*) fork and join within one call; a
`StageThread` (common/base/stage_thread.*) is every thread that lives longer. Any other
`std::thread` or `std::jthread` object in common/, daemon/ or cli/ is named here, so that a new
hand-rolled pool is noticed. `std::thread::hardware_concurrency()` and `std::this_thread` are fine.
Run in ctest (tests/integration/threads.cmake).

Usage: check_threads.py [SOURCE_ROOT]   (exit 0: none; 1: each one is named)
"""
import os
import re
import sys

FOLDERS = ["common", "daemon", "cli"]
HOMES = {"common/base/run_workers.cpp", "common/base/stage_thread.h", "common/base/stage_thread.cpp"}
# std::thread or std::jthread not followed by `::` (hardware_concurrency, id); `this_thread` does
# not match since the name must start right after `std::`.
THREAD = re.compile(r"\bstd::j?thread\b(?!\s*::)")


def findings(root):
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if rel in HOMES:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        code = line.split("//", 1)[0]
                        if THREAD.search(code):
                            yield f"{rel}:{no}: starts its own thread; use run_workers() or a StageThread (common/base)"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    found = list(findings(root))
    for f in found:
        print(f)
    if found:
        print(f"check_threads: {len(found)} finding(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
