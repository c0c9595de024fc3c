#!/bin/bash
# `dump`, `encode` and `trace` on bad input: one line "btfinline: FILE:
# problem" on stderr, exit 1 (2 for usage), nothing on stdout, no crash,
# the inputs unchanged. Normal build and, if present, the ASan+UBSan build.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bins=("$BTFINLINE")
[ -x "$TOP/build-asan/btfinline" ] && bins+=("$TOP/build-asan/btfinline")
cd "$tmp" || exit 1

printf 'hello, not an ELF\n' >text
: >empty
mkdir dir
mkfifo fifo
printf '\x9f\xeb\x01\x00' >btf4			# BTF magic, nothing else
cp "$FIXTURES/shapes-gcc-dw5" good
cp "$FIXTURES/shapes-clang-dw5" other
"$BTFINLINE" encode good -o enc --raw blob >/dev/null || { echo "FAIL: encode"; exit 1; }
head -c 20000 enc >trunc			# section headers cut off
head -c 100 blob >blob-trunc
cp good nobtf && objcopy --remove-section .BTF nobtf
cp enc nodwarf && objcopy --strip-debug --remove-section .BTF.inline nodwarf
# .BTF.inline's sh_size past the end of the file
python3 - <<'PY'
import struct
d = bytearray(open("enc", "rb").read())
shoff = struct.unpack_from("<Q", d, 0x28)[0]
entsz, num, strndx = struct.unpack_from("<HHH", d, 0x3a)
stroff = struct.unpack_from("<Q", d, shoff + strndx * entsz + 0x18)[0]
for i in range(num):
    o = shoff + i * entsz
    n = struct.unpack_from("<I", d, o)[0]
    if d[stroff + n:d.index(0, stroff + n)] == b".BTF.inline":
        struct.pack_into("<Q", d, o + 0x20, 1 << 30)
open("bigsec", "wb").write(d)
PY

# .BTF with a FUNC_PROTO parameter name offset past the strings (libbpf
# 1.1 parses it without complaint)
python3 - <<'PY'
import struct, subprocess
d = bytearray(open("good", "rb").read())
for l in subprocess.run(["readelf", "-SW", "good"], capture_output=True, text=True).stdout.splitlines():
    f = l.replace("[ ", "[").split()
    if len(f) > 5 and f[1] == ".BTF":
        off = int(f[4], 16)
hl, toff, tlen = struct.unpack_from("<III", d, off + 4)
p, end = off + hl + toff, off + hl + toff + tlen
extra = {1: 4, 3: 12, 14: 4, 17: 4}
elem = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}
while p < end:
    info = struct.unpack_from("<I", d, p + 4)[0]
    k, vlen = (info >> 24) & 0x1f, info & 0xffff
    if k == 13 and vlen:
        struct.pack_into("<I", d, p + 12, 0x7ffffff0)
        break
    p += 12 + extra.get(k, 0) + vlen * elem.get(k, 0)
open("badbtf", "wb").write(d)
PY

