#!/usr/bin/env bash
# Trust round 2 (issue 28), the summary store's readers and writers against files other users
# plant (docs/safety.md "Store readers", T1-T5), with the real binary run as root and two real
# unprivileged accounts: (1) hard links to root's files planted as a store's -wal/-shm are
# never re-owned, truncated or written by inspect/export/compare; (2) a WAL another user puts
# beside a store in a shared (1777) dump root is refused by every reader and never checkpointed
# by compact, and a running watch names it in its status file, `status` and the log; (3) crafted stores (a view, a trigger, an unknown table, an index, a huge value)
# are refused quickly with a clear error.
source "$(dirname "$0")/compact_lib.sh" "$@"
source "$(dirname "$0")/users_lib.sh"
users_require
command -v sqlite3 > /dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }
PY=/usr/bin/python3  # not a per-user shim: the accounts below run it
[ -x "$PY" ] && "$PY" -c "import sqlite3" 2> /dev/null || { echo "SKIP: no $PY with sqlite3"; exit 77; }
export MSIT_COMPACT_SUMMARY_FORMAT=store
users_make
trap 'users_cleanup; rm -rf "$T"' EXIT
chmod 755 "$T"

# A hang guard, not a timing check: a reader that loops on a crafted store fails here.
msit() { timeout 120 "$MSIT" "$@"; }
# owner:group mode size sha256 of a file (never followed).
ident() { echo "$(stat -c '%U:%G %a %s' "$1") $(sha256sum < "$1")"; }
expect_fail() {  # expect_fail WHAT OUTFILE PATTERN CMD...: non-zero exit, PATTERN in the output
  local what="$1" out="$2" pattern="$3" rc=0
  shift 3
  "$@" > "$out" 2>&1 || rc=$?
  [ "$rc" != 0 ] || { cat "$out" >&2; fail "$what: exit status 0"; }
  [ "$rc" != 124 ] || fail "$what: still running after 120 s"
  grep -qE -- "$pattern" "$out" || { cat "$out" >&2; fail "$what: no message matching '$pattern'"; }
}

# ---- (1) A user's own store, with hard links to root's files as its -wal and -shm (T1) -----
mkdir -p "$T/a" "$T/root_only"
chown "$UA:$UA" "$T/a"
chmod 700 "$T/root_only"
as_user "$UA" "$DUMPGEN" model --out "$T/a/m" --ops 4 --tokens 1 > /dev/null
as_user "$UA" "$MSIT" compact "$T/a/m/msit_ge_dump" "$T/a/m/msit_fx_dump" > "$T/a.compact" 2>&1 \
  || { cat "$T/a.compact" >&2; fail "user A's compact of his own dump"; }
store_a="$T/a/m/msit_fx_dump/msit-summary.db"
[ -f "$store_a" ] && [ "$(stat -c %U "$store_a")" = "$UA" ] || fail "no store of user A"
[ ! -e "$store_a-wal" ] || fail "A's store still has a WAL after compact"
raw_gone=$(sqlite3 -readonly "file:$store_a?immutable=1" "select path from tensor_stats order by path limit 1")
raw_gone="$T/a/m/msit_fx_dump/$raw_gone"
[ ! -e "$raw_gone" ] || fail "$raw_gone was not compacted"
# A root file any user may write (protected_hardlinks lets A link it), and a root-only one
# (linked by root here, as A could with protected_hardlinks=0).
echo "root's shared notes" > "$T/root_shared"
chmod 666 "$T/root_shared"
head -c 40000 /dev/urandom > "$T/root_only/secret"
chmod 600 "$T/root_only/secret"
as_user "$UA" ln "$T/root_shared" "$store_a-wal" || fail "A cannot link root's 0666 file"
ln "$T/root_only/secret" "$store_a-shm"
before_shared=$(ident "$T/root_shared")
before_secret=$(ident "$T/root_only/secret")
before_store=$(ident "$store_a")
expect_fail "inspect of a store with linked side files" "$T/1.inspect" \
  "msit-summary.db-(wal|shm).*hard links" msit inspect "$store_a"
