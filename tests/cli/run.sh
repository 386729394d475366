#!/usr/bin/env bash
# Golden CLI tests (zstd's tests/cli-tests style): each cases/NAME.sh runs msit-compact through
# `run ARGS...`; the stdout, stderr and exit status of every call, with the temp directory shown
# as $T, the version as VERSION and log timestamps as TIME, must equal expected/NAME.out.
# cases/help.sh also checks that `help CMD` prints exactly `CMD --help`.
# Regenerate the expected files after an intended change of output, then review the diff:
#   MSIT_CLI_UPDATE=1 ctest --test-dir build -R cli_golden
#   (or: bash tests/cli/run.sh build/cli/msit-compact build/tests/tools/msit-dumpgen --update)
# Usage: run.sh MSIT_BIN DUMPGEN_BIN [--update] [CASE...]
set -euo pipefail
BIN="$(realpath "$1")"; DUMPGEN="$(realpath "$2")"; shift 2
UPDATE="${MSIT_CLI_UPDATE:-0}"
if [ "${1:-}" = --update ]; then UPDATE=1; shift; fi
HERE="$(cd "$(dirname "$0")" && pwd)"
VERSION="$("$BIN" --version | awk '{ print $2 }')"
export TZ=UTC LC_ALL=C.UTF-8 BIN DUMPGEN
unset MSIT_COMPACT_SUMMARY_FORMAT  # the default format is part of what is pinned
failures=0

run() {  # one transcript entry: command line, stdout, [stderr], exit status
  local rc=0
  "$BIN" "$@" > "$W/.stdout" 2> "$W/.stderr" < /dev/null || rc=$?
  {
    printf '$ msit-compact %s\n' "$*"
    cat "$W/.stdout"
    if [ -s "$W/.stderr" ]; then echo "[stderr]"; cat "$W/.stderr"; fi
    echo "[exit $rc]"
    echo
  } >> "$W/.transcript"
}
export -f run

normalize() {  # temp paths, version, log and report-name time stamps that differ from run to run
  local real; real="$(realpath "$W")"
  sed -e "s#$real#\$T#g" -e "s#$W#\$T#g" -e "s#msit-compact $VERSION#msit-compact VERSION#g" \
      -e 's#^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9] [0-9:]\{8\} msit-compact watch:#TIME msit-compact watch:#' \
      -e 's#_\(cmp_report\(_rank[0-9]*\)\{0,1\}\)_[0-9]\{14\}\.#_\1_TIMESTAMP.#g' \
      -e 's#compare_result\(_rank[0-9]*\|_proc[0-9]*\)\{0,1\}_[0-9]\{14\}\.#compare_result\1_TIMESTAMP.#g' \
      -e 's#^timing: \(.\{28\}\) .*#timing: \1 TIME#' |
    # CLI11 lists an option's exclusions in the order of the options' addresses: sorted here.
    perl -pe 's/(Excludes:)((?: --[\w-]+)+)/$1 . join("", sort split(m{(?= --)}, $2))/ge'
}

cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for f in "$HERE"/cases/*.sh; do cases+=("$(basename "$f" .sh)"); done
fi
for name in "${cases[@]}"; do
  W="$(mktemp -d "${TMPDIR:-/tmp}/msit-cli.XXXXXX")"
  export W
  : > "$W/.transcript"
  # A fresh bash, so that `set -e` holds inside the case (a failed setup step is a failure).
  bash -e -c 'cd "$W" && source "$1"' case "$HERE/cases/$name.sh" ||
    { echo "FAIL: $name: the case script itself failed"; failures=$((failures + 1)); }
  normalize < "$W/.transcript" > "$W/.actual"
  expected="$HERE/expected/$name.out"
  if [ "$UPDATE" = 1 ]; then
    cp "$W/.actual" "$expected"
    echo "updated: $expected"
  elif ! diff -u "$expected" "$W/.actual"; then
    echo "FAIL: $name: output differs from $expected (see the diff above)"
    failures=$((failures + 1))
  fi
  rm -rf "$W"
done

((failures == 0)) || { echo "FAIL: $failures golden CLI checks failed"; exit 1; }
echo "PASS: ${#cases[@]} cases"
