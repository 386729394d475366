#!/usr/bin/env bash
# One owner per tree, one place for its summaries, locks no user can squat (issue 28 items 5
# and 7; docs/safety.md "Owners and locks"). The binary runs as root, a throwaway user B plants
# and holds lock files. Usage: trust_owners.sh MSIT_BIN
set -euo pipefail
MSIT_BIN="$1"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/users_lib.sh"
users_require
DUMPS="python3 $HERE/daemon_dumps.py"
export MSIT_COMPACT_SUMMARY_FORMAT=store
T="$(mktemp -d "${TMPDIR:-/tmp}/msit-trust-owners.XXXXXX")"
chmod 755 "$T"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2> /dev/null || true; done
  users_cleanup
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for f in "$T"/*.log "$T/out" "$T/err"; do [ -f "$f" ] && { echo "== $f" >&2; tail -n 20 "$f" >&2; }; done; exit 1; }
wait_until() {
  local deadline=$(($(date +%s%N) + $1 * 1000000000))
  while ! eval "$2"; do
    [ "$(date +%s%N)" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}
# name RANK I: a GE dump name whose op is unique per rank (compare matches ops by name).
name() { echo "Add.Add_$1$2.$2.6.17065969121000$1$2"; }
# dump TREE GOLDEN RANK I...: writes the files into TREE and a copy into GOLDEN.
dump() {
  local tree="$1" golden="$2" rank="$3"
  shift 3
  mkdir -p "$tree/msit_ge_dump/rank$rank" "$golden/msit_ge_dump/rank$rank"
  for i in "$@"; do
    $DUMPS one "$tree/msit_ge_dump/rank$rank/$(name "$rank" "$i")"
    cp "$tree/msit_ge_dump/rank$rank/$(name "$rank" "$i")" "$golden/msit_ge_dump/rank$rank/"
  done
}
# readers_see_all TREE GOLDEN N: compare has a row per tensor of the N files (two each); every raw file is on disk or inspect finds
# its stored summary; export (CSV) of the tree and of each rank covers every stored entry.
readers_see_all() {
  local tree="$1" golden="$2" n="$3" rc=0
  rm -rf "$T/rep"
  "$MSIT_BIN" compare -q --my-path "$tree/msit_ge_dump" --golden-path "$golden/msit_ge_dump" -o "$T/rep" \
    > "$T/out" 2> "$T/err" || rc=$?
  [ "$rc" = 0 ] || fail "compare of $tree: exit $rc"
  local rows
  rows=$(($(cat "$T"/rep/*.csv | wc -l) - 1))
  [ "$rows" = $((2 * n)) ] || fail "compare of $tree shows $rows of $((2 * n)) rows"
  local gone=0 f
  for f in "$golden"/msit_ge_dump/rank*/Add.*; do
    local raw="$tree/msit_ge_dump/${f#"$golden"/msit_ge_dump/}"
    [ -f "$raw" ] && continue
    gone=$((gone + 1))
    "$MSIT_BIN" inspect "$raw" > "$T/out" 2> "$T/err" || fail "inspect $raw: no summary readers can find"
  done
  [ "$gone" -gt 0 ] || fail "nothing was compacted in $tree"
  local entries=0 r
  for r in "$tree"/msit_ge_dump/rank*; do
    entries=$((entries + $("$MSIT_BIN" export -q --format csv "$r" | tail -n +2 | cut -d, -f2 | sort -u | wc -l)))
  done
  [ "$entries" = "$gone" ] || fail "export of the ranks of $tree: $entries entries, $gone raw files gone"
}

echo "(a1) compact of one rank first, then watch of the parent: one store, every row visible"
A="$T/a1"
G="$T/a1g"
dump "$A" "$G" 0 1 2 3
dump "$A" "$G" 1 1 2 3
"$MSIT_BIN" compact -q "$A/msit_ge_dump/rank0" > "$T/out" 2> "$T/err" || fail "compact of rank0"
[ ! -e "$A/msit_ge_dump/rank0/msit-summary.db" ] || fail "a1: compact of rank0 made a nested store"
[ -f "$A/msit_ge_dump/msit-summary.db" ] || fail "a1: no store in the dump's home"
dump "$A" "$G" 0 4 5 6
dump "$A" "$G" 1 4 5 6
"$MSIT_BIN" watch --settle-ms 50 --json-status "$T/a1.status" "$A" >> "$T/a1.log" 2>&1 &
PIDS+=($!)
wait_until 60 '[ -z "$(find "$A" -name "Add.*" -type f)" ]' || fail "a1: watch did not compact the parent"
kill -TERM "${PIDS[-1]}"
wait "${PIDS[-1]}" || fail "a1: watch exit status"
[ "$(find "$A" -name 'msit-summary.db')" = "$A/msit_ge_dump/msit-summary.db" ] || fail "a1: more than one store"
readers_see_all "$A" "$G" 12

