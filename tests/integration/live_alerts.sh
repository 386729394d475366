#!/usr/bin/env bash
# Live divergence settings and alert sink with the real binary (docs/live-divergence.md,
# docs/safety.md D1-D4): every refused setting exits 78 (or 2 for CLI11's own range check) with a
# message naming the option or file:line; a refused events file leaves its target untouched; a
# valid start shows live divergence in the status, reads back an earlier event (status and
# `msit-compact status`, no paths), and a reload that changes a start-only key says so.
MSIT_BIN="$1"; source "$(dirname "$0")/daemon_lib.sh"
mkdir -p "$WORK/a/msit_ge_dump" "$WORK/b" "$WORK/golden" "$WORK/a/inner_golden" "$WORK/map"
echo data >"$WORK/file"

# expect_refused RC PATTERN ARGS...: `watch ARGS` exits RC, its stderr matches PATTERN.
expect_refused() {
  local want="$1" pattern="$2"; shift 2
  local rc=0
  timeout 20 "$MSIT_BIN" watch --json-status "$WORK/refused.json" "$@" >"$WORK/out" 2>&1 || rc=$?
  [ "$rc" -eq "$want" ] || fail "watch $* exited $rc, expected $want: $(cat "$WORK/out")"
  grep -qE -- "$pattern" "$WORK/out" || fail "watch $*: no /$pattern/ in: $(cat "$WORK/out")"
  [ ! -e "$WORK/refused.json" ] || fail "watch $* started (status file written)"
}

expect_refused 78 "--golden $WORK/golden: .*2 roots are watched .*give ROOT=GOLDEN for each" \
  --golden "$WORK/golden" "$WORK/a" "$WORK/b"
expect_refused 78 "golden $WORK/a/inner_golden is inside the watched root $WORK/a" \
  --golden "$WORK/a/inner_golden" "$WORK/a"
expect_refused 78 "the watched root $WORK/a is inside the golden $WORK: the dump would be compared with itself" \
  --golden "$WORK" "$WORK/a"
expect_refused 78 "golden $WORK/file is not a directory" --golden "$WORK/file" "$WORK/a"
expect_refused 78 "$WORK/b is not a watched root \(watched: $WORK/a\)" --golden "$WORK/b=$WORK/golden" "$WORK/a"
expect_refused 78 "already has the golden" --golden "$WORK/a=$WORK/golden" --golden "$WORK/a=$WORK/b" "$WORK/a"
expect_refused 78 "op_mapping_file $WORK/file: .*not a directory: give the directory holding op_mapping_file.json" \
  --golden "$WORK/golden" -mf "$WORK/file" "$WORK/a"
expect_refused 78 "--held-raw-cap 5%: config: expected bytes" --golden "$WORK/golden" --held-raw-cap 5% "$WORK/a"
expect_refused 2 "--keep-raw-near-divergence" --golden "$WORK/golden" --keep-raw-near-divergence 100001 "$WORK/a"
printf 'dir = %s\ngolden = %s\nheld_raw_cap = lots\n' "$WORK/a" "$WORK/golden" >"$WORK/bad.conf"
expect_refused 78 "bad.conf:3: config: \`held_raw_cap = lots\`: expected bytes" --config "$WORK/bad.conf"
printf 'dir = %s\ndir = %s\ngolden = %s\n' "$WORK/a" "$WORK/b" "$WORK/golden" >"$WORK/bare.conf"
expect_refused 78 "bare.conf: golden = $WORK/golden: .*2 roots are watched" --config "$WORK/bare.conf"

# D1: the events file is never followed, never another file appended to.
echo "root's data" >"$WORK/precious"
ln -s "$WORK/precious" "$WORK/events.link"
expect_refused 78 "events.link: open: events file: is a symbolic link; links are never followed" \
  --golden "$WORK/golden" --events "$WORK/events.link" "$WORK/a"
echo "my notes" >"$WORK/notes.txt"; chmod 600 "$WORK/notes.txt"
expect_refused 78 "notes.txt:1: parse: events file: not an event of msit-compact" \
  --golden "$WORK/golden" --events "$WORK/notes.txt" "$WORK/a"
[ "$(cat "$WORK/precious")" = "root's data" ] && [ "$(cat "$WORK/notes.txt")" = "my notes" ] \
  || fail "a refused events file was written"

# A shared config (the systemd unit's): a golden for another instance's root is skipped, the
# root on the command line gets its own; an earlier event of this root is read back.
printf 'golden = %s=%s\ngolden = %s=%s\nevents = %s\non_divergence = /bin/true\n' \
  "$WORK/b" "$WORK/golden" "$WORK/a" "$WORK/golden" "$WORK/events.jsonl" >"$WORK/shared.conf"
printf '{"id":"r0/t0/Add_3","time":1700000000,"rank":0,"token":"0","op":"Add_3","op_type":"Add","cosine":0.5,"error_level":1.0,"error_jump":40.0,"my_path":"%s/secret/Add.Add_3.1.2.3","golden_path":"/g/x","root":"%s","golden_root":"%s"}\n' \
  "$WORK/a" "$WORK/a" "$WORK/golden" >"$WORK/events.jsonl"
chmod 600 "$WORK/events.jsonl"
start_daemon --config "$WORK/shared.conf" --settle-ms 20 "$WORK/a"
wait_until 20 started || fail "the daemon did not start"
grep -q "live divergence: $WORK/a against the golden $WORK/golden" "$WORK/daemon.log" || fail "no pairing line"
wait_until 10 '[ "$(status_field divergences)" = 1 ]' || fail "status.json: divergences $(status_field divergences)"
[ "$(status_field live_divergence)" = True ] || fail "status.json: live_divergence"
grep -q secret "$WORK/status.json" && fail "the status file shows the dump's paths"
out="$("$MSIT_BIN" status --json-status "$WORK/status.json")"
grep -q "divergences         1; last: rank 0, token 0, Add_3 (Add)" <<<"$out" || fail "status output: $out"

# Reload: a start-only key changed is said, and the run goes on.
printf 'golden = %s=%s\nevents = %s\n' "$WORK/a" "$WORK/golden" "$WORK/other.jsonl" >"$WORK/shared.conf"
kill -HUP "$DAEMON_PID"
wait_until 10 'grep -q "changes to golden, op_mapping_file, events, keep_raw_near_divergence, recompute and held_raw_cap take effect after a restart" "$WORK/daemon.log"' \
  || fail "no restart notice after the reload"
stop_daemon
[ ! -e "$WORK/other.jsonl" ] || fail "the reload opened a new events file"
[ "$(wc -l <"$WORK/events.jsonl")" -eq 1 ] || fail "the events file changed"

# A new events file is created 0600.
rm -f "$WORK/status.json"
start_daemon --golden "$WORK/golden" --events "$WORK/new/events.jsonl" "$WORK/a"
wait_until 20 '[ -f "$WORK/status.json" ]' || fail "no status file"
[ "$(stat -c %a "$WORK/new/events.jsonl")" = 600 ] || fail "events file mode $(stat -c %a "$WORK/new/events.jsonl")"
[ "$(status_field divergences)" = 0 ] || fail "divergences in a new file"
stop_daemon
echo PASS
