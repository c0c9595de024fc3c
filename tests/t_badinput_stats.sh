#!/bin/bash
# `btfinline stats` on bad input: one clear line "btfinline: FILE: problem"
# on stderr, exit 1 (2 for usage), no crash, the input left unchanged.
# Runs the normal build and, if present, the ASan+UBSan build.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bins=("$BTFINLINE")
[ -x "$TOP/build-asan/btfinline" ] && bins+=("$TOP/build-asan/btfinline")

printf 'hello, not an ELF\n' >"$tmp/text"
: >"$tmp/empty"
mkdir "$tmp/dir"
cp "$FIXTURES/shapes-gcc-dw5" "$tmp/nodwarf" && strip --strip-debug "$tmp/nodwarf"
head -c 20000 "$FIXTURES/shapes-gcc-dw5" >"$tmp/trunc-small"
# Corrupt DWARF: .debug_info garbled, and a unit length past the section.
python3 - "$FIXTURES/shapes-gcc-dw5" "$tmp" <<'PY'
import subprocess, sys
src, tmp = sys.argv[1:]
for l in subprocess.run(["readelf", "-SW", src], capture_output=True, text=True).stdout.splitlines():
    f = l.replace("[ ", "[").split()
    if len(f) > 5 and f[1] == ".debug_info":
        off, size = int(f[4], 16), int(f[5], 16)
d = bytearray(open(src, "rb").read())
g = bytearray(d)
for i in range(off + 12, off + size, 7):
    g[i] = 0xff
open(f"{tmp}/garbled", "wb").write(g)
d[off:off + 4] = b"\xf0\xff\xff\xff"
open(f"{tmp}/badlen", "wb").write(d)
PY
# An undefined DWARF opcode (0x04) patched into a location: in an exprloc
# (clang: with_flags' v = bregN +5; stack_value), in a DWARF 5 location list
# and in a DWARF 4 one (gcc: scale's k = lit3; stack_value).
python3 - "$FIXTURES" "$tmp" <<'PY' || { echo "FAIL: cannot build the bad-opcode inputs"; exit 1; }
import subprocess, sys
fx, tmp = sys.argv[1:]
def patch(src, name, pats, at, dst):
    for l in subprocess.run(["readelf", "-SW", src], capture_output=True, text=True).stdout.splitlines():
        f = l.replace("[ ", "[").split()
        if len(f) > 5 and f[1] == name:
            off, size = int(f[4], 16), int(f[5], 16)
    d = bytearray(open(src, "rb").read())
    sec = bytes(d[off:off + size])
    n = 0
    for pat in (pats if isinstance(pats, list) else [pats]):
        i = sec.find(pat)
        while i >= 0:
            d[off + i + at] = 0x04
            n += 1
            i = sec.find(pat, i + 1)
    if not n:
        sys.exit(f"{src}: pattern not found in {name}")
    open(f"{tmp}/{dst}", "wb").write(d)
# (exprloc of 3 bytes: bregN +5; stack_value, whichever register clang picked)
patch(f"{fx}/shapes-clang-dw5", ".debug_info", [bytes([3, 0x70 + r, 5, 0x9f]) for r in range(16)], 1, "badop-exprloc")
patch(f"{fx}/shapes-gcc-dw5", ".debug_loclists", b"\x02\x33\x9f", 1, "badop-loclists")
patch(f"{fx}/shapes-gcc-dw4", ".debug_loc", b"\x02\x00\x33\x9f", 2, "badop-loc")
PY
# A vmlinux cut at 50 MB (only if the kernel is already cached: no fetch here).
CACHE=${BTFI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/btfinline}
[ -e "$CACHE/vmlinux" ] && head -c 50M "$CACHE/vmlinux" >"$tmp/vmlinux-50M"

# case: file, want exit code, regex the single stderr line must match
cases=(
	"$tmp/missing|1|No such file or directory"
	"$tmp/dir|1|Is a directory"
	"$tmp/text|1|not an ELF file"
	"$tmp/empty|1|not an ELF file"
	"$tmp/nodwarf|1|no DWARF debug info"
	"$tmp/trunc-small|1|truncated ELF file"
	"$tmp/garbled|1|corrupt DWARF"
	"$tmp/badlen|1|corrupt DWARF"
	"$tmp/badop-exprloc|1|DIE 0x[0-9a-f]+: DWARF expression has unknown opcode 0x04"
	"$tmp/badop-loclists|1|DIE 0x[0-9a-f]+: DWARF expression has unknown opcode 0x04"
	"$tmp/badop-loc|1|DIE 0x[0-9a-f]+: DWARF expression has unknown opcode 0x04"
)
[ -e "$tmp/vmlinux-50M" ] && cases+=("$tmp/vmlinux-50M|1|truncated ELF file")

# Regression inputs from mutation fuzzing (tests/fuzz/mutate_elf.py: bytes
# flipped in a gcc fixture's DWARF), for stats and encode: a
# DW_AT_GNU_locviews offset read unaligned and an offset sum that
# overflowed int64 (UB in the scan); a function whose name was lost (encode
# exited 1 without a word). Exit 0, or 1 with exactly one line; never a
# sanitizer report or a crash.
for bin in "${bins[@]}"; do
	for f in "$TOP"/tests/data/corrupt/*.elf; do
		for cmd in stats "encode --raw $tmp/corrupt.blob"; do
			# shellcheck disable=SC2086
			"$bin" $cmd "$f" >/dev/null 2>"$tmp/err"; rc=$?
			if [ $rc -gt 1 ] || { [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" != 1 ]; } ||
			   grep -q "runtime error\|Sanitizer" "$tmp/err"; then
				echo "FAIL $(basename "$bin") $cmd $f: rc $rc:"; head -5 "$tmp/err"; fail=1
			else
				echo "ok   $(basename "$bin") ${cmd%% *} $(basename "$f"): rc $rc"
			fi
		done
	done
done

for bin in "${bins[@]}"; do
	for c in "${cases[@]}"; do
		IFS='|' read -r f want re <<<"$c"
		sum=$( [ -f "$f" ] && sha256sum <"$f")
		"$bin" stats "$f" >"$tmp/out" 2>"$tmp/err"; rc=$?
		lines=$(wc -l <"$tmp/err")
		if [ $rc != "$want" ] || [ "$lines" != 1 ] || ! grep -Eq "^btfinline: $f: .*($re)" "$tmp/err" ||
		   [ -s "$tmp/out" ]; then
			echo "FAIL $(basename "$bin") stats $f: rc $rc (want $want), stderr:"; cat "$tmp/err"; fail=1
		else
			echo "ok   $(basename "$bin") $(basename "$f"): rc $rc: $(cat "$tmp/err")"
		fi
		[ -f "$f" ] && [ "$(sha256sum <"$f")" != "$sum" ] && { echo "FAIL: $f modified"; fail=1; }
	done
	# Usage errors: exit 2.
	for args in "" "--json" "--bogus $FIXTURES/shapes-gcc-dw5" "a b" "--probe=nope $FIXTURES/shapes-gcc-dw5"; do
		# shellcheck disable=SC2086
		"$bin" stats $args >"$tmp/out" 2>"$tmp/err"; rc=$?
		if [ $rc != 2 ] || ! grep -q "^usage: btfinline stats" "$tmp/err"; then
			echo "FAIL $(basename "$bin") stats $args: rc $rc (want 2)"; cat "$tmp/err"; fail=1
		else
			echo "ok   usage error '$args': rc 2"
		fi
	done
done
exit $fail
