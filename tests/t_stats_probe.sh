#!/bin/bash
# Probe-address policy, checked against known values (docs/DESIGN.md,
# "Probe address policy"). A generated gcc -O2 program calls ~120 small
# always-inline functions at ~600 sites; each body records its arguments
# (site id, a, b, c) into a log the program prints at exit. gdb stops at
# every instance's probe address, reads each parameter where `stats --sites`
# says it is, and the values must equal the recorded ones, per site id and
# in order. Run for the default policy (per-call) and the alternatives:
#  - no wrong value and no extra stop (a probe firing without the inline
#    running) for the default;
#  - the default recovers at least as many values as every alternative,
#    and strictly more where entry_pc lies outside the instance's ranges;
#  - the default misses fewer runs than entry-pc (GCC's duplicated entry
#    paths get an address each).
set -u
command -v gdb >/dev/null || { echo "skip: no gdb"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/gen.c" <<'PY'
import random, sys
random.seed(7)
NF, NC = 120, 60
out = ['#include <stdio.h>', '#include <stdlib.h>',
       'struct rec { int id; long a, b, c; };',
       'static struct rec log_[1 << 16]; static int nlog;',
       'volatile long sinkv;',
       'static inline __attribute__((always_inline)) void rec(int id, long a, long b, long c)',
       '{ if (nlog < (1 << 16)) { log_[nlog].id = id; log_[nlog].a = a; log_[nlog].b = b; log_[nlog].c = c; nlog++; } }']
ops = ['+', '-', '^', '*', '|', '&']
arity = []
for f in range(NF):
    n = random.randint(1, 3); arity.append(n)
    ps = ['a', 'b', 'c'][:n]
    body = ['long r = ' + ' '.join(f'{p} {random.choice(ops)}' for p in ps) + f' {random.randint(1, 99)};']
    if random.random() < 0.5:
        body.append(f'if (r & {random.randint(1, 15)}) r += {ps[0]} << {random.randint(1, 5)};')
    if random.random() < 0.3:
        body.append('sinkv = r;')
    body.append('rec(id, ' + ', '.join(ps + ['0'] * (3 - n)) + '); return r;')
    out.append(f'static inline long f{f}(int id, ' + ', '.join(f'long {p}' for p in ps) + ') { ' + ' '.join(body) + ' }')
site = 0
for c in range(NC):
    out += [f'__attribute__((noinline)) long caller{c}(long x, long y, long *arr)', '{', '  long acc = x;']
    for _ in range(random.randint(5, 15)):
        f = random.randrange(NF)
        args = [random.choice(['x', 'y', 'acc', f'arr[{random.randint(0, 7)}]', f'x + {random.randint(1, 9)}',
                               str(random.randint(0, 50)), 'acc >> 2', 'y * 3']) for _ in range(arity[f])]
        call = f'f{f}({site}, {", ".join(args)})'; site += 1
        k = random.random()
        if k < 0.3:
            out.append(f'  if (x & {random.randint(1, 7)}) acc += {call};')
        elif k < 0.5:
            out.append(f'  for (int i = 0; i < (int)(y & 3); i++) acc ^= {call};')
        else:
            out.append(f'  acc += {call};')
        if random.random() < 0.3:
            out.append(f'  arr[{random.randint(0, 7)}] = acc;')
    out += ['  return acc;', '}']
out += ['int main(int argc, char **argv)', '{', '  long arr[8] = {1, 2, 3, 4, 5, 6, 7, 8}, t = 0;',
        '  int n = argc > 1 ? atoi(argv[1]) : 3;', '  for (int it = 0; it < n; it++) {']
out += [f'    t += caller{c}(it * 7 + {c}, it + {c * 3}, arr);' for c in range(NC)]
out += ['  }', '  for (int i = 0; i < nlog; i++)',
        '    printf("REC %d %ld %ld %ld\\n", log_[i].id, log_[i].a, log_[i].b, log_[i].c);',
        '  printf("t=%ld\\n", t);', '  return 0;', '}']
open(sys.argv[1], 'w').write('\n'.join(out) + '\n')
PY
gcc -O2 -g -o "$tmp/gen" "$tmp/gen.c" || { echo "FAIL: gcc"; exit 1; }

python3 - "$BTFINLINE" "$tmp/gen" "$tmp" <<'PY'
import collections, re, subprocess, sys
bt, binary, tmp = sys.argv[1:]
N = "3"
line_id = {i: int(m.group(1)) for i, l in enumerate(open(binary + ".c"), 1)
           for m in [re.search(r"\bf\d+\((\d+),", l)] if m}
def sites(policy):
    args = [bt, "stats", binary, "--sites"] + ([f"--probe={policy}"] if policy != "default" else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    res = []
    for l in out.splitlines():
        m = re.match(r"site (f\d+) (0x[0-9a-f]+) .* at \S+:(\d+) depth \d+ shndx \d+:(?: if (\w+):)? (.*)$", l)
        if m:
            res.append((m.group(2), int(m.group(3)),
                        re.split(r" (?=[A-Za-z_][A-Za-z_0-9.]*=)", m.group(5).strip()), m.group(4)))
    return res
# Instances whose entry_pc lies outside their ranges: where the two policies differ.
outside = {a[1] for a, b in zip(sites("entry-pc"), sites("entry-in-range")) if a[0] != b[0]}
# A site on a branch of the caller's counts only when the jump goes into
# the body: gdb stops there only when the condition holds on $eflags.
CF, PF, ZF, SF, OF = ("(($eflags >> %d) & 1)" % b for b in (0, 2, 6, 7, 11))
CC = {"o": OF, "b": CF, "e": ZF, "be": f"({CF} | {ZF})", "s": SF, "p": PF,
      "l": f"({SF} != {OF})", "le": f"({ZF} | ({SF} != {OF}))"}
CC.update({"n" + k if k not in ("b", "be", "l", "le") else {"b": "ae", "be": "a", "l": "ge", "le": "g"}[k]:
           f"!{v}" for k, v in list(CC.items())})
recs = collections.defaultdict(list)
for l in subprocess.run([binary, N], capture_output=True, text=True).stdout.splitlines():
    if l.startswith("REC "):
        _, i, a, b, c = l.split()
        recs[int(i)].append({"a": int(a), "b": int(b), "c": int(c)})
nm = subprocess.run(["nm", binary], capture_output=True, text=True).stdout
mainoff = int(re.search(r"^([0-9a-f]+) T main$", nm, re.M).group(1), 16)
def gexpr(loc):
    m = re.match(r"%(\w+)$", loc)
    if m:
        return f"(long)${m.group(1)}"
    if re.match(r"-?(0x[0-9a-f]+|\d+)$", loc):
        return str(int(loc, 0))
    m = re.match(r"%(\w+)([+-]0x[0-9a-f]+)$", loc)
    if m:
        return f"((long)${m.group(1)} {int(m.group(2), 16):+d})"
    m = re.match(r"\*\([su]64 \*\)\(%(\w+)([+-]0x[0-9a-f]+)?\)$", loc)
    if m:
        return f"*(long *)((long)${m.group(1)} {int(m.group(2) or '0', 16):+d})"
    return None

def run(policy):
    S = sites(policy)
    script = ["set pagination off", "set confirm off", f"starti {N} > /dev/null",
              f"set $base = (unsigned long)&main - {mainoff}"]
    for addr, line, params, cc in S:
        names, ex = [], []
        for p in params:
            pn, loc = p.split("=", 1)
            e = gexpr(loc)
            names.append(pn if e else pn + "?")
            ex.append(e or "0")
        script += [f"break *($base + {addr})" + (f" if {CC[cc]}" if cc else ""), "commands", "silent",
                   f'printf "HIT {line} ' + " ".join(f"{x}=%ld" for x in names) + '\\n", ' + ", ".join(ex),
                   "continue", "end"]
    script.append("continue")
    open(f"{tmp}/{policy}.gdb", "w").write("\n".join(script) + "\n")
    out = subprocess.run(["gdb", "-batch", "-nx", "-x", f"{tmp}/{policy}.gdb", binary],
                         capture_output=True, text=True, timeout=300).stdout
    hits = collections.defaultdict(list)
    for l in out.splitlines():
        if l.startswith("HIT "):
            _, line, *kv = l.split()
            hits[line_id[int(line)]].append(dict(x.split("=") for x in kv))
    st = collections.Counter()
    for sid in sorted({line_id[line] for _, line, _, _ in S}):
        grp = "outside" if any(line_id[l] == sid for l in outside) else "inside"
        h, r = hits[sid], recs[sid]
        if len(h) != len(r):
            st[grp + (" extra_stops" if len(h) > len(r) else " missed_runs")] += 1
            continue
        for hh, rr in zip(h, r):
            for k, v in hh.items():
                if k.endswith("?"):
                    st[grp + " unavailable"] += 1
                elif int(v) == (sid if k == "id" else rr[k]):
                    st[grp + " ok"] += 1
                else:
                    st[grp + " WRONG"] += 1
    return st
res = {p: run(p) for p in ("default", "entry-pc", "entry-in-range", "lowest")}
keys = sorted({k for st in res.values() for k in st})
print(f"{'':16}" + "".join(f"{k:>22}" for k in keys))
for p, st in res.items():
    print(f"{p:16}" + "".join(f"{st[k]:>22}" for k in keys))
d = res["default"]
bad = 0
def check(what, ok):
    global bad
    print(("ok   " if ok else "FAIL ") + what); bad += not ok
check("default: no wrong value", d["inside WRONG"] + d["outside WRONG"] == 0)
check("default: no extra stop", d["inside extra_stops"] + d["outside extra_stops"] == 0)
check("default: values checked", d["inside ok"] > 1000 and d["outside ok"] > 50)
for p in ("entry-pc", "entry-in-range", "lowest"):
    tot = lambda st: st["inside ok"] + st["outside ok"]
    check(f"default recovers >= {p} ({tot(d)} vs {tot(res[p])})", tot(d) >= tot(res[p]))
miss = lambda st: st["inside missed_runs"] + st["outside missed_runs"]
check(f"default misses fewer runs than entry-pc ({miss(d)} vs {miss(res['entry-pc'])} instances)",
      miss(d) < miss(res["entry-pc"]))
# The one left (f32 at site 351 in caller38): GCC hoisted the body's
# start above the loop before it and copied it onto two ways in
# (0xbcd8, 0xbed0); the marker, rec()'s nlog test after the loop, is met
# on some of each one's paths. 0xbcd8 is dropped for the marker, which
# then gives way to its ways around 0xbed0 (the zero-trip branch), and
# 0xbcd8's way through the loop has no probe (docs/DESIGN.md: a restart
# without the marker was tried, not taken). Three before GCC's
# entry-row copies on paths no address shares were probed (sites 204 and
# 230 missed a run each; the --entry-rows check below counted 151 of 167).
check(f"default misses runs at one instance at most ({miss(d)})", miss(d) <= 1)
check("entry_pc outside the ranges: default > entry-in-range "
      f"({d['outside ok']} vs {res['entry-in-range']['outside ok']})",
      d["outside ok"] > res["entry-in-range"]["outside ok"])
# stats --entry-rows: GCC's inline-entry row copied onto alternative
# paths (tail duplication), and a probe on each copy's path: what gdb's
# missed runs above show, counted from the line table and the CFG.
import json
def entry_rows(policy):
    args = [bt, "stats", binary, "-j", "--entry-rows"] + ([f"--probe={policy}"] if policy != "default" else [])
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)["entry_rows"]
er = {p: entry_rows(p) for p in ("default", "entry-pc")}
print("entry rows:", er)
check(f"--entry-rows: copied entries found ({er['default']['instances']} instances)",
      er["default"]["instances"] > 0 and er["default"]["instances"] == er["entry-pc"]["instances"])
check(f"--entry-rows: default has a probe on each copy's path more often than entry-pc "
      f"({er['default']['probe_on_each']} vs {er['entry-pc']['probe_on_each']})",
      er["default"]["probe_on_each"] > er["entry-pc"]["probe_on_each"])
check(f"--entry-rows: default has a probe on each copy's path everywhere "
      f"({er['default']['probe_on_each']} of {er['default']['instances']})",
      er["default"]["probe_on_each"] == er["default"]["instances"])
sys.exit(1 if bad else 0)
PY
