#!/usr/bin/env bash
# Issue 28 items 4 and 8 with the real binary as root and real users A and B (docs/safety.md,
# "Pinned roots and leftovers", T1-T6):
#  (a) a watch root B's model run made in a shared (1777) parent, with pending work, is renamed
#      away by B and replaced by a symlink to B's own tree: nothing there is deleted, summarised
#      or stored; the pending work is dropped and said so; the directory renamed back is watched
#      again.
#  (b) temp and claim names B planted, outside and inside dump roots, are kept and named, by
#      compact and by watch; our own leftovers are still recovered.
# Usage: trust_roots.sh MSIT_BIN
set -euo pipefail
MSIT_BIN="$1"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/users_lib.sh"
users_require
source "$HERE/daemon_lib.sh"
trap 'users_cleanup; cleanup' EXIT
users_make
chmod 755 "$WORK"
export MSIT_COMPACT_SUMMARY_FORMAT=store  # item 4 was found with the store: one must not appear
ge() { $DUMPS one "$1"; }
name() { echo "Add.Add_$1.$1.6.17065969121$(printf %05d "$1")"; }
digest() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r md5sum); }
log_has() { grep -qF -- "$1" "$WORK/daemon.log"; }

echo "(a) a watch root swapped for a symlink while its work is pending is dropped, never followed"
S="$WORK/shared"
shared_dir "$S"
R="$S/msit_ge_dump"
as_user "$UB" mkdir -m 755 "$R" "$R/0"  # made by B's model run
BT="$WORK/btree/msit_ge_dump"           # B's own tree, watched by nobody
mkdir -p "$BT/0"
for i in 1 2 3; do ge "$BT/0/$(name $i)"; done
chown -R "$UB:$UB" "$WORK/btree"
B_BEFORE="$(digest "$WORK/btree")"
C="$WORK/control/msit_ge_dump"  # a second root: its compaction shows the settle time has passed
mkdir -p "$C"
start_daemon "$R" "$C" --settle-ms 1000
wait_until 20 'log_has "start-up scan done"' || fail "(a) the daemon did not start"
# The work is held pending by a writer that keeps each file open (the lease probe says "busy"),
# opened right after the file is written, long before the settle time ends.
held=()
for i in 1 2 3; do
  ge "$R/0/$(name $i)"
  exec {fd}>> "$R/0/$(name $i)"
  held+=("$fd")
