#!/usr/bin/env bash
# kill -9 of `compact --archive` at random moments (seeded): every raw file either survives
# byte-identical or is fully replaced by a valid archive + summary; a rerun finishes the job
# and restore gives back the original tree exactly.
source "$(dirname "$0")/compact_lib.sh" "$@"
ROUNDS=${MSIT_KILL_ROUNDS:-12}
RANDOM=7

"$DUMPGEN" tree --out "$T/pristine" --layout ge-rank --files 40 --max-elements 1500000 --seed 9 > /dev/null
rm -f "$T/pristine/manifest.json"
mapfile -t files < <(cd "$T/pristine" && find . -type f | sort)

for round in $(seq 1 "$ROUNDS"); do
  rm -rf "$T/d"
  cp -a "$T/pristine" "$T/d"
  "$MSIT" compact "$T/d" --archive --jobs 2 > /dev/null 2>&1 &
  pid=$!
  sleep "0.$(printf '%03d' $((RANDOM % 500)))"  # the kill's random moment (the scenario)
  kill -9 "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  for f in "${files[@]}"; do
    if [ -e "$T/d/$f" ]; then
      cmp -s "$T/d/$f" "$T/pristine/$f" || fail "round $round: raw file $f changed"
    else
      [ -s "$T/d/$f.zst" ] && summarised "$T/d/$f" || fail "round $round: $f gone without archive and summary"
    fi
  done
  # A rerun removes stale temps and finishes; restore must give the original back.
  "$MSIT" compact "$T/d" --archive --jobs 2 > /dev/null || fail "round $round: rerun failed"
  [ -z "$(find "$T/d" -name '.msit-tmp.*')" ] || fail "round $round: temp files left"
  "$MSIT" restore "$T/d" > /dev/null || fail "round $round: restore failed"
  find "$T/d" \( -name '*.summary.json' -o -name 'msit-summary.db*' \) -delete
  diff <(snapshot "$T/pristine") <(snapshot "$T/d") > /dev/null || fail "round $round: restored tree differs"
done
echo "archive_kill9: ok ($ROUNDS rounds)"