expect_fail "inspect of a raw file the store holds" "$T/1.inspect_raw" \
  "msit-summary.db-(wal|shm).*hard links" msit inspect "$raw_gone"
expect_fail "export of the tree" "$T/1.export" "msit-summary.db-(wal|shm).*hard links" \
  msit export "$T/a/m" --format csv -o "$T/1.csv"
expect_fail "compare of the tree" "$T/1.compare" "msit-summary.db-(wal|shm).*hard links" \
  msit compare -m "$T/a/m/msit_ge_dump" -g "$T/a/m/msit_fx_dump" -o "$T/1.report" -q
[ "$(ident "$T/root_shared")" = "$before_shared" ] || fail "root's 0666 file changed: $(ident "$T/root_shared")"
[ "$(ident "$T/root_only/secret")" = "$before_secret" ] || fail "root's 0600 file changed: $(ident "$T/root_only/secret")"
[ "$(ident "$store_a")" = "$before_store" ] || fail "A's store changed"
# Once the links are gone the same store reads fine, and its reader creates no file.
rm -f "$store_a-wal" "$store_a-shm"
msit inspect "$store_a" > "$T/1.ok" 2>&1 || { cat "$T/1.ok" >&2; fail "inspect of A's clean store"; }
msit inspect "$raw_gone" > /dev/null 2>&1 || fail "inspect of $raw_gone from A's clean store"
msit export "$T/a/m" --format csv -o "$T/1.ok.csv" 2> /dev/null || fail "export of A's clean stores"
for s in -wal -shm -journal; do [ ! -e "$store_a$s" ] || fail "a reader created $store_a$s"; done
[ "$(ident "$store_a")" = "$before_store" ] || fail "a reader changed A's store"

# ---- (2) B's WAL beside the store of A's dump (root's compact made it) in a shared dump root (T2, T3)
mkdir -p "$T/s"
chown "$UA:$UA" "$T/s"
as_user "$UA" "$DUMPGEN" model --out "$T/s/m" --ops 4 --tokens 1 > /dev/null
chmod 1777 "$T/s/m/msit_fx_dump"  # a dump directory every user may write, as model runs make
msit compact "$T/s/m/msit_ge_dump" "$T/s/m/msit_fx_dump" > /dev/null 2>&1 || fail "root's compact"
store_s="$T/s/m/msit_fx_dump/msit-summary.db"
# Root's compact gives the store the owner of the raw files it holds, A (docs/store.md, "Who
# can read a store"; docs/safety.md V3).
[ "$(stat -c %U "$store_s")" = "$UA" ] || fail "root's compact did not give A's dump's store to A"
msit export "$store_s" --format csv -o "$T/2.before.csv" 2> /dev/null || fail "export of root's store"
grep -q 31337 "$T/2.before.csv" && fail "the marker value is in the real store already"
# B forges: a copy of the (world-readable) store, changed in WAL mode, the writer gone
# before any checkpoint; its WAL then goes beside root's store.
mkdir -p "$T/b"
chown "$UB:$UB" "$T/b"
as_user "$UB" cp "$store_s" "$T/b/msit-summary.db"
as_user "$UB" "$PY" - "$T/b/msit-summary.db" << 'EOF'
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("pragma wal_autocheckpoint=0")
con.execute("update tensors set max = 31337.5, abs_max = 31337.5 where max is not null")
os._exit(0)  # no close: the forged rows stay in the WAL
EOF
[ -s "$T/b/msit-summary.db-wal" ] || fail "B's forgery left no WAL"
# The planted WAL does forge rows for a plain SQLite reader (on copies, as root's reader
# would have seen them): this is what the rules below must stop.
mkdir -p "$T/probe"
cp "$store_s" "$T/probe/msit-summary.db"
cp "$T/b/msit-summary.db-wal" "$T/probe/msit-summary.db-wal"
[ "$(sqlite3 "$T/probe/msit-summary.db" "select count(*) from tensors where max = 31337.5")" -gt 0 ] \
  || fail "the test's forged WAL does not forge anything"
