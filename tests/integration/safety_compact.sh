#!/usr/bin/env bash
# The deletion contract with the real binary, one-shot side (docs/safety.md rows C1-C8):
# dump roots only, symlink swap after the scan, replacement before removal, trailing bytes,
# hostile headers, locks, and SIGINT. One scenario per run (each its own ctest), in the format
# of the environment (the store by default).
# Usage: safety_compact.sh MSIT_BIN SCENARIO   (C1 ... C8; `all` runs them one after another)
set -euo pipefail
MSIT_BIN="$1"
SCENARIO="${2:-all}"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/wait_lib.sh"
DUMPS="python3 $HERE/daemon_dumps.py"
T="$(mktemp -d "${TMPDIR:-/tmp}/msit-safety-it.XXXXXX")"
BG=""
trap '[ -n "$BG" ] && kill -9 $BG 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/out" ] && cat "$T/out" "$T/err" >&2; exit 1; }
run() { local rc=0; "$MSIT_BIN" "$@" > "$T/out" 2> "$T/err" || rc=$?; echo "$rc"; }
ge() { $DUMPS one "$1"; }
# paused VARIABLE: the background run has stopped at that test pause (its window is open).
paused() { grep -q "msit-test: paused at $1" "$T/err"; }

C1() {
  echo "C1: a directory with no dump root is refused; a user's .npy is never touched"
  mkdir -p "$T/home/work"
  $DUMPS one "$T/home/work/embeddings.npy"
  ge "$T/home/work/Add.Add_1.1.6.1706596912100001"
  sum_before=$(cat "$T"/home/work/* | sha256sum)
  rc=$(run compact "$T/home")
  [ "$rc" = 3 ] || fail "C1: exit $rc, expected 3"
  grep -q "no dump root" "$T/err" || fail "C1: no hint in the error"
  [ "$(cat "$T"/home/work/* | sha256sum)" = "$sum_before" ] || fail "C1: files changed"
  [ -z "$(find "$T/home" -name '*.summary.json' -o -name 'msit-summary.db*')" ] || fail "C1: summaries written"
}

C2() {
  echo "C2: files not named as dumps of their root are counted, listed with -v, and kept"
  mkdir -p "$T/d1/msit_ge_dump/0"
  ge "$T/d1/msit_ge_dump/0/Add.Add_1.1.6.1706596912100001"
  $DUMPS one "$T/d1/msit_ge_dump/0/notes.npy"
  $DUMPS one "$T/d1/stray.npy"
  rc=$(run compact "$T/d1" -v)
  [ "$rc" = 0 ] || fail "C2: exit $rc"
  grep -q "left alone: 1 file not named like a dump of its tree" "$T/out" || fail "C2: no count line"
  grep -q "left alone: 1 file not under a dump root" "$T/out" || fail "C2: no count line"
  grep -q "notes.npy: not named like a dump" "$T/out" || fail "C2: -v does not list the file"
  [ -f "$T/d1/msit_ge_dump/0/notes.npy" ] && [ -f "$T/d1/stray.npy" ] || fail "C2: a non-dump was removed"
  [ ! -e "$T/d1/msit_ge_dump/0/Add.Add_1.1.6.1706596912100001" ] || fail "C2: the dump was not compacted"
}

C3() {
  echo "C3: a directory swapped for a symlink after the scan is never followed"
  mkdir -p "$T/d2/msit_ge_dump/b" "$T/outside"
  for i in 1 2 3; do ge "$T/d2/msit_ge_dump/b/Add.Add_$i.$i.6.170659691210000$i"; cp "$T/d2/msit_ge_dump/b/Add.Add_$i.$i.6.170659691210000$i" "$T/outside/"; done
  outside_before=$(cd "$T/outside" && sha256sum * )
  # The run pauses after its scan until the swap is done (the release file; 60 s at most).
  MSIT_TEST_PAUSE_AFTER_SCAN_MS=60000 MSIT_TEST_PAUSE_RELEASE_FILE="$T/swapped" \
    "$MSIT_BIN" compact "$T/d2" -j 1 > "$T/out" 2> "$T/err" &
  BG=$!
  wait_until 60 paused MSIT_TEST_PAUSE_AFTER_SCAN_MS || fail "C3: the run did not reach its post-scan pause"
  mv "$T/d2/msit_ge_dump/b" "$T/d2/msit_ge_dump/b_real"
  ln -s "$T/outside" "$T/d2/msit_ge_dump/b"
  touch "$T/swapped"
  rc=0; wait $BG || rc=$?; BG=""
  [ "$rc" = 1 ] || fail "C3: exit $rc, expected 1 (files failed)"
  grep -q "symbolic link" "$T/err" || fail "C3: the refusal is not reported"
  [ "$(cd "$T/outside" && sha256sum *)" = "$outside_before" ] || fail "C3: files outside the tree changed"
  [ "$(ls "$T/outside" | wc -l)" = 3 ] || fail "C3: something was written outside the tree"
  [ "$(ls "$T/d2/msit_ge_dump/b_real" | wc -l)" = 3 ] || fail "C3: the real files were touched"
}

C4() {
  echo "C4: a file replaced between its summary and its removal is kept"
  mkdir -p "$T/d3/msit_ge_dump"
  f="$T/d3/msit_ge_dump/Add.Add_1.1.6.1706596912100001"
  ge "$f"
  # The run pauses before its claim until the file is replaced (the release file; 60 s at most).
  MSIT_TEST_PAUSE_BEFORE_CLAIM_MS=60000 MSIT_TEST_PAUSE_RELEASE_FILE="$T/replaced" \
    "$MSIT_BIN" compact "$T/d3" -j 1 > "$T/out" 2> "$T/err" &
  BG=$!
  wait_until 60 paused MSIT_TEST_PAUSE_BEFORE_CLAIM_MS || fail "C4: the run did not reach its pre-claim pause"
  summarised "$f" || fail "C4: no summary before the pause"
  printf 'NEW FILE%.0s' 1 2 3 4 5 6 7 8 > "$f.new"
  mv "$f.new" "$f"
  touch "$T/replaced"
  rc=0; wait $BG || rc=$?; BG=""
  [ "$rc" = 1 ] || fail "C4: exit $rc, expected 1"
  [ "$(head -c 8 "$f")" = "NEW FILE" ] || fail "C4: the new file was not kept"
  grep -q "replaced after it was summarised" "$T/err" || fail "C4: not reported"
  [ -z "$(find "$T/d3" -name '.msit-claim.*')" ] || fail "C4: claim name left behind"
}

C5() {
  echo "C5: bytes outside every tensor: kept without --archive, archived with it"
  mkdir -p "$T/d4/msit_ge_dump"
  f="$T/d4/msit_ge_dump/Add.Add_1.1.6.1706596912100001"
  ge "$f"; printf 'TRAILING' >> "$f"
  rc=$(run compact "$T/d4")
  [ "$rc" = 1 ] && [ -f "$f" ] || fail "C5: file with trailing bytes removed (exit $rc)"
  grep -q "8 bytes after the declared tensors" "$T/err" || fail "C5: not reported"
  cp "$f" "$T/orig"
  rc=$(run compact "$T/d4" --archive)
  [ "$rc" = 0 ] && [ ! -e "$f" ] && [ -f "$f.zst" ] || fail "C5: --archive did not take it (exit $rc)"
  rc=$(run restore "$T/d4")
  cmp -s "$f" "$T/orig" || fail "C5: restore is not byte-identical (trailing bytes lost)"
}

C6() {
  echo "C6: a hostile header declaring 400,000 tensors is kept; the other files are compacted"
  mkdir -p "$T/d5/msit_ge_dump"
  python3 -c 'import struct, sys; h = b"\x22\x00" * 400000; open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h)' \
    "$T/d5/msit_ge_dump/Add.Evil_1.1.6.1706596912100001"
  ge "$T/d5/msit_ge_dump/Add.Add_2.2.6.1706596912100002"
  rc=$(run compact "$T/d5")
  [ "$rc" = 1 ] || fail "C6: exit $rc"
  [ -f "$T/d5/msit_ge_dump/Add.Evil_1.1.6.1706596912100001" ] || fail "C6: hostile file removed"
  grep -q "tensors (limit 4096)" "$T/err" || fail "C6: no clear reason"
  summarised "$T/d5/msit_ge_dump/Add.Add_2.2.6.1706596912100002" || fail "C6: the good file was not compacted"
}

C7() {
  echo "C7: compact refuses a tree a live watch owns; --force goes ahead"
  mkdir -p "$T/d6/msit_ge_dump"
  "$MSIT_BIN" watch "$T/d6/msit_ge_dump" --settle-ms 100 > "$T/watch.log" 2>&1 &
  BG=$!
  wait_until 30 'grep -q "owned by this watch" "$T/watch.log"' || fail "C7: watch did not take its lock"
  ge "$T/d6/msit_ge_dump/.msit-tmp.abc123.inflight"  # stands for the watcher's temp in flight
  rc=$(run compact "$T/d6")
  [ "$rc" = 0 ] && grep -q "skipped .*msit_ge_dump: owned by pid" "$T/out" || fail "C7: the owned subtree was not skipped (exit $rc)"
  [ -f "$T/d6/msit_ge_dump/.msit-tmp.abc123.inflight" ] || fail "C7: compact removed the watcher's temp"
  rc=$(run compact "$T/d6/msit_ge_dump")
  [ "$rc" = 3 ] && grep -q "owned by pid" "$T/err" || fail "C7: compact of the watched root itself did not refuse (exit $rc)"
  rc=$(run restore "$T/d6/msit_ge_dump")
  [ "$rc" != 0 ] || fail "C7: restore under a live watch did not refuse"
  rc=$(run compact "$T/d6/msit_ge_dump" --force)
  [ "$rc" = 0 ] || fail "C7: --force failed (exit $rc)"
  [ -f "$T/d6/msit_ge_dump/.msit-tmp.abc123.inflight" ] || fail "C7: --force removed the watcher's temp"
  kill -TERM $BG; wait $BG || true; BG=""
}

C8() {
  echo "C8: SIGINT finishes the files in flight, removes temps, exits 130"
  mkdir -p "$T/d7/msit_ge_dump"
  ge "$T/one"  # one interpreter start, 40 copies
  for i in $(seq 1 40); do cp "$T/one" "$T/d7/msit_ge_dump/Add.Add_$i.$i.6.17065969121$(printf %05d $i)"; done
  # Each file pauses before its claim until SIGINT has been sent: files are in flight then.
  MSIT_TEST_PAUSE_BEFORE_CLAIM_MS=60000 MSIT_TEST_PAUSE_RELEASE_FILE="$T/interrupted" \
    "$MSIT_BIN" compact "$T/d7" -j 2 > "$T/out" 2> "$T/err" &
  BG=$!
  wait_until 60 paused MSIT_TEST_PAUSE_BEFORE_CLAIM_MS || fail "C8: no file reached its claim"
  kill -INT $BG
  touch "$T/interrupted"
  rc=0; wait $BG || rc=$?; BG=""
  [ "$rc" = 130 ] || fail "C8: exit $rc, expected 130"
  grep -q "interrupted by SIGINT" "$T/err" || fail "C8: no line printed"
  [ -z "$(find "$T/d7" -name '.msit-tmp.*' -o -name '.msit-claim.*')" ] || fail "C8: temps or claims left"
  for i in $(seq 1 40); do
    f="$T/d7/msit_ge_dump/Add.Add_$i.$i.6.17065969121$(printf %05d $i)"
    [ -f "$f" ] || summarised "$f" || fail "C8: $f lost without a summary"
  done
  rc=$(run compact "$T/d7")
  [ "$rc" = 0 ] || fail "C8: rerun exit $rc"
}

case "$SCENARIO" in
  C[1-8]) "$SCENARIO" ;;
  all) for s in C1 C2 C3 C4 C5 C6 C7 C8; do "$s"; done ;;
  *) echo "unknown scenario $SCENARIO (C1 ... C8, all)" >&2; exit 2 ;;
esac
echo "safety_compact $SCENARIO: all checks passed"
