#!/bin/bash
# Debug info where users have it (issue 11), on shapes.c built by
# tests/fixtures/build-debuginfo.sh, gcc and clang, normal and ASan builds:
#  - -gz (SHF_COMPRESSED zlib), zlib-gnu (.zdebug_*), split DWARF (.dwo),
#    split DWARF packed into a .dwp (gcc: DWARF 4 + dwp, version 2 index;
#    clang: DWARF 5 + llvm-dwp, version 5; read by our dwp.c),
#    stripped + --only-keep-debug + --add-gnu-debuglink (with build-id, with
#    a compressed debug file, without build-id: CRC): `stats --json` and
#    `dump -j` / `dump` after `encode` equal the plain build's
#    (FIXTURES/shapes-CC-dw5; clang's split builds and gcc's .dwp build:
#    dw4, see below), `-v` names where the DWARF came from (and the .dwp),
#    the .dwp's temp directory is gone afterwards;
#  - encode of a stripped binary writes a copy of the stripped binary (it
#    runs, has no DWARF), never touches the debug file, and dump names the
#    callers from the debug file's .symtab; trace prints file:line from it;
#  - build-id lookup under --debug-dir; --debug-file; a debug file whose
#    build-id or CRC does not match, zstd sections (libelf 0.188), a .dwp
#    whose index is cut or corrupt or lacks the unit, and a missing .dwo:
#    one line naming the file, exit 1.
# clang 14 writes no DW_OP_convert in split units (it would name a type in
# the .dwo) but what DWARF 4 has, so its split build reads like the plain
# DWARF 4 one. pahole 1.24 cannot read split DWARF: the split builds take
# the plain build's .BTF as --base (same source, same types).
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "tmp: $tmp"
# where a .dwp's units are written: must be empty after each command
export TMPDIR=$tmp/t; mkdir -p "$TMPDIR"
fail=0
. "$TOP/tests/lib_check.sh"
D=$FIXTURES/debuginfo
"$TOP/tests/fixtures/build-debuginfo.sh" "$D" || { echo "FAIL: building the variants"; exit 1; }
bins=("$BTFINLINE")
[ -x "$TOP/build-asan/btfinline" ] && bins+=("$TOP/build-asan/btfinline")

