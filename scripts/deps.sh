#!/bin/sh
# Install the Debian 12 packages btfinline needs to build and test, if missing.
set -e
PKGS="gcc make libdw-dev libelf-dev libbpf-dev libcapstone-dev zlib1g-dev liblzma-dev libbz2-dev clang llvm bpftool dwarves
      gdb linux-libc-dev libclang-rt-14-dev qemu-system-x86 busybox-static cpio
      file binutils time linux-perf libc6-dbg bpftrace
      python3-docutils pkg-config man-db bash-completion dpkg-dev debhelper lintian
      libdebuginfod-dev libdebuginfod1 debuginfod libarchive-tools
      dwz liblua5.4-0 liblua5.4-0-dbg"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# npm fetches SQLite for the truth harness (tests/truth/build-sqlite.sh);
# a nodejs from elsewhere (NodeSource) ships its own npm and conflicts with
# Debian's, so only install it when there is none.
command -v npm >/dev/null || missing="$missing npm"
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
