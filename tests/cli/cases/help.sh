# Every command's help text (each command the binary lists), and `help CMD` printing exactly
# the same.
for cmd in $("$BIN" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
  run "$cmd" --help
  "$BIN" help "$cmd" | cmp -s - "$W/.stdout" || { echo "FAIL: 'help $cmd' differs from '$cmd --help'" >&2; exit 1; }
done
