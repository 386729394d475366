#!/usr/bin/env bash
# The generator's manifest against numpy's own reading of the files it wrote (a third,
# independent decoder: numpy.load, a Python protobuf decoder, msaccucmp-style transposes).
# Usage: dumpgen_crosscheck.sh MSIT_DUMPGEN CHECK_MANIFEST_PY ; exit 77 (skip) without numpy.
set -euo pipefail
DUMPGEN="$1"
CHECK="$2"
T="$(mktemp -d "${TMPDIR:-/tmp}/msit-dumpgen-xc.XXXXXX")"
trap 'rm -rf "$T"' EXIT
PY=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import numpy' > /dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "SKIP: no python3 with numpy"; exit 77; }
"$DUMPGEN" tree --out "$T/d" --layout all --files 600 --corrupt 12 --ranks 2 --tokens 2 --seed 21
"$PY" "$CHECK" "$T/d"
