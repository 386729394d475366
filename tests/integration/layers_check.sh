#!/bin/bash
# scripts/check_layers.py fails on an upward include and on a folder missing from its layer list,
# naming the file, the line and the include (docs/architecture.md "Layers").
set -euo pipefail
CHECK=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$T/common/formats" "$T/common/summary" "$T/common/newpart" "$T/cli"
printf '#include "common/base/result.h"\n' > "$T/common/summary/summary.h"
printf '#include <vector>\n\n#include "common/summary/summary.h"\n' > "$T/common/formats/bad.h"
printf '#include "common/formats/bad.h"\n#include "daemon/watcher.h"\n' > "$T/cli/ok.cpp"
printf '#include "common/base/result.h"\n' > "$T/common/newpart/x.h"

rc=0
out=$(python3 "$CHECK" "$T" 2>&1) || rc=$?
echo "$out"
[[ $rc == 1 ]] || fail "exit status $rc, expected 1"
grep -q '^common/formats/bad.h:3: includes common/summary/summary.h: common/formats (layer [0-9]*) may not include common/summary' <<< "$out" ||
  fail "the upward include common/formats/bad.h -> common/summary/summary.h is not named"
grep -q '^common/newpart/x.h: folder common/newpart is not in LAYERS' <<< "$out" || fail "the unknown folder is not named"
grep -q '^cli/ok.cpp' <<< "$out" && fail "cli/ok.cpp includes only lower layers but was reported"
grep -q 'check_layers: 2 finding(s)' <<< "$out" || fail "expected exactly two findings"

# The fixed tree passes.
rm -r "$T/common/newpart"
sed -i '/summary\.h/d' "$T/common/formats/bad.h"
python3 "$CHECK" "$T" || fail "a tree without upward includes was refused"
echo "layers_check: ok"
