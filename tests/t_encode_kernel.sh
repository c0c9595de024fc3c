#!/bin/bash
# The Debian 6.1 vmlinux: scan -> encode -> reader round trip is exact
# (every site and location), the ELF copy carries the same blob as --raw,
# the input is unchanged, and `dump` places skb_put's sites at
# caller+offset that match the symbol table (nm) and the section address,
# and `dump --why` gives the reasons stats gives.
set -u
CACHE=$("$TOP/tests/data/fetch-kernel.sh") || { echo "skip: kernel not available"; exit 77; }
vml=$CACHE/vmlinux
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$TOP/$BUILD/tests/test_roundtrip" "$vml" || bad "round trip"
size0=$(stat -c %s:%Y "$vml")
"$BTFINLINE" encode "$vml" -o "$tmp/vmlinux" --raw "$tmp/vmlinux.inline" -v || bad "encode"
[ "$(stat -c %s:%Y "$vml")" = "$size0" ] || bad "input modified"
objcopy --dump-section .BTF.inline="$tmp/sec" "$tmp/vmlinux" "$tmp/junk" 2>/dev/null; rm -f "$tmp/junk"
cmp -s "$tmp/sec" "$tmp/vmlinux.inline" || bad "section differs from --raw"
"$BTFINLINE" dump "$tmp/vmlinux" | tee "$tmp/summary"
# The parts add up to the total.
python3 - "$tmp/summary" <<'PY' || fail=1
import re, sys
s = open(sys.argv[1]).read()
total = int(re.search(r'\.BTF\.inline (\d+) bytes', s).group(1))
parts = sum(int(m.group(1)) for m in re.finditer(r'^  [A-Za-z_+ ]+?\s+(\d+)\s', s, re.M))
print('parts %d, total %d' % (parts, total))
sys.exit(0 if total == parts else 1)   # no padding: types | layout | strings
PY
# --no-narrow: the narrowed registers and register sums of arch_test_bit
# (`nr`, an unsigned long whose low 32 bits GCC keeps in a register, or
# computes as (s32)(reg + off)) become `?`, nothing else.
"$BTFINLINE" encode "$vml" --raw "$tmp/nn.inline" --no-narrow || bad "encode --no-narrow"
"$BTFINLINE" dump "$tmp/vmlinux.inline" --base "$vml" arch_test_bit >"$tmp/n1" || bad "dump arch_test_bit"
"$BTFINLINE" dump "$tmp/nn.inline" --base "$vml" arch_test_bit >"$tmp/n2" || bad "dump --no-narrow blob"
python3 - "$tmp/n1" "$tmp/n2" <<'PY' || fail=1
import re, sys
a, b = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read().splitlines()
narrowed = re.compile(r'=\([us]\d+\)(%\w+|\(%\w+[+-]0x[0-9a-f]+\))')   # (u32)%rax, (s32)(%rbx+0x2c0)
ok = len(a) == len(b) and all(narrowed.sub('=?', x) == y for x, y in zip(a, b))
n = sum(len(narrowed.findall(x)) for x in a)
print('%s --no-narrow: %d narrowed registers of arch_test_bit written as ?, the rest equal' % ('ok  ' if ok and n > 10 else 'FAIL', n))
sys.exit(0 if ok and n > 10 else 1)
PY
"$BTFINLINE" dump "$tmp/vmlinux" skb_put >"$tmp/skb_put" || bad "dump skb_put"
head -n 4 "$tmp/skb_put"
text=$(readelf -SW "$vml" | sed -n 's/.* \.text  *PROGBITS  *\([0-9a-f]*\) .*/\1/p')
nm "$vml" >"$tmp/nm"
python3 - "$tmp/skb_put" "$tmp/nm" "$text" <<'PY' || fail=1
import re, sys
dump, nm, text = open(sys.argv[1]).read(), open(sys.argv[2]).read(), int(sys.argv[3], 16)
syms = {}
for line in nm.splitlines():
    p = line.split()
    if len(p) == 3 and p[1] in 'tT': syms.setdefault(p[2], set()).add(int(p[0], 16))
n = bad = 0
for m in re.finditer(r'^  \.text\+(0x[0-9a-f]+) (0x[0-9a-f]+) (\S+)\+(0x[0-9a-f]+):', dump, re.M):
    off, addr, caller, coff = int(m.group(1), 16), int(m.group(2), 16), m.group(3), int(m.group(4), 16)
    n += 1
    if addr != text + off or addr - coff not in syms.get(caller, ()):
        bad += 1; print('FAIL site', m.group(0))
print('%s skb_put: %d sites, addresses = .text + offset = caller + offset per nm' % ('FAIL' if bad or n < 5 else 'ok  ', n))
sys.exit(1 if bad or n < 5 else 0)
PY
# dump --why on the kernel: each `?` of these functions carries the reason
# stats gives for that argument at that address (both from the DWARF the
# -o copy keeps; the blob itself keeps no reason).
funcs="skb_put dev_name sock_net list_add_tail"
# shellcheck disable=SC2086
"$BTFINLINE" dump "$tmp/vmlinux" $funcs --why >"$tmp/why" || bad "dump --why"
"$BTFINLINE" stats "$vml" --sites | grep -E "^site ($(echo $funcs | tr ' ' '|')) " >"$tmp/sites" || bad "stats --sites"
python3 - "$tmp/why" "$tmp/sites" <<'PY' || fail=1
import re, sys
why, sites = open(sys.argv[1]).read(), open(sys.argv[2]).read()
want = {}
for line in sites.splitlines():
    m = re.match(r'site (\S+) (0x[0-9a-f]+) .*?:(.*)$', line)
    # (the marks after the arguments: refused, notrace, unprobed-copy ADDR)
    args = re.sub(r'( (refused|notrace|unprobed-copy 0x[0-9a-f]+))+$', '', m.group(3))
    for a in re.split(r' (?=[A-Za-z_][A-Za-z_0-9.]*=)', args.strip()):
        name, _, loc = a.partition('=')
        if loc.startswith('?('):
            want.setdefault((m.group(1), int(m.group(2), 16)), {})[name] = loc[2:-1]
n = bad = 0
func = None
for line in why.splitlines():
    h = re.match(r'^(\S+): (selectively|fully) inlined', line)
    if h: func = h.group(1); continue
    m = re.match(r'^  \S+ (0x[0-9a-f]+) \S+:(.*)$', line)
    if not m: continue
    for name, r in re.findall(r' (\w+)=\?(?:\((\w+)\))?', m.group(2)):
        n += 1
        got = want.get((func, int(m.group(1), 16)), {}).get(name)
        if r != got:
            bad += 1; print('FAIL %s at %s: %s=?(%s), stats says %s' % (func, m.group(1), name, r, got))
print('%s dump --why: %d arguments without location, reasons = stats on %d' % ('FAIL' if bad or n < 20 else 'ok  ', n, n - bad))
sys.exit(1 if bad or n < 20 else 0)
PY
exit $fail
