#!/bin/bash
# The uprobe trace on Debian's 6.1 under qemu (tests/kernel/vm-run.sh):
# its verifier must load the BPF program, and without uprobe_multi links
# (6.6+) the attach falls back to per-site uprobes. Known values are
# checked on the host against what the programs printed in the VM, at an
# inline site per function of the gcc shapes fixture and at out-of-line
# entries (SysV classifier), and no uprobe is left in the VM's tracefs.
. "$TOP/tests/lib_trace.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
encode_or_skip "$FIXTURES/shapes-gcc-dw5" "$tmp/shapes"
cat >"$tmp/entry.c" <<'C'
#include <stdio.h>
struct pair { long lo; long hi; };
volatile long sink;
__attribute__((noinline)) long takes_pair(int a, struct pair p, long c) { sink += a + p.lo + p.hi + c; return sink; }
__attribute__((noinline)) long seven(long a1, long a2, long a3, long a4, long a5, long a6, long a7, int a8) { sink += a1 + a6 + a7 + a8; return sink; }
static inline __attribute__((always_inline)) long twice(long x) { sink += x; return 2 * x; }
long (*volatile p_pair)(int, struct pair, long) = takes_pair;
long (*volatile p_seven)(long, long, long, long, long, long, long, int) = seven;
int main(void)
{
	for (long i = 0; i < 3; i++) {
		struct pair p = { 1000 + i, -2000 - i };
		printf("arg takes_pair a=%d p.lo=%ld p.hi=%ld c=%ld\n", (int)(i - 4), p.lo, p.hi, 3 * i);
		p_pair((int)(i - 4), p, 3 * i);
		printf("arg seven a1=%ld a6=%ld a7=%ld a8=%d\n", i + 1, i + 6, i + 7, (int)(-3 - i));
		p_seven(i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7, (int)(-3 - i));
		printf("arg twice x=%ld\n", p.lo);
		twice(p.lo);
	}
	return 0;
}
C
gcc -O2 -g -o "$tmp/entry.dbg" "$tmp/entry.c" && pahole -J "$tmp/entry.dbg"
encode_or_skip "$tmp/entry.dbg" "$tmp/entry"
cat >"$tmp/vm.sh" <<'EOF2'
echo "KERNEL $(uname -r)"
./btfinline trace -x ./shapes -j -o s.json --best-effort scale mix with_flags 'obj_id o->id o->pos.x' inner -- ./shapes 3 >s.out; echo "RC1 $?"
./btfinline trace -x ./entry -j -o e.json takes_pair seven twice -- ./entry >e.out; echo "RC2 $?"
for f in s.out s.json e.out e.json; do sed "s/^/$f: /" $f; done
echo "UPROBE_EVENTS $(wc -l </sys/kernel/tracing/uprobe_events)"
EOF2
tests/kernel/vm-run.sh -o "$tmp/vm" "$tmp/vm.sh" "$BTFINLINE:btfinline" "$tmp/shapes:shapes" "$tmp/entry:entry" >"$tmp/console"
rc=$?
[ $rc = 77 ] && { echo "skip: no qemu"; exit 77; }
[ $rc = 0 ] || { echo "FAIL: vm-run exit $rc"; tail -30 "$tmp/console"; exit 1; }
grep -E '^(KERNEL|RC|UPROBE)' "$tmp/console"
grep -q '^KERNEL 6\.1\.' "$tmp/console" || { echo "FAIL: not the 6.1 kernel"; exit 1; }
grep -q '^RC1 0$' "$tmp/console" && grep -q '^RC2 0$' "$tmp/console" || { echo "FAIL: trace in the VM"; grep btfinline "$tmp/console"; exit 1; }
grep -q '^UPROBE_EVENTS 0$' "$tmp/console" || { echo "FAIL: uprobe left in the VM"; exit 1; }
python3 - "$tmp/console" <<'PY'
import json, sys, collections
exp, got = collections.defaultdict(list), collections.defaultdict(list)
for l in open(sys.argv[1]):
    f, _, rest = l.rstrip("\n").partition(": ")
    if f in ("s.out", "e.out") and rest.startswith("arg "):
        w = rest.split()
        exp[w[1]].append(dict(x.split("=", 1) for x in w[2:]))
    elif f in ("s.json", "e.json"):
        r = json.loads(rest)
        if r["site"] != "entry" or r["func"] != "twice" and f == "e.json":
            got[r["func"]].append(r["args"])
for e in exp["outer"]:
    exp["inner"].append({"a": str(int(e["a"]) + 1), "b": e["c"]})
for i, o in enumerate(exp["obj_id"]):
    o["o->pos.x"] = str(i)
checked = bad = 0
for f in sorted(got):
    if len(got[f]) != len(exp[f]):
        print(f"FAIL {f}: {len(got[f])} hits, {len(exp[f])} calls"); bad += 1; continue
    for e, a in zip(exp[f], got[f]):
        flat = {}
        for k, v in a.items():
            if isinstance(v, dict): flat.update({f"{k}.{m}": x for m, x in v.items()})
            else: flat[k] = v
        for k, v in e.items():
            if flat.get(k) is None: continue
            checked += 1
            if str(flat[k]) != v:
                print(f"FAIL {f}: {k}={flat[k]}, program passed {v}"); bad += 1
print(f"6.1 VM: {checked} values equal the known ones, {bad} mismatches; functions {sorted(got)}")
sys.exit(1 if bad or checked < 43 else 0)
PY
[ $? = 0 ] || exit 1
echo PASS
