#!/bin/bash
# aclgraph dumps (docs/formats/msprobe.md §1.3): a tensor task writes no dump.json; while a step
# runs its files collect in dump_path/dump_tensor_data/{rank|pid}/ and at the step's end each is
# moved into step{N}/{rank|pid}/dump_tensor_data/. Tensor files from `msit-dumpgen msprobe`
# (torch.save zips) under aclgraph's names `{module}.{call}.{input|output}.{i}.pt`.
#  (a) compact: the step folders' files (pid{N} with dump_tensor_data/, rank{R} with the
#      document's tensor_data/) summarised into the rank folder's store and deleted; the pending
#      folder untouched;
#  (b) watch: files moved into a step folder as msProbe moves them are compacted live; the files
#      still pending are never touched.
# Usage: msprobe_aclgraph.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
BIN="$1" GEN="$2" MSIT_BIN="$1"
source "$(dirname "$0")/wait_lib.sh"
T="$(mktemp -d "${TMPDIR:-/tmp}/msit-aclgraph.XXXXXX")"
WPID=""
trap '[ -n "$WPID" ] && kill -9 $WPID 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/watch.log" ] && tail -20 "$T/watch.log" >&2; exit 1; }

"$GEN" msprobe --out "$T/gen" --framework pytorch --ops 6 --hidden 8 --rows 2 >/dev/null
mapfile -t PT < <(find "$T/gen/npu/step0/rank0/dump_tensor_data" -name '*.pt' | sort)
[ "${#PT[@]}" -ge 8 ] || fail "generator wrote ${#PT[@]} .pt files"
# place DIR FIRST COUNT: COUNT tensor files under aclgraph names into DIR.
place() {
  mkdir -p "$1"
  local i
  for ((i = $2; i < $2 + $3; i++)); do
    cp "${PT[$i]}" "$1/model.layers.$i.mlp.0.$([ $((i % 2)) = 0 ] && echo input || echo output).0.pt"
  done
}
raw() { find "$1" -type f -name '*.pt' 2>/dev/null | wc -l; }

# (a) compact.
D=$T/a
place "$D/step0/pid77/dump_tensor_data" 0 3
place "$D/step1/rank0/tensor_data" 3 2
place "$D/dump_tensor_data/pid77" 5 3  # the step running: msProbe still lists and moves these
"$BIN" compact "$D" >"$T/compact.log" 2>&1 || fail "(a) compact: $(tail -3 "$T/compact.log")"
[ "$(raw "$D/step0")" = 0 ] && [ "$(raw "$D/step1")" = 0 ] || fail "(a) raw left in the step folders"
[ "$(raw "$D/dump_tensor_data")" = 3 ] || fail "(a) the pending folder was touched"
[ "$(summary_count "$D/step0/pid77")" = 3 ] && [ "$(summary_count "$D/step1/rank0")" = 2 ] ||
  fail "(a) summaries: $(summary_count "$D/step0/pid77"), $(summary_count "$D/step1/rank0")"
echo "msprobe_aclgraph: (a) compact: step folders summarised, pending folder untouched: ok"

# (b) watch while a run pends files and moves them at each step's end.
W=$T/b
mkdir -p "$W"
"$BIN" watch "$W" --settle-ms 50 >"$T/watch.log" 2>&1 &
WPID=$!
wait_until 30 'grep -q "start-up scan done" "$T/watch.log"' || fail "watch did not start"
place "$W/dump_tensor_data/rank0" 0 4  # step 0 running
mkdir -p "$W/step0/rank0/dump_tensor_data"
for f in "$W"/dump_tensor_data/rank0/*.pt; do mv "$f" "$W/step0/rank0/dump_tensor_data/"; done
place "$W/dump_tensor_data/rank0" 4 3  # step 1 running: pending, never touched
wait_until 60 '[ "$(raw "$W/step0")" = 0 ]' || fail "(b) raw left in step0: $(raw "$W/step0")"
[ "$(raw "$W/dump_tensor_data")" = 3 ] || fail "(b) the pending folder was touched"
kill -TERM $WPID
wait $WPID || fail "(b) watch exited with $?"
WPID=""
[ "$(summary_count "$W/step0/rank0")" = 4 ] || fail "(b) summaries: $(summary_count "$W/step0/rank0")"
echo "msprobe_aclgraph: (b) watch compacted the moved files, the pending ones untouched: ok"
