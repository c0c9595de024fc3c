#!/bin/sh
# Fetch SQLite's amalgamation (from the npm package better-sqlite3, pinned)
# and build tests/truth/sqlite_driver.c with it four ways, cached outside
# the repo ($BTFI_CACHE or ~/.cache/btfinline, then truth/):
#   sqlite-O0-gcc     gcc -O0 -g: the truth for gcc (every call a real call)
#   sqlite-O0-clang   clang -O0 -g: the truth for clang (clang evaluates call
#                     arguments in another order than gcc, so the heap
#                     addresses and the order of calls differ from gcc's)
#   sqlite-O2-gcc     gcc -O2 -g, base .BTF from pahole -J
#   sqlite-O2-clang   clang -O2 -g, base .BTF from pahole -J
# A build is redone when the driver, the flags or the compiler changes
# (stamp file per build). Prints the directory.
set -e
PKG=better-sqlite3@12.11.1
SHA=ebf0ed75a7a59dbcb3b24bbd014ef49d9f15bc328e4adcbf516f2a8fadfa2835
DEFS="-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_DEFAULT_MEMSTATUS=0 -DSQLITE_DQS=0"
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${BTFI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/btfinline}/truth
mkdir -p "$CACHE"
cd "$CACHE"

if [ ! -f src/.done ]; then
	tgz=$(ls better-sqlite3-12.11.1.tgz 2>/dev/null || true)
	if [ -z "$tgz" ]; then
		command -v npm >/dev/null || { echo "build-sqlite: npm not found (Debian package npm)" >&2; exit 1; }
		npm pack "$PKG" --silent >&2
		tgz=better-sqlite3-12.11.1.tgz
	fi
	echo "$SHA  $tgz" | sha256sum -c --quiet - >&2 || { echo "build-sqlite: $tgz: sha256 differs from the pinned one" >&2; exit 1; }
	rm -rf src && mkdir src
	tar -xzf "$tgz" -C src --strip-components=3 package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h
	touch src/.done
fi

build() {	# name cc opt
	out=$1 cc=$2 opt=$3
	stamp="$cc $opt -g $DEFS | $($cc --version | head -n 1) | $(sha256sum "$here/sqlite_driver.c" | cut -c1-16)"
	[ -x "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	echo "build-sqlite: building $out ($cc $opt)" >&2
	$cc $opt -g $DEFS -c src/sqlite3.c -o "$out.sqlite3.o"
	$cc $opt -g -Isrc -c "$here/sqlite_driver.c" -o "$out.driver.o"
	$cc -o "$out.tmp" "$out.driver.o" "$out.sqlite3.o" -lm
	rm -f "$out.sqlite3.o" "$out.driver.o"
	case $opt in -O0) ;; *) pahole -J "$out.tmp" ;; esac
	mv "$out.tmp" "$out"
	echo "$stamp" >"$out.stamp"
}
build sqlite-O0-gcc gcc -O0
build sqlite-O0-clang clang -O0
build sqlite-O2-gcc gcc -O2
build sqlite-O2-clang clang -O2
echo "$CACHE"
