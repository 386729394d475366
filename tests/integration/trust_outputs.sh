#!/bin/bash
# Trust round 2, outputs and messages (docs/safety.md, "Outputs and messages", O1-O10), as root
# with real users: symlinks and links another user plants under every output and temp name of
# compare (CSV, JSON, HTML, xlsx) and export never make root write a root-only file; file names
# with a newline and escape sequences are escaped; a FIFO named x.safetensors is refused; the
# torch hook layout torch_dump/{PID}_npu{N} is compacted by compact and watch; a sparse raw file
# is kept; a too-long name and a full disk under the store (tmpfs, when it can be mounted) are
# named as such.
# Usage: trust_outputs.sh MSIT_BIN MSIT_DUMPGEN ATB_TREE_WRITER
set -euo pipefail
BIN=$1
GEN=$2
WRITER=$3
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/users_lib.sh"
users_require

T=$(mktemp -d /tmp/msit-trust-outputs.XXXXXX)
chmod 755 "$T"
MNT=""
WATCH_PID=""
cleanup() {
  if [ -n "$WATCH_PID" ] && kill -0 "$WATCH_PID" 2> /dev/null; then kill -9 "$WATCH_PID" 2> /dev/null || true; fi
  [ -n "$MNT" ] && umount "$MNT" 2> /dev/null || true
  users_cleanup
  rm -rf "$T"
}
trap cleanup EXIT
users_make

