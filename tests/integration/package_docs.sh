#!/usr/bin/env bash
# Every option each subcommand's --help lists is in that command's section of the man page and
# in its bash and zsh completion, and every subcommand the binary has is covered by all three.
set -euo pipefail
BIN="$1"; SRC="$2"
MAN="$SRC/docs/man/msit-compact.1"
BASH_C="$SRC/packaging/completions/msit-compact.bash"
ZSH_C="$SRC/packaging/completions/_msit-compact"
failures=0
miss() { echo "MISSING: $*"; failures=$((failures + 1)); }

# Option names from CLI11's help: "  -j,--jobs UINT ..." or "  --json ..." in the Options block.
options_of() {
  "$BIN" "$@" --help | awk '/^Options:/ { on = 1; next } /^[A-Z][a-z]*:/ { on = 0 }
    on && /^  -/ { split($1, names, ","); for (i in names) print names[i] }'
}
# The text of one block: man `.SS "cmd ...` section, or a completion's `cmd)` case branch.
man_section() { awk -v c="$1" '/^\.S[SH] / { on = ($0 ~ "^\\.SS \"" c " ") } on' "$MAN"; }
case_branch() { awk -v c="$1" '$1 == c ")" { on = 1 } on { print } on && /;;/ { exit }' "$2"; }

commands=$("$BIN" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$commands" ] || { echo "FAIL: no subcommands in --help"; exit 1; }
for opt in $(options_of); do
  grep -qF -- "${opt//-/\\-}" "$MAN" || miss "man page: global option $opt"
  grep -qE -- "[ \"']$opt([ \"']|$)" "$BASH_C" || miss "bash completion: global option $opt"
  grep -qE -- "[{ ',()]$opt[],}'[ )]" "$ZSH_C" || miss "zsh completion: global option $opt"
done
for cmd in $commands; do
  section=$(man_section "$cmd"); bash_b=$(case_branch "$cmd" "$BASH_C"); zsh_b=$(case_branch "$cmd" "$ZSH_C")
  [ -n "$section" ] || miss "man page: no section for $cmd"
  [ -n "$bash_b" ] || miss "bash completion: no branch for $cmd"
  [ -n "$zsh_b" ] || miss "zsh completion: no branch for $cmd"
  grep -qE "(^|[ \"'])$cmd([ \"']|$)" <<<"$(grep -m1 'local commands=' "$BASH_C")" || miss "bash completion: command $cmd"
  grep -qF "'$cmd:" "$ZSH_C" || miss "zsh completion: command $cmd"
  for opt in $(options_of "$cmd"); do
    [ "$opt" = -h ] || [ "$opt" = --help ] && continue  # shared by every command
    grep -qF -- "${opt//-/\\-}" <<<"$section" || miss "man page: $cmd $opt"
    grep -qE -- "[ \"']$opt([ \"']|$)" <<<"$bash_b" || miss "bash completion: $cmd $opt"
    grep -qE -- "[{ ',()]$opt[],}'[ )]" <<<"$zsh_b" || miss "zsh completion: $cmd $opt"
  done
done
if command -v zsh >/dev/null; then zsh -n "$ZSH_C" || miss "zsh completion: syntax"; fi
bash -n "$BASH_C" || miss "bash completion: syntax"
if command -v man >/dev/null; then
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$MAN" 2>&1 >/dev/null)
  [ -z "$warnings" ] || miss "man page: groff warnings: $warnings"
fi
((failures == 0)) || { echo "FAIL: $failures missing (update docs/man/msit-compact.1 and packaging/completions/)"; exit 1; }
echo "PASS: $(wc -w <<<"$commands") commands"
