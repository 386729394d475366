#!/usr/bin/env bash
# Issue 12, restore and archive side, with the real binary: restore never overwrites (a file
# appearing under the raw name while decoding is kept, also on the link+unlink fallback), never
# follows a directory swapped for a symlink, masks setuid/setgid/sticky, applies owners only as
# root, rejects oversize counts; --archive never overwrites an unrelated NAME.zst and leaves no
# temp on ENOSPC; SIGINT/SIGTERM finish the archive in flight and exit 130/143 with no temp.
# Race windows are widened by an LD_PRELOAD hook (restore_shim.c) run just before a publish.
# One case per run (each its own ctest: restore_safety_1 ... restore_safety_8).
# Usage: restore_safety.sh MSIT DUMPGEN RESTORE_SHIM FAULT_SHIM ARCHIVE_CRAFT CASE   (1 ... 8, all)
source "$(dirname "$0")/compact_lib.sh" "$@"
SHIM="$3"
FAULT="$4"
CRAFT="$5"
CASE="${6:-all}"

no_temps() { [ -z "$(find "$1" -name '.msit-tmp.*')" ] || fail "$2: temps left: $(find "$1" -name '.msit-tmp.*')"; }
run_restore() {  # run_restore ENV... -- ARGS...: exit status; output in $T/r.out, $T/r.err
  local envs=() rc=0
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" "$MSIT" restore "$@" > "$T/r.out" 2> "$T/r.err" || rc=$?
  echo "$rc"
}

# A small archived tree; $T/arc holds pristine copies of its archives to reuse.
"$DUMPGEN" tree --out "$T/src" --layout ge-rank --files 4 --seed 12 > /dev/null
cp -a "$T/src" "$T/raw"
"$MSIT" compact "$T/src" --archive > /dev/null 2>&1 || fail "compact --archive of the base tree"
mkdir -p "$T/arc"
find "$T/src" -name '*.zst' -exec cp -p {} "$T/arc/" \;
mapfile -t ARCS < <(ls "$T/arc")
[ "${#ARCS[@]}" -ge 4 ] || fail "expected at least 4 archives, got ${#ARCS[@]}"
A0="${ARCS[0]}"

case1() {
  # (1) a file appears under the raw name while the archive is decoded: kept, archive kept.
  for einval in 0 1; do
    d="$T/race$einval"; mkdir -p "$d"; cp -p "$T/arc/$A0" "$d/"
    raw="$d/${A0%.zst}"
    rc=$(run_restore LD_PRELOAD="$SHIM" MSIT_SHIM_HOOK="printf racer > '$raw'" MSIT_SHIM_NOREPLACE_EINVAL=$einval -- "$d/$A0")
    [ "$rc" = 1 ] || fail "race (einval=$einval): exit $rc, expected 1: $(cat "$T/r.err")"
    grep -q "appeared under the raw name" "$T/r.err" || fail "race not reported: $(cat "$T/r.err")"
    [ "$(cat "$raw")" = racer ] || fail "race (einval=$einval): the new file was overwritten"
    cmp -s "$d/$A0" "$T/arc/$A0" || fail "race (einval=$einval): archive not kept intact"
    no_temps "$d" "race (einval=$einval)"
  done
  # The link+unlink fallback restores normally when nothing races.
  d="$T/fallback"; mkdir -p "$d"; cp -p "$T/arc/$A0" "$d/"
  rc=$(run_restore LD_PRELOAD="$SHIM" MSIT_SHIM_NOREPLACE_EINVAL=1 -- "$d/$A0")
  [ "$rc" = 0 ] || fail "fallback restore: exit $rc: $(cat "$T/r.err")"
  raw_src=$(find "$T/raw" -name "${A0%.zst}")
  cmp -s "$d/${A0%.zst}" "$raw_src" || fail "fallback restore: content differs"
  [ ! -e "$d/$A0" ] || fail "fallback restore: archive not removed"
  no_temps "$d" "fallback restore"
}

case2() {
  # (2) compact --archive never overwrites an unrelated NAME.zst; a rerun finding its own archive is fine.
  cp -a "$T/raw" "$T/un"
  victim=$(find "$T/un" -type f -name 'MatMul*' -print -quit)
  [ -n "$victim" ] || victim=$(find "$T/un" -type f ! -name '*.json' ! -name '*.txt' -print -quit)
  printf 'unrelated user data\n' > "$victim.zst"
  rc=$(run_compact "$T/un" --archive)
  expect_rc 1 "$rc" "compact --archive beside an unrelated NAME.zst"
  grep -q "exists and is not this file's archive; raw file kept" "$T/compact.err" || fail "not reported: $(cat "$T/compact.err")"
  [ "$(cat "$victim.zst")" = "unrelated user data" ] || fail "unrelated NAME.zst overwritten"
  [ -f "$victim" ] || fail "raw file removed although its archive could not be published"
  no_temps "$T/un" "unrelated NAME.zst"
  rm "$victim.zst"
  cp -p "$(find "$T/src" -name "$(basename "$victim").zst")" "$victim.zst"  # its own archive (a crashed run's)
  rc=$(run_compact "$T/un" --archive)
  expect_rc 0 "$rc" "compact --archive with the file's own archive in place"
  [ ! -e "$victim" ] || fail "raw kept although its own archive was in place"
  no_temps "$T/un" "own archive in place"
}