fail() { echo "FAIL: $*" >&2; exit 1; }
# wait_until SECONDS 'shell condition': polls every 50 ms (a safety net, not a timing assertion).
wait_until() {
  local deadline=$(($(date +%s%N) + $1 * 1000000000))
  while ! eval "$2"; do
    [ "$(date +%s%N)" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}
no_temps() { [ -z "$(find "$1" -name '.msit-tmp.*' 2> /dev/null)" ] || fail "temp left in $1: $(find "$1" -name '.msit-tmp.*')"; }

# The root-only file every planted link points at.
SECRET=$T/secret
echo "root only" > "$SECRET"
chmod 600 "$SECRET"
secret_intact() { [ "$(cat "$SECRET")" = "root only" ] && [ "$(stat -c %u:%h "$SECRET")" = "0:1" ] || fail "$1: the root-only file was changed"; }

# As the attacker: symlinks to $SECRET under every name compare or export may use in DIR over
# the next 120 seconds (report names carry the UTC second), and under the xlsx writer's old
# predictable temp names (.NAME.tmpPID) for the next 128 PIDs and 10 seconds.
plant() {
  as_user "$UA" /usr/bin/python3 - "$1" "$SECRET" "$2" << 'PY'
import os, sys, time
d, target, kinds = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
now = int(time.time())
try:
    last = int(open("/proc/sys/kernel/ns_last_pid").read())
except OSError:
    last = os.getpid()
for s in range(now, now + 120):
    ts = time.strftime("%Y%m%d%H%M%S", time.gmtime(s))
    for k in kinds:
        name = k.replace("TS", ts)
        os.symlink(target, os.path.join(d, name))
        if name.endswith(".xlsx") and s < now + 10:
            for pid in range(last + 1, last + 129):
                os.symlink(target, os.path.join(d, ".%s.tmp%d" % (name, pid)))
PY
}

S=$T/model
"$GEN" model --out "$S" --ops 6 --tokens 1 --seed 2 > /dev/null
python3 "$WRITER" "$T/atb" --layers 3 > /dev/null
AG=$T/atb/torch/msit_dump_20260101_000000/torch_tensors/cpu_100
AM=$T/atb/atb/msit_dump_20260101_000001/tensors/0_200

echo "O1: compare reports (CSV, JSON, HTML) never follow a planted symlink"
OUT=$T/shared
shared_dir "$OUT"
plant "$OUT" "msit_cmp_report_rank0_TS.csv,msit_cmp_report_rank0_TS.json"
as_user "$UA" ln -s "$SECRET" "$OUT/report.html"
for fmt in csv json; do
  rc=0
  flag=""
  [ $fmt = json ] && flag=--json
  "$BIN" compare -m "$S/msit_ge_dump" -g "$S/msit_fx_dump" -o "$OUT" $flag -q > "$T/log" 2>&1 || rc=$?
  [ $rc = 3 ] || fail "compare $fmt into planted names: exit $rc, expected 3: $(cat "$T/log")"
  grep -q "symbolic link, never followed" "$T/log" || fail "compare $fmt: no clear message: $(cat "$T/log")"
  secret_intact "compare $fmt"
done
rc=0
"$BIN" compare -m "$S/msit_ge_dump" -g "$S/msit_fx_dump" -o "$T/private" -q --html "$OUT/report.html" > "$T/log" 2>&1 || rc=$?
[ $rc = 3 ] && grep -q "symbolic link" "$T/log" || fail "--html onto a planted symlink: exit $rc: $(cat "$T/log")"
secret_intact "compare --html"
[ -L "$OUT/report.html" ] || fail "the planted symlink was replaced"
# A file of the attacker's under the HTML name: kept, not replaced, not written.
rm -f "$OUT/report.html"
as_user "$UA" sh -c "echo mine > '$OUT/report.html'"
rc=0
"$BIN" compare -m "$S/msit_ge_dump" -g "$S/msit_fx_dump" -o "$T/private" -q --html "$OUT/report.html" > "$T/log" 2>&1 || rc=$?
[ $rc = 3 ] && grep -q "belongs to uid $UA_ID" "$T/log" || fail "--html onto another user's file: exit $rc: $(cat "$T/log")"
[ "$(cat "$OUT/report.html")" = mine ] || fail "another user's file was replaced"
no_temps "$OUT"

echo "O2: the xlsx report is written through our own fd, never through a predictable temp"
XO=$T/xlsx_out
mkdir "$XO"
chown "$UA" "$XO" # a directory of the attacker's own: protected_symlinks does not apply there
plant "$XO" "msit_cmp_report_TS.xlsx"
rc=0
"$BIN" compare -g "$AG" -m "$AM" -o "$XO" -q > "$T/log" 2>&1 || rc=$?
[ $rc = 3 ] && grep -q "symbolic link" "$T/log" || fail "xlsx onto planted names: exit $rc: $(cat "$T/log")"
secret_intact "xlsx"
# Only the old temp names planted: the report is published as a new root-owned file.
find "$XO" -maxdepth 1 -name 'msit_cmp_report_*.xlsx' -type l -delete
rc=0
"$BIN" compare -g "$AG" -m "$AM" -o "$XO" -q > "$T/log" 2>&1 || rc=$?
secret_intact "xlsx temps"
[ $rc = 0 ] || [ $rc = 1 ] || fail "xlsx with planted temp names: exit $rc: $(cat "$T/log")"
X=$(find "$XO" -maxdepth 1 -name 'msit_cmp_report_*.xlsx' -type f)
[ -n "$X" ] && [ "$(stat -c %u "$X")" = 0 ] || fail "no root-owned xlsx report"
python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).testzip()" "$X"
no_temps "$XO"
# The ATB -cl CSV, the stats and the weight flows use the same writer: one of them here.
plant "$XO" "msit_cmp_report_TS.csv"
rc=0
"$BIN" compare -g "$AG" -m "$AM" -o "$XO" --cl api -q > "$T/log" 2>&1 || rc=$?
[ $rc = 3 ] && grep -q "symbolic link" "$T/log" || fail "ATB CSV onto planted names: exit $rc: $(cat "$T/log")"
secret_intact "ATB CSV"

echo "O3: export's CSV and JSON files never follow a planted symlink"
ST=$T/stored
cp -r "$S" "$ST"
MSIT_COMPACT_SUMMARY_FORMAT=store "$BIN" compact -q "$ST/msit_fx_dump" > /dev/null
as_user "$UA" ln -s "$SECRET" "$OUT/export.csv"
rc=0
"$BIN" export "$ST" --format csv -o "$OUT/export.csv" > "$T/log" 2>&1 || rc=$?
[ $rc = 1 ] && grep -q "conflict" "$T/log" || fail "export csv onto a symlink: exit $rc: $(cat "$T/log")"
secret_intact "export csv"
EXD=$T/export_dir
mkdir -p "$EXD"
"$BIN" export "$ST" -o "$T/export_probe" -q > /dev/null
chown -R "$UA" "$EXD"
(cd "$T/export_probe" && find . -name '*.summary.json') | while read -r f; do
  as_user "$UA" mkdir -p "$EXD/$(dirname "$f")"
  as_user "$UA" ln -s "$SECRET" "$EXD/$f"
