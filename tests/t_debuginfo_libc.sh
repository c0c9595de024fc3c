#!/bin/bash
# Debian's libc.so.6 (stripped) with libc6-dbg (its DWARF detached under
# /usr/lib/debug/.build-id/, sections zlib-compressed):
#  - `stats` on the debug file itself (it crashed in libelf's elf_compress:
#    compressed sections on a read-only mapping), both builds;
#  - `stats` on libc.so.6 finds the debug file by build-id (-v says so) and
#    counts exactly the inline instances `llvm-dwarfdump --statistics` counts
#    on the debug file;
#  - `encode libc.so.6 --debug-file COPY -o OUT`, COPY a copy of the debug
#    file given a .BTF by `pahole -J` (libc6-dbg ships none): OUT is
#    libc.so.6 plus .BTF (the base) and .BTF.inline; libc.so.6 and the debug
#    file are unchanged;
#  - `dump OUT` of a few libc functions: every site is where llvm-dwarfdump
#    puts that function's inlined instances (entry_pc, else low_pc), with
#    the argument locations `stats --sites` reads from the DWARF, and the
#    caller names from the debug file's .symtab; `--why` finds the DWARF.
set -u
lib=/lib/x86_64-linux-gnu/libc.so.6
command -v llvm-dwarfdump >/dev/null || { echo "skip: no llvm-dwarfdump"; exit 77; }
command -v pahole >/dev/null || { echo "skip: no pahole"; exit 77; }
id=$(readelf -n "$lib" | sed -n 's/.*Build ID: //p')
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
[ -e "$dbg" ] || { echo "skip: no $dbg (libc6-dbg not installed, scripts/deps.sh installs it)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "tmp: $tmp"
fail=0
bad() { echo "FAIL $*"; fail=1; }
count() { python3 -c 'import json,sys; print(json.load(sys.stdin)["inline_instances"])'; }

theirs=$(llvm-dwarfdump --statistics "$dbg" | python3 -c 'import json,sys; print(json.load(sys.stdin)["#inlined functions"])')
for b in "$BTFINLINE" "$TOP/build-asan/btfinline"; do
	[ -x "$b" ] || continue
	ours=$("$b" stats "$dbg" --json 2>"$tmp/err" | count) && [ ! -s "$tmp/err" ] ||
		{ bad "stats on the debug file ($b): $(head -3 "$tmp/err")"; continue; }
	[ "$ours" = "$theirs" ] || bad "$b stats $dbg: $ours instances, llvm-dwarfdump $theirs"
	echo "ok   stats $dbg ($(basename "$(dirname "$b")")): $ours = llvm-dwarfdump"
done
sums=$(sha256sum "$lib" "$dbg")
ours=$("$BTFINLINE" stats "$lib" --json -v 2>"$tmp/v" | count)
[ "$ours" = "$theirs" ] && [ "$theirs" -gt 1000 ] || bad "stats $lib: $ours instances, llvm-dwarfdump $theirs"
grep -qx "btfinline: $lib: DWARF from $dbg (build-id)" "$tmp/v" || bad "stats -v: $(cat "$tmp/v")"
echo "ok   stats $lib: $ours inline instances = llvm-dwarfdump --statistics on $dbg"

# encode: the base .BTF comes from a pahole'd copy of the debug file.
cp "$dbg" "$tmp/libc.debug"
pahole -J "$tmp/libc.debug" || { bad "pahole -J on the debug file"; exit 1; }
# entry-pc: the sites below are compared with llvm-dwarfdump's entry_pc
"$BTFINLINE" encode "$lib" --debug-file "$tmp/libc.debug" -o "$tmp/libc.so.6" -v --probe=entry-pc 2>"$tmp/enc" ||
	{ bad "encode: $(cat "$tmp/enc")"; exit 1; }
grep -q "base .BTF from $tmp/libc.debug, copied into the output" "$tmp/enc" || bad "encode -v: $(cat "$tmp/enc")"
[ "$(sha256sum "$lib" "$dbg")" = "$sums" ] || bad "libc.so.6 or its debug file modified"
readelf -SW "$tmp/libc.so.6" | grep -q ' \.BTF ' && readelf -SW "$tmp/libc.so.6" | grep -q ' \.BTF\.inline ' &&
	! readelf -SW "$tmp/libc.so.6" | grep -q ' \.debug_info ' || bad "encoded copy: want .BTF and .BTF.inline, no DWARF"
cmp -s <(readelf -lW "$lib") <(readelf -lW "$tmp/libc.so.6") || bad "encoded copy: program headers differ"
echo "ok   encode: $(sed -n 's/.*: \([0-9]* sites\).*/\1/p' "$tmp/enc") into a copy of $lib"

# dump: functions with sites of every kind (selective, full, nested, many).
"$BTFINLINE" stats "$lib" --sites --probe=entry-pc >"$tmp/sites"
funcs="read_int call_init __bswap_16 __bswap_32 link"
# shellcheck disable=SC2086
"$BTFINLINE" dump "$tmp/libc.so.6" -j $funcs -v >"$tmp/dump.j" 2>"$tmp/dump.err" || bad "dump: $(cat "$tmp/dump.err")"
grep -q "symbols from $dbg" "$tmp/dump.err" || bad "dump -v: $(cat "$tmp/dump.err")"
# shellcheck disable=SC2086
"$BTFINLINE" dump "$tmp/libc.so.6" $funcs >"$tmp/dump.txt"
llvm-dwarfdump --debug-info "$dbg" >"$tmp/dwarf.txt"
python3 - "$tmp/dwarf.txt" "$tmp/sites" "$tmp/dump.j" "$tmp/dump.txt" $funcs <<'PY' || fail=1
import json, re, sys
dwarf, sites, dumpj, dumpt, funcs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
# llvm-dwarfdump: each DW_TAG_inlined_subroutine of these functions with
# code (a non-empty range) at its entry_pc, else low_pc, else lowest range
# start; one without code (GCC: the body folded into the caller's) at its
# entry_pc, where perf probe and gdb stop too.
want, cur = {f: [] for f in funcs}, None
def close():
    if cur and cur['name'] in want and (cur['code'] or cur.get('entry')):
        a = cur.get('entry') or cur.get('low') or min(cur['ranges'])
        want[cur['name']].append(a)
for line in open(dwarf):
    if re.match(r'0x[0-9a-f]+:\s+DW_TAG_', line):
        close(); cur = {'name': None, 'ranges': [], 'code': False} if 'DW_TAG_inlined_subroutine' in line else None
        continue
    if cur is None: continue
    m = re.search(r'DW_AT_abstract_origin\s+\(0x[0-9a-f]+ "([^"]+)"\)', line)
    if m: cur['name'] = m.group(1)
    m = re.search(r'DW_AT_entry_pc\s+\((0x[0-9a-f]+)\)', line)
    if m: cur['entry'] = int(m.group(1), 16)
    m = re.search(r'DW_AT_low_pc\s+\((0x[0-9a-f]+)\)', line)
    if m: cur['low'] = int(m.group(1), 16)
    m = re.search(r'DW_AT_high_pc\s+\((0x[0-9a-f]+)\)', line)
    if m and 'low' in cur: cur['code'] |= int(m.group(1), 16) > cur['low']
    m = re.match(r'\s+\[(0x[0-9a-f]+), (0x[0-9a-f]+)\)', line)
    if m and int(m.group(1), 16):
        cur['ranges'].append(int(m.group(1), 16)); cur['code'] |= int(m.group(2), 16) > int(m.group(1), 16)
close()
# stats --sites: locations read from the DWARF, per address.
locs = {}
for line in open(sites):
    m = re.match(r'site (\S+) (0x[0-9a-f]+) in \S+ at \S+ depth \d+ shndx \d+:(.*)$', line)
    if m and m.group(1) in want:
        args = m.group(3).strip()
        locs.setdefault((m.group(1), int(m.group(2), 16)), []).append(
            re.split(r' (?=[A-Za-z_][A-Za-z_0-9.]*=)', args) if args else [])
bad = 0
dumped = {f['name']: f for f in json.load(open(dumpj))}
for f in funcs:
    bad0 = bad
    # nested instances of f at one address are one LOCSEC entry (FORMAT.md)
    got = sorted(s['address'] for s in dumped.get(f, {}).get('sites', []))
    if got != sorted(set(want[f])) or not got:
        bad += 1; print('FAIL %s: dump sites %s, llvm-dwarfdump %s' % (f, [hex(a) for a in got], [hex(a) for a in sorted(want[f])]))
        continue
    for s in dumped[f]['sites']:
        cands = locs.get((f, s['address']), [])
        ok = False
        for args in cands:
            good = len(args) == len(s['args'])
            for a, d in zip(args, s['args']):	# the same text form (btfi_loc_snprintf)
                n, _, l = a.partition('=')
                good &= n == d['name'] and (l == d['loc'] or (l.startswith('?') and d['loc'] == '?'))
            ok |= good
        if not ok:
            bad += 1; print('FAIL %s at 0x%x: dump %s, stats %s' % (f, s['address'], s['args'], cands))
    print('%s %s: %d sites at llvm-dwarfdump\'s addresses, locations as stats reads them' % ('FAIL' if bad > bad0 else 'ok  ', f, len(got)))
# Callers are named (the stripped lib has no .symtab: the debug file's).
txt = open(dumpt).read()
named = re.findall(r'^  \.text\+0x[0-9a-f]+ 0x[0-9a-f]+ \S+\+0x[0-9a-f]+:', txt, re.M)
unnamed = re.findall(r'^  \.text\+0x[0-9a-f]+ 0x[0-9a-f]+:', txt, re.M)
if unnamed or not named:
    bad += 1; print('FAIL: %d sites without a caller name' % len(unnamed))
sys.exit(1 if bad else 0)
PY
# GCC's partial inlining: check_one_fd's only instance is its split-off
# part inlined back into its own copy (call line = its declaration line,
# as llvm-dwarfdump gives it): the entry's call, no site of its own.
python3 - "$tmp/dwarf.txt" "$tmp/sites" <<'PY' || fail=1
import re, sys
decl, cur = None, None
for line in open(sys.argv[1]):
    if re.match(r'0x[0-9a-f]+:\s+DW_TAG_subprogram', line):
        cur = 'sub'
    elif re.match(r'0x[0-9a-f]+:\s+DW_TAG_', line):
        cur = None
    if cur == 'sub' and 'DW_AT_name\t("check_one_fd")' in line:
        cur = 'name'
    m = re.search(r'DW_AT_decl_line\s+\((\d+)\)', line)
    if cur == 'name' and m and decl is None:
        decl = int(m.group(1))
split = [l for l in open(sys.argv[2]) if l.startswith('split check_one_fd ')]
sites = [l for l in open(sys.argv[2]) if l.startswith('site check_one_fd ')]
ok = decl and split and not sites and all(re.search(r' at check_fds\.c:%d ' % decl, l) for l in split)
print('%s check_one_fd: %d split part(s) at its declaration line %s, no site' % ('ok  ' if ok else 'FAIL', len(split), decl))
sys.exit(0 if ok else 1)
PY
! "$BTFINLINE" dump "$tmp/libc.so.6" check_one_fd >/dev/null 2>&1 || bad "dump lists check_one_fd sites (a split part)"

# --why: the reasons come from the DWARF found by build-id.
"$BTFINLINE" dump "$tmp/libc.so.6" --why $funcs >"$tmp/why" 2>"$tmp/why.err" || bad "dump --why: $(cat "$tmp/why.err")"
if grep -q '=?' "$tmp/dump.txt"; then
	grep -q '=?(' "$tmp/why" && ! grep -q '=?\($\| \)' "$tmp/why" || bad "--why left a ? without its reason"
fi
echo "ok   dump --why: reasons from $dbg"
exit $fail