for cc in gcc clang; do
	# The references: the plain builds, encoded; F: functions with sites.
	F=$("$BTFINLINE" stats "$FIXTURES/shapes-$cc-dw5" --sites | awk '$1 == "site" && $3 != "0x0" { print $2 }' | sort -u)
	for dw in 5 4; do
		ref=$FIXTURES/shapes-$cc-dw$dw
		"$BTFINLINE" stats "$ref" --json | norm >"$tmp/ref-$cc-dw$dw.stats"
		"$BTFINLINE" encode "$ref" -o "$tmp/ref-$cc-dw$dw" || bad "encode $ref"
		# shellcheck disable=SC2086
		"$BTFINLINE" dump "$tmp/ref-$cc-dw$dw" -j $F >"$tmp/ref-$cc-dw$dw.j"
		# shellcheck disable=SC2086
		"$BTFINLINE" dump "$tmp/ref-$cc-dw$dw" $F >"$tmp/ref-$cc-dw$dw.txt"
	done
	for v in gz zgnu split dwp strip gzstrip noid; do
		n=shapes-$cc-$v; f=$D/$n; dw=5; base=(); from="DWARF in the file"
		case $v in
		split) f=$D/$n/$n; base=(--base "$FIXTURES/shapes-$cc-dw5")
		       [ $cc = clang ] && dw=4 && base=(--base "$FIXTURES/shapes-$cc-dw4") ;;
		dwp)   f=$D/$n/$n; dw=4; base=(--base "$FIXTURES/shapes-$cc-dw4")
		       from="DWARF in the file; split units from $f.dwp" ;;
		strip|gzstrip|noid) from="DWARF from $f.debug \(.gnu_debuglink\)" ;;
		esac
		sums=$(sha256sum "$f" "$f".debug 2>/dev/null)
		for b in "${bins[@]}"; do
			"$b" stats "$f" --json -v 2>"$tmp/$n.err" | norm >"$tmp/$n.stats" || { bad "$n: stats ($b)"; continue; }
			cmp -s "$tmp/$n.stats" "$tmp/ref-$cc-dw$dw.stats" || bad "$n: stats --json differs from the plain build ($b)"
			grep -qE "^btfinline: $f: $from$" "$tmp/$n.err" && [ "$(wc -l <"$tmp/$n.err")" = 1 ] ||
				bad "$n: -v says '$(cat "$tmp/$n.err")', want '$from' ($b)"
			[ -z "$(ls -A "$TMPDIR")" ] || bad "$n: left in TMPDIR: $(ls -A "$TMPDIR")"
		done
		# encode next to a copy of the debug file: the copy finds it by
		# its .gnu_debuglink, as the original does.
		[ -e "$f.debug" ] && cp "$f.debug" "$tmp/$n.debug"
		"$BTFINLINE" encode "$f" "${base[@]}" -o "$tmp/$n" || { bad "$n: encode"; continue; }
		[ "$(sha256sum "$f" "$f".debug 2>/dev/null)" = "$sums" ] || bad "$n: encode modified its input"
		# shellcheck disable=SC2086
		"$BTFINLINE" dump "$tmp/$n" -j $F >"$tmp/$n.j" && cmp -s "$tmp/$n.j" "$tmp/ref-$cc-dw$dw.j" ||
			bad "$n: dump -j differs from the plain build's"
		# shellcheck disable=SC2086
		"$BTFINLINE" dump "$tmp/$n" $F >"$tmp/$n.txt" && cmp -s "$tmp/$n.txt" "$tmp/ref-$cc-dw$dw.txt" ||
			{ bad "$n: dump differs from the plain build's:"; diff "$tmp/ref-$cc-dw$dw.txt" "$tmp/$n.txt" | head -5; }
		case $v in strip|gzstrip|noid)
			# The output is the stripped binary plus .BTF.inline.
			readelf -SW "$tmp/$n" | grep -qE ' \.(z)?debug_info ' && bad "$n: encoded copy has DWARF"
			cmp -s <(readelf -lW "$f" | grep -v '^Elf file type') <(readelf -lW "$tmp/$n" | grep -v '^Elf file type') ||
				bad "$n: encoded copy has other program headers than the stripped binary"
			cmp -s <("$f" 3) <("$tmp/$n" 3) || bad "$n: encoded copy runs differently"
			"$BTFINLINE" dump "$tmp/$n" scale -v 2>&1 >/dev/null | grep -q "symbols from $tmp/$n.debug" ||
				bad "$n: dump -v does not name the debug file's symbols"
		esac
		echo "ok   $n: stats, dump equal the plain build's$([ $dw = 4 ] && echo ' (DWARF 4)')"
	done
done

# trace: file:line through the debug link and from the .dwo, as for the
# plain build; the stripped binary's labels and its out-of-line entry from
# the debug file's .symtab.
if [ "$(id -u)" = 0 ] && [ -d /sys/bus/event_source/devices/uprobe ]; then
	for n in ref-gcc-dw5 shapes-gcc-strip shapes-gcc-split; do
		timeout 30 "$BTFINLINE" trace -x "$tmp/$n" -c -v scale -- "$tmp/$n" 3 >"$tmp/$n.trace" 2>"$tmp/$n.terr" ||
			bad "$n: trace failed: $(cat "$tmp/$n.terr")"
	done
	grep -qE '^ +3 scale main\+0x98 \(shapes.c:105\)$' "$tmp/ref-gcc-dw5.trace" || bad "plain trace: no scale count"
	cmp -s "$tmp/ref-gcc-dw5.trace" "$tmp/shapes-gcc-split.trace" || {
		bad "trace of the split build differs:"; diff "$tmp/ref-gcc-dw5.trace" "$tmp/shapes-gcc-split.trace"; }
	cmp -s "$tmp/ref-gcc-dw5.trace" "$tmp/shapes-gcc-strip.trace" &&
		grep -q "file:line from the DWARF of $tmp/shapes-gcc-strip.debug" "$tmp/shapes-gcc-strip.terr" &&
		echo "ok   trace: file:line, labels and the entry from the detached DWARF's file" || {
		bad "trace of the stripped binary:"; cat "$tmp/shapes-gcc-strip.trace" "$tmp/shapes-gcc-strip.terr"; }
else
	echo "note: not root or no uprobes: trace not checked"