done
rc=0
"$BIN" export "$ST" -o "$EXD" > "$T/log" 2>&1 || rc=$?
[ $rc = 1 ] || fail "export json onto symlinks: exit $rc: $(cat "$T/log")"
secret_intact "export json"
[ -z "$(find "$EXD" -type f)" ] || fail "export json wrote a file: $(find "$EXD" -type f)"
no_temps "$EXD"

echo "O4: file names with a newline and escape sequences are escaped in every line"
INJ=$T/inj/msit_fx_dump/1
mkdir -p "$INJ"
cp "$(find "$S/msit_fx_dump" -name '*.npy' | head -1)" "$INJ/"
printf 'x' > "$INJ/$(printf 'evil\nmsit-compact compact: error: forged\033[31m.npy')"
printf 'garbage' > "$INJ/$(printf 'mm_\033[2J-aten.mm.default.INPUT.0.1700000000000000.npy')"
rc=0
"$BIN" compact -v "$T/inj" > "$T/out_v" 2> "$T/err_v" || rc=$?
[ $rc = 1 ] || fail "compact of the injection tree: exit $rc"
cat "$T/out_v" "$T/err_v" > "$T/all_v"
! grep -q $'\033' "$T/all_v" || fail "an escape byte reached the terminal: $(cat -v "$T/all_v")"
grep -q '^msit-compact compact: error: forged' "$T/all_v" && fail "a forged line: $(cat "$T/all_v")"
grep -qF 'evil\x0amsit-compact compact: error: forged\x1b[31m.npy' "$T/all_v" || fail "not escaped: $(cat -v "$T/all_v")"
grep -qF 'mm_\x1b[2J-aten' "$T/all_v" || fail "failure line not escaped: $(cat -v "$T/all_v")"
rc=0
"$BIN" compare -m "$T/$(printf 'no\nsuch\033[0m')" -g "$S/msit_fx_dump" -q 2> "$T/err_c" || rc=$?
[ "$(wc -l < "$T/err_c")" = 1 ] && ! grep -q $'\033' "$T/err_c" || fail "compare error line: $(cat -v "$T/err_c")"

echo "O5: a FIFO named x.safetensors is refused, compare -w does not hang"
mkdir -p "$T/w/g" "$T/w/m"
mkfifo "$T/w/g/x.safetensors" "$T/w/m/x.safetensors"
rc=0
timeout 60 "$BIN" compare -w -g "$T/w/g" -m "$T/w/m" -o "$T/w/out" > "$T/log" 2>&1 || rc=$?
[ $rc != 124 ] || fail "compare -w blocked on a FIFO"
[ $rc = 3 ] && grep -q "x.safetensors: open: not a regular file" "$T/log" || fail "FIFO: exit $rc: $(cat "$T/log")"

echo "O6: a name too long for its claim name is kept and said so"
LN=$T/longname/msit_fx_dump/1
mkdir -p "$LN"
long="mm_$(printf 'x%.0s' $(seq 205))-aten.mm.default.INPUT.0.1700000000000000.npy"
cp "$(find "$S/msit_fx_dump" -name '*.npy' | head -1)" "$LN/$long"
rc=0
# The store format: with per-file JSON the summary name itself is too long (said plainly too).
MSIT_COMPACT_SUMMARY_FORMAT=store "$BIN" compact "$T/longname" > "$T/log" 2>&1 || rc=$?
[ $rc = 1 ] && grep -q "name too long to remove safely.*(ENAMETOOLONG); the raw file is kept" "$T/log" ||
  fail "long name: exit $rc: $(cat "$T/log")"
! grep -q "replaced after it was summarised" "$T/log" || fail "long name reported as replaced"
[ -f "$LN/$long" ] || fail "the long-named raw file went"

echo "O10: the torch hook layout torch_dump/{PID}_npu{N} is a dump root (compact and watch)"
for d in torch_dump torch_dump_w; do
  mkdir -p "$T/$d/4242_npu0"
  cp -r "$AG"/. "$T/$d/4242_npu0/"
done
npth=$(find "$T/torch_dump" -name '*.pth' | wc -l)
[ "$npth" -gt 0 ] || fail "no .pth in the torch tree"
"$BIN" compact "$T/torch_dump" > "$T/log" 2>&1 || fail "compact torch_dump: $(cat "$T/log")"
grep -q "compacted $npth of $npth dump files" "$T/log" || fail "torch_dump: $(cat "$T/log")"
[ -z "$(find "$T/torch_dump" -name '*.pth')" ] && [ -f "$T/torch_dump/4242_npu0/model_tree.json" ] ||
  fail "torch_dump after compact: $(find "$T/torch_dump" -type f)"