case3() {
  # (3) modes: setuid/setgid/sticky never come back, from a real archive or a crafted one.
  d="$T/modes"; mkdir -p "$d"
  for m in 4755 2755 1755 6777; do
    "$CRAFT" "$T/arc/$A0" "$d/m$m.bin.zst" --set "original_mode=$((8#$m))" || fail "craft mode $m"
  done
  rc=$(run_restore -- "$d")
  [ "$rc" = 0 ] || fail "restore of mode archives: exit $rc: $(cat "$T/r.err")"
  for m in 4755 2755 1755 6777; do
    got=$(stat -c %a "$d/m$m.bin")
    want=$(printf '%o' $((8#$m & 8#777)))
    [ "$got" = "$want" ] || fail "archive recording mode $m restored as $got, expected $want"
  done
  setuid_raw=$(find "$T/raw" -type f -name "${A0%.zst}" -print -quit)
  cp -a "$T/raw" "$T/suid"; chmod 4755 "$T/suid/${setuid_raw#$T/raw/}"
  "$MSIT" compact "$T/suid" --archive > /dev/null 2>&1 || fail "compact --archive of a setuid raw file"
  z=$(find "$T/suid" -name "$A0")
  [ "$(stat -c %a "$z")" = 644 ] || fail "archive of a setuid file has mode $(stat -c %a "$z"), expected 644"
  "$MSIT" restore "$z" > /dev/null || fail "restore of a setuid file's archive"
  [ "$(stat -c %a "${z%.zst}")" = 755 ] || fail "setuid file restored as $(stat -c %a "${z%.zst}")"
}

case4() {
  # (4) owner: recorded owner only when root; else (root) the directory's; non-root keeps its own.
  if [ "$(id -u)" = 0 ]; then
    d="$T/own"; mkdir -p "$d"; chown 4321:4322 "$d"
    "$CRAFT" "$T/arc/$A0" "$d/rec.bin.zst" --set original_uid=1234 --set original_gid=2345
    "$CRAFT" "$T/arc/$A0" "$d/none.bin.zst" --del original_uid --del original_gid
    rc=$(run_restore -- "$d")
    [ "$rc" = 0 ] || fail "restore of owner archives: exit $rc: $(cat "$T/r.err")"
    [ "$(stat -c %u:%g "$d/rec.bin")" = 1234:2345 ] || fail "recorded owner not restored: $(stat -c %u:%g "$d/rec.bin")"
    [ "$(stat -c %u:%g "$d/none.bin")" = 4321:4322 ] || fail "unrecorded owner: $(stat -c %u:%g "$d/none.bin"), expected the directory's"
    if command -v setpriv > /dev/null; then
      d="$T/own_user"; mkdir -p "$d"; chmod 1777 "$d"; chmod o+x "$T"
      "$CRAFT" "$T/arc/$A0" "$d/rec.bin.zst" --set original_uid=0 --set original_gid=0 --set original_mode=$((8#4755))
      chmod 644 "$d/rec.bin.zst"
      rc=0; setpriv --reuid=65534 --regid=65534 --clear-groups "$MSIT" restore --keep-archive "$d" > /dev/null 2> "$T/r.err" || rc=$?
      [ "$rc" = 0 ] || fail "non-root restore: exit $rc: $(cat "$T/r.err")"
      [ "$(stat -c %u:%a "$d/rec.bin")" = 65534:755 ] || fail "non-root restore: $(stat -c %u:%a "$d/rec.bin"), expected 65534:755"
    fi
  fi
}

case5() {
  # (5) oversize counts and hostile metadata: rejected with an error naming the archive, kept.
  d="$T/big"; mkdir -p "$d"
  "$CRAFT" "$T/arc/$A0" "$d/segs.bin.zst" --segments 65540
  "$CRAFT" "$T/arc/$A0" "$d/values.bin.zst" --segments 66000
  "$CRAFT" "$T/arc/$A0" "$d/blocks.bin.zst" --set original_size=4398046511104 \
    --set 'segments=[[0,4398046511104,1]]' --set block_bytes=4096
  "$CRAFT" "$T/arc/$A0" "$d/deep.bin.zst" --set "original_name=$(printf '[%.0s' $(seq 40))$(printf ']%.0s' $(seq 40))"
  "$CRAFT" "$T/arc/$A0" "$d/slash.bin.zst" --set 'original_name="../../etc/passwd"'
  "$CRAFT" "$T/arc/$A0" "$d/uid.bin.zst" --set original_uid=4294967295 --set original_gid=0
  cp -a "$d" "$T/big.copy"
  rc=$(run_restore -- "$d")
  [ "$rc" = 1 ] || fail "hostile archives: exit $rc, expected 1"
  for pat in "segs.bin.zst: archive: 65540 segments exceed the limit" "blocks.bin.zst: archive: metadata implies 1073741824 blocks, over the limit" \
             "deep.bin.zst: archive: metadata is nested deeper" "values.bin.zst: archive: metadata is nested deeper or holds more than" "slash.bin.zst: archive: recorded original name" \
             "uid.bin.zst: archive: recorded owner"; do
    grep -q "$pat" "$T/r.err" || fail "expected '$pat' in: $(cat "$T/r.err")"
  done
  diff -r "$d" "$T/big.copy" > /dev/null || fail "hostile archives were modified or something was restored"
}

case6() {
  # (6) a directory swapped for a symlink after the scan is not followed; nor is a static link.
  d="$T/sym"; mkdir -p "$d/a" "$d/b" "$T/elsewhere"
  cp -p "$T/arc/${ARCS[0]}" "$d/a/"; cp -p "$T/arc/${ARCS[1]}" "$d/b/"; cp -p "$T/arc/${ARCS[1]}" "$T/elsewhere/"
  ln -s "$T/elsewhere" "$d/c"
  rc=$(run_restore LD_PRELOAD="$SHIM" MSIT_SHIM_HOOK="mv '$d/b' '$d/b_real' && ln -s '$T/elsewhere' '$d/b'" -- "$d")
  [ "$rc" = 1 ] || fail "symlink swap: exit $rc, expected 1: $(cat "$T/r.err")"
  grep -q "symbolic link" "$T/r.err" || fail "symlink swap not reported: $(cat "$T/r.err")"
  [ "$(ls "$T/elsewhere")" = "${ARCS[1]}" ] || fail "restore wrote or removed outside the root: $(ls "$T/elsewhere")"
  [ -f "$d/a/${ARCS[0]%.zst}" ] && [ -f "$d/b_real/${ARCS[1]}" ] || fail "symlink swap: wrong files restored or removed"
}

case7() {
  # (7) ENOSPC while writing the summary (after the archive temp) or the archive: no temp left.
  for match in .summary.json. .zst.; do
    rm -rf "$T/nospc"; cp -a "$T/raw" "$T/nospc"; touch "$T/fault.flag"
    rc=0; LD_PRELOAD="$FAULT" MSIT_FAULT_FLAG="$T/fault.flag" MSIT_FAULT_MATCH="$match" \
      "$MSIT" compact "$T/nospc" --archive > /dev/null 2> "$T/nospc.err" || rc=$?
    rm -f "$T/fault.flag"
    [ "$rc" = 1 ] || fail "ENOSPC on $match: exit $rc, expected 1"
    grep -q "No space left" "$T/nospc.err" || fail "ENOSPC on $match not reported: $(head -3 "$T/nospc.err")"
    no_temps "$T/nospc" "ENOSPC on $match"
    [ -z "$(find "$T/nospc" -name '*.zst')" ] || fail "ENOSPC on $match: an archive was published"
    diff <(snapshot "$T/raw") <(snapshot "$T/nospc" | grep -v 'summary.json') > /dev/null || fail "ENOSPC on $match: raw files changed"
  done
}

case8() {
  # (8) SIGINT / SIGTERM during restore: the archive in flight is finished, the rest untouched.
  for sig in INT TERM; do
    d="$T/sig$sig"; mkdir -p "$d"; cp -p "$T/arc/"*.zst "$d/"
    rc=$(run_restore LD_PRELOAD="$SHIM" MSIT_SHIM_HOOK='kill -'$sig' $PPID' -- "$d")
    want=$([ $sig = INT ] && echo 130 || echo 143)
    [ "$rc" = "$want" ] || fail "SIG$sig: exit $rc, expected $want: $(cat "$T/r.err")"
    [ "$(grep -c "restore interrupted by SIG$sig" "$T/r.err")" = 1 ] || fail "SIG$sig: no single line: $(cat "$T/r.err")"
    [ "$(find "$d" -name '*.zst' | wc -l)" = $(( ${#ARCS[@]} - 1 )) ] || fail "SIG$sig: expected exactly one archive restored"
    [ "$(find "$d" -type f ! -name '*.zst' | wc -l)" = 1 ] || fail "SIG$sig: expected exactly one raw file"
    no_temps "$d" "SIG$sig"
  done
}
case "$CASE" in
  [1-8]) "case$CASE" ;;
  all) for c in 1 2 3 4 5 6 7 8; do "case$c"; done ;;
  *) echo "unknown case $CASE (1 ... 8, all)" >&2; exit 2 ;;
esac
echo "restore_safety $CASE: ok"