fi

# Build-id lookup: no debuglink, the debug file only under ROOT/.build-id/.
f=$D/shapes-gcc-strip
objcopy --remove-section=.gnu_debuglink "$f" "$tmp/byid"
id=$(readelf -n "$f" | sed -n 's/.*Build ID: //p')
mkdir -p "$tmp/root/.build-id/${id:0:2}"
cp "$f.debug" "$tmp/root/.build-id/${id:0:2}/${id:2}.debug"
"$BTFINLINE" stats "$tmp/byid" --json --debug-dir "$tmp/root" -v 2>"$tmp/byid.err" | norm | cmp -s - "$tmp/ref-gcc-dw5.stats" ||
	bad "build-id: stats differs"
grep -q "DWARF from $tmp/root/.build-id/${id:0:2}/${id:2}.debug (build-id)" "$tmp/byid.err" || bad "build-id: -v says $(cat "$tmp/byid.err")"
one_line 1 "^btfinline: $tmp/byid: no DWARF debug info: none in the file, no debug file for build-id $id" \
	"$BTFINLINE" stats "$tmp/byid" --debug-dir "$tmp/nothing"
# --debug-file: right and wrong.
"$BTFINLINE" stats "$tmp/byid" --json --debug-file="$f.debug" | norm | cmp -s - "$tmp/ref-gcc-dw5.stats" || bad "--debug-file: stats differs"
other=$D/shapes-clang-strip.debug
oid=$(readelf -n "$other" | sed -n 's/.*Build ID: //p')
for b in "${bins[@]}"; do
	one_line 1 "^btfinline: $tmp/byid: debug file $other does not match: build-id $oid, want $id$" \
		"$b" stats "$tmp/byid" --debug-file "$other"
done
one_line 1 "^btfinline: $tmp/byid: debug file $other does not match" "$BTFINLINE" encode "$tmp/byid" --debug-file "$other" -o "$tmp/x"
[ -e "$tmp/x" ] && bad "mismatch: output written"
# A debuglink whose file has another build-id: refused, named.
cp "$D/shapes-gcc-strip" "$tmp/wrong"; cp "$other" "$tmp/shapes-gcc-strip.debug"
one_line 1 "^btfinline: $tmp/wrong: debug file $tmp/shapes-gcc-strip.debug does not match: build-id $oid, want $id$" \
	"$BTFINLINE" stats "$tmp/wrong" --debug-dir "$tmp/nothing"
# No build-id: CRC checked; one byte more in the debug file breaks it.
cp "$D/shapes-gcc-noid" "$tmp/noid"; cp "$D/shapes-gcc-noid.debug" "$tmp/shapes-gcc-noid.debug"
"$BTFINLINE" stats "$tmp/noid" --json | norm | cmp -s - "$tmp/ref-gcc-dw5.stats" || bad "noid copy: stats differs"
printf x >>"$tmp/shapes-gcc-noid.debug"
one_line 1 "^btfinline: $tmp/noid: debug file $tmp/shapes-gcc-noid.debug does not match its .gnu_debuglink CRC 0x[0-9a-f]{8}$" \
	"$BTFINLINE" stats "$tmp/noid" --debug-dir "$tmp/nothing"

# What libelf/libdw 0.188 cannot read: one line, exit 1, both builds.
for b in "${bins[@]}"; do
	for cc in gcc clang; do
		one_line 1 "^btfinline: $D/shapes-$cc-zstd: section \.debug_[a-z_]+ is compressed with zstd, which this libelf \(elfutils [0-9.]+\) cannot decompress$" \
			"$b" stats "$D/shapes-$cc-zstd"
		one_line 1 "^btfinline: $D/shapes-$cc-zstd: section .* zstd" "$b" encode "$D/shapes-$cc-zstd" -o "$tmp/zstd.out"
	done
