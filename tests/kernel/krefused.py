#!/usr/bin/env python3
# krefused.py VMLINUX SITES: the instructions kprobes refuse (-EINVAL from
# check_kprobe_address_safe()), read apart from btfinline with nm, readelf
# and the tables' layouts: __jump_table (struct jump_entry: s32 code at 0,
# 16 bytes), static_call_sites (s32 addr at 0, 8 bytes), __bug_table (s32
# bug_addr at 0, 12 bytes), each between its __start_/__stop_ symbols.
# SITES is `btfinline stats --sites` output: every line at such an address
# (but a branch's `if cc:` site) must end in ` refused`, and only those.
# Prints the counts; exit 1 if the two sets differ.
import re, struct, subprocess, sys
vml, sites = sys.argv[1], sys.argv[2]
syms = {}
for l in subprocess.run(['nm', vml], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 3 and re.match(r'__(start|stop)_(__jump_table|static_call_sites|__bug_table)$', f[2]):
        syms[f[2]] = int(f[0], 16)
secs = []
for l in subprocess.run(['readelf', '-SW', vml], capture_output=True, text=True).stdout.splitlines():
    m = re.search(r'\]\s+\S+\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)', l)
    if m:
        secs.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)))
f = open(vml, 'rb')
refused = set()
for tab, esz in (('__jump_table', 16), ('static_call_sites', 8), ('__bug_table', 12)):
    lo, hi = syms['__start_' + tab], syms['__stop_' + tab]
    addr, off, _ = next(s for s in secs if s[0] <= lo < s[0] + s[2])
    f.seek(off + lo - addr)
    data = f.read(hi - lo)
    for i in range(0, hi - lo, esz):
        refused.add(lo + i + struct.unpack_from('<i', data, i)[0])
at = set(); flagged = set()
for l in open(sites):
    m = re.match(r'(site|split|shared) \S+ (0x[0-9a-f]+) in .*?:(.*)$', l)
    if not m or ' if ' in l.split(':')[2][:6]:
        continue
    a = int(m.group(2), 16)
    if a in refused:
        at.add(l.split(' at ')[0])
    if l.rstrip().endswith(' refused') or ' refused unprobed-copy' in l:
        flagged.add(l.split(' at ')[0])
print(f"{len(refused)} refused instructions, {len(at)} site lines there, {len(flagged)} marked refused,"
      f" {len(at - flagged)} unmarked, {len(flagged - at)} marked elsewhere")
for x in sorted(at ^ flagged)[:5]:
    print('  ', x)
sys.exit(0 if at == flagged else 1)
