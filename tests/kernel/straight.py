#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""straight.py ELF SITES: the instances of `stats --sites` (its
`multi` lines) with two probe addresses on one straight path: from one
address, falling through and taking forward `jmp`s (no conditional jump,
call of a noreturn, return or backward jump on the way), the code reaches
another address of the same instance. A call that goes that way gives two
events. Read apart from btfinline: the code from objdump, the
instances from stats. Prints one line per such pair and their number last.
Sites on a branch (ADDR:COND) and addresses marked `refused` or `notrace`
(the kprobe PMU attaches nothing there) are left out."""
import bisect
import re
import subprocess
import sys

vmlinux, sitesf = sys.argv[1:3]
refused = set()
groups = []
for line in open(sitesf):
    if line.startswith("site ") and re.search(r" (refused|notrace)( notrace)?( unprobed-copy 0x[0-9a-f]+)?$", line):
        refused.add(int(line.split()[2], 16))
    elif line.startswith("multi "):
        w = line.split()
        plain = [int(a, 16) for a in w[2:] if ":" not in a]
        groups.append((w[1], [a for a in plain if a not in refused]))

dis = {}
out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", vmlinux], capture_output=True, text=True).stdout
for l in out.splitlines():
    m = re.match(r"^ *([0-9a-f]+):\t(.*)$", l)
    if m:
        dis[int(m.group(1), 16)] = m.group(2)
addrs = sorted(dis)


def nxt(a):
    i = bisect.bisect_right(addrs, a)
    return addrs[i] if i < len(addrs) else None


pairs = []
for func, plain in groups:
    others = set(plain)
    for a in plain:
        cur = a
        for step in range(64):
            ins = dis.get(cur)
            if ins is None:
                break
            if step and cur in others:
                pairs.append((func, a, cur))
                break
            op = ins.split()[0] if ins.split() else ""
            if op.startswith("j"):
                m = re.match(r"jmp\s+([0-9a-f]+) <([^>]*)>", ins)
                if op == "jmp" and m and "return_thunk" not in m.group(2) and int(m.group(1), 16) > cur:
                    cur = int(m.group(1), 16)
                    continue
                break
            if op in ("ret", "ud2", "int3", "hlt") or "<__stack_chk_fail>" in ins:
                break
            cur = nxt(cur)
            if cur is None:
                break
for func, a, b in pairs:
    print("%s 0x%x -> 0x%x" % (func, a, b))
print(len(pairs))
