#!/usr/bin/env bash
# Issue 14 end to end: `watch` compacts an ATB dump and a torch-hook dump while they are being
# written (copied in file by file), keeps topology JSONs, model_tree.json and CSVs, and compare
# on the summaries names the injected op (layer 7's Linear) first in both tokens.
# Usage: atb_watch.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
BIN="$1" GEN="$2" MSIT_BIN="$1"
source "$(dirname "$0")/wait_lib.sh"
T="$(mktemp -d "${TMPDIR:-/tmp}/msit-atb-watch.XXXXXX")"
WPID=""
trap '[ -n "$WPID" ] && kill -9 $WPID 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/watch.log" ] && tail -20 "$T/watch.log" >&2; exit 1; }
"$GEN" atb --out "$T/gen" --layers 12 --tokens 2 --hidden 16 --rows 2 --diverge-at 15 --diverge-scale 0.5 > /dev/null
mkdir -p "$T/live"
"$BIN" watch "$T/live" --settle-ms 50 > "$T/watch.log" 2>&1 &
WPID=$!
wait_until 30 'grep -q "start-up scan done" "$T/watch.log"' || fail "watch did not start"
cp -r "$T/gen/atb" "$T/gen/torch" "$T/live/"
raw_left() { find "$T/live" -type f \( -name '*.bin' -o -name '*.pth' \) ! -name 'kernel_tilingdata.bin' | wc -l; }
wait_until 60 '[ "$(raw_left)" = 0 ]' || fail "raw tensors left: $(raw_left)"
kill -TERM $WPID; wait $WPID || true; WPID=""
[ -n "$(find "$T/live" -name 'model_tree.json')" ] || fail "model_tree.json was removed"
[ -n "$(find "$T/live/atb" -path '*/model/*' -name '*.json')" ] || fail "ATB topology was removed"
n=$(summary_count "$T/live")
[ "$n" -gt 0 ] || fail "no summaries"
rc=0
"$BIN" compare -g "$T/live/torch/msit_dump_20260101_000000/torch_tensors/cpu_100" \
  -m "$T/live/atb/msit_dump_20260101_000000/tensors/0_200" --cl api -o "$T/out" > "$T/log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$T/log"; fail "compare on summaries: exit $rc, expected 1 (divergence)"; }
python3 - "$T"/out/msit_cmp_report_*.csv <<'PY' || fail "the injected op is not named first"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for token in ("0", "1"):
    fails = [r for r in rows if r["token_id"] == token and r["verdict"] == "fail"]
    assert fails, token
    assert "/7_BlockLayer/" in fails[0]["my_data_path"], fails[0]["my_data_path"]
    leaf = [r for r in fails if r["my_op_type"] != "BlockLayer"][0]
    assert "/7_BlockLayer/1_LinearOperation/" in leaf["my_data_path"], leaf["my_data_path"]
PY
echo "atb_watch: $n summaries, the injected op named first in both tokens"
