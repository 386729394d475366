#!/usr/bin/env bash
# The .deb end to end on this machine: cpack builds it, apt installs it, the installed binary,
# man page, unit and completions work, and apt purge leaves no file of it behind. Needs root
# and apt (CI: root on Debian 12); skips (77) otherwise, or when it would touch an existing
# install. The machine is put back as it was even when a step fails (trap).
set -euo pipefail
CPACK="$1"; BUILD="$2"; SRC="$3"
step() { echo "[${SECONDS}s] $*"; }
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || skip "not root: installing a package needs root"
for tool in dpkg dpkg-deb dpkg-query apt-get dpkg-shlibdeps file objcopy flock; do
  command -v "$tool" >/dev/null || skip "$tool not available (dpkg, apt, dpkg-dev, file, binutils)"
done
# One package test at a time on this machine (other worktrees' ctest runs).
lock_dir=/run/lock; [ -d "$lock_dir" ] || lock_dir=/tmp
exec 9>"$lock_dir/msit-compact-package-test.lock"
flock -w 300 9 || fail "another package test holds $lock_dir/msit-compact-package-test.lock"
state=$(dpkg-query -W -f='${db:Status-Status}' msit-compact 2>/dev/null || true)
if [ -n "$state" ] && [ "$state" != not-installed ]; then
  skip "package msit-compact is known to dpkg here ($state); this test would replace and purge it"
fi

