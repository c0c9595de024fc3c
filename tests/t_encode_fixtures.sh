#!/bin/bash
# `btfinline encode` on every fixture:
#  - scan -> encode -> reader round trip is exact (build/tests/test_roundtrip);
#  - -o OUT: OUT has exactly one .BTF.inline, the same program headers, and
#    runs with the same output as the input; the input is unchanged;
#  - --raw BLOB equals the section's bytes; encoding OUT again replaces the
#    section instead of adding one; --in-place goes through a temp file;
#  - a binary without .BTF, a non-ELF, and OUT == input fail cleanly.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$TOP/$BUILD/tests/test_roundtrip" || bad "round trip"
for bin in "$FIXTURES"/shapes-{gcc,clang}-dw{5,4}; do
	n=$(basename "$bin")
	sum0=$(sha256sum <"$bin")
	"$BTFINLINE" encode "$bin" -o "$tmp/$n" --raw "$tmp/$n.blob" || { bad "$n: encode"; continue; }
	[ "$(sha256sum <"$bin")" = "$sum0" ] || bad "$n: input modified"
	[ "$(readelf -SW "$tmp/$n" | grep -c ' \.BTF\.inline ')" = 1 ] || bad "$n: not exactly one .BTF.inline"
	cmp -s <(readelf -lW "$bin" | grep -v '^Elf file type') <(readelf -lW "$tmp/$n" | grep -v '^Elf file type') ||
		bad "$n: program headers changed"
	cmp -s <("$bin" 3) <("$tmp/$n" 3) || bad "$n: output program behaves differently"
	objcopy --dump-section .BTF.inline="$tmp/$n.sec" "$tmp/$n" "$tmp/junk" && cmp -s "$tmp/$n.sec" "$tmp/$n.blob" ||
		bad "$n: --raw differs from the section"
	# Re-encode the output: the section is replaced, the file size unchanged.
	"$BTFINLINE" encode "$tmp/$n" -o "$tmp/$n.2" || bad "$n: re-encode"
	[ "$(readelf -SW "$tmp/$n.2" | grep -c ' \.BTF\.inline ')" = 1 ] || bad "$n: re-encode added a section"
	[ "$(stat -c %s "$tmp/$n.2")" = "$(stat -c %s "$tmp/$n")" ] || bad "$n: re-encode changed the size"
	# In place: same result as -o.
	cp "$bin" "$tmp/$n.ip"
	"$BTFINLINE" encode "$tmp/$n.ip" --in-place || bad "$n: --in-place"
	cmp -s "$tmp/$n.ip" "$tmp/$n" || bad "$n: --in-place differs from -o"
	ls "$tmp"/*.btfinline.* >/dev/null 2>&1 && bad "$n: temp file left behind"
	echo "ok   $n: $(stat -c %s "$tmp/$n.blob") byte blob"
done

# No .BTF: a clear error naming the file and the fix.
printf 'static inline int f(int x){return x+1;} int main(int c,char**v){return f(c);}\n' >"$tmp/nb.c"
gcc -O2 -g -o "$tmp/nobtf" "$tmp/nb.c"
out=$("$BTFINLINE" encode "$tmp/nobtf" -o "$tmp/nobtf.out" 2>&1); rc=$?
[ $rc = 1 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "^btfinline: $tmp/nobtf: .*pahole -J" ||
	bad "no .BTF: rc=$rc '$out'"
[ -e "$tmp/nobtf.out" ] && bad "no .BTF: output written"
# Not an ELF.
echo hello >"$tmp/text"
out=$("$BTFINLINE" encode "$tmp/text" -o "$tmp/text.out" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "^btfinline: $tmp/text: " || bad "non-ELF: rc=$rc '$out'"
# OUT == input without --in-place: usage error, input untouched.
cp "$FIXTURES/shapes-gcc-dw5" "$tmp/same"; s0=$(sha256sum <"$tmp/same")
out=$("$BTFINLINE" encode "$tmp/same" -o "$tmp/same" 2>&1); rc=$?
[ $rc = 2 ] && [ "$(sha256sum <"$tmp/same")" = "$s0" ] || bad "OUT == input: rc=$rc '$out'"
# Usage.
"$BTFINLINE" encode 2>/dev/null; [ $? = 2 ] || bad "no args: not a usage error"
exit $fail
