#!/usr/bin/env bash
# (f) a killed run is finished by the next one: stale `.msit-tmp.*` files are removed, raw
# files whose summary already exists are verified and removed, the rest are compacted.
source "$(dirname "$0")/compact_lib.sh" "$@"

"$DUMPGEN" tree --out "$T/d" --layout all --files 200 --seed 18
rc=$(run_compact "$T/d" --keep-raw --jobs 2)
expect_rc 0 "$rc" "first (interrupted) run"

# Simulate the kill: every other summary never made it, some left a partial temp file behind.
i=0; temps=0
while IFS= read -r -d '' s; do
  i=$((i + 1))
  [ $((i % 2)) = 0 ] || continue
  rm -- "$s"
  last="$s"
  if [ $((i % 4)) = 0 ]; then
    name=$(basename "$s")
    printf '{"created_by":"msit-co' > "$(dirname "$s")/.msit-tmp.${name}.k1LL3d"
    temps=$((temps + 1))
  fi
done < <(find "$T/d" -name '*.summary.json' -print0 | sort -z)
[ "$temps" -gt 0 ] || fail "test setup made no temp files"
# A user's file under one of our temp names (our uid: root's editor) is not ours: kept (issue 43).
planted=$(dirname "$last")/.msit-tmp.$(basename "$last").Zz99zz
echo "my notes" > "$planted"

rc=$(run_compact "$T/d" --jobs 2 --json)
expect_rc 0 "$rc" "restarted run"
[ "$(json_field "$T/compact.out" temp_removed)" = "$temps" ] || fail "expected $temps temp files removed: $(cat "$T/compact.out")"
[ "$(json_field "$T/compact.out" verified_existing)" -gt 0 ] || fail "no existing summary verified"
[ "$(json_field "$T/compact.out" compacted)" -gt 0 ] || fail "nothing compacted"
[ "$(cat "$planted")" = "my notes" ] || fail "a user's file under one of our temp names was removed"
grep -qF "$planted" "$T/compact.err" "$T/compact.out" || fail "the kept file is not named"
rm -- "$planted"  # verify counts every temp name as a leftover
"$DUMPGEN" verify --manifest "$T/d/manifest.json" --tree "$T/d" --expect-raw-gone
echo "compact_restart: ok"
