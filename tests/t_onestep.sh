#!/bin/bash
# One step (issue 11, section 6): `trace -x BIN FUNC...` on a binary with
# DWARF somewhere but no .BTF.inline builds the inline info itself and
# caches it under $XDG_CACHE_HOME/btfinline/encoded/:
#  - a stripped gcc -O2 -g binary whose compressed DWARF is detached
#    (.gnu_debuglink), no .BTF anywhere (no pahole -J ran): the values the
#    program prints for each call are the traced ones; BIN and its debug
#    file are unchanged; -v says where the DWARF came from and that the
#    base BTF came from pahole;
#  - the same events as the 3-step path (pahole -J on a copy of the debug
#    file, encode, trace the encoded copy), labels and file:line included;
#  - the second run says it used the cache (-v) and prints the same events;
#  - a corrupt entry (truncated, flipped bytes, another file's) is rebuilt
#    and -v says why; a binary without build-id is keyed by path + size +
#    mtime (a touched binary gets a new entry); a cache that cannot be
#    written still traces (-v: not cached), leaving no temp file;
#  - without pahole in PATH, or on split DWARF (pahole 1.24 cannot read
#    it; .dwo files, or a .dwp package): prototypes from the DWARF only,
#    not cached; the package's temp directory is gone after the trace.
# Normal and, if built, ASan+UBSan CLI.
set -u
. "$TOP/tests/lib_trace.sh"
need_root_bpf
command -v pahole >/dev/null || { echo "skip: no pahole"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "tmp: $tmp"
fail=0
bad() { echo "FAIL $*"; fail=1; }
cd "$tmp" || exit 1
export XDG_CACHE_HOME=$tmp/xdg TMPDIR=$tmp/t
mkdir -p "$TMPDIR"
cache=$XDG_CACHE_HOME/btfinline/encoded

gcc -O2 -g -o shapes "$TOP/tests/fixtures/shapes.c"
objcopy --only-keep-debug shapes shapes.debug
strip --strip-all shapes
objcopy --add-gnu-debuglink=shapes.debug shapes
objcopy --compress-debug-sections=zlib shapes.debug
readelf -SW shapes.debug 2>/dev/null | grep -q ' \.debug_info .* C ' || bad "debug file not compressed"
id=$(readelf -n shapes | sed -n 's/.*Build ID: //p')
sums=$(sha256sum shapes shapes.debug)
F=(scale mix 'obj_id o->id' with_flags 'widen x y')

# trace BIN OUT [trace options]: the events of `BIN 3`, time and pid cut.
trace() {
	local bin=$1 out=$2; shift 2
	# --best-effort: widen's second call has a second address, on its rare
	# path (z == 1000, not taken here), where GCC gives x and y no location
	timeout 60 env ${TPATH:+PATH=$TPATH} "$BT" trace -x "$bin" "$@" "${F[@]}" --no-entry --best-effort -- "$bin" 3 \
		>"$out.raw" 2>"$out.err"
	local rc=$?
	grep -v '^arg ' "$out.raw" | grep -v '^acc=' | cut -d' ' -f3- >"$out"
	grep '^arg ' "$out.raw" >"$out.prog"
	return $rc
}
# The program's "arg F a=1 b=2" lines, in order, equal the traced
# "F LABEL (WHERE) a=1 b=2" lines, per function of F.
values_ok() {
	local f
	for f in "${F[@]%% *}"; do
		diff <(grep "^arg $f " "$1.prog" | cut -d' ' -f3-) \
		     <(grep "^$f " "$1" | sed 's/^[^ ]* [^ ]* ([^)]*) //') >/dev/null ||
			{ bad "$2: $f: traced values differ from the program's:"; grep -E "^(arg )?$f " "$1.prog" "$1"; }
	done
	[ "$(grep -c . "$1")" -ge 15 ] || bad "$2: only $(grep -c . "$1") events"
}

for BT in "$BTFINLINE" "$TOP/build-asan/btfinline"; do
	[ -x "$BT" ] || continue
	which=$(basename "$(dirname "$BT")")
	rm -rf "$XDG_CACHE_HOME"

	# First run: built from the detached DWARF, base from pahole, cached.
	trace ./shapes one -v || bad "$which: one-step trace: $(cat one.err)"
	grep -q "^btfinline: ./shapes: no .BTF.inline: built from the DWARF of ./shapes.debug (.gnu_debuglink) .* base BTF: pahole --btf_encode_detached on the DWARF file$" one.err ||
		bad "$which: -v of the first run: $(cat one.err)"
	grep -qx "btfinline: ./shapes: cached as $cache/$id.elf (build-id $id)" one.err || bad "$which: -v: not cached as $id.elf"
	[ -s "$cache/$id.elf" ] || bad "$which: no cache entry $cache/$id.elf"
	values_ok one "$which one-step"
	grep -q '^scale main+0x[0-9a-f]* (shapes.c:[0-9]*) v=3 k=3$' one || bad "$which: labels/file:line: $(head -1 one)"
	[ "$(sha256sum shapes shapes.debug)" = "$sums" ] || bad "$which: the binary or its debug file was modified"
	"$BT" dump "$cache/$id.elf" scale >/dev/null || bad "$which: the cache entry does not dump"

	# Second run: the cache, same events.
	trace ./shapes two -v || bad "$which: second run: $(cat two.err)"
	grep -q "^btfinline: ./shapes: inline info from the cache, $cache/$id.elf (build-id $id), opened in [0-9.]* ms$" two.err ||
		bad "$which: second run -v: $(cat two.err)"
	grep -q "built from" two.err && bad "$which: second run built again"
	cmp -s one two || bad "$which: second run differs: $(diff one two | head -5)"
	echo "ok   $which: one step: $(wc -l <one) events = the program's values; second run: $(grep -o 'opened in [0-9.]* ms' two.err), $(grep -o 'ready .*' two.err)"

	# Corrupt entries are rebuilt.
	e=$cache/$id.elf
	for how in truncate flip other; do
		case $how in
		truncate) head -c 2000 "$e" >"$e.x" ;;
		flip) cp "$e" "$e.x"
		      off=$(readelf -SW "$e" | sed 's/\[ */[/' | awk '$2 == ".BTF.inline" { print $5 }')
		      printf '\xff\xff\xff\xff' | dd of="$e.x" bs=1 seek=$((16#$off + 40)) conv=notrunc 2>/dev/null ;;
		other) # another binary's entry under this name
		       "$BT" trace -x "$FIXTURES/shapes-clang-dw5" scale -d 0.1 >/dev/null 2>&1
		       other=$(ls "$cache"/*.elf | grep -v "$id" | head -1)
		       [ -n "$other" ] || { bad "$which: no entry of another binary"; continue; }
		       cp "$other" "$e.x" ;;
		esac
		mv "$e.x" "$e"
		trace ./shapes bad-$how -v || bad "$which: $how entry: $(cat bad-$how.err)"
		grep -q "^btfinline: ./shapes: replaced an unusable cache entry: $e: " bad-$how.err ||
			bad "$which: $how entry: -v does not say it was replaced: $(cat bad-$how.err)"
		cmp -s one bad-$how || bad "$which: $how entry: events differ"
		"$BT" trace -v -x ./shapes scale -- ./shapes 1 2>&1 >/dev/null | grep -q "inline info from the cache" ||
			bad "$which: $how entry: not usable after the rebuild"
		echo "ok   $which: $how cache entry rebuilt: $(grep -o 'replaced.*' bad-$how.err | cut -c1-150)"
	done

	# No build-id: keyed by path, size and mtime.
	gcc -O2 -g -Wl,--build-id=none -o noid "$TOP/tests/fixtures/shapes.c"
	trace ./noid n1 -v || bad "$which: no build-id: $(cat n1.err)"
	k1=$(sed -n 's/.*cached as \(.*\) (file .* size [0-9]* mtime [0-9.]*)$/\1/p' n1.err)
	[ -n "$k1" ] && [ -s "$k1" ] || bad "$which: no build-id: not keyed by path/size/mtime: $(cat n1.err)"
	values_ok n1 "$which no build-id"
	trace ./noid n2 -v; grep -q "inline info from the cache, $k1 " n2.err || bad "$which: no build-id: cache not used"
	touch -d '2001-01-01' noid
	trace ./noid n3 -v; grep -q "built from" n3.err && ! grep -q "cached as $k1 " n3.err ||
		bad "$which: touched binary: not rebuilt under a new key: $(cat n3.err)"
	echo "ok   $which: no build-id: keyed by path+size+mtime, rebuilt after touch"

	# A cache that cannot be written: traced all the same, no temp file left.
	: >"$tmp/afile"
	XDG_CACHE_HOME=$tmp/afile trace ./shapes nc -v || bad "$which: unwritable cache: $(cat nc.err)"
	grep -q "^btfinline: ./shapes: not cached: .*afile/btfinline: cannot create: Not a directory$" nc.err ||
		bad "$which: unwritable cache: -v: $(cat nc.err)"
	cmp -s one nc || bad "$which: unwritable cache: events differ"
	[ -z "$(ls -A "$TMPDIR")" ] || bad "$which: temp files left: $(ls "$TMPDIR")"
	echo "ok   $which: unwritable cache: traced, not cached, nothing left in TMPDIR"

	# No pahole: prototypes from the DWARF (members unknown), not cached.
	mkdir -p nopahole && rm -rf "$XDG_CACHE_HOME"
	F=(scale mix with_flags 'widen x y')
	TPATH=$tmp/nopahole trace ./shapes np -v || bad "$which: no pahole: $(cat np.err)"
	F=(scale mix 'obj_id o->id' with_flags 'widen x y')
	grep -q "base BTF: none (cannot run pahole: No such file or directory; prototypes from the DWARF, struct members unknown)" np.err &&
		grep -q "not cached: no base BTF" np.err || bad "$which: no pahole: -v: $(cat np.err)"
	[ -e "$cache/$id.elf" ] && bad "$which: no pahole: cached"
	grep -v '^obj_id' one | cmp -s - np || bad "$which: no pahole: events differ"
	echo "ok   $which: without pahole: traced from the DWARF's prototypes, not cached"
done

# Split DWARF (pahole 1.24 cannot read skeleton units): prototypes from
# the DWARF, the .dwo found next to the binary.
D=$FIXTURES/debuginfo
"$TOP/tests/fixtures/build-debuginfo.sh" "$D" >/dev/null || bad "building the debug info variants"
BT=$BTFINLINE
F=(scale mix with_flags 'widen x y')
trace "$D/shapes-gcc-split/shapes-gcc-split" split -v || bad "split DWARF: $(cat split.err)"
grep -q "base BTF: none (pahole wrote no readable BTF" split.err || bad "split DWARF: -v: $(cat split.err)"
values_ok split "split DWARF"
grep -q '^scale main+0x98 (shapes.c:105) ' split || bad "split DWARF: labels, file:line: $(head -1 split)"
echo "ok   split DWARF: $(wc -l <split) events = the program's values"
trace "$D/shapes-gcc-dwp/shapes-gcc-dwp" dwp -v || bad ".dwp: $(cat dwp.err)"
values_ok dwp ".dwp package"
grep -q '^scale main+0x[0-9a-f]* (shapes.c:105) ' dwp || bad ".dwp: labels, file:line: $(head -1 dwp)"
[ -z "$(ls -A "$TMPDIR")" ] || bad ".dwp: left in TMPDIR: $(ls -A "$TMPDIR")"
F=(scale mix 'obj_id o->id' with_flags 'widen x y')
echo "ok   .dwp package: $(wc -l <dwp) events = the program's values"

# The 3-step path gives the same events: pahole -J on a copy of the debug
# file, encode with it, trace the encoded copy (its debug file found by
# .gnu_debuglink next to it).
BT=$BTFINLINE
cp shapes.debug dbg.copy && pahole -J dbg.copy 2>/dev/null || bad "pahole -J"
"$BT" encode shapes --debug-file dbg.copy -o shapes3 || bad "encode (3-step)"
trace ./shapes3 three || bad "3-step trace: $(cat three.err)"
cmp -s one three || bad "one-step and 3-step events differ: $(diff one three | head -6)"
[ "$(sha256sum shapes shapes.debug)" = "$sums" ] || bad "the binary or its debug file was modified"
echo "ok   3-step path: the same $(wc -l <three) events"
check_no_probes "one-step traces"
exit $fail
