#!/bin/bash
# modlink.sh BTFINLINE MODULE.ko TMPDIR: the module's per-call probes (its
# code read through its own relocations, in libdwfl's layout) against those
# of a copy GNU ld linked: every relocation applied by ld, the module's
# undefined symbols stubbed as functions of their own names (a call of
# __stack_chk_fail still ends its path) and __jump_table, __ex_table,
# __bug_table, .static_call_sites and __mcount_loc bracketed by
# __start_/__stop_ symbols, as in vmlinux; at
# the kernel's module addresses, as a module loads.
# Compared per inline instance: function, caller+offset (code past the
# caller's symbols, its .cold part, as "cold": ld places .text.unlikely
# elsewhere), call line, depth, locations (a DW_OP_addr a module cannot
# carry is unsupported or, in a list, not_at_addr there, &ADDR in the
# linked copy, as is a `mov $sym, %reg` there that the module leaves to its
# loader: the three compare equal).
# Prints "NAME: N instances, D differ" and the differences; exit 1 if any.
set -u
B=$1 m=$2 t=$3 n=$(basename "$2" .ko)
nm -u "$m" | awk '{ printf ".globl %s\n.type %s,@function\n%s: ret\n", $2, $2, $2 }' >"$t/$n.stubs.s"
cat >"$t/tables.ld" <<'LD'
SECTIONS {
  __jump_table : { __start___jump_table = .; KEEP(*(__jump_table)) __stop___jump_table = .; }
  __ex_table : { __start___ex_table = .; KEEP(*(__ex_table)) __stop___ex_table = .; }
  __bug_table : { __start___bug_table = .; KEEP(*(__bug_table)) __stop___bug_table = .; }
  .static_call_sites : { __start_static_call_sites = .; KEEP(*(.static_call_sites)) __stop_static_call_sites = .; }
  __mcount_loc : { __start_mcount_loc = .; KEEP(*(__mcount_loc)) __stop_mcount_loc = .; }
} INSERT AFTER .data;
LD
# .text.unlikely after .text, as libdwfl and the kernel's loader place it
# (ld's default script puts it first; where the per-call rule falls back to
# an instance's lowest address, the two layouts would differ)
objcopy --rename-section .text.unlikely=.text_cold "$m" "$t/$n.ko" &&
	as -o "$t/$n.stubs.o" "$t/$n.stubs.s" &&
	ld -o "$t/$n.linked" -e 0 -z noexecstack -Ttext-segment=0xffffffffc0000000 -T "$t/tables.ld" \
		"$t/$n.ko" "$t/$n.stubs.o" ||
	{ echo "$n: ld failed"; exit 1; }
"$B" stats --sites "$m" >"$t/$n.rel.sites" || { echo "$n: stats exit $?"; exit 1; }
"$B" stats --sites "$t/$n.linked" >"$t/$n.lnk.sites" || { echo "$n: stats of the linked copy exit $?"; exit 1; }
nm -S "$t/$n.linked" >"$t/$n.nm"
python3 - "$t/$n.rel.sites" "$t/$n.lnk.sites" "$t/$n.nm" "$n" <<'PY'
import collections, re, sys
size = {}
for l in open(sys.argv[3]):
    f = l.split()
    if len(f) == 4 and not f[3].endswith(".cold"):	# foo, foo.part.0, foo.constprop.0
        b = f[3].split(".")[0]
        size[b] = max(size.get(b, 0), int(f[1], 16))
def norm(path):
    out = collections.Counter()
    for l in open(path):
        m = re.match(r"(site|split) (\S+) 0x[0-9a-f]+ in (\S+)\+0x([0-9a-f]+) at (\S+) depth (\d+)(?: shndx \d+)?:(.*)", l)
        if not m:
            continue
        kind, fn, caller, off, where, depth, args = m.groups()
        off = int(off, 16)
        label = "%s+%s" % (caller, "cold" if off >= size.get(caller, 1 << 62) else hex(off))
        args = re.sub(r"=&0x[0-9a-f]+|=\?\((unsupported_expr|not_at_addr)\)", "=ADDR?", args)
        out["%s %s in %s at %s depth %s:%s" % (kind, fn, label, where, depth, args)] += 1
    return out
rel, lnk = norm(sys.argv[1]), norm(sys.argv[2])
diff = sorted(set(rel) ^ set(lnk)) + [k for k in rel if k in lnk and rel[k] != lnk[k]]
print("%s: %d instances, %d differ" % (sys.argv[4], sum(rel.values()), len(diff)))
for k in diff[:20]:
    print("  module %d, linked %d: %s" % (rel[k], lnk[k], k))
sys.exit(1 if diff or not rel else 0)
PY
