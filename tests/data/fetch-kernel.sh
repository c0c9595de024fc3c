#!/bin/sh
# Fetch and cache (outside the repo) Debian's 6.1 cloud kernel, its debug
# vmlinux and busybox-static. Prints the cache directory.
#   $CACHE/vmlinux          debug vmlinux (DWARF 5, gcc 12, with .BTF)
#   $CACHE/vmlinuz          bootable image
#   $CACHE/modules/         /lib/modules/<ver> of the image package
#   $CACHE/busybox          static busybox
set -e
VER=6.1.0-57-cloud-amd64
CACHE=${BTFI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/btfinline}
mkdir -p "$CACHE"
cd "$CACHE"
get() {	# package -> extracted into $CACHE/pkg-<package>
	[ -f "pkg-$1/.done" ] && return 0
	ls "$1"_*.deb >/dev/null 2>&1 || {
		apt-get download "$1" >&2 2>/dev/null || { apt-get update -q >&2 && apt-get download "$1" >&2; }
	}
	rm -rf "pkg-$1" && mkdir -p "pkg-$1"
	dpkg-deb -x "$(ls "$1"_*.deb | head -n 1)" "pkg-$1"
	touch "pkg-$1/.done"
}
get linux-image-$VER-dbg
get linux-image-$VER
get busybox-static
ln -sfn "pkg-linux-image-$VER-dbg/usr/lib/debug/boot/vmlinux-$VER" vmlinux
ln -sfn "pkg-linux-image-$VER/boot/vmlinuz-$VER" vmlinuz
ln -sfn "pkg-linux-image-$VER/lib/modules/$VER" modules
ln -sfn "pkg-busybox-static/bin/busybox" busybox
echo "$CACHE"
