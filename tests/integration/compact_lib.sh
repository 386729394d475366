# Shared helpers for the compact_*.sh integration tests (sourced, not run).
# Usage in a test: source "$(dirname "$0")/compact_lib.sh" "$@"
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/wait_lib.sh"
MSIT="$1"
MSIT_BIN="$1"  # wait_lib.sh's summary_json
DUMPGEN="$2"
T="$(mktemp -d "${TMPDIR:-/tmp}/msit-compact-it.XXXXXX")"
trap 'rm -rf "$T"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# compact with the exit status captured (set -e would stop on the expected status 1).
run_compact() {
  local rc=0
  "$MSIT" compact "$@" > "$T/compact.out" 2> "$T/compact.err" || rc=$?
  echo "$rc"
}

expect_rc() {  # expect_rc WANT GOT WHAT
  [ "$1" = "$2" ] || { cat "$T/compact.out" "$T/compact.err" >&2; fail "$3: exit status $2, expected $1"; }
}

# Content + type listing of a tree (symlinks by target, never followed), for before/after diffs.
snapshot() {
  (cd "$1" && {
     find . -mindepth 1 -type f -print0 | xargs -0 -r sha256sum
     find . -mindepth 1 -type l -printf 'l %p -> %l\n'
     find . -mindepth 1 -type d -printf 'd %p\n'
   } | LC_ALL=C sort)
}

# A python3 that has numpy, or empty.
numpy_python() {
  local p
  for p in python3 /usr/bin/python3; do
    if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import numpy' > /dev/null 2>&1; then
      echo "$p"
      return
    fi
  done
}

# PY: a python3 with numpy; without one the test is skipped (exit 77: ctest's SKIP_RETURN_CODE).
require_numpy_python() {  # require_numpy_python TEST_NAME
  PY=$(numpy_python)
  if [ -z "$PY" ]; then
    echo "$1: SKIPPED: no python3 with numpy (scripts/deps installs python3-numpy)"
    exit 77
  fi
}

json_field() {  # json_field FILE KEY -> integer value of a top-level key of compact --json
  grep -o "\"$2\": *[0-9]*" "$1" | head -1 | grep -o '[0-9]*$'
}
