#!/usr/bin/env python3
"""Compare what upstream libbpf sees in a blob (tests/interop/check output)
with what `btfinline dump -j` says about it.

    compare.py CHECK_OUT SUMMARY_JSON SITES_JSON

CHECK_OUT: the checker's stdout; SUMMARY_JSON: `dump FILE -j` (sizes and
counts); SITES_JSON: `dump FILE -j FUNC...` for every function the checker
listed (one JSON array per line: xargs may split the names).
Prints one line `kinds=equal|differ sites=N/M signs=K/L` (K of L located
arguments show their signedness in dump's JSON: mem, narrowed register and
register+offset casts, negative or top-bit constants) and every difference,
one per line on stderr. Exit 0 when everything equal, 1 otherwise.
"""
import collections, json, re, sys

check_path, sum_path, sites_path = sys.argv[1:4]
diffs = []

# ---- the checker's view ----
kinds, hdr, totals, csites = {}, {}, {}, []
for line in open(check_path):
    f = line.split()
    if not f:
        continue
    if f[0] == "kind":
        kinds[f[1]] = (int(f[2]), int(f[3]))
    elif f[0] == "header":
        hdr = {f[i]: int(f[i + 1]) for i in range(1, len(f) - 1, 2)}
    elif f[0] == "sites":
        totals = {f[i]: int(f[i + 1]) for i in range(0, len(f) - 1, 2)}
    elif f[0] == "site":
        csites.append(f[1:])

# dump counts ELF sections; upstream's LOCSECs of sites on a branch
# ("inline.text:ne", docs/FORMAT.md) are more LOCSECs of one section
CCS = {"o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g"}
def elf_section(locsec):
    base, sep, cc = locsec.rpartition(":")
    return base if sep and cc in CCS else locsec
elf_sections = {elf_section(f[0]) for f in csites}
if len(elf_sections) > totals.get("sections", 0):
    diffs.append(f"sections: upstream {totals.get('sections')} LOCSECs, fewer than the {len(elf_sections)} sections its sites name")

# ---- per-kind counts and bytes against dump's size table ----
s = json.load(open(sum_path))
cnt = lambda k: kinds.get(k, (0, 0))[0]
byt = lambda k: kinds.get(k, (0, 0))[1]
named = ("LOCSEC", "LOC_PARAM", "LOC_PROTO", "FUNC", "FUNC_PROTO")
expect = {
    "bytes": hdr.get("total"), "sites": totals.get("sites"),
    "functions": totals.get("functions"), "sections": len(elf_sections),
    "sizes.header": hdr.get("hdr_len"), "sizes.layout": hdr.get("layout_len"),
    "sizes.strings": hdr.get("str_len"),
    "sizes.locsec": byt("LOCSEC"), "sizes.loc_param": byt("LOC_PARAM"),
    "sizes.loc_proto": byt("LOC_PROTO"), "sizes.func": byt("FUNC") + byt("FUNC_PROTO"),
    "sizes.other_types": sum(b for k, (c, b) in kinds.items() if k not in named),
    "counts.locsec": cnt("LOCSEC"), "counts.loc_param": cnt("LOC_PARAM"),
    "counts.loc_proto": cnt("LOC_PROTO"), "counts.func": cnt("FUNC"),
}
kinds_ok = True
for key, want in expect.items():
    got = s
    for part in key.split("."):
        got = got.get(part) if isinstance(got, dict) else None
    if got != want:
        kinds_ok = False
        diffs.append(f"{key}: upstream {want}, dump {got}")

