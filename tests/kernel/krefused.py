#!/usr/bin/env python3
# krefused.py VMLINUX SITES: what kprobes refuse, read apart from btfinline
# with nm, readelf and the tables' layouts, against `btfinline stats
# --sites` output (SITES):
#  1. instructions check_kprobe_address_safe() refuses (-EINVAL):
#     __jump_table (struct jump_entry: s32 code at 0, 16 bytes),
#     static_call_sites (s32 addr at 0, 8 bytes), __bug_table (s32
#     bug_addr at 0, 12 bytes), each between its __start_/__stop_ symbols:
#     every site line there (but a branch's `if cc:` site) must carry
#     ` refused`, and only those;
#  2. functions without an ftrace call site (__mcount_loc: 8-byte
#     addresses), which the kprobe PMU refuses without
#     CONFIG_KPROBE_EVENTS_ON_NOTRACE: every site line in one (the
#     innermost function symbol of nm -S holding the address) must carry
#     ` notrace`, and only those.
# Prints the counts, one line each; exit 1 if a set differs.
import bisect, re, struct, subprocess, sys

vml, sites = sys.argv[1], sys.argv[2]
syms = {}
for l in subprocess.run(['nm', vml], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 3 and re.match(r'__(start|stop)_(__jump_table|static_call_sites|__bug_table|mcount_loc)$', f[2]):
        syms[f[2]] = int(f[0], 16)
secs = []
for l in subprocess.run(['readelf', '-SW', vml], capture_output=True, text=True).stdout.splitlines():
    m = re.search(r'\]\s+\S+\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)', l)
    if m:
        secs.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)))
f = open(vml, 'rb')


def table(name):
    lo, hi = syms['__start_' + name], syms['__stop_' + name]
    addr, off, _ = next(s for s in secs if s[0] <= lo < s[0] + s[2])
    f.seek(off + lo - addr)
    return lo, hi, f.read(hi - lo)


refused = set()
for tab, esz in (('__jump_table', 16), ('static_call_sites', 8), ('__bug_table', 12)):
    lo, hi, data = table(tab)
    for i in range(0, hi - lo, esz):
        refused.add(lo + i + struct.unpack_from('<i', data, i)[0])
lo, hi, data = table('mcount_loc')
mcount = sorted(struct.unpack_from('<Q', data, i)[0] for i in range(0, hi - lo, 8))
funcs = []
for l in subprocess.run(['nm', '-S', '--defined-only', vml], capture_output=True, text=True).stdout.splitlines():
    p = l.split()
    if len(p) == 4 and p[2] in 'tTwW':
        funcs.append((int(p[0], 16), int(p[1], 16)))
funcs.sort()
starts = [x[0] for x in funcs]


def notrace(a):
    i = bisect.bisect_right(starts, a) - 1
    while i >= 0 and a - starts[i] < 1 << 20:
        s, z = funcs[i]
        if a < s + max(z, 1):
            j = bisect.bisect_left(mcount, s)
            return not (j < len(mcount) and mcount[j] < s + max(z, 1))
        i -= 1
    return False


r_at, r_marked, n_at, n_marked = set(), set(), set(), set()
for l in open(sites):
    m = re.match(r'(site|split|shared|clone|entry) \S+ (0x[0-9a-f]+) in (.*)$', l.rstrip('\n'))
    if not m or int(m.group(2), 16) == 0:
        continue
    a, key, rest = int(m.group(2), 16), l.split(' at ')[0], m.group(3)
    edge = re.search(r' shndx \d+: if [a-z]+:', rest) is not None
    if a in refused and not edge:
        r_at.add(key)
    if re.search(r' refused( notrace)?( unprobed-copy 0x[0-9a-f]+)?$', rest):
        r_marked.add(key)
    if notrace(a):
        n_at.add(key)
    if re.search(r' notrace( unprobed-copy 0x[0-9a-f]+)?$', rest):
        n_marked.add(key)
print(f"{len(refused)} instructions kprobes refuse, {len(r_at)} site lines there, {len(r_marked)} marked refused,"
      f" {len(r_at - r_marked)} unmarked, {len(r_marked - r_at)} marked elsewhere")
print(f"{len(mcount)} ftrace call sites, {len(n_at)} site lines in functions without one, {len(n_marked)} marked"
      f" notrace, {len(n_at - n_marked)} unmarked, {len(n_marked - n_at)} marked elsewhere")
for x in sorted((r_at ^ r_marked) | (n_at ^ n_marked))[:5]:
    print('  ', x)
sys.exit(0 if r_at == r_marked and n_at == n_marked else 1)
