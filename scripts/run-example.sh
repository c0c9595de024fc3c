#!/bin/bash
# `make run`: build the bundled example, encode its .BTF.inline, strip the
# DWARF (tracing needs only .BTF + .BTF.inline) and trace its inlined calls.
set -e
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
btfi=$top/$build/btfinline
out=$top/$build/example
mkdir -p "$out"
gcc -O2 -g -o "$out/demo.dbg" "$top/examples/demo.c"
pahole -J "$out/demo.dbg"
"$btfi" encode "$out/demo.dbg" -o "$out/demo.enc"
objcopy --strip-debug "$out/demo.enc" "$out/demo"
echo "== sections of $build/example/demo (no DWARF):"
readelf -SW "$out/demo" | grep -oE '\.(BTF[.a-z]*|debug_[a-z]+)' | sort -u | tr '\n' ' '; echo
echo "== inline sites:"
"$btfi" dump "$out/demo" notional accept fee || true
if [ "$(id -u)" != 0 ]; then
	echo "(tracing needs root: sudo $btfi trace -x $out/demo notional accept fee 'accept o->id o->symbol limit' -- $out/demo)"
	exit 0
fi
echo "== btfinline trace -x demo notional 'accept o->id o->side o->symbol limit' fee -- demo 5"
"$btfi" trace -x "$out/demo" notional 'accept o->id o->side o->symbol limit' fee -- "$out/demo" 5
echo "== one step, a plain gcc -O2 -g build (no pahole -J, no encode), twice: the second run reads the cache"
gcc -O2 -g -o "$out/demo.g" "$top/examples/demo.c"
for run in 1 2; do
	"$btfi" trace -v -x "$out/demo.g" 'accept o->id o->symbol limit' fee -- "$out/demo.g" 3
done
