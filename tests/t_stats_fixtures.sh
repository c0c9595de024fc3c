#!/bin/bash
# `btfinline stats` on the fixtures:
#  1. inline_instances equals llvm-dwarfdump --statistics "#inlined functions"
#     (an independent DWARF reader) for every fixture binary;
#  2. classification of the fixture's functions (selective / full / never);
#  3. the extracted locations hold the known argument values: gdb stops at
#     each site's probe address, reads each location as btfinline describes
#     it (register, reg+off, memory, constant, register pair) and the values
#     must equal what shapes.c passes (N=3, iteration i=0..2).
set -u
command -v llvm-dwarfdump >/dev/null || { echo "skip: no llvm-dwarfdump"; exit 77; }
command -v gdb >/dev/null || { echo "skip: no gdb"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "tmp: $tmp"
fail=0
for bin in "$FIXTURES"/shapes-{gcc,clang}-dw{5,4}; do
	name=$(basename "$bin")
	ours=$("$BTFINLINE" stats "$bin" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["inline_instances"])') ||
		{ echo "FAIL $name: stats failed"; fail=1; continue; }
	theirs=$(llvm-dwarfdump --statistics "$bin" | python3 -c 'import json,sys; print(json.load(sys.stdin)["#inlined functions"])')
	if [ "$ours" != "$theirs" ] || [ "$ours" -lt 5 ]; then
		echo "FAIL $name: inline_instances $ours, llvm-dwarfdump $theirs"; fail=1
	else
		echo "ok   $name: inline_instances $ours = llvm-dwarfdump"
	fi
	# -p: the same JSON, indented (one key per line); the scan's wall time
	# differs between the two runs.
	"$BTFINLINE" stats "$bin" --json >"$tmp/$name.json"; "$BTFINLINE" stats "$bin" -p >"$tmp/$name.pjson"
	python3 -c 'import json,sys; a,b=(open(f).read() for f in sys.argv[1:]); ja,jb=json.loads(a),json.loads(b); ja.pop("extraction_secs"); jb.pop("extraction_secs"); sys.exit(not (ja == jb and b.count("\n") > 20 and "\n    \"params\": " in b))' \
		"$tmp/$name.json" "$tmp/$name.pjson" || { echo "FAIL $name: stats -p is not the --json output indented"; fail=1; }
	"$BTFINLINE" stats "$bin" --sites >"$tmp/$name.sites" || { fail=1; continue; }
	# The per-function figure and --max-instances, recounted from --sites
	# (one line per instance with each argument's location or ?(reason)).
	"$BTFINLINE" stats "$bin" --json --max-instances 1 >"$tmp/$name.max1.json" || fail=1
	python3 - "$tmp/$name.sites" "$tmp/$name.json" "$tmp/$name.max1.json" <<'PY' || { echo "FAIL $name: per-function counts"; fail=1; }
import collections, json, re, sys
sites = [l for l in open(sys.argv[1]) if l.startswith("site ")]
full, one = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
n, bad = collections.Counter(), set()
prev = None
for l in sites:
    f = l.split()[1]
    # an instance probed at several addresses: its lines in a row, one
    # call line and depth
    key = (f, re.search(r" at (\S+ depth \d+) ", l).group(1))
    n[f] += key != prev
    prev = key
    if "?(" in l.split(":", 1)[1] or " 0x0 in " in l:
        bad.add(f)
want = (len(n), len(n) - len(bad))
got = (full["funcs_inlined"], full["funcs_all_recoverable"])
once = sum(1 for f in n if n[f] == 1)
ok = got == want and one["inline_instances"] == once and one["funcs_over_max"] == len(n) - once \
     and one["sites_over_max"] == sum(c for c in n.values() if c > 1)
print("%s funcs inlined/all recoverable %s (from --sites %s); --max-instances 1: %d instances (%d functions once)"
      % ("ok  " if ok else "FAIL", got, want, one["inline_instances"], once))
sys.exit(0 if ok else 1)
PY
	# The sanitizer build must agree and stay silent.
	if [ -x "$TOP/build-asan/btfinline" ]; then
		if ! "$TOP/build-asan/btfinline" stats "$bin" --sites >"$tmp/$name.asan" 2>"$tmp/$name.asan.err" ||
		   [ -s "$tmp/$name.asan.err" ] || ! cmp -s "$tmp/$name.sites" "$tmp/$name.asan"; then
			echo "FAIL $name: ASan build differs or complains:"; head -5 "$tmp/$name.asan.err"; fail=1
		fi
	fi
	python3 - "$bin" "$tmp/$name.sites" "$tmp" <<'PY' || fail=1
import re, subprocess, sys
binary, sitesf, tmp = sys.argv[1:]
name = binary.rsplit("/", 1)[1]
lines = open(sitesf).read().splitlines()
funcs = {l.split()[1]: l.split()[3] for l in lines if l.startswith("func ")}
bad = 0
want = {"scale": "selective", "mix": "selective", "not_inlined": "never",
        "obj_id": "full", "with_flags": "full", "outer": "full", "inner": "full"}
for f, c in want.items():
    if funcs.get(f) != c:
        print(f"FAIL {name}: {f} class {funcs.get(f)}, want {c}"); bad += 1
sites = [l for l in lines if l.startswith("site ")]
# Nesting: inner is inlined into outer (depth 2).
if not any(l.split()[1] == "inner" and " depth 2 " in l for l in sites):
    print(f"FAIL {name}: no inner site at depth 2"); bad += 1

N = 3
def expect(func, param, i):
    """Known value passed by shapes.c in iteration i, or None."""
    # clang describes with_flags' v by one location over the whole inline
    # range, already after the folded `v += 5` (DWARF gives the variable's
    # current value): a compiler fact, documented in docs/STATS.md.
    wv = i + 5 if "clang" in name else i
    return {("scale", "v"): N + i, ("scale", "k"): 3, ("mix", "y"): i,
            ("with_flags", "v"): wv, ("with_flags", "flags"): 0x10,
            ("outer", "c"): i + 2, ("inner", "b"): i + 2}.get((func, param))
deref = {("obj_id", "o"): ("int", lambda i: 100 + i),       # o->id
         ("atol", "__nptr"): ("char", lambda i: ord("3"))}  # argv[1] = "3"
ctype = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long"}

def gdb_expr(loc, size):
    """gdb expression(s) for a location as `stats --sites` prints it."""
    m = re.match(r"(?:\(\w+\))?%(\w+)$", loc)              # %rdi, (u32)%rdi
    if m:
        return [f"((long)${m.group(1)})"]
    m = re.match(r"%(\w+)([+-]0x[0-9a-f]+)$", loc)           # %rsp+0x20
    if m:
        return [f"((long)${m.group(1)} {int(m.group(2), 16):+d})"]
    m = re.match(r"\*\([su](\d+) \*\)\(%(\w+)([+-]0x[0-9a-f]+)?\)$", loc)  # *(u64 *)(%rsi+0x8)
    if m:
        sz, off = int(m.group(1)) // 8, int(m.group(3) or "0", 16)
        return [f"*({ctype.get(sz, 'unsigned long')} *)((long)${m.group(2)} {off:+d})"]
    if re.match(r"-?(0x[0-9a-f]+|\d+)$", loc):                # 0x3, -1
        return [str(int(loc, 0))]
    m = re.match(r"%(\w+):%(\w+)$", loc)                    # %rax:%rdx
    if m:
        return [f"((long)${m.group(1)})", f"((long)${m.group(2)})"]
    return None

script = ["set pagination off", "set confirm off", "starti 3",
          f"set $base = (unsigned long)&main - 0x{subprocess.run(['nm', binary], capture_output=True, text=True).stdout.split(' T main')[0].rsplit(chr(10), 1)[-1]}"]
probes = []
for l in sites:
    m = re.match(r"site (\S+) (0x[0-9a-f]+) .*?: (.*)$", l)
    if not m or m.group(2) == "0x0":
        continue
    func, addr = m.group(1), m.group(2)
    params = re.split(r" (?=[A-Za-z_][A-Za-z_0-9.]*=)", m.group(3).strip())
    exprs, keys = [], []
    for p in params:
        pn, loc = p.split("=", 1)
        e = gdb_expr(loc, 8)
        if e is None:
            continue
        if (func, pn) in deref:
            t, _ = deref[(func, pn)]
            e = [f"*({t} *)({e[0]})"]
        elif expect(func, pn, 0) is None:
            continue
        # Integer params: only the parameter's width is defined.
        exprs += [f"(long)(({e[0]}) & 0xffffffff)"]
        keys.append(pn)
    if not keys:
        continue
    probes.append((func, addr, keys))
    fmt = " ".join(f"{k}=%ld" for k in keys)
    script += [f"break *($base + {addr})", "commands", "silent",
               f'printf "HIT {func} {addr} {fmt}\\n", ' + ", ".join(exprs), "continue", "end"]
script += ["continue"]
open(f"{tmp}/gdb.cmd", "w").write("\n".join(script) + "\n")
out = subprocess.run(["gdb", "-batch", "-nx", "-x", f"{tmp}/gdb.cmd", binary],
                     capture_output=True, text=True, timeout=120)
open(f"{tmp}/{name}.gdb.out", "w").write(out.stdout + out.stderr)
out = out.stdout
hits = {}
for l in out.splitlines():
    if l.startswith("HIT "):
        _, f, a, *kv = l.split()
        hits.setdefault((f, a), []).append(dict(x.split("=") for x in kv))
checked = 0
seen = set()
for func, addr, keys in probes:
    got = hits.get((func, addr), [])
    want_hits = 1 if func == "atol" else N     # atol(argv[1]) runs once
    if len(got) != want_hits:
        print(f"FAIL {name}: {func}@{addr}: {len(got)} hits, want {want_hits}"); bad += 1; continue
    for i, g in enumerate(got):
        for k in keys:
            w = deref[(func, k)][1](i) if (func, k) in deref else expect(func, k, i)
            if int(g[k]) != w:
                print(f"FAIL {name}: {func}@{addr} iteration {i}: {k}={g[k]}, want {w}"); bad += 1
            else:
                checked += 1
                seen.add((func, k))
print(f"{'ok  ' if not bad else 'FAIL'} {name}: {checked} argument values equal the known ones "
      f"({len(probes)} sites probed by gdb)")
# These must be recoverable and right: a constant argument (k, flags), a
# register, a pointer to a stack object through the CFA (o), and for gcc the
# zero-length location-list entries valid only at the entry view (scale).
need = {("scale", "k"), ("mix", "y"), ("with_flags", "flags"), ("with_flags", "v"), ("obj_id", "o")}
if "gcc" in name:
    need |= {("scale", "v")}
for f, k in sorted(need - seen):
    print(f"FAIL {name}: {f}({k}) not recovered"); bad += 1
sys.exit(1 if bad else 0)
PY
done

# 4. out-of-line entries with their own locations (tests/fixtures/clones.c):
# gcc clones mix (mix.isra.0: p replaced, k in %rdx) and scale
# (scale.constprop.0: mul folded to 7); clang renames nothing but folds
# scale's mul = 7 into its only copy, whose %esi then holds anything.
for cc in gcc clang; do
	bin=$FIXTURES/clones-$cc-dw5
	"$BTFINLINE" stats --sites "$bin" >"$tmp/clones-$cc.sites" && "$BTFINLINE" stats --json "$bin" >"$tmp/clones-$cc.json" ||
		{ echo "FAIL clones-$cc: stats failed"; fail=1; continue; }
	python3 - "$cc" "$tmp/clones-$cc.sites" "$tmp/clones-$cc.json" "$bin" <<'PY' || fail=1
import json, re, subprocess, sys
cc, sites, js, binary = sys.argv[1:]
st = json.load(open(js))
lines = [l.split() for l in open(sites) if l.startswith(("clone ", "entry "))]
got = {(l[0], l[1]): " ".join(l[l.index("15:") + 1:] if "15:" in l else l[-2:]) for l in lines}
syms = subprocess.run(["nm", binary], capture_output=True, text=True).stdout
bad = 0
if cc == "gcc":
    want = {("clone", "mix"), ("clone", "scale")}
    for n in ("mix.isra.0", "scale.constprop.0"):
        if not re.search(r" t %s$" % re.escape(n), syms, re.M):
            print("FAIL clones-gcc: gcc made no %s (the fixture no longer clones)" % n); bad += 1
    ok = st["entry_sites"] == 2 and st["clone_entries"] == 2
else:
    want = {("entry", "scale")}
    ok = st["entry_sites"] == 1 and st["clone_entries"] == 0
if set(got) != want or not ok:
    print("FAIL clones-%s: entry sites %s (json %d, clones %d), want %s" % (cc, sorted(got), st["entry_sites"], st["clone_entries"], sorted(want))); bad += 1
scale = [l for l in lines if l[1] == "scale"]
if not scale or "mul=0x7" not in scale[0]:
    print("FAIL clones-%s: scale's entry has no mul = 7: %s" % (cc, scale)); bad += 1
if not bad:
    print("ok   clones-%s: entry sites %s, scale's mul = 7 at its entry" % (cc, ", ".join("%s %s" % k for k in sorted(want))))
sys.exit(1 if bad else 0)
PY
done
exit $fail
