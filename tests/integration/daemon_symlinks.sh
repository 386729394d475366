#!/usr/bin/env bash
# Symlinks to files and directories, inside the tree and pointing outside it, present at start
# or created later: never followed, never deleted through, never summarised.
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"
d="$WORK/msit_ge_dump"; out="$WORK/outside"
mkdir -p "$d/real" "$out/sub"
$DUMPS one "$d/real/Add.Add_1.1.6.1706596912100001"
$DUMPS one "$out/Add.Add_8.8.6.1706596912100008"
$DUMPS one "$out/sub/Add.Add_9.9.6.1706596912100009"
ln -s "$out" "$d/link_out"
ln -s "$d/real" "$d/link_in"
ln -s "$out/Add.Add_8.8.6.1706596912100008" "$d/Add.Add_5.5.6.1706596912100005"
start_daemon --settle-ms 20 --rescan-interval-s 1 "$d"
wait_until 10 'summarised "$d/real/Add.Add_1.1.6.1706596912100001"' || fail "real file not compacted"
# Created while watched: a directory symlink, a file symlink, and a real file behind them.
ln -s "$out/sub" "$d/link_late"
ln -s "$d/real/Add.Add_2.2.6.1706596912100002" "$d/Add.Add_6.6.6.1706596912100006"
$DUMPS one "$d/real/Add.Add_2.2.6.1706596912100002"
wait_until 10 'summarised "$d/real/Add.Add_2.2.6.1706596912100002"' || fail "second real file not compacted"
# Two more full rescans (the status file counts them) walk the tree with every link in place.
rescans=$(status_field rescans)
wait_until 30 status_at_least rescans $(( rescans + 2 )) || fail "no rescans (status: $(status_field rescans))"
for f in "$out/Add.Add_8.8.6.1706596912100008" "$out/sub/Add.Add_9.9.6.1706596912100009"; do
  [ -f "$f" ] || fail "a file outside the tree was deleted: $f"
done
[ "$(find "$out" -name '*.summary.json' -o -name 'msit-summary.db*' | wc -l)" = 0 ] || fail "summaries written outside the tree"
for l in link_out link_in link_late Add.Add_5.5.6.1706596912100005 Add.Add_6.6.6.1706596912100006; do
  [ -L "$d/$l" ] || fail "symlink $l was replaced or removed"
  ! summarised "$d/$l" || fail "a symlink was summarised: $l"
done
[ "$(status_field files_compacted)" = 2 ] || fail "expected exactly 2 compactions, got $(status_field files_compacted)"
stop_daemon
echo PASS
