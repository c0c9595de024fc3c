#!/bin/bash
# gdb as a second oracle: break at the same site addresses btfinline
# probes, read the arguments with gdb -batch, and require every scalar
# value btfinline reports to equal gdb's. Prints the coverage gap both ways
# (gdb reads it, btfinline says ?; and the reverse).
. "$TOP/tests/lib_trace.sh"
need_root_bpf
command -v gdb >/dev/null || { echo "skip: no gdb"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
N=3
funcs=(scale mix outer inner with_flags obj_id)
for cc in gcc clang; do
	bin=$tmp/shapes-$cc
	encode_or_skip "$FIXTURES/shapes-$cc-dw5" "$bin"
	"$BTFINLINE" trace -x "$bin" --best-effort --no-entry -j -o "$tmp/$cc.json" "${funcs[@]}" -- "$bin" $N >/dev/null 2>"$tmp/$cc.err" ||
		{ echo "FAIL: trace"; cat "$tmp/$cc.err"; exit 1; }
	python3 - "$bin" "$tmp/$cc.json" $N $cc "$tmp" <<'PY' || exit 1
import json, sys, subprocess, collections, re
binary, js, n, cc, tmp = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
hits = collections.defaultdict(list)		# (func, site) -> [args]
for l in open(js):
    r = json.loads(l)
    hits[(r["func"], r["site"])].append(r["args"])
sites = sorted(hits)
cmds = [f"break *{s}" for _, s in sites] + ["run"]
# one stop per hit, in order; print which site, then the args of the inline frame
script = ["set pagination off", "set print pretty off"]
for i, (f, s) in enumerate(sites):
    script += [f"break *{s}", "commands", "silent", f'echo @@ {f} {s}\\n',
               f"frame function {f}", "info args", "echo @@end\\n", "continue", "end"]
script += [f"run {n}"]
open(f"{tmp}/gdb.cmd", "w").write("\n".join(script) + "\n")
out = subprocess.run(["gdb", "-batch", "-nx", "-x", f"{tmp}/gdb.cmd", binary],
                     capture_output=True, text=True, timeout=300).stdout
seen = collections.defaultdict(list)
cur = None
for l in out.splitlines():
    if l.startswith("@@ "):
        _, f, s = l.split(); cur = {}; seen[(f, s)].append(cur)
    elif l.startswith("@@end"):
        cur = None
    elif cur is not None:
        m = re.match(r"^(\w+) = (.*)$", l)
        if m: cur[m.group(1)] = m.group(2)
def norm(v):
    v = str(v).strip()
    m = re.match(r"^\(.*\) (0x[0-9a-f]+)", v)
    if m: v = m.group(1)
    if re.match(r"^-?\d+$", v): return int(v)
    if re.match(r"^0x[0-9a-f]+$", v): return int(v, 16)
    return None
eq = gap = rgap = bad = 0
for key in sites:
    b, g = hits[key], seen.get(key, [])
    if len(b) != len(g):
        print(f"FAIL {cc}: {key}: btfinline {len(b)} hits, gdb {len(g)} stops"); bad += 1; continue
    for bi, gi in zip(b, g):
        for name, bv in bi.items():
            gv = gi.get(name)
            gval = None if gv is None or "optimized out" in gv else norm(gv)
            if bv is None:
                gap += gval is not None; continue
            if gval is None:
                rgap += 1; continue
            bval = norm(bv)
            if bval is None: continue
            if bval == gval: eq += 1
            else:
                print(f"FAIL {cc}: {key} {name}: btfinline {bv}, gdb {gv}"); bad += 1
print(f"{cc}: {eq} values equal gdb's, {bad} differ; gap: {gap} args gdb reads but btfinline reports ?, {rgap} btfinline reads but gdb says <optimized out>")
sys.exit(1 if bad or eq == 0 else 0)
PY
	check_no_probes "$cc"
done
echo PASS