done
# A .dwp whose index is cut, corrupt, or lacks the unit: one line naming
# it, exit 1, both builds; nothing left in TMPDIR. ix: the index's offset.
for cc in gcc clang; do
	src=$D/shapes-$cc-dwp/shapes-$cc-dwp
	read -r ix isz < <(readelf -SW "$src.dwp" |
		sed -n 's/.* \.debug_cu_index  *PROGBITS  *[0-9a-f]*  *\([0-9a-f]*\)  *\([0-9a-f]*\) .*/\1 \2/p')
	ix=$((16#$ix)); isz=$((16#$isz))
	u32() { od -An -tu4 -j $(($1)) -N4 "$src.dwp" | tr -d ' '; }
	mkdir -p "$tmp/$cc-dwp"
	# patch NAME OFFSET VALUE (u32, little-endian) into a copy of the .dwp
	patch() {
		cp "$src" "$tmp/$cc-dwp/$1" && cp "$src.dwp" "$tmp/$cc-dwp/$1.dwp" &&
			python3 -c 'import struct,sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])); f.write(struct.pack("<I",int(sys.argv[3])))' \
				"$tmp/$cc-dwp/$1.dwp" "$2" "$3"
	}
	patch slots $((ix + 12)) 65536		# more slots than the section holds
	patch version $ix 3
	patch row $((ix + 16 + 8 * $(u32 ix+12))) 7	# slot 0 names row 7 of 1
	# the first unit's size in the first column: past its section
	patch size $((ix + isz - 4 * $(u32 ix+4) * $(u32 ix+8))) 1000000
	cp "$src" "$tmp/$cc-dwp/cut"; head -c $((ix + 20)) "$src.dwp" >"$tmp/$cc-dwp/cut.dwp"
	for b in "${bins[@]}"; do
		for k in slots version row size; do
			one_line 1 "^btfinline: $tmp/$cc-dwp/$k\.dwp: corrupt \.debug_cu_index: " "$b" stats "$tmp/$cc-dwp/$k"
		done
		one_line 1 "^btfinline: $tmp/$cc-dwp/cut\.dwp: " "$b" stats "$tmp/$cc-dwp/cut"
		[ -z "$(ls -A "$TMPDIR")" ] || bad "corrupt .dwp: left in TMPDIR: $(ls -A "$TMPDIR")"
	done
done
# The other compiler's package: no unit with this dwo_id.
cp "$D/shapes-gcc-dwp/shapes-gcc-dwp" "$tmp/other"; cp "$D/shapes-clang-dwp/shapes-clang-dwp.dwp" "$tmp/other.dwp"
# A stripped binary, its skeletons in the debug file (.gnu_debuglink) and
# the package next to the binary (BIN.dwp, as gdb looks for it).
mkdir -p "$tmp/sd" && cp "$D/shapes-gcc-dwp/shapes-gcc-dwp" "$tmp/sd/bin" && cp "$D/shapes-gcc-dwp/shapes-gcc-dwp.dwp" "$tmp/sd/bin.dwp" &&
	objcopy --only-keep-debug "$tmp/sd/bin" "$tmp/sd/bin.debug" && strip --strip-all "$tmp/sd/bin" &&
	objcopy --add-gnu-debuglink="$tmp/sd/bin.debug" "$tmp/sd/bin" || bad "stripped .dwp build"
"$BTFINLINE" stats "$tmp/sd/bin" --json -v 2>"$tmp/sd.err" | norm | cmp -s - "$tmp/ref-gcc-dw4.stats" &&
	grep -qx "btfinline: $tmp/sd/bin: DWARF from $tmp/sd/bin.debug (.gnu_debuglink); split units from $tmp/sd/bin.dwp" "$tmp/sd.err" &&
	echo "ok   stripped, debug file by .gnu_debuglink, BIN.dwp: stats equal the plain build's" ||
	bad "stripped .dwp build: $(cat "$tmp/sd.err")"
one_line 1 "^btfinline: $tmp/other: split DWARF unit shapes-gcc-dwp-shapes\.dwo \(dwo_id 0x[0-9a-f]{16}\) is neither a \.dwo file \(looked in \S+ and next to $tmp/other\) nor in $tmp/other\.dwp$" \
	"$BTFINLINE" stats "$tmp/other"
# A missing .dwo, named.
(cd "$tmp" && gcc -O2 -g -gsplit-dwarf -o split "$TOP/tests/fixtures/shapes.c") && rm "$tmp"/split*.dwo
one_line 1 "^btfinline: $tmp/split: split DWARF unit split-shapes\.dwo not found \(looked in $tmp and next to $tmp/split\)$" \
	"$BTFINLINE" stats "$tmp/split"
exit $fail
