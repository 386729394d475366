# Real unprivileged accounts for the "another user plants something" tests (docs/safety.md,
# trust round 2). Sourced, not run. The binary runs as root (as the daemon does); the attacker
# and the victim are throwaway accounts made here and removed on exit.
#
#   source "$(dirname "$0")/users_lib.sh"
#   users_require          # exit 77 (ctest: skipped) unless root with useradd and setpriv
#   users_make             # sets $UA/$UB (names), $UA_ID/$UB_ID (uids), removed by users_cleanup
#   as_user "$UA" CMD...   # runs CMD as that account, no supplementary groups
#   shared_dir DIR         # mkdir -p DIR, mode 1777 (a shared dump directory), parents 0755
#
# The caller's EXIT trap must call users_cleanup (bash keeps one trap per signal).

users_require() {
  if [ "$(id -u)" != 0 ] || ! command -v useradd > /dev/null || ! command -v setpriv > /dev/null; then
    echo "SKIP: needs root, useradd and setpriv"
    exit 77
  fi
}

USERS_MADE=()

users_make() {
  local tag
  tag="$(printf '%04x' $((RANDOM % 65536)))$$"
  tag="${tag:0:8}"
  UA="msa${tag}"
  UB="msb${tag}"
  local u
  for u in "$UA" "$UB"; do
    useradd --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --user-group "$u"
    USERS_MADE+=("$u")
  done
  UA_ID=$(id -u "$UA")
  UB_ID=$(id -u "$UB")
}

users_cleanup() {
  local u
  for u in "${USERS_MADE[@]}"; do
    pkill -9 -u "$u" 2> /dev/null || true
    userdel "$u" 2> /dev/null || true
    getent group "$u" > /dev/null && groupdel "$u" 2> /dev/null || true
  done
  USERS_MADE=()
}

as_user() {
  local u="$1"
  shift
  setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --clear-groups -- "$@"
}

shared_dir() {
  mkdir -p "$1"
  chmod 1777 "$1"
  local p
  p=$(dirname "$1")
  while [ "$p" != / ] && [ "$p" != . ]; do
    chmod a+x "$p" 2> /dev/null || true
    p=$(dirname "$p")
  done
}