# ---- sites ----
# dump's loc strings -> the checker's form; '?' where dump does not show
# the signedness.
REG = r"(%\w+|fb)"
def dump_arg(a):
    k, loc, size = a["kind"], a["loc"], a["size"]
    if k == "none":
        return "none"
    sign = "?"
    if k == "reg":
        m = re.fullmatch(r"\(([su])(\d+)\)" + REG, loc)
        if m:
            sign, body = m.group(1), m.group(3)
            if int(m.group(2)) != size * 8:
                diffs.append(f"dump cast {loc} with size {size}")
        else:
            body = loc
    elif k == "reg_pair":
        body = loc.replace(":", ",")
    elif k == "reg_offset":
        # narrowed reg+off (GCC's conversion after the add): (s32)(%rbx+0x1)
        m = re.fullmatch(r"\(([su])(\d+)\)\((.*)\)", loc)
        if m:
            sign, body = m.group(1), m.group(3)
            if int(m.group(2)) != size * 8:
                diffs.append(f"dump cast {loc} with size {size}")
        else:
            body = loc
    elif k == "mem":
        m = re.fullmatch(r"\*\((?:([su])(\d+)|u8\[\d+\]) \*\)\((.*)\)", loc)
        if not m:
            return "unparsed:" + loc
        sign, body = m.group(1) or "?", m.group(3)
    elif k in ("const", "addr"):
        v = int(loc.lstrip("&"), 0) & (2**64 - 1)
        body = f"0x{v:x}"
        if k == "const" and loc.startswith("-"):
            sign = "s"
        elif k == "const" and v >> 63:
            sign = "u"	# dump prints a signed negative value as -N
    else:
        return "unknown:" + loc
    return f"{k}({body})/{size}/{sign}"

def sec_name(locsec):
    return locsec[len("inline"):] if locsec.startswith("inline") else locsec

def masked(args):
    return tuple(re.sub(r"/[su?]$", "/?", a) for a in args)

dsites = []
for line in open(sites_path):
    line = line.strip()
    if not line:
        continue
    for fn in json.loads(line):
        cls = {"selectively": "base", "fully": "split"}.get(fn["inlined"], fn["inlined"])
        for st in fn["sites"]:
            args = tuple(a["name"] + "=" + dump_arg(a) for a in st["args"])
            # a site on a branch: upstream sees its LOCSEC's name,
            # section + ":" + condition (docs/FORMAT.md)
            sec = st["section"] + (":" + st["cond"] if st.get("cond") else "")
            dsites.append((sec, fn["name"], cls, st["offset"], args))

ckeys = []
for f in csites:
    sec, func, cls, off = sec_name(f[0]), f[1], f[2], int(f[3], 16)
    ckeys.append((sec, func, cls, off, tuple(f[4:])))

# Multisets keyed with signs masked; then the signs dump shows must agree.
cgroups, dgroups = collections.defaultdict(list), collections.defaultdict(list)
for k in ckeys:
    cgroups[k[:4] + (masked(k[4]),)].append(k[4])
for k in dsites:
    dgroups[k[:4] + (masked(k[4]),)].append(k[4])
equal = 0
signs_shown = located = 0
for key in sorted(set(cgroups) | set(dgroups), key=str):
    c, d = sorted(cgroups.get(key, [])), sorted(dgroups.get(key, []))
    for i in range(max(len(c), len(d))):
        if i >= len(c) or i >= len(d):
            site = " ".join(map(str, key[:4])) + " " + " ".join(c[i] if i < len(c) else d[i])
            diffs.append(("only upstream: " if i < len(c) else "only dump: ") + site)
            continue
        ok = True
        for ca, da in zip(c[i], d[i]):
            if da.endswith("=none"):
                continue
            located += 1
            if not da.endswith("/?"):
                signs_shown += 1
                ok &= ca == da
        if ok:
            equal += 1
        else:
            diffs.append("sign: upstream " + " ".join(c[i]) + " / dump " + " ".join(d[i]))

for d in diffs[:50]:
    print("  " + d, file=sys.stderr)
if len(diffs) > 50:
    print(f"  ... {len(diffs) - 50} more differences", file=sys.stderr)
print(f"kinds={'equal' if kinds_ok else 'differ'} sites={equal}/{max(len(ckeys), len(dsites))} "
      f"signs={signs_shown}/{located}")
sys.exit(1 if diffs else 0)