echo "(a2) a nested store of an earlier version: its rows and the outer store's are all read"
L="$T/a2"
LG="$T/a2g"
dump "$T/a2old" "$LG" 0 1 2 3  # compacted alone, its store then moved into rank0 (the old layout)
mv "$T/a2old/msit_ge_dump/rank0" "$T/a2old/msit_ge_dump0"
mkdir -p "$T/a2old/x" && mv "$T/a2old/msit_ge_dump0" "$T/a2old/x/msit_ge_dump"
"$MSIT_BIN" compact -q "$T/a2old/x/msit_ge_dump" > "$T/out" 2> "$T/err" || fail "a2: compact of the old rank"
dump "$L" "$LG" 0 4 5 6
dump "$L" "$LG" 1 1 2 3 4 5 6
"$MSIT_BIN" compact -q "$L" > "$T/out" 2> "$T/err" || fail "a2: compact of the parent"
mv "$T/a2old/x/msit_ge_dump/msit-summary.db" "$L/msit_ge_dump/rank0/"
# The issue's tree: rank0's store holds 3 rows, the outer one 9 (3 of them rank0's).
readers_see_all "$L" "$LG" 12
dump "$L" "$LG" 0 7
"$MSIT_BIN" compact -q "$L/msit_ge_dump" > "$T/out" 2> "$T/err" || fail "a2: compact after the nested store"
[ "$(sqlite3 "file:$L/msit_ge_dump/rank0/msit-summary.db?mode=ro" "select count(distinct path) from tensor_stats where path = '$(name 0 7)'")" = 1 ] ||
  fail "a2: a new row of rank0 did not go to the nearest (nested) store"
readers_see_all "$L" "$LG" 13

echo "(b1) a watch of the parent leaves a live child compact's subtree, temps and files alone"
C="$T/b"
CG="$T/bg"
dump "$C" "$CG" 0 1 2 3
dump "$C" "$CG" 1 1 2 3
MSIT_TEST_PAUSE_AFTER_SCAN_MS=600000 "$MSIT_BIN" compact "$C/msit_ge_dump/rank0" > "$T/child.log" 2>&1 &
CHILD=$!
PIDS+=($CHILD)
wait_until 30 '[ -f "$C/msit_ge_dump/rank0/.msit-compact.lock" ]' || fail "b1: the child took no lock"
echo inflight > "$C/msit_ge_dump/rank0/.msit-tmp.inflight.ABCDEF"
"$MSIT_BIN" watch --settle-ms 50 --rescan-interval-s 1 --json-status "$T/b.status" "$C" >> "$T/b1.log" 2>&1 &
WATCH=$!
PIDS+=($WATCH)
wait_until 60 '[ -z "$(find "$C/msit_ge_dump/rank1" -name "Add.*" -type f)" ]' || fail "b1: rank1 not compacted"
grep -q "skipped $C/msit_ge_dump/rank0: owned by pid $CHILD" "$T/b1.log" || fail "b1: the skip is not said"
[ -f "$C/msit_ge_dump/rank0/.msit-tmp.inflight.ABCDEF" ] || fail "b1: the child's temp was removed"
[ "$(find "$C/msit_ge_dump/rank0" -name 'Add.*' -type f | wc -l)" = 3 ] || fail "b1: the child's files were taken"
kill -9 "$CHILD"
wait "$CHILD" 2> /dev/null || true
# The owner is gone: its subtree is the watch's from the next rescan on.
wait_until 60 '[ -z "$(find "$C/msit_ge_dump/rank0" -name "Add.*" -type f)" ]' || fail "b1: rank0 not taken over"
grep -q "rank0: its owner (pid $CHILD" "$T/b1.log" || fail "b1: the take-over is not said"
kill -TERM "$WATCH"
wait "$WATCH" || fail "b1: watch exit status"
rm -f "$C/msit_ge_dump/rank0/.msit-tmp.inflight.ABCDEF"
readers_see_all "$C" "$CG" 6

echo "(b2) a compact of the parent skips a live child watch's subtree, and says so"
E="$T/b2"
EG="$T/b2g"
dump "$E" "$EG" 1 1 2 3
mkdir -p "$E/msit_ge_dump/rank0"
"$MSIT_BIN" watch --settle-ms 600000 --json-status "$T/b2.status" "$E/msit_ge_dump/rank0" >> "$T/b2.log" 2>&1 &
CHILD=$!
PIDS+=($CHILD)
wait_until 30 'grep -q "start-up scan done" "$T/b2.log"' || fail "b2: the child watch did not start"
dump "$E" "$EG" 0 1 2  # settling for 10 minutes in the child: still raw
echo inflight > "$E/msit_ge_dump/rank0/.msit-tmp.inflight.ABCDEF"
"$MSIT_BIN" compact "$E" > "$T/out" 2> "$T/err" || fail "b2: compact of the parent"
grep -q "skipped $E/msit_ge_dump/rank0: owned by pid $CHILD (msit-compact, uid 0)" "$T/out" || fail "b2: skip not said"
[ -f "$E/msit_ge_dump/rank0/.msit-tmp.inflight.ABCDEF" ] || fail "b2: the child's temp was removed"
[ "$(find "$E/msit_ge_dump/rank0" -name 'Add.*' -type f | wc -l)" = 2 ] || fail "b2: the child's files were taken"
[ -z "$(find "$E/msit_ge_dump/rank1" -name 'Add.*' -type f)" ] || fail "b2: rank1 not compacted"
# A second watch of the parent does not start over the child's subtree either: it skips it.
kill -TERM "$CHILD"
wait "$CHILD" || fail "b2: child watch exit status"