# The same watch logs a bad file whose directory name carries a newline and escape sequences
# (O4 for the daemon's log).
WI="$T/inj_w/msit_fx_dump/$(printf 'evil\n2026-01-01 00:00:00 msit-compact watch: error: forged\033[31m')"
mkdir -p "$WI"
head -c 4096 /dev/urandom > "$WI/mm_1-aten.mm.default.INPUT.0.1700000000000000.npy" # not an npy: refused at once
"$BIN" watch --settle-ms 100 "$T/torch_dump_w" "$T/inj_w" > "$T/watch.log" 2>&1 &
WATCH_PID=$!
wait_until 60 '[ -z "$(find "$T/torch_dump_w" -name "*.pth")" ]' || fail "watch left the torch hook files: $(cat "$T/watch.log")"
wait_until 60 'grep -q "bad magic" "$T/watch.log"' || fail "watch did not report the bad file: $(cat -v "$T/watch.log")"
! grep -q $'\033' "$T/watch.log" || fail "an escape byte reached the daemon log: $(cat -v "$T/watch.log")"
! grep -q '^2026-01-01 00:00:00 msit-compact watch: error: forged' "$T/watch.log" || fail "a forged log line"
grep -qF 'evil\x0a2026-01-01 00:00:00 msit-compact watch: error: forged\x1b[31m' "$T/watch.log" ||
  fail "daemon log not escaped: $(cat -v "$T/watch.log")"
kill -TERM "$WATCH_PID"
wait "$WATCH_PID" || fail "watch exit status"
WATCH_PID=""
[ -f "$T/torch_dump_w/4242_npu0/model_tree.json" ] || fail "watch removed model_tree.json"

echo "O9: a sparse raw file is kept, not read"
SP=$T/sparse/msit_fx_dump/1
mkdir -p "$SP"
python3 - "$SP/add_1-aten.add.Tensor.OUTPUT.0.1700000000000001.npy" << 'PY'
import struct, sys
n = 256 << 20
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
hdr += " " * (64 - (10 + len(hdr) + 1) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode())
    f.truncate(128 + 4 * n)
PY
if [ "$(stat -c %b "$SP"/*.npy)" -lt 1000 ]; then
  rc=0
  "$BIN" compact "$T/sparse" > "$T/log" 2>&1 || rc=$?
  [ $rc = 1 ] && grep -q "incomplete: sparse file" "$T/log" || fail "sparse: exit $rc: $(cat "$T/log")"
  [ "$(stat -c %s "$SP"/*.npy)" = $((128 + (1 << 30))) ] || fail "the sparse file was changed"
else
  echo "  (skipped: $T keeps no holes)"
fi

echo "O7: a full disk under the store is said plainly"
MNT=$T/mnt
mkdir -p "$MNT"
if mount -t tmpfs -o size=256k tmpfs "$MNT" 2> /dev/null; then
  mkdir -p "$MNT/msit_fx_dump/1"
  find "$S/msit_fx_dump" -name '*.npy' -size -8k | head -2 | xargs -I{} cp {} "$MNT/msit_fx_dump/1/"
  dd if=/dev/zero of="$MNT/filler" bs=1k count=220 2> /dev/null || true
  before=$(find "$MNT/msit_fx_dump" -name '*.npy' | wc -l)
  rc=0
  MSIT_COMPACT_SUMMARY_FORMAT=store "$BIN" compact "$MNT" > "$T/log" 2>&1 || rc=$?
  [ $rc = 1 ] || fail "full disk: exit $rc: $(cat "$T/log")"
  grep -q "no space left on device under $MNT/msit_fx_dump; raw files kept; free space and rerun" "$T/log" ||
    fail "full disk message: $(cat "$T/log")"
  [ "$(find "$MNT/msit_fx_dump" -name '*.npy' | wc -l)" = "$before" ] || fail "a raw file went on a full disk"
  umount "$MNT"
  MNT=""
else
  echo "  (skipped: cannot mount a tmpfs here)"
fi
echo "trust_outputs: all passed"