done
chown "$UB:$UB" "$R"/0/*
wait_until 20 '[ "$(status_field pending)" = 3 ]' || fail "(a) the three files never became pending"
as_user "$UB" mv "$R" "$S/moved"
as_user "$UB" ln -s "$BT" "$R"
wait_until 20 'log_has "3 pending file(s) dropped"' || fail "(a) the pending work was not dropped"
log_has "root directory moved away" || fail "(a) the log does not say that the root moved"
for fd in "${held[@]}"; do exec {fd}>&-; done  # the writer is done: the files could be taken now
# Two control files one after the other: when the second is compacted, more than a settle time
# has passed since the writer closed, so anything still pending would have been handed out.
for i in 8 9; do
  ge "$C/$(name $i)"
  wait_until 30 '[ ! -e "$C/$(name $i)" ]' || fail "(a) the control root was not compacted"
done
[ "$(digest "$WORK/btree")" = "$B_BEFORE" ] || fail "(a) B's tree changed: $(find "$WORK/btree" -type f)"
[ -z "$(find "$WORK/btree" -name 'msit-summary.db*' -o -name '*.summary.json' -o -name '.msit-*')" ] ||
  fail "(a) something was created in B's tree"
for i in 1 2 3; do [ -f "$S/moved/0/$(name $i)" ] || fail "(a) a file of the dropped root was deleted"; done
[ -z "$(find "$S/moved" -name 'msit-summary.db*')" ] || fail "(a) a store appeared in the dropped root"
[ "$(status_field dropped_with_root)" = 3 ] || fail "(a) status dropped_with_root is $(status_field dropped_with_root)"
wait_until 10 'log_has "never followed"' || fail "(a) the symlink at the root path was not refused"
# The same directory back at its path: watched again, and its dumps are compacted.
as_user "$UB" rm "$R"
as_user "$UB" mv "$S/moved" "$R"
wait_until 20 'log_has "is back at this path"' || fail "(a) the root was not attached again"
wait_until 30 '[ -z "$(find "$R/0" -name "Add.*")" ]' || fail "(a) the root back at its path was not compacted"
[ "$(digest "$WORK/btree")" = "$B_BEFORE" ] || fail "(a) B's tree changed later"
stop_daemon

echo "(b) temp and claim names B planted are kept and named; ours are recovered"
plant() {  # plant DIR: B's temp/claim names outside and inside the dump root of DIR
  local d="$1"
  shared_dir "$d"
  shared_dir "$d/msit_fx_dump"
  $DUMPS npy "$d/msit_fx_dump/add_1-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy"
  chown "$UA:$UA" "$d/msit_fx_dump"/*.npy
  $DUMPS npy "$WORK/b-embeddings.npy"
  chmod 644 "$WORK/b-embeddings.npy"
  local n
  for n in ".msit-tmp.notes" ".msit-claim.abc123.embeddings.npy" ".msit-claim.abc123-0.embeddings.npy" \
    "msit_fx_dump/.msit-tmp.abc123.x.summary.json" "msit_fx_dump/.msit-claim.abc123.embeddings.npy" \
    "msit_fx_dump/.msit-claim.abc123-0.embeddings.npy" \
    "msit_fx_dump/.msit-claim.abc123.mul_1-aten.mul.Tensor.OUTPUT.0.20250101000000000001.npy"; do
    as_user "$UB" cp "$WORK/b-embeddings.npy" "$d/$n"
  done
  # Leftovers of our own killed run (made by root, our uid in the claim): recovered.
  printf %s "{\"created_by\":\"msit-comp" > "$d/msit_fx_dump/.msit-tmp.ours.summary.json.k1LL3d"
  $DUMPS npy "$d/msit_fx_dump/.msit-claim.xyz789-0.sub_1-aten.sub.Tensor.OUTPUT.0.20250101000000000002.npy"
}
check_planted() {  # check_planted DIR OUTPUT_FILE WHAT
  local d="$1" out="$2" what="$3" n
  for n in ".msit-tmp.notes" ".msit-claim.abc123.embeddings.npy" ".msit-claim.abc123-0.embeddings.npy" \
    "msit_fx_dump/.msit-tmp.abc123.x.summary.json" "msit_fx_dump/.msit-claim.abc123.embeddings.npy" \
    "msit_fx_dump/.msit-claim.abc123-0.embeddings.npy" \
    "msit_fx_dump/.msit-claim.abc123.mul_1-aten.mul.Tensor.OUTPUT.0.20250101000000000001.npy"; do
    cmp -s "$WORK/b-embeddings.npy" "$d/$n" || fail "$what: B's $n was removed or changed"
    grep -qF "$d/$n" "$out" || fail "$what: B's $n is not named in the output"
  done
  [ -z "$(find "$d" -name embeddings.npy -o -name 'mul_1-*.npy')" ] || fail "$what: a planted claim was renamed back"
  [ ! -e "$d/msit_fx_dump/.msit-tmp.ours.summary.json.k1LL3d" ] || fail "$what: our own stale temp was kept"
  [ -z "$(find "$d" -name '.msit-claim.xyz789-*')" ] || fail "$what: our own claim was not given its name back"
  [ ! -e "$d/msit_fx_dump/sub_1-aten.sub.Tensor.OUTPUT.0.20250101000000000002.npy" ] ||
    fail "$what: our own claimed file was not compacted"
  [ ! -e "$d/msit_fx_dump/add_1-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy" ] ||
    fail "$what: A's dump was not compacted"
}
P="$WORK/planted"
plant "$P"
rc=0
"$MSIT_BIN" compact "$P" > "$WORK/compact.out" 2>&1 || rc=$?
cat "$WORK/compact.out"
[ "$rc" = 0 ] || fail "(b) compact exited $rc"
check_planted "$P" "$WORK/compact.out" "(b) compact"

Q="$WORK/planted-watch"
plant "$Q"
start_daemon "$Q" --settle-ms 50
wait_until 20 'log_has "start-up scan done"' || fail "(b) the daemon did not start"
wait_until 20 '[ ! -e "$Q/msit_fx_dump/sub_1-aten.sub.Tensor.OUTPUT.0.20250101000000000002.npy" ] &&
  [ ! -e "$Q/msit_fx_dump/add_1-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy" ]' ||
  fail "(b) watch did not compact the dumps"
check_planted "$Q" "$WORK/daemon.log" "(b) watch"
stop_daemon
echo "PASS"
