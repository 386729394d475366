#!/bin/bash
# scripts/check_threads.py names a std::thread started outside common/base's two homes, by file
# and line, and lets hardware_concurrency(), this_thread and comments pass.
set -euo pipefail
CHECK=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$T/common/base" "$T/daemon" "$T/cli"
printf 'std::thread thread_;\n' > "$T/common/base/stage_thread.h"
printf 'unsigned n = std::thread::hardware_concurrency();\n// std::thread was here\n' > "$T/cli/ok.cpp"
printf 'void f() { std::this_thread::yield(); }\n' > "$T/daemon/ok.cpp"
printf '#include <thread>\n\nvoid g() { std::jthread t([] {}); }\n' > "$T/daemon/pool.cpp"

rc=0
out=$(python3 "$CHECK" "$T" 2>&1) || rc=$?
echo "$out"
[[ $rc == 1 ]] || fail "exit status $rc, expected 1"
grep -q '^daemon/pool.cpp:3: starts its own thread' <<< "$out" || fail "daemon/pool.cpp:3 is not named"
grep -q 'check_threads: 1 finding(s)' <<< "$out" || fail "expected exactly one finding"

rm "$T/daemon/pool.cpp"
python3 "$CHECK" "$T" || fail "a tree without hand-rolled threads was refused"
echo "threads_check: ok"
