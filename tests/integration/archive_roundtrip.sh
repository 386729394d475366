#!/usr/bin/env bash
# Archive mode end to end: every dtype and layout compacts with --archive into summary + NAME.zst,
# compare on the archived trees gives the same report as on the raw trees, restore brings back
# byte-identical files (and mtimes), and a corrupt archive is reported and never deleted.
source "$(dirname "$0")/compact_lib.sh" "$@"

# (1) every layout and dtype, with corrupt files (which must be left alone, not archived).
"$DUMPGEN" tree --out "$T/d" --layout all --files 300 --corrupt 6 --ranks 2 --tokens 2 --seed 21 > /dev/null
rm -f "$T/d/manifest.json.tmp"
cp -a "$T/d" "$T/pristine"
rc=$(run_compact "$T/d" --jobs 2 --archive)
expect_rc 1 "$rc" "compact --archive of a tree with corrupt files"
grep -q "6 files failed" "$T/compact.err" || fail "expected 6 failures: $(tail -3 "$T/compact.err")"
"$DUMPGEN" verify --manifest "$T/d/manifest.json" --tree "$T/d" --expect-raw-gone
n_zst=$(find "$T/d" -name '*.zst' | wc -l)
n_sum=$(summary_count "$T/d")
[ "$n_zst" -gt 250 ] && [ "$n_zst" = "$n_sum" ] || fail "expected one archive per summary: $n_zst archives, $n_sum summaries"
[ -z "$(find "$T/d" -name '.msit-tmp.*')" ] || fail "temp files left behind"

# inspect reads an archive like the raw file it holds.
one=$(find "$T/d" -name '*.npy.zst' -print -quit)
"$MSIT" inspect "$one" > "$T/inspect.out" || fail "inspect of $one failed"
grep -q "archive:" "$T/inspect.out" || fail "inspect does not describe the archive"
grep -q "statistics" "$T/inspect.out" || fail "inspect shows no statistics for the archive"

# A second run is a no-op: archives are not dumps.
rc=$(run_compact "$T/d" --jobs 2 --archive)
expect_rc 1 "$rc" "second compact --archive (corrupt files still fail)"
grep -q "^compacted 0 of 6 dump files" "$T/compact.out" || fail "second run did work: $(head -1 "$T/compact.out")"

# (2) restore: byte-identical files with their mtimes, archives removed, summaries kept.
"$MSIT" restore "$T/d" > "$T/restore.out" || fail "restore failed: $(cat "$T/restore.out")"
[ -z "$(find "$T/d" -name '*.zst')" ] || fail "archives left after restore"
find "$T/d" \( -name '*.summary.json' -o -name 'msit-summary.db*' \) -delete
diff <(snapshot "$T/pristine") <(snapshot "$T/d") > /dev/null || fail "restored tree differs from the original"
diff <(cd "$T/pristine" && find . -type f -printf '%p %T@\n' | sort) \
     <(cd "$T/d" && find . -type f -printf '%p %T@\n' | sort) > /dev/null || fail "mtimes not restored"

# (3) corrupt archive: clear error naming the file, archive kept, nothing restored.
"$DUMPGEN" tree --out "$T/c" --layout ge-rank --files 4 --seed 3 > /dev/null
"$MSIT" compact "$T/c" --archive > /dev/null
victim=$(find "$T/c" -name '*.zst' -print -quit)
size=$(stat -c %s "$victim")
printf '\xff\xff\xff\xff' | dd of="$victim" bs=1 seek=$((size / 2)) conv=notrunc status=none
cp "$victim" "$T/victim.copy"
rc=0; "$MSIT" restore "$victim" > /dev/null 2> "$T/restore.err" || rc=$?
[ "$rc" = 1 ] || fail "restore of a corrupt archive: exit $rc, expected 1"
grep -q "$(basename "$victim")" "$T/restore.err" || fail "error does not name the archive: $(cat "$T/restore.err")"
grep -qi "corrupt" "$T/restore.err" || fail "error does not say corrupt: $(cat "$T/restore.err")"
cmp -s "$victim" "$T/victim.copy" || fail "corrupt archive was modified"
[ ! -e "${victim%.zst}" ] || fail "a raw file was restored from a corrupt archive"
rc=0; "$MSIT" inspect "$victim" > /dev/null 2> "$T/inspect.err" || rc=$?
[ "$rc" != 0 ] || fail "inspect of a corrupt archive succeeded"
# Truncated archive.
head -c $((size - 7)) "$T/victim.copy" > "$victim"
rc=0; "$MSIT" restore "$victim" > /dev/null 2> "$T/restore.err" || rc=$?
[ "$rc" = 1 ] && grep -q "truncated" "$T/restore.err" || fail "truncated archive not reported: $(cat "$T/restore.err")"
echo "archive_roundtrip: ok"
