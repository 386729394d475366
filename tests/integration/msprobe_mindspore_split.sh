#!/bin/bash
# MindSpore PYNATIVE_GRAPH dumps (docs/formats/msprobe.md §1.2): a generated MindSpore tensor dump
# split into graph/ (the jit cells, a bare `rank` folder) and pynative/ (the APIs), one error
# injected inside the second block.
#  (a) compare -tp/-gp on the two dump_paths: one report per half under graph/step0 and
#      pynative/step0; pynative names the injected API, graph the cell around it;
#  (b) compact: every tensor file of both halves summarised and deleted except a file still under
#      TensorDump's pending name (msProbe reads and renames it at the step's end); json unchanged;
#  (c) watch DUMP_PATH --golden G while the two halves arrive: one event per half, the same names.
# Usage: msprobe_mindspore_split.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh" "$@"

"$GEN" msprobe --out "$T/gen" --framework mindspore --ms-split --level mix --ops 10 --hidden 16 --rows 4 \
  --diverge-at 6 --diverge-scale 0.2 >/dev/null
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['first_divergence'])" "$T/gen/scenario.json")
cell=Cell.layers.1.Block.forward.0  # ops 5..9: the second block holds op 6
[ -d "$T/gen/npu/graph/step0/rank/dump_tensor_data" ] && [ -d "$T/gen/npu/pynative/step0/rank0" ] ||
  fail "generator: no graph/step0/rank or pynative/step0/rank0"

# (a) compare: the graph/pynative pair, each half step by step.
rc=0
"$BIN" compare -tp "$T/gen/npu" -gp "$T/gen/bench" -o "$T/c1" >"$T/c1.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "(a) compare exited $rc"
ls "$T"/c1/graph/step0/compare_result_rank_*.csv "$T"/c1/pynative/step0/compare_result_rank0_*.csv >/dev/null ||
  fail "(a) reports: $(cd "$T/c1" && find . -type f)"
grep -q "^first divergence: $want " "$T/c1.log" || fail "(a) pynative: $(grep '^first' "$T/c1.log")"
grep -q "^first divergence: $cell " "$T/c1.log" || fail "(a) graph: $(grep '^first' "$T/c1.log")"
echo "msprobe_mindspore_split: (a) compare names $want (pynative) and $cell (graph): ok"

# (b) compact both halves; a TensorDump file not yet renamed by msProbe stays.
cp -r "$T/gen/npu" "$T/cn"
G=$T/cn/graph/step0/rank/dump_tensor_data
pending="$cell.input.0_float32_7.npy"
cp "$G/$cell.input.0.npy" "$G/$pending"
jsums() { (cd "$1" && find . -name '*.json' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }
jsums "$T/cn" >"$T/before"
"$BIN" compact "$T/cn" --jobs 2 >"$T/compact.log" 2>&1 || fail "(b) compact failed: $(tail -3 "$T/compact.log")"
left=$(find "$T/cn" -type f -name '*.npy' | sed "s|$T/cn/||")
[ "$left" = "graph/step0/rank/dump_tensor_data/$pending" ] || fail "(b) left after compact: $left"
jsums "$T/cn" | cmp -s - "$T/before" || fail "(b) a json file changed"
[ -f "$T/cn/graph/step0/rank/msit-summary.db" ] && [ -f "$T/cn/pynative/step0/rank0/msit-summary.db" ] ||
  fail "(b) no store in a half's rank folder"
echo "msprobe_mindspore_split: (b) both halves compacted, TensorDump's pending file kept, json unchanged: ok"

# (c) live: the halves arrive while watch runs (each half's step is final once the tree is quiet).
mkdir -p "$T/w/npu"
start_watch "$T/watch.log" "$T/w/npu" "$T/gen/bench" "$T/ev.jsonl"
cp -r "$T/gen/npu/pynative" "$T/w/npu/pynative"
cp -r "$T/gen/npu/graph" "$T/w/npu/graph"
wait_until 60 "[ \"\$(lines '$T/ev.jsonl')\" = 2 ]" || fail "(c) events: $(cat "$T/ev.jsonl" 2>/dev/null)"
stop_watch
got=$(python3 -c '
import json, sys
print("\n".join(sorted("%s %s" % (e["token"], e["op"]) for e in map(json.loads, open(sys.argv[1])))))' "$T/ev.jsonl")
[ "$got" = "$(printf 'graph/step0 %s\nstep0 %s' "$cell" "$want")" ] || fail "(c) events: $got"
echo "msprobe_mindspore_split: (c) watch named $want and $cell, one event per half: ok"
