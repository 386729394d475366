#!/usr/bin/env bash
# Batches fit the descriptor limit: `compact -j 8` under a hard limit of 200 descriptors (a
# batch keeps each file's descriptors open until its removal is checked) compacts every file
# instead of failing most of them with EMFILE, in both summary formats.
source "$(dirname "$0")/compact_lib.sh" "$@"

for fmt in store json; do
  root="$T/$fmt"
  "$DUMPGEN" tree --out "$root" --layout all --files 600 --seed 21
  rc=0
  (ulimit -n 200 && exec "$MSIT" compact -j 8 --summary-format "$fmt" "$root") \
    > "$T/compact.out" 2> "$T/compact.err" || rc=$?
  expect_rc 0 "$rc" "compact -j 8 ($fmt) under a limit of 200 descriptors"
  if grep -q "Too many open files" "$T/compact.out" "$T/compact.err"; then fail "EMFILE in the $fmt run"; fi
  "$DUMPGEN" verify --manifest "$root/manifest.json" --tree "$root" --expect-raw-gone
done
echo "PASS compact_fd_limit"
