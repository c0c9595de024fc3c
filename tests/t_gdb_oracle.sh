#!/bin/bash
# gdb as a second oracle (both runs without ASLR and with an empty
# environment, so that pointers to the stack compare too): break at the same site addresses btfinline
# probes, read the arguments with gdb -batch, and require every scalar
# value btfinline reports to equal gdb's. Where the two differ, the value
# the program printed for that call decides: btfinline must equal it (gdb
# 12 ignores DWARF location views and so reads gcc's post-body value at an
# inline entry; those are counted, not failed). Prints the coverage gap
# both ways (gdb reads it, btfinline says ?; and the reverse).
. "$TOP/tests/lib_trace.sh"
need_root_bpf
command -v gdb >/dev/null || { echo "skip: no gdb"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
N=3
funcs=(scale mix outer inner with_flags obj_id widen)
tot_gap=0
for cc in gcc clang; do
	bin=$tmp/shapes-$cc
	encode_or_skip "$FIXTURES/shapes-$cc-dw5" "$bin"
	"$BTFINLINE" trace -x "$bin" --best-effort --no-entry -j -o "$tmp/$cc.json" "${funcs[@]}" -- env -i setarch -R "$bin" $N >"$tmp/$cc.out" 2>"$tmp/$cc.err" ||
		{ echo "FAIL: trace"; cat "$tmp/$cc.err"; exit 1; }
	python3 - "$bin" "$tmp/$cc.json" $N $cc "$tmp" "$tmp/$cc.out" <<'PY' || exit 1
import json, sys, subprocess, collections, re
binary, js, n, cc, tmp, progout = sys.argv[1:7]
hits = collections.defaultdict(list)		# (func, site) -> [args]
for l in open(js):
    r = json.loads(l)
    hits[(r["func"], r["site"])].append(r["args"])
known = collections.defaultdict(list)		# func -> [{arg: value}] in call order
for l in open(progout):
    if l.startswith("arg "):
        w = l.split()
        known[w[1]].append({k: int(v) for k, v in (x.split("=", 1) for x in w[2:]) if re.match(r"^-?\d+$", v)})
for e in known["outer"]:
    known["inner"].append({"a": e["a"] + 1, "b": e["c"]})
sites = sorted(hits)
byaddr = collections.defaultdict(list)		# one breakpoint per address (nested sites share one)
for f, s in sites:
    byaddr[s].append(f)
# same stack addresses as the traced run: no ASLR, empty environment, no shell
script = ["set pagination off", "set print pretty off", "set startup-with-shell off",
          "unset environment", "set disable-randomization on"]
for s, fs in sorted(byaddr.items()):
    script += [f"break *{s}", "commands", "silent"]
    for f in fs:
        script += [f'echo @@ {f} {s}\\n', f"frame function {f}", "info args", "echo @@end\\n"]
    script += ["continue", "end"]
script += [f"run {n}"]
open(f"{tmp}/gdb.cmd", "w").write("\n".join(script) + "\n")
out = subprocess.run(["gdb", "-batch", "-nx", "-x", f"{tmp}/gdb.cmd", binary],
                     capture_output=True, text=True, timeout=300).stdout
seen = collections.defaultdict(list)
cur = None
for l in out.splitlines():
    if l.startswith("@@ "):
        _, f, s = l.split(); cur = {}; cur_f = f; seen[(f, s)].append(cur)
    elif l.startswith("@@end"):
        cur = None
    elif cur is not None:
        # `frame function F` prints the frame it selected; when gdb has no
        # frame of F there (it stays in an inner inline frame), its args
        # are not F's: drop them
        fm = re.match(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\w+) \(", l)
        if fm and fm.group(1) != cur_f:
            cur["__wrong_frame"] = fm.group(1)
        m = re.match(r"^(\w+) = (.*)$", l)
        if m and "__wrong_frame" not in cur: cur[m.group(1)] = m.group(2)
def norm(v):
    v = str(v).strip()
    m = re.match(r"^\(.*\) (0x[0-9a-f]+)", v)
    if m: v = m.group(1)
    if re.match(r"^-?\d+$", v): return int(v)
    if re.match(r"^0x[0-9a-f]+$", v): return int(v, 16)
    return None
noframe = sum(1 for v in seen.values() for c in v if "__wrong_frame" in c)
eq = gap = rgap = bad = gdbviews = 0
gapnames, rgapnames = collections.Counter(), collections.Counter()
for key in sites:
    b, g = hits[key], seen.get(key, [])
    if len(b) != len(g):
        print(f"FAIL {cc}: {key}: btfinline {len(b)} hits, gdb {len(g)} stops"); bad += 1; continue
    for call, (bi, gi) in enumerate(zip(b, g)):
        for name, bv in bi.items():
            gv = gi.get(name)
            gval = None if gv is None or "optimized out" in gv else norm(gv)
            if bv is None:
                if gval is not None:
                    gap += 1; gapnames[f"{key[0]}.{name}"] += 1
                continue
            if gval is None:
                rgap += 1; rgapnames[f"{key[0]}.{name}"] += 1; continue
            bval = norm(bv)
            if bval is None: continue
            if bval == gval:
                eq += 1; continue
            k = known[key[0]][call].get(name) if call < len(known[key[0]]) else None
            if k is not None and bval == k:
                gdbviews += 1; continue
            print(f"FAIL {cc}: {key} call {call} {name}: btfinline {bv}, gdb {gv}, program {k}"); bad += 1
print(f"{cc}: {eq} values equal gdb's, {bad} differ; {gdbviews} where gdb differs and btfinline has the program's value; "
      f"gap: {gap} args gdb reads but btfinline reports ?, {rgap} btfinline reads but gdb says <optimized out>")
print(f"{cc}: {noframe} stops where gdb shows no frame of the function (its args not compared)")
print(f"{cc}: gap by argument: {dict(gapnames)}; reverse: {dict(rgapnames)}")
open(f"{tmp}/gap", "a").write(f"{gap}\n")
sys.exit(1 if bad or eq == 0 else 0)
PY
	check_no_probes "$cc"
done
echo "coverage gap (gdb reads, btfinline ?): $(awk '{s+=$1} END {print s}' "$tmp/gap") values"
echo PASS