echo "(c) user B's lock files neither stop nor fool root's watch and compact"
users_make
S="$T/c/shared"
shared_dir "$S"                 # a 1777 dump directory's parent
shared_dir "$S/dump"            # and the dump directory, 1777 too
R="$S/dump/msit_ge_dump"
M="$T/c/marks"  # B says "holding" here
shared_dir "$M"
RG="$T/cg"
mkdir -p "$R"
chmod 1777 "$R"
dump "$S/dump" "$RG" 0 1 2 3
# B plants the lock name in the ancestor and in the root, and holds both.
as_user "$UB" touch "$S/.msit-compact.lock" "$R/.msit-compact.lock"
as_user "$UB" flock -x "$S/.msit-compact.lock" -c "touch $M/held1; exec sleep 600" &
PIDS+=($!)
as_user "$UB" flock -x "$R/.msit-compact.lock" -c "touch $M/held2; exec sleep 600" &
PIDS+=($!)
wait_until 10 '[ -f "$M/held1" ] && [ -f "$M/held2" ]' || fail "c: B could not hold his files"
"$MSIT_BIN" watch --settle-ms 50 --json-status "$T/c.status" "$R" >> "$T/c1.log" 2>&1 &
WATCH=$!
PIDS+=($WATCH)
wait_until 60 '[ -z "$(find "$R" -name "Add.*" -type f)" ]' || fail "c: watch did not start or compact"
grep -q "$S/.msit-compact.lock: .*ignored" "$T/c1.log" || fail "c: the ancestor's planted lock is not warned about"
grep -q "moved aside to .msit-compact.lock.ignored" "$T/c1.log" || fail "c: the root's planted lock not moved aside"
[ "$(stat -c %u "$R/.msit-compact.lock")" = 0 ] || fail "c: root's lock is not root's"
[ "$(stat -c %a "$R/.msit-compact.lock")" = 600 ] || fail "c: root's lock is not 0600"
! as_user "$UB" cat "$R/.msit-compact.lock" 2> /dev/null || fail "c: B can open root's lock"
# Killed daemon: its lock stays; B cannot open this one, but an earlier version's 0644 lock he can.
kill -9 "$WATCH"
wait "$WATCH" 2> /dev/null || true
[ -f "$R/.msit-compact.lock" ] || fail "c: the killed watch left no lock (test premise)"
chmod 644 "$R/.msit-compact.lock"
as_user "$UB" flock -s "$R/.msit-compact.lock" -c "touch $M/held3; exec sleep 600" &
PIDS+=($!)
wait_until 10 '[ -f "$M/held3" ]' || fail "c: B could not hold root's old lock"
dump "$S/dump" "$RG" 0 4 5
"$MSIT_BIN" watch --settle-ms 50 --json-status "$T/c2.status" "$R" >> "$T/c2.log" 2>&1 &
WATCH=$!
PIDS+=($WATCH)
wait_until 60 '[ -z "$(find "$R" -name "Add.*" -type f)" ]' || fail "c: watch over B's held lock did not work"
grep -q "held by pid .* (flock), which is not an msit-compact" "$T/c2.log" || fail "c: the squatted lock not warned about"
kill -TERM "$WATCH"
wait "$WATCH" || fail "c: watch exit status"
dump "$S/dump" "$RG" 0 6
as_user "$UB" touch "$R/.msit-compact.lock"
"$MSIT_BIN" compact "$R" > "$T/out" 2> "$T/err" || fail "c: compact refused"
grep -q "note: .*moved aside" "$T/out" || fail "c: compact does not say it moved B's file aside"
[ ! -e "$R/.msit-compact.lock" ] || fail "c: compact left its lock"
[ "$(find "$R" -maxdepth 1 -name '.msit-compact.lock.ignored.*' -user "$UB" | wc -l)" = 2 ] || fail "c: B's files not kept aside"
readers_see_all "$S/dump" "$RG" 6
sqlite3 "file:$R/msit-summary.db?mode=ro" "pragma quick_check" | grep -qx ok || fail "c: the store is damaged"
echo "trust_owners: all passed"