as_user "$UB" cp "$T/b/msit-summary.db-wal" "$store_s-wal"
before_wal=$(ident "$store_s-wal")
before_store=$(ident "$store_s")
raw_s=$(sqlite3 -readonly "file:$store_s?immutable=1" "select path from tensor_stats order by path limit 1")
raw_s="$T/s/m/msit_fx_dump/$raw_s"
pattern="msit-summary.db-wal.*belongs to uid $UB_ID.*store belongs to uid $UA_ID"
expect_fail "export (CSV) beside B's WAL" "$T/2.export" "$pattern" msit export "$T/s/m" --format csv -o "$T/2.csv"
expect_fail "export (JSON) beside B's WAL" "$T/2.json" "$pattern" msit export "$T/s/m" -o "$T/2.out"
expect_fail "inspect of the store beside B's WAL" "$T/2.inspect" "$pattern" msit inspect "$store_s"
expect_fail "inspect of a stored raw file beside B's WAL" "$T/2.inspect_raw" "$pattern" msit inspect "$raw_s"
expect_fail "compare beside B's WAL" "$T/2.compare" "$pattern" \
  msit compare -m "$T/s/m/msit_ge_dump" -g "$T/s/m/msit_fx_dump" -o "$T/2.report" -q
if grep -rq 31337 "$T"/2.* 2> /dev/null; then fail "a reader showed B's forged numbers"; fi
[ "$(ident "$store_s-wal")" = "$before_wal" ] || fail "B's WAL changed (re-owned?): $(ident "$store_s-wal")"
[ "$(stat -c %U "$store_s-wal")" = "$UB" ] || fail "B's WAL was given to $(stat -c %U "$store_s-wal")"
# root's compact of the tree refuses the store instead of checkpointing the forgery into it.
as_user "$UA" "$DUMPGEN" model --out "$T/s/new" --ops 2 --tokens 1 > /dev/null
new_raw=$(find "$T/s/new/msit_fx_dump" -name '*.npy' | LC_ALL=C sort | head -1)
as_user "$UA" cp "$new_raw" "$(dirname "$raw_s")/"
rc=$(run_compact "$T/s/m/msit_fx_dump")
[ "$rc" != 0 ] || fail "root's compact used a store with B's WAL beside it"
grep -qE "$pattern" "$T/compact.err" "$T/compact.out" || { cat "$T/compact.err" >&2; fail "compact: no clear message"; }
[ "$(ident "$store_s-wal")" = "$before_wal" ] || fail "compact touched B's WAL"
[ "$(ident "$store_s")" = "$before_store" ] || fail "compact changed the store beside B's WAL"
rm -f "$store_s-wal"
msit export "$store_s" --format csv -o "$T/2.after.csv" 2> /dev/null || fail "export after B's WAL is gone"
cmp -s "$T/2.before.csv" "$T/2.after.csv" || fail "the store's rows changed while B's WAL was beside it"
# ---- (2b) The same WAL under a running watch: still refused, and loud (issue 43, R6) ------
as_user "$UB" cp "$T/b/msit-summary.db-wal" "$store_s-wal"
before_wal=$(ident "$store_s-wal")
before_store=$(ident "$store_s")
left_raw="$(dirname "$raw_s")/$(basename "$new_raw")"
[ -f "$left_raw" ] || fail "the raw file compact refused to take is gone"
"$MSIT" watch --settle-ms 20 --json-status "$T/w.status" "$T/s/m/msit_fx_dump" > "$T/w.log" 2>&1 &
wpid=$!
refused() { python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['refused_store_files']))" "$T/w.status" 2>/dev/null || echo 0; }
wait_until 60 '[ "$(refused)" -ge 1 ]' || { kill -9 $wpid; cat "$T/w.log" >&2; fail "(2b) the status file does not name the refused store"; }
python3 - "$T/w.status" "$store_s-wal" "$UB_ID" "$UA_ID" <<'PY' || { kill -9 $wpid; fail "(2b) the status file's entry is wrong"; }
import json, sys
r = json.load(open(sys.argv[1]))["refused_store_files"][0]
assert r == {"file": sys.argv[2], "owner_uid": int(sys.argv[3]), "store_owner_uid": int(sys.argv[4])}, r
PY
msit status --json-status "$T/w.status" > "$T/w.status.txt" 2>&1 || true
grep -qE "STORE REFUSED +$store_s-wal belongs to uid $UB_ID" "$T/w.status.txt" \
  || { kill -9 $wpid; cat "$T/w.status.txt" "$T/w.log" >&2; fail "(2b) status does not show the refused store"; }
