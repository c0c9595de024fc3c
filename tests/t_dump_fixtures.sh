#!/bin/bash
# `btfinline dump` on encoded fixtures, checked against the DWARF side and
# the program's own output:
#  - every site `stats --sites` reports with an address appears in `dump`
#    at the same address with the same caller+offset and the same argument
#    locations, text for text (stats reads the scan, dump reads the blob;
#    both print with btfi_loc_snprintf);
#  - the constant arguments of shapes.c read as written: scale k=0x3,
#    with_flags flags=0x10;
#  - the summary's site count matches, -j is valid JSON with the same sites,
#    -p the same JSON indented;
#  - the raw blob with --base gives the same text as the ELF copy;
#  - with --why, each `?` carries the reason stats gives for it (from the
#    DWARF of the file itself, or of --why=ELF for the raw blob); without,
#    a `?` comes with the line that says the format keeps no reason;
#  - `dump --addr ADDR` lists, for every site address, the functions stats
#    has there;
#  - every broken blob of tests/fuzz/corpus fails with one line, exit 1.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

for src in "$FIXTURES"/shapes-{gcc,clang}-dw{5,4}; do
	n=$(basename "$src"); bin=$tmp/$n
	"$BTFINLINE" encode "$src" -o "$bin" --raw "$bin.blob" || { bad "$n: encode"; continue; }
	"$BTFINLINE" stats "$src" --sites >"$tmp/$n.sites" || { bad "$n: stats"; continue; }
	funcs=$(awk '$1 == "site" && $3 != "0x0" { print $2 }' "$tmp/$n.sites" | sort -u)
	# shellcheck disable=SC2086
	"$BTFINLINE" dump "$bin" $funcs >"$tmp/$n.dump" || bad "$n: dump"
	"$BTFINLINE" dump "$bin.blob" --base "$src" $funcs >"$tmp/$n.rawdump" || bad "$n: dump raw"
	# shellcheck disable=SC2086
	"$BTFINLINE" dump "$bin" --why $funcs >"$tmp/$n.why" || bad "$n: dump --why"
	# shellcheck disable=SC2086
	"$BTFINLINE" dump "$bin.blob" --base "$src" --why="$src" $funcs >"$tmp/$n.rawwhy" || bad "$n: dump raw --why=ELF"
	sed -E 's/ 0x[0-9a-f]+ [A-Za-z_.0-9]+\+0x[0-9a-f]+:/:/' "$tmp/$n.why" | cmp -s - "$tmp/$n.rawwhy" ||
		bad "$n: raw blob --why=ELF differs from the ELF's --why"
	if grep -q '=?' "$tmp/$n.dump"; then
		grep -q '^  ?: no location at that site (.BTF.inline keeps no reason' "$tmp/$n.dump" || bad "$n: ? without its note"
		grep -q '=?\($\| \)' "$tmp/$n.why" && bad "$n: --why left a ? without reason"
	fi
	# Raw blob: no section address, no symbols; sections and offsets agree.
	sed -E 's/ 0x[0-9a-f]+ [A-Za-z_.0-9]+\+0x[0-9a-f]+:/:/' "$tmp/$n.dump" | cmp -s - "$tmp/$n.rawdump" ||
		bad "$n: raw blob dump differs from the ELF dump"
	for out in "$tmp/$n.dump" "$tmp/$n.why"; do
	python3 - "$tmp/$n.sites" "$out" <<'PY' || fail=1
import re, sys
sites, dump = open(sys.argv[1]).read(), open(sys.argv[2]).read()
why = sys.argv[2].endswith('.why')
def args_of(text):	# "a=%rdi b=*(u64 *)(%rsp+0x8)": [(name, loc)]
    return [a.partition('=')[::2] for a in re.split(r' (?=[A-Za-z_][A-Za-z_0-9.]*=)', text.strip()) if a]
dumped = {}
for line in dump.splitlines():
    m = re.match(r'\s+\S+\+0x[0-9a-f]+ (0x[0-9a-f]+) (\S+):(.*)$', line)
    if m: dumped.setdefault(m.group(1), []).append((m.group(2), args_of(m.group(3))))
bad = n = 0
for line in sites.splitlines():
    m = re.match(r'site (\S+) (0x[0-9a-f]+) in (\S+) at \S+ depth \d+ shndx (\d+):(.*)$', line)
    if not m or m.group(2) == '0x0': continue
    n += 1
    func, addr, caller, args = m.group(1), m.group(2), m.group(3), args_of(m.group(5))
    # One syntax: stats gives a `?` its reason, dump only with --why.
    args = [(an, al if why else re.sub(r'^\?\(\w+\)$', '?', al)) for an, al in args]
    cands = dumped.get(addr, [])
    if not any(dcaller == caller and dargs == args for dcaller, dargs in cands):
        bad += 1; print('FAIL %s: %s at %s: stats %s, dump %s' % (sys.argv[1], func, addr, args, cands))
