#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Why the `not_at_addr` parameters of `btfinline stats` have no location.

usage: bench/naa-classify.py BINARY [--btfinline build/btfinline] [--list]

Counts every parameter `stats` counts as not_at_addr (one per instance:
the probe's address, or the first of the instance's other addresses that
lacks it, as stats.c does) by what DWARF and the code show instead: the
classes and their groups are CLASSES below (docs/STATS.md, "SQLite:
not_at_addr by cause"). The nearest later entry of the parameter's list
(in address order) is classified by the instruction just before it, the
one that sets its register: a load (from a global, two deep, indexed,
after a store), an affine computation, a copy, other arithmetic.

Reads `stats --sites`, llvm-dwarfdump --debug-info and objdump -d, nothing
else: the classes are by instruction shape along the address order, not
by path, and GCC's location views are not read (`--list` prints each
parameter with its class and the entry it was judged by).
"""
import argparse
import bisect
import collections
import re
import subprocess
import sys

REGS = {}
for n, names in enumerate([
        ("rax", "eax", "ax", "al", "ah"), ("rdx", "edx", "dx", "dl", "dh"),
        ("rcx", "ecx", "cx", "cl", "ch"), ("rbx", "ebx", "bx", "bl", "bh"),
        ("rsi", "esi", "si", "sil"), ("rdi", "edi", "di", "dil"),
        ("rbp", "ebp", "bp", "bpl"), ("rsp", "esp", "sp", "spl")]):
    for r in names:
        REGS[r] = n
for n in range(8, 16):
    for suf in ("", "d", "w", "b"):
        REGS["r%d%s" % (n, suf)] = n
DWREG = {i: r for i, r in enumerate(
    ["rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp"] + ["r%d" % i for i in range(8, 16)])}


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


# ---- DWARF: inlined subroutines and their parameters' lists ----

DIE_RE = re.compile(r"^0x([0-9a-f]+):( +)(DW_TAG_\w+|NULL)")
ATTR_RE = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*)$")
RANGE_RE = re.compile(r"\[0x([0-9a-f]+), 0x([0-9a-f]+)\)(?::\s*(.*?))?\)*$")


class Inst:
    __slots__ = ("off", "name", "line", "ranges", "params", "depth")


def parse_dwarf(path):
    insts = []
    stack = []      # (depth, kind, obj)
    cur = None      # the DIE whose attributes follow
    attr = None
    for line in run(["llvm-dwarfdump", "--debug-info", path]).splitlines():
        m = DIE_RE.match(line)
        if m:
            depth = len(m.group(2))
            tag = m.group(3)
            while stack and stack[-1][0] >= depth:
                stack.pop()
            cur = None
            attr = None
            if tag == "DW_TAG_inlined_subroutine":
                cur = Inst()
                cur.off, cur.name, cur.line, cur.ranges, cur.params = int(m.group(1), 16), None, 0, [], []
                cur.depth = depth
                insts.append(cur)
                stack.append((depth, "inst", cur))
            elif tag == "DW_TAG_formal_parameter" and stack and stack[-1][1] == "inst" \
                    and stack[-1][0] < depth:
                cur = {"name": None, "loc": None}
                stack[-1][2].params.append(cur)
                stack.append((depth, "param", cur))
            elif tag != "NULL":
                stack.append((depth, "other", None))
            continue
        if cur is None:
            continue
        m = ATTR_RE.match(line)
        if m:
            attr, val = m.group(1), m.group(2)
            if attr == "DW_AT_abstract_origin":
                n = re.search(r'"([^"]*)"', val)
                if isinstance(cur, dict):
                    cur["name"] = n.group(1) if n else None
                else:
                    cur.name = n.group(1) if n else None
            elif attr == "DW_AT_call_line" and not isinstance(cur, dict):
                cur.line = int(re.match(r"(\d+)", val).group(1))
            elif attr == "DW_AT_low_pc" and not isinstance(cur, dict):
                cur.ranges.append([int(val.split(")")[0], 16), None])
            elif attr == "DW_AT_high_pc" and not isinstance(cur, dict):
                cur.ranges[-1][1] = int(val.split(")")[0], 16)
            elif attr == "DW_AT_location" and isinstance(cur, dict):
                if "loclist" in val or re.match(r"^0x[0-9a-f]+:\s*$", val):
                    cur["loc"] = []
                else:
                    cur["loc"] = val.rstrip(")")
            continue
        r = RANGE_RE.search(line)
        if r and attr == "DW_AT_ranges" and not isinstance(cur, dict):
            cur.ranges.append([int(r.group(1), 16), int(r.group(2), 16)])
        elif r and attr == "DW_AT_location" and isinstance(cur, dict) and isinstance(cur["loc"], list):
            cur["loc"].append((int(r.group(1), 16), int(r.group(2), 16), (r.group(3) or "").strip()))
    return insts


# ---- code ----

INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t(\S+)\s*(.*?)\s*(?:#.*)?$")


def parse_code(path):
    addrs, insns = [], {}
    for line in run(["objdump", "-d", "--no-show-raw-insn", "-M", "suffix", path]).splitlines():
        m = INSN_RE.match(line)
        if not m:
            continue
        a = int(m.group(1), 16)
        addrs.append(a)
        insns[a] = (m.group(2), m.group(3))
    return addrs, insns


def split_ops(s):
    ops, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return ops


def reg_of(op):
    return REGS.get(op[1:]) if op.startswith("%") else None


def mem_of(op):
    """disp(base,index,scale) -> (disp, base, index, riprel) or None."""
    m = re.match(r"^(?:%\w+:)?(-?(?:0x)?[0-9a-f]*)\((%\w+)?(?:,(%\w+)?(?:,(\d))?)?\)$", op)
    if not m:
        return None
    base = m.group(2)[1:] if m.group(2) else None
    idx = m.group(3)[1:] if m.group(3) else None
    return (m.group(1), base, idx, base == "rip")


def writes(mn, ops):
    """DWARF registers the instruction writes, "mem" for a store, "call"."""
    w = set()
    if mn.startswith("call"):
        return {"call", "mem", 0, 1, 2, 4, 5, 6 + 2, 9, 10, 11}
    if mn.startswith(("j", "cmp", "test", "nop", "bt", "ucomis", "comis")) or mn in ("ret", "retq", "ud2"):
        return w
    if mn.startswith("push") or mn.startswith("pop"):
        w.add(7)
        if mn.startswith("pop") and ops and reg_of(ops[0]) is not None:
            w.add(reg_of(ops[0]))
        if mn.startswith("push"):
            w.add("mem")
        return w
    if mn.startswith(("rep", "stos", "movs")) and not ops:
        return {"mem", 1, 2, 5, 4}
    if not ops:
        return w
    d = ops[-1]
    if reg_of(d) is not None:
        w.add(reg_of(d))
    elif mem_of(d):
        w.add("mem")
    if mn.startswith(("xchg", "xadd", "cmpxchg")):
        for o in ops:
            if reg_of(o) is not None:
                w.add(reg_of(o))
    if mn.startswith(("div", "idiv", "mul", "imul")) and len(ops) == 1:
        w |= {0, 1}
    if mn in ("cqto", "cltd", "cqo", "cdq"):
        w |= {1}
    return w


def setter_kind(mn, ops, reg, insns_between):
    """How instruction (mn, ops) sets DWARF register reg; insns_between:
    (mn, ops) from the probe up to it (excluded)."""
    if mn.startswith("call"):
        return "call"
    if not ops or reg_of(ops[-1]) != reg:
        return None
    src = ops[0] if len(ops) >= 2 else None
    if mn.startswith("xor") and len(ops) == 2 and reg_of(ops[0]) == reg:
        return "const"
    if mn.startswith(("mov", "cmov")) and not mn.startswith("movs") or mn.startswith(("movs", "movz")):
        if src and src.startswith("$"):
            return "const"
        if src and reg_of(src) is not None:
            return "copy" if mn.startswith("mov") else "cmov" if mn.startswith("cmov") else "copy"
        mm = mem_of(src) if src else None
        if mm:
            if mn.startswith("cmov"):
                return "cmov"
            if mm[3]:
                return "rip-load"
            if mm[2]:
                return "load-index"
            base = REGS.get(mm[1])
            w = set()
            for m2, o2 in insns_between:
                w |= writes(m2, o2)
            if base in w:
                return "load-base-set"
            if "mem" in w:
                return "load-after-store"
            return "load"
    if mn.startswith("lea"):
        mm = mem_of(src)
        if mm and mm[3]:
            return "lea-rip"
        if mm and mm[2]:
            return "lea-index"
        return "lea"
    if mn.startswith("set"):
        return "setcc"
    if mn.startswith("pop"):
        return "pop"
    if src and mem_of(src) and mem_of(src)[3]:
        return "arith-rip"
    if mn.startswith(("add", "sub")) and src and src.startswith("$") or \
            mn.startswith(("inc", "dec")) and len(ops) == 1:
        return "add-imm"
    return "arith:" + re.sub(r"[bwlq]$", "", mn)


def classify(p, inst, addr, addrs, insns):
    cls, why, unbound = classify1(p, inst, addr, addrs, insns)
    return ("unbound/" if unbound else "") + cls, why


def classify1(p, inst, addr, addrs, insns):
    loc = p["loc"]
    if not isinstance(loc, list):
        return "single-expr", "", False
    ranges = [(b, e) for b, e in inst.ranges if b is not None and e is not None]
    lo = min(b for b, e in ranges) if ranges else addr
    hi = max(e for b, e in ranges) if ranges else addr + 1
    inside = [(b, e, x) for b, e, x in loc
              if any(b < re_ and rb < max(e, b + 1) for rb, re_ in ranges)]
    if not inside:
        if loc and min(b for b, e, x in loc) >= hi:
            return "outside:after-end", "", False
        if loc and max(e for b, e, x in loc) <= lo:
            return "outside:before-start", "", False
        return "outside:other" if loc else "outside:empty", "", False
    # No parameter of the instance located there, all located around it:
    # the address runs code the instance's range holds but that is not
    # the call's (clang's skip path of an `if (...) f()` laid out in it).
    def covers(q):
        return not isinstance(q["loc"], list) or \
            any(b <= addr < e or b == e == addr for b, e, x in q["loc"])
    def located_before(q):
        return isinstance(q["loc"], list) and \
            any(lo <= b < addr and e <= addr for b, e, x in q["loc"])
    located = [q for q in inst.params if q["loc"] is not None]
    if not any(covers(q) for q in located):
        if any(located_before(q) for q in located):
            return "foreign", "", False
        unbound = True
    else:
        unbound = False
    later = sorted((b, e, x) for b, e, x in inside if b > addr)
    before = [(b, e, x) for b, e, x in inside if b <= addr]
    if not later:
        return "dead", "", unbound
    b, e, x = later[0]
    why = "[%#x,%#x) %s" % (b, e, x)
    i = bisect.bisect_left(addrs, b)
    if i == 0 or i >= len(addrs) or addrs[i] != b:
        return "later:not-an-insn", why, unbound
    setter = addrs[i - 1]
    mn, ops = insns[setter]
    ops = split_ops(ops)
    why += " set by %#x %s %s" % (setter, mn, ",".join(ops))
    j = bisect.bisect_left(addrs, addr)
    between = [(insns[a][0], split_ops(insns[a][1])) for a in addrs[j:i - 1]]
    m = re.match(r"^DW_OP_reg(\d+) ", x)
    regs = set(re.findall(r"DW_OP_b?reg(\d+) ", x))
    if any(int(r) > 16 for r in regs):
        return "later-sse", why, unbound
    if not m and len(regs) == 1 and x.endswith("DW_OP_stack_value") and "deref" not in x and \
            not re.search(r"DW_OP_(mul|div|mod|shl|shr|shra|or|xor|neg|not|abs)\b", x):
        m = re.match(r"^DW_OP_breg(\d+) ", x)     # reg + k, narrowed: as the register
    elif len(regs) > 1 or re.search(r"DW_OP_(mul|div|mod)\b", x):
        return "expr-uncarriable", why, unbound
    if m:
        k = setter_kind(mn, ops, int(m.group(1)), between)
        if k is None:
            if before and before[-1][1] <= addr and before[-1][1] > lo:
                return "gap", why, unbound
            return "later:no-setter", why, unbound
        return "later:" + k, why, unbound
    if re.match(r"^(DW_OP_breg\d+ \S+|DW_OP_fbreg \S+)$", x) or "deref" in x:
        return "later-mem", why, unbound
    if re.match(r"^(DW_OP_const(s|u|\d[su]) \S+|DW_OP_lit\d+|DW_OP_addr \S+), DW_OP_stack_value$", x):
        return "later-const", why, unbound
    return "later-other", why, unbound


# class -> (group, what it is). Groups: probe (the address is not on the
# call's path: nothing to read), format (the value at the probe is not
# one LOC_PARAM form: two loads deep, a global's memory, base + index,
# two registers, a call's result), dwarf (a form the format has, but
# nothing shows that it holds at the probe).
CLASSES = [
    ("foreign", "probe", "no parameter located at the address, located around it: code in the "
     "instance's range that is not the call's (its skip path)"),
    ("later:rip-load", "format", "loaded later from a global (rip-relative): no memory-at-"
     "rebased-address form"),
    ("later:arith-rip", "format", "computed later from a global's memory"),
    ("later:load-base-set", "format", "loaded later from a base set after the probe (two loads "
     "deep, a computed base)"),
    ("later:load-index", "format", "loaded later from base + index * scale"),
    ("later:lea-index", "format", "computed later as base + index * scale"),
    ("later:arith", "format", "computed later from two registers or not affinely (add/sub reg, "
     "shl, imul, neg, and, or, cmov, setcc)"),
    ("expr-uncarriable", "format", "the later expression itself: two registers, mul/div"),
    ("later:call", "format", "a call's result, later"),
    ("later-sse", "format", "in an SSE register later (a double): no BPF access to it"),
    ("later-const", "dwarf", "a constant, from a later address on (the body may have assigned it)"),
    ("later:load-after-store", "dwarf", "loaded later from memory, after a store or call on the way"),
    ("later-mem", "dwarf", "memory (a stack slot) stored after the probe"),
    ("later:load", "dwarf", "loaded later from base + disp, base unchanged: the body's load, or "
     "not on the probe's paths"),
    ("later:lea", "dwarf", "lea k(S) later, not taken: the body's line, or S changed"),
    ("later:add-imm", "dwarf", "add/sub $k later, not taken: the body's line, or the register "
     "changed"),
    ("later:copy", "dwarf", "a register copy later, not taken: its source changed"),
    ("later:const", "dwarf", "set later to an immediate, not on the probe's paths"),
    ("later:no-setter", "dwarf", "the list starts where no instruction sets it (a jump target)"),
    ("gap", "dwarf", "in a gap of the list between two entries"),
    ("dead", "dwarf", "the list ends before the probe and says nothing after it"),
    ("outside", "dwarf", "the list has no entry in the instance's code"),
    ("single-expr", "dwarf", "one expression, not a list (not expected here)"),
    ("later:not-an-insn", "dwarf", "the later entry starts inside an instruction"),
    ("later-other", "?", "another later expression"),
    ("?", "?", "not matched to a DIE"),
]


def class_of(cls):
    """The CLASSES entry cls (as classify() names it) falls under."""
    c = cls.split("/")[-1]
    if c.startswith("later:arith:") or c in ("later:cmov", "later:setcc", "later:pop"):
        c = "later:arith"
    if c.startswith("outside"):
        c = "outside"
    if c.startswith("?"):
        c = "?"
    for name, group, what in CLASSES:
        if name == c:
            return name, group, what
    return c, "?", c


SITE_RE = re.compile(r"^site (\S+) 0x([0-9a-f]+) in (\S+) at (\S+):(\d+) depth \d+ shndx \d+:(.*)$")
PARAM_RE = re.compile(r" (\S+?)=(\S+)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--btfinline", default="build/btfinline")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()

    insts = parse_dwarf(a.binary)
    addrs, insns = parse_code(a.binary)
    by_key = collections.defaultdict(list)
    for ins in insts:
        by_key[(ins.name, ins.line)].append(ins)

    def find_inst(name, line, addr):
        for ins in by_key.get((name, line), ()):
            if any(b is not None and e is not None and b <= addr < e for b, e in ins.ranges):
                return ins
        c = by_key.get((name, line), ())
        return c[0] if len(c) == 1 else None

    # the instances, each with its addresses in a row (stats.c's order)
    groups = []
    for line in run([a.btfinline, "stats", "--sites", a.binary]).splitlines():
        m = SITE_RE.match(line)
        if not m:
            continue
        name, addr, ln = m.group(1), int(m.group(2), 16), int(m.group(5))
        locs = PARAM_RE.findall(m.group(6))
        ins = find_inst(name, ln, addr)
        if groups and groups[-1][0] is ins and ins is not None and groups[-1][1] == (name, ln):
            groups[-1][2].append((addr, locs))
        else:
            groups.append((ins, (name, ln), [(addr, locs)]))

    counts, xcounts = collections.Counter(), collections.Counter()
    groups_n = collections.Counter()
    unbound = 0
    total = unmatched = 0
    for ins, (name, ln), addrs_locs in groups:
        paddr, plocs = addrs_locs[0]
        for k in range(len(plocs)):
            loc, at = plocs[k][1], paddr
            for xaddr, xlocs in addrs_locs[1:]:
                if not loc.startswith("?") and k < len(xlocs) and xlocs[k][1].startswith("?"):
                    loc, at = xlocs[k][1], xaddr
            if loc != "?(not_at_addr)":
                continue
            total += 1
            if ins is None:
                unmatched += 1
                if a.list:
                    print("%s %#x line:%d %s: ? (no DIE of this name, call line and address)"
                          % (name, at, ln, plocs[k][0]))
                counts["?"] += 1
                groups_n["?"] += 1
                continue
            pn = plocs[k][0]
            p = next((q for q in ins.params if q["name"] == pn), None)
            if p is None:
                counts["?"] += 1
                groups_n["?"] += 1
                continue
            cls, why = classify(p, ins, at, addrs, insns)
            extra = at != paddr
            name_, group, what = class_of(cls)
            counts[name_] += 1
            xcounts[name_] += extra
            unbound += cls.startswith("unbound/")
            groups_n[group] += 1
            if a.list:
                print("%s %#x line:%d %s: %s%s  %s" % (name, at, ln, pn, cls,
                                                     " (extra address)" if extra else "", why))
    print("%s: not_at_addr parameters %d; at an instance's other address %d; at an address "
          "where no parameter of the instance is located yet (all lists start after it) %d"
          % (a.binary.rsplit("/", 1)[-1], total, sum(xcounts.values()), unbound))
    print("  %-24s %-6s %5s %6s %6s  %s" % ("class", "group", "n", "%", "other", "what"))
    order = {c[0]: i for i, c in enumerate(CLASSES)}
    for cls, n in sorted(counts.items(), key=lambda kv: (order.get(kv[0], 99), -kv[1])):
        _, group, what = class_of(cls)
        print("  %-24s %-6s %5d %5.1f%% %6d  %s" % (cls, group, n, 100.0 * n / total if total else 0,
                                                 xcounts[cls], what))
    print("  groups: " + ", ".join("%s %d" % (g, n) for g, n in sorted(groups_n.items())))


if __name__ == "__main__":
    sys.exit(main())
