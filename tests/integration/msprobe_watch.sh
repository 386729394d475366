#!/usr/bin/env bash
# Issue 41 acceptance, live (docs/formats/msprobe.md §3, §10): `watch` on the user's dump_path
# while a job dumps 2 steps x 2 ranks the way msProbe does (tensor files written as each API
# finishes, dump.json truncated and rewritten whole under flock every few files, the ranks
# interleaved) compacts every tensor file, never touches the json files (byte-identical to the
# generator's at the end), and every summary equals numpy's statistics in float64.
# Usage: msprobe_watch.sh MSIT_BIN MSIT_DUMPGEN CHECK_MSPROBE_PY ; exit 77 (skip) without numpy.
set -euo pipefail
BIN="$1" GEN="$2" CHECK="$3" MSIT_BIN="$1"
source "$(dirname "$0")/wait_lib.sh"
T="$(mktemp -d "${TMPDIR:-/tmp}/msit-msprobe-watch.XXXXXX")"
WPID=""
trap '[ -n "$WPID" ] && kill -9 $WPID 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/watch.log" ] && tail -20 "$T/watch.log" >&2; exit 1; }
PY=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import numpy' > /dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "SKIP: no python3 with numpy"; exit 77; }

"$GEN" msprobe --out "$T/gen" --framework pytorch --level mix --backward --steps 2 --ranks 2 --ops 10 \
  --hidden 16 --rows 4 --nan-at 4 > /dev/null
"$PY" "$CHECK" sums "$T/gen" "$T/sums.gen"
mkdir -p "$T/live"
"$BIN" watch "$T/live" --settle-ms 50 > "$T/watch.log" 2>&1 &
WPID=$!
wait_until 30 'grep -q "start-up scan done" "$T/watch.log"' || fail "watch did not start"

# The dumping job: per step, the ranks interleaved file by file; each rank's dump.json rewritten
# whole (truncate, then flock and write, as msProbe's save_json does) every 7 tensor files with a
# prefix of its entries, and its final bytes at the step's end.
"$PY" - "$T/gen" "$T/live" <<'PY'
import fcntl, json, os, shutil, sys
gen, live = sys.argv[1], sys.argv[2]
man = json.load(open(os.path.join(gen, "manifest.json")))
ranks = {}
for f in man["files"]:
    ranks.setdefault(f["path"].split("/dump_tensor_data/")[0], []).append(f["path"])
def rewrite(rank, data, final):
    dst = os.path.join(live, rank, "dump.json")
    with open(dst, "w") as out:  # truncates before the lock, as msProbe does
        fcntl.flock(out, fcntl.LOCK_EX)
        if final:
            out.write(open(os.path.join(gen, rank, "dump.json")).read())
        else:
            json.dump(data, out, indent=1)
        fcntl.flock(out, fcntl.LOCK_UN)
for side in ("npu", "bench"):
    for step in sorted({r.split("/")[1] for r in ranks if r.startswith(side + "/")}):
        group = sorted(r for r in ranks if r.startswith(side + "/" + step + "/"))
        docs = {r: json.load(open(os.path.join(gen, r, "dump.json"))) for r in group}
        for r in group:
            os.makedirs(os.path.join(live, r, "dump_tensor_data"), exist_ok=True)
        for i in range(max(len(ranks[r]) for r in group)):
            for r in group:
                if i < len(ranks[r]):
                    shutil.copyfile(os.path.join(gen, ranks[r][i]), os.path.join(live, ranks[r][i]))
                    if i % 7 == 6:
                        keys = list(docs[r]["data"])[: i // 2]
                        rewrite(r, dict(docs[r], data={k: docs[r]["data"][k] for k in keys}), False)
        for r in group:
            rewrite(r, None, True)
            for name in ("stack.json", "construct.json"):
                shutil.copyfile(os.path.join(gen, r, name), os.path.join(live, r, name))
PY
raw_left() { find "$T/live" -type f -path '*/dump_tensor_data/*' \( -name '*.pt' -o -name '*.npy' \) | wc -l; }
wait_until 120 '[ "$(raw_left)" = 0 ]' || fail "raw tensors left: $(raw_left)"
kill -TERM $WPID; wait $WPID || true; WPID=""
cp "$T/gen/manifest.json" "$T/live/"
"$PY" "$CHECK" sums "$T/live" "$T/sums.live"
cmp -s "$T/sums.gen" "$T/sums.live" || fail "a json file differs from what the job wrote"
left=$(find "$T/live/npu" "$T/live/bench" -type f ! -name '*.json' ! -name 'msit-summary.db*' | head -3)
[ -z "$left" ] || fail "left behind: $left"
"$BIN" export "$T/live" --format csv -o "$T/live.csv" > /dev/null
"$PY" "$CHECK" store "$T/live" "$T/live.csv"
echo "msprobe_watch: every tensor file compacted while the job dumped, json files unchanged"