wait_until 30 "grep -qE 'msit-summary.db-wal: belongs to uid $UB_ID, not to uid $UA_ID that owns the summary store' '$T/w.log'" \
  || { kill -9 $wpid; cat "$T/w.log" >&2; fail "(2b) no log line naming the file and its owner"; }
[ -f "$left_raw" ] || { kill -9 $wpid; fail "(2b) the raw file was removed while its store was refused"; }
[ "$(ident "$store_s-wal")" = "$before_wal" ] || { kill -9 $wpid; fail "(2b) watch touched B's WAL"; }
[ "$(ident "$store_s")" = "$before_store" ] || { kill -9 $wpid; fail "(2b) watch changed the store beside B's WAL"; }
rm -f "$store_s-wal"
wait_until 120 '[ ! -e "$left_raw" ] && [ "$(refused)" = 0 ]' \
  || { kill -9 $wpid; cat "$T/w.log" >&2; fail "(2b) the file was not compacted once B's WAL was gone"; }
kill -TERM $wpid
wait $wpid || fail "(2b) watch exited with $? after SIGTERM"

# ---- (3) Crafted stores: refused before any query runs their SQL (T4, T5) ---------------
mkdir -p "$T/c"
chown "$UA:$UA" "$T/c"
crafted() {  # crafted NAME SQL: a copy of A's store changed by A, in $T/c/NAME/
  as_user "$UA" mkdir "$T/c/$1"
  as_user "$UA" cp "$store_a" "$T/c/$1/msit-summary.db"
  as_user "$UA" sqlite3 "$T/c/$1/msit-summary.db" "$2" || fail "crafting $1"
}
crafted view "CREATE VIEW huge AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
              SELECT x, zeroblob(1000000) FROM c;"
crafted files_view "ALTER TABLE files RENAME TO files_real;
                    CREATE VIEW files AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
                    SELECT x AS id, printf('%.*c', 1000000, 'x') AS path FROM c;"
crafted trigger "CREATE TRIGGER t AFTER INSERT ON files BEGIN DELETE FROM tensors; END;"
crafted table "CREATE TABLE extra(x);"
crafted index "CREATE INDEX by_abs_max ON tensors(abs_max);"
crafted blob "UPDATE tensors SET elements = zeroblob(6 * 1024 * 1024)
              WHERE key = (SELECT min(key) FROM tensors);"
declare -A why=(
  [view]='has a view "huge"' [files_view]='has a view "files"' [trigger]='has a trigger "t"'
  [table]='has a table "extra"' [index]='has an index "by_abs_max"' [blob]='over 4 MiB'
)
for c in view files_view trigger table index blob; do
  before=$(ident "$T/c/$c/msit-summary.db")
  expect_fail "export of the crafted store ($c)" "$T/3.$c.export" "msit-summary.db.*${why[$c]}" \
    msit export "$T/c/$c/msit-summary.db" --format csv -o "$T/3.$c.csv"
  if [ "$c" != blob ]; then  # the overview never reads a tensor's values
    expect_fail "inspect of the crafted store ($c)" "$T/3.$c.inspect" "msit-summary.db.*${why[$c]}" \
      msit inspect "$T/c/$c/msit-summary.db"
  fi
  [ "$(ident "$T/c/$c/msit-summary.db")" = "$before" ] || fail "a reader changed the crafted store ($c)"
  for s in -wal -shm -journal; do [ ! -e "$T/c/$c/msit-summary.db$s" ] || fail "a reader created $c's $s"; done
done
echo "PASS trust_store_readers"