# command | exit code | regex of the one stderr line (after "btfinline: ")
cases=(
	"dump missing|1|missing: No such file or directory"
	"dump dir|1|dir: Is a directory"
	"dump text|1|text: not an ELF file or a BTF blob"
	"dump empty|1|empty: not an ELF file or a BTF blob"
	"dump btf4|1|btf4 \(base [^)]*\): .*truncated header"
	"dump trunc|1|trunc: truncated ELF file \(section headers past end of file\)"
	"dump bigsec|1|bigsec: truncated ELF file \(section .BTF.inline ends past end of file\)"
	"dump good|1|good: no .BTF.inline section \(run .btfinline encode. first\)"
	"dump nodwarf|1|nodwarf: no .BTF.inline section"
	"dump blob --base other|1|blob: type \[[0-9]+\] .*\(base mismatch\?\)"
	"dump blob --base text|1|blob: base BTF: .*"
	"dump blob-trunc --base good|1|blob-trunc: type section .* past the end"
	"dump enc no_such_function|1|enc: no inline sites of 'no_such_function'"
	"dump enc --addr 0x1|1|enc: (0x1: not in a section with inline sites|no inline site at 0x1)"
	"dump blob --base good --addr 0x1000|1|blob: 0x1000: not in a section with inline sites \(a raw blob has no section addresses: use the ELF, or --debug-file ELF\)"
	"dump blob --base good --why scale|1|blob: not an ELF file"
	"dump enc --why=nodwarf scale|1|nodwarf: no DWARF debug info"
	"dump enc --why=missing scale|1|missing: No such file or directory"
	"encode missing -o out|1|missing: No such file or directory"
	"encode dir -o out|1|dir: Is a directory"
	"encode text -o out|1|text: not an ELF file"
	"encode trunc -o out|1|trunc: truncated ELF file"
	"encode nobtf -o out|1|nobtf: no usable .BTF section .*run .pahole -J nobtf. first"
	"encode nodwarf -o out|1|nodwarf: no DWARF debug info"
	"encode good --base text -o out|1|text: base is not an ELF file or a BTF blob"
	"encode good --base other -o out|1|good: base other is not this file's own .BTF"
	"encode good --base trunc -o out|1|trunc: truncated ELF file"
	"encode badbtf -o out|1|badbtf: base BTF type \[[0-9]+\]: name offset out of range"
	"encode good --raw dir|1|dir: Is a directory"
	"encode good -o fifo|1|fifo: not a regular file, refusing to replace it"
	"trace -x missing scale|1|missing: No such file or directory"
	"trace -x text scale|1|text: not an ELF file or a BTF blob"
	"trace -x trunc scale|1|trunc: truncated ELF file"
	"trace -x nodwarf scale|1|nodwarf: no .BTF.inline section, and none can be built: no DWARF debug info: none in the file, no debug file for build-id [0-9a-f]+ "
	"trace -x enc no_such_function|1|enc: no_such_function: no inline site or function symbol"
	"trace -x enc --inline-btf text scale|1|text: not an ELF file or a BTF blob"
	"trace -x enc --inline-btf blob-trunc scale|1|blob-trunc: type section .* past the end"
	"trace -x enc -p 999999999 scale|1|pid 999999999: No such process"
)
for bin in "${bins[@]}"; do
	sums=$(sha256sum text empty btf4 good other enc blob trunc blob-trunc nobtf nodwarf bigsec badbtf)
	for c in "${cases[@]}"; do
		IFS='|' read -r cmd want re <<<"$c"
		rm -f out
		# shellcheck disable=SC2086
		timeout 60 "$bin" $cmd >stdout 2>stderr; rc=$?
		if [ $rc != "$want" ] || [ "$(wc -l <stderr)" != 1 ] || ! grep -Eq "^btfinline: $re" stderr ||
		   [ -s stdout ] || [ -e out ]; then
			echo "FAIL ${bin#$TOP/} $cmd: rc $rc (want $want), stdout $(wc -c <stdout) bytes, stderr:"
			cat stderr; fail=1
		else
			echo "ok   ${bin#$TOP/} $cmd: $(cat stderr)"
		fi
	done
	[ "$(sha256sum text empty btf4 good other enc blob trunc blob-trunc nobtf nodwarf bigsec badbtf)" = "$sums" ] ||
		{ echo "FAIL: an input file changed"; fail=1; }
	# Outputs that are not regular files are written, never replaced:
	# --raw to a FIFO (read by cat: the blob's bytes), the FIFO stays one.
	cat fifo >fifo.got & rd=$!
	"$bin" encode good --raw fifo 2>stderr; rc=$?
	wait $rd
	"$bin" encode good --raw ref.blob 2>/dev/null
	if [ $rc = 0 ] && [ -p fifo ] && cmp -s fifo.got ref.blob && ! ls fifo.btfinline.* >/dev/null 2>&1; then
		echo "ok   encode --raw to a FIFO: $(stat -c %s ref.blob) bytes through it, still a FIFO"
	else
		echo "FAIL encode --raw fifo: rc $rc, fifo $(stat -c %F fifo)"; cat stderr; fail=1
	fi
	# Usage errors: exit 2 and a usage line.
	for args in "dump" "dump enc -x" "dump enc --format=nope" "dump enc --addr zz" "encode good" "encode good -o a --in-place" \
		    "encode good -o good" "trace" "trace -x enc" "trace -k -x enc f" "nosuchcommand"; do
		# shellcheck disable=SC2086
		"$bin" $args >stdout 2>stderr; rc=$?
		if [ $rc != 2 ] || ! grep -q "usage\|btfinline: " stderr; then
			echo "FAIL $(basename "$bin") '$args': rc $rc (want 2)"; cat stderr; fail=1
		else
			echo "ok   usage error '$args': rc 2"
		fi
	done
done
exit $fail