print('%s %s: %d sites, dump agrees with stats on %d' % ('FAIL' if bad else 'ok  ', sys.argv[2].split('/')[-1], n, n - bad))
sys.exit(1 if bad or n < 5 else 0)
PY
	done
	# Known constants from shapes.c, where the compiler left them constant.
	grep -q 'site scale .* k=0x3$' "$tmp/$n.sites" && ! grep -qE '^  .* v=\S+ k=0x3$' "$tmp/$n.dump" && bad "$n: scale k"
	grep -q 'site with_flags .* flags=0x10$' "$tmp/$n.sites" && ! grep -qE ' flags=0x10$' "$tmp/$n.dump" && bad "$n: with_flags flags"
	# Summary and JSON.
	want=$(awk '$1 == "site" && $3 != "0x0"' "$tmp/$n.sites" | wc -l)
	got=$("$BTFINLINE" dump "$bin" -j | python3 -c 'import json,sys; print(json.load(sys.stdin)["sites"])')
	[ "$got" = "$want" ] || bad "$n: summary says $got sites, stats $want"
	"$BTFINLINE" dump "$bin" | grep -q "^$bin: .BTF.inline [0-9]* bytes, $want sites" || bad "$n: text summary"
	# shellcheck disable=SC2086
	jn=$("$BTFINLINE" dump "$bin" -j $funcs | python3 -c 'import json,sys; print(sum(len(f["sites"]) for f in json.load(sys.stdin)))')
	[ "$jn" = "$want" ] || bad "$n: JSON has $jn sites, want $want"
	# -p: the same JSON indented, as bpftool's -p (sites, and the summary).
	for args in "$funcs" ""; do
		# shellcheck disable=SC2086
		"$BTFINLINE" dump "$bin" -j $args >"$tmp/$n.j"; "$BTFINLINE" dump "$bin" -p $args >"$tmp/$n.p"
		python3 -c 'import json,sys; a,b=(open(f).read() for f in sys.argv[1:]); sys.exit(not (json.loads(a) == json.loads(b) and b.count("\n") > 10 and "\n    " in b))' \
			"$tmp/$n.j" "$tmp/$n.p" || bad "$n: dump -p ${args:+FUNC...} is not the -j output indented"
	done
	# --addr: every site address stats reports lists that site's function,
	# and only functions with a site there (a nested instance can share it).
	awk '$1 == "site" && $3 != "0x0" { print $3, $2 }' "$tmp/$n.sites" | sort -u >"$tmp/$n.byaddr"
	while read -r addr func; do
		out=$("$BTFINLINE" dump "$bin" --addr "$addr") || { bad "$n: dump --addr $addr failed"; continue; }
		heads=$(echo "$out" | sed -nE 's/^([A-Za-z_0-9.]+): (selectively|fully) inlined.*/\1/p' | sort -u)
		wantf=$(awk -v a="$addr" '$1 == a { print $2 }' "$tmp/$n.byaddr" | sort -u)
		[ "$heads" = "$wantf" ] || bad "$n: dump --addr $addr lists '$heads', stats has '$wantf'"
		echo "$out" | grep -q " $addr " || bad "$n: dump --addr $addr: no site line with that address"
	done <"$tmp/$n.byaddr"
	"$BTFINLINE" dump "$bin" --addr 0x1 2>/dev/null; [ $? = 1 ] || bad "$n: --addr 0x1 should fail"
	echo "ok   $n: dump checked ($(wc -l <"$tmp/$n.byaddr") (address, function) pairs by --addr)"
done

for f in "$TOP"/tests/fuzz/corpus/*; do
	case "$(basename "$f")" in good-*) continue ;; esac
	out=$("$BTFINLINE" dump "$f" --base "$FIXTURES/shapes-gcc-dw5" 2>&1); rc=$?
	[ $rc = 1 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "^btfinline: $f: " ||
		bad "broken blob $(basename "$f"): rc=$rc '$out'"
done
out=$("$BTFINLINE" dump "$FIXTURES/shapes-gcc-dw5" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "no .BTF.inline section" || bad "ELF without .BTF.inline: rc=$rc '$out'"
"$BTFINLINE" dump 2>/dev/null; [ $? = 2 ] || bad "no args: not a usage error"
exit $fail