WORK="$(mktemp -d)"
installed=0
extras=()
cleanup() {
  local rc=$?
  if ((installed)); then
    local now
    now=$(dpkg-query -W -f='${db:Status-Status}' msit-compact 2>/dev/null || true)
    if [ -n "$now" ] && [ "$now" != not-installed ]; then  # also half-installed, config-files
      echo "cleanup: purging msit-compact"
      apt-get purge -y -qq -o DPkg::Lock::Timeout=120 msit-compact >/dev/null 2>&1 || rc=1
    fi
    if ((${#extras[@]})); then
      echo "cleanup: purging the dependencies this test installed: ${extras[*]}"
      apt-get purge -y -qq -o DPkg::Lock::Timeout=120 "${extras[@]}" >/dev/null 2>&1 || rc=1
    fi
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y -o DPkg::Lock::Timeout=120)

# 1. Build the package from the (already built) build tree.
step "cpack -G DEB"
# ctest runs after the build, so CPack's "preinstall" step (a no-op `make all` over the whole
# tree, ~20 s on a loaded 2-core machine) is skipped: the same install rules are run through
# cmake_install.cmake instead of CPACK_INSTALL_CMAKE_PROJECTS; everything else is the project's
# CPackConfig.cmake.
cat >"$WORK/cpack-config.cmake" <<CFG
include("$BUILD/CPackConfig.cmake")
set(CPACK_INSTALL_CMAKE_PROJECTS "")
set(CPACK_INSTALL_SCRIPTS "$BUILD/cmake_install.cmake")
CFG
"$CPACK" -G DEB --config "$WORK/cpack-config.cmake" -B "$WORK/out" >"$WORK/cpack.log" 2>&1 \
  || { cat "$WORK/cpack.log"; fail "cpack -G DEB"; }
debs=("$WORK"/out/msit-compact_*.deb)
[ -f "${debs[0]}" ] && [ ${#debs[@]} -eq 1 ] || fail "expected one msit-compact_*.deb, got: ${debs[*]}"
deb="${debs[0]}"
ddeb=$(ls "$WORK"/out/msit-compact-dbgsym_*.ddeb 2>/dev/null) || fail "no -dbgsym .ddeb next to $deb"
echo "package $(basename "$deb") $(stat -c %s "$deb") bytes, $(basename "$ddeb") $(stat -c %s "$ddeb") bytes"

# 2. Its metadata and contents.
step "checking the package"
# Depends (dpkg-shlibdeps) names the same packages as `scripts/deps --runtime`.
depends=$(dpkg-deb -f "$deb" Depends)
[ "$(tr ',' '\n' <<<"$depends" | sed 's/^ *//; s/ .*//' | sort)" = "$("$SRC/scripts/deps" --runtime --print | sort)" ] \
  || fail "Depends ($depends) differs from scripts/deps --runtime ($("$SRC/scripts/deps" --runtime --print | xargs))"
dpkg-deb -e "$deb" "$WORK/control"
grep -qx /etc/msit-compact/msit-compact.conf "$WORK/control/conffiles" || fail "config is not a conffile"
dpkg-deb -x "$deb" "$WORK/root"
file "$WORK/root/usr/bin/msit-compact" | grep -q ', stripped' || fail "binary in the .deb is not stripped"
build_id=$(file "$WORK/root/usr/bin/msit-compact" | sed -n 's/.*BuildID\[sha1\]=\([0-9a-f]*\).*/\1/p')
# Listings go to files first: `| grep -q` closing the pipe early kills tar under pipefail.
dpkg-deb -c "$ddeb" > "$WORK/ddeb.list"
grep -q "usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug" "$WORK/ddeb.list" \
  || fail "dbgsym has no debug file for build id $build_id"
dpkg-deb -I "$ddeb" md5sums > "$WORK/ddeb.md5sums"
grep -q '^[0-9a-f]*  usr/lib/debug/\.build-id/' "$WORK/ddeb.md5sums" \
  || fail "dbgsym md5sums: $(dpkg-deb -I "$ddeb" md5sums)"
mapfile -t paths < <(dpkg-deb --fsys-tarfile "$deb" | tar -t | sed 's|^\./|/|; s|/$||' | grep -v '^/\?$')
# Files this package would overwrite (a `cmake --install --prefix /usr`): not ours to replace.
existed=()
for p in "${paths[@]}"; do
  if [ -e "$p" ] || [ -L "$p" ]; then
    [ -d "$p" ] || skip "$p already exists; installing the package would replace it"
    existed+=("$p")
  fi
done

# 3. Install with apt: only missing libraries may come with it, and those go again in cleanup.
step "apt-get install"
mapfile -t extras < <(apt-get install -s "${apt_opts[@]}" "$deb" 2>/dev/null \
                      | sed -n 's/^Inst \([^ ]*\) .*/\1/p' | grep -vx msit-compact || true)
installed=1
apt-get install -qq "${apt_opts[@]}" "$deb" >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; fail "apt-get install $deb"; }

# 4. The installed files work.
step "checking the installed files"
[ "$(command -v msit-compact)" = /usr/bin/msit-compact ] || fail "msit-compact is not /usr/bin/msit-compact"
version=$(msit-compact --version)
[ "$version" = "msit-compact $(dpkg-deb -f "$deb" Version | sed 's/-[^-]*$//')" ] || fail "--version: $version"
if command -v man >/dev/null; then
  [ "$(man -w msit-compact)" = /usr/share/man/man1/msit-compact.1.gz ] || fail "man -w msit-compact: $(man -w msit-compact 2>&1)"
  page=$(MANWIDTH=100 man msit-compact 2>/dev/null)
  for cmd in watch compact compare inspect status restore; do
    grep -q "^   $cmd " <<<"$page" || fail "man page has no section for $cmd"
  done
else
  [ -f /usr/share/man/man1/msit-compact.1.gz ] || fail "man page not installed"
fi
unit=/usr/lib/systemd/system/msit-compact@.service
[ -f "$unit" ] || fail "unit not installed"
grep -q '^ExecStart=/usr/bin/msit-compact watch --config /etc/msit-compact/msit-compact.conf ' "$unit" \
  || fail "ExecStart: $(grep ExecStart "$unit")"
if command -v systemd-analyze >/dev/null; then
  mkdir "$WORK/units"
  cp "$unit" "$WORK/units/"
  ln -s msit-compact@.service "$WORK/units/msit-compact@data-dump.service"
  out=$(systemd-analyze verify "$WORK/units/msit-compact@data-dump.service" 2>&1) || fail "verify: $out"
  [ -z "$out" ] || fail "systemd-analyze verify warnings: $out"
else
  echo "systemd-analyze not installed: unit not verified"
fi
msit-compact watch --config /etc/msit-compact/msit-compact.conf --help >/dev/null || fail "installed config"
[ -f /usr/share/bash-completion/completions/msit-compact ] || fail "bash completion not installed"
[ -f /usr/share/zsh/vendor-completions/_msit-compact ] || fail "zsh completion not installed"
if [ -f /usr/share/bash-completion/bash_completion ]; then
  got=$(bash -c 'source /usr/share/bash-completion/bash_completion
    __load_completion msit-compact || exit 1
    COMP_LINE="msit-compact com"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(msit-compact com); COMP_CWORD=1
    _msit_compact; echo "${COMPREPLY[*]}"')
  [ "$got" = "compact compare" ] || fail "bash completion of 'msit-compact com': '$got'"
fi
for doc in README.md store.md copyright; do
  [ -f "/usr/share/doc/msit-compact/$doc" ] || fail "$doc not installed"
done

# 5. Purge: no file of the package left, no directory it created left.
step "apt-get purge"
apt-get purge -qq "${apt_opts[@]}" msit-compact >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; fail "apt-get purge"; }
state=$(dpkg-query -W -f='${db:Status-Status}' msit-compact 2>/dev/null || true)
[ -z "$state" ] || [ "$state" = not-installed ] || fail "dpkg state after purge: $state"
((${#extras[@]})) || installed=0  # else the cleanup purges the dependencies it brought
for p in "${paths[@]}"; do
  if [ -e "$p" ] && ! printf '%s\n' "${existed[@]}" | grep -qx -- "$p"; then
    fail "left after purge: $p"
  fi
done
step PASS
