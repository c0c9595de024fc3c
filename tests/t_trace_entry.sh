#!/bin/bash
# Out-of-line entries with real uprobes (gcc and clang): the arguments come
# from the SysV x86-64 classification of the FUNC_PROTO (argspec.c), not
# from DWARF. A program calls functions through volatile pointers (so no
# IPA changes their ABI) with values it prints; every value btfinline
# reports must equal them: ints of every size and sign, a 16-byte struct in
# a register pair, a struct > 16 bytes in memory, stack arguments after six
# registers, a pair that no longer fits in registers (stack) followed by a
# long that still gets r9, bool, enum by name, --str, and field chains
# o->name (char array) and o->next->id (two loads). Also an inline
# function with three call sites: every site is hit with the known values;
# and a global's address as argument (ADDR location, rebased in PIE).
. "$TOP/tests/lib_trace.sh"
need_root_bpf
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/entry.c" <<'C'
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
struct pair { long lo; long hi; };
struct big { long v[6]; };
enum color { RED, GREEN = 5, BLUE };
struct obj { int id; char name[12]; struct obj *next; };
volatile long sink;
__attribute__((noinline)) long takes_pair(int a, struct pair p, long c) { sink += a + p.lo + p.hi + c; return sink; }
__attribute__((noinline)) long takes_big(struct big b, short s, unsigned char u, bool f, enum color col) { sink += b.v[0] + b.v[5] + s + u + f + col; return sink; }
__attribute__((noinline)) long seven(long a1, long a2, long a3, long a4, long a5, long a6, long a7, int a8) { sink += a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8; return sink; }
__attribute__((noinline)) long spill(long a, long b, long c, long d, long e, struct pair p, long f) { sink += a + b + c + d + e + p.lo + p.hi + f; return sink; }
__attribute__((noinline)) int named(const char *s, const struct obj *o) { sink += s[0] + o->id + o->next->id; return (int)sink; }
/* a global's address as argument: an ADDR location, rebased at run time (PIE) */
struct obj gobj = { .id = 4242, .name = "global" };
static inline __attribute__((always_inline)) long gid(const struct obj *g, long add) { sink += g->id + add; return sink; }
/* inlined at three call sites */
static inline __attribute__((always_inline)) long tri(long x, int tag) { sink += x * tag; return sink; }
long (*volatile p_pair)(int, struct pair, long) = takes_pair;
long (*volatile p_big)(struct big, short, unsigned char, bool, enum color) = takes_big;
long (*volatile p_seven)(long, long, long, long, long, long, long, int) = seven;
long (*volatile p_spill)(long, long, long, long, long, struct pair, long) = spill;
int (*volatile p_named)(const char *, const struct obj *) = named;
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3;
	struct obj o2 = { .id = 77, .name = "tail" };
	while (argc > 2 && access(argv[2], F_OK))	/* -p test: wait until told to go */
		usleep(10000);
	for (long i = 0; i < n; i++) {
		struct pair p = { 1000 + i, -2000 - i };
		struct big b = { { 10 + i, -1 - i, 2, 3, 4, 60 + i } };
		struct obj o = { .id = 500 + (int)i, .next = &o2 };
		char s[16];
		snprintf(o.name, sizeof(o.name), "obj-%ld", i);
		snprintf(s, sizeof(s), "str%ld", i);
		printf("arg takes_pair a=%d p.lo=%ld p.hi=%ld c=%ld\n", (int)(i - 4), p.lo, p.hi, 3 * i);
		p_pair((int)(i - 4), p, 3 * i);
		printf("arg takes_big b.v0=%ld b.v1=%ld s=%d u=%d f=%s col=%s\n", b.v[0], b.v[1], (short)(-7 - i),
		       250 + (int)(i % 5), i % 2 ? "true" : "false", i % 2 ? "BLUE" : "GREEN");
		p_big(b, (short)(-7 - i), (unsigned char)(250 + i % 5), i % 2, i % 2 ? BLUE : GREEN);
		printf("arg seven a1=%ld a6=%ld a7=%ld a8=%d\n", i + 1, i + 6, i + 7, (int)(-3 - i));
		p_seven(i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7, (int)(-3 - i));
		printf("arg spill e=%ld p.lo=%ld p.hi=%ld f=%ld\n", i + 5, p.lo, p.hi, 9 * i);
		p_spill(i + 1, i + 2, i + 3, i + 4, i + 5, p, 9 * i);
		printf("arg named s=%s o->id=%d o->name=%s o->next->id=%d\n", s, o.id, o.name, o2.id);
		p_named(s, &o);
		printf("arg gid g=%p g->id=%d add=%ld\n", (void *)&gobj, gobj.id, i);
		gid(&gobj, i);
		printf("arg tri x=%ld tag=%d\n", o.id + 1L, 1);
		tri(o.id + 1L, 1);
		printf("arg tri x=%ld tag=%d\n", p.lo, 2);
		tri(p.lo, 2);
		printf("arg tri x=%ld tag=%d\n", 9 * i, 3);
		tri(9 * i, 3);
	}
	return 0;
}
C
N=4
for cc in gcc clang; do
	$cc -O2 -g -o "$tmp/e-$cc.dbg" "$tmp/entry.c"
	pahole -J "$tmp/e-$cc.dbg"
	encode_or_skip "$tmp/e-$cc.dbg" "$tmp/e-$cc"
	"$BTFINLINE" trace -x "$tmp/e-$cc" --best-effort -j --str -o "$tmp/$cc.json" takes_pair takes_big seven spill \
		'named s o->id o->name o->next->id' tri 'gid g g->id add' -- "$tmp/e-$cc" $N >"$tmp/$cc.out" 2>"$tmp/$cc.err" ||
		{ echo "FAIL: trace $cc"; cat "$tmp/$cc.err"; exit 1; }
	cat "$tmp/$cc.err"
	"$BTFINLINE" dump -j "$tmp/e-$cc" tri >"$tmp/$cc.tri" || { echo "FAIL: dump tri"; exit 1; }
	PYTHONPATH=$TOP/tests python3 - "$tmp/$cc.out" "$tmp/$cc.json" $N $cc "$tmp/$cc.tri" <<'PY' || exit 1
import json, sys, collections
from trace_check import program_args, events
out, js, n, cc = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
tri_sites = {"%s+0x%x" % (s["caller"], s["caller_offset"]) for f in json.load(open(sys.argv[5])) for s in f["sites"]}
exp, got = program_args(out), events(js)
def flat(a):		# "p": {"lo":..} -> "p.lo"; "b": {"v": [..]} -> "b.v0"
    o = {}
    for k, v in a.items():
        if isinstance(v, dict):
            for m, x in v.items():
                if isinstance(x, list):
                    for i, y in enumerate(x): o[f"{k}.{m}{i}"] = y
                else: o[f"{k}.{m}"] = x
        else: o[k] = v
    return o
def s(v):
    return json.dumps(v) if isinstance(v, bool) else str(v)
for e in exp["gid"]:	# printf %p: 0x... lower case, as btfinline prints pointers
    e["g"] = e["g"].lower()
checked = bad = unavail = 0
for f, calls in sorted(exp.items()):
    g = got.get(f, [])
    if f == "tri":	# inline sites only (no out-of-line copy), every one hit
        hit = {r["site"] for r in g}
        if hit != tri_sites or len(tri_sites) < 3:
            print(f"FAIL {cc}: tri: sites hit {sorted(hit)}, dump lists {sorted(tri_sites)}"); bad += 1
    elif f != "gid" and any(r["site"] != "entry" for r in g):
        print(f"FAIL {cc}: {f}: hit outside its entry"); bad += 1
    if len(g) != len(calls):
        print(f"FAIL {cc}: {f}: {len(g)} entry hits, program made {len(calls)} calls"); bad += 1; continue
    for i, (e, r) in enumerate(zip(calls, g)):
        a = flat(r["args"])
        for k, v in e.items():
            if f in ("tri", "gid") and a.get(k, 0) is None:	# no location at that inline site
                unavail += 1; continue
            checked += 1
            if k not in a or s(a[k]) != v:
                print(f"FAIL {cc}: {f} call {i}: {k}={a.get(k)!r}, program passed {v}"); bad += 1
print(f"{cc}: {checked} argument values equal the known ones, {bad} mismatches, {unavail} unavailable (tri, gid)")
sys.exit(1 if bad or checked + unavail != n * 31 or checked < n * 25 else 0)
PY
	check_no_probes "$cc"
done

# -p PID: attach to a running process; trace exits by itself when it does.
"$tmp/e-gcc" 3 "$tmp/go" >/dev/null &
tp=$!
"$BTFINLINE" trace -x "$tmp/e-gcc" -p $tp seven >"$tmp/p.out" 2>"$tmp/p.err" &
bp=$!
for _ in $(seq 100); do grep -q probe "$tmp/p.err" && break; sleep 0.05; done
"$tmp/e-gcc" 2 >/dev/null	# another process: not traced
touch "$tmp/go"
wait $tp
for _ in $(seq 50); do kill -0 $bp 2>/dev/null || break; sleep 0.1; done
kill -0 $bp 2>/dev/null && { echo "FAIL: -p: trace still running after its target exited"; kill $bp; exit 1; }
wait $bp || { echo "FAIL: -p: exit $?"; cat "$tmp/p.err"; exit 1; }
n=$(grep -c " $tp seven entry" "$tmp/p.out"); all=$(grep -c ' seven ' "$tmp/p.out")
[ "$n $all" = "3 3" ] || { echo "FAIL: -p: $n hits of pid $tp, $all in all, expected 3 and 3"; cat "$tmp/p.out"; exit 1; }
grep -q " $tp seven entry .* a1=3 .* a7=9 a8=-5" "$tmp/p.out" || { echo "FAIL: -p: third call's values"; cat "$tmp/p.out"; exit 1; }
echo "ok: -p $tp: 3 hits, none from another process, exit with the target"
check_no_probes "-p"

# Entries with locations of their own (tests/fixtures/clones.c): gcc's
# mix.isra.0 and scale.constprop.0, clang's scale with mul = 7 folded in.
# Without --no-entry each call of cold1/cold2 is one event there (N = 2:
# 4 calls of each function besides hot's inline sites); --no-entry leaves
# those entries out, exact-name or clone alike.
for cc in gcc clang; do
	bin=$FIXTURES/clones-$cc-dw5
	"$BTFINLINE" trace --best-effort -x "$bin" mix scale -- "$bin" 2 >"$tmp/c.out" 2>"$tmp/c.err" ||
		{ echo "FAIL: clones-$cc: trace exit $?"; cat "$tmp/c.err"; exit 1; }
	"$BTFINLINE" trace --best-effort --no-entry -x "$bin" mix scale -- "$bin" 2 >"$tmp/cn.out" 2>"$tmp/cn.err" ||
		{ echo "FAIL: clones-$cc --no-entry: trace exit $?"; cat "$tmp/cn.err"; exit 1; }
	ins=$(grep -c ' hot+0x' "$tmp/c.out"); all=$(grep -c ' scale \| mix ' "$tmp/c.out")
	nins=$(grep -c ' hot+0x' "$tmp/cn.out"); nall=$(grep -c ' scale \| mix ' "$tmp/cn.out")
	sc=$(grep -Ec ' scale (scale\.constprop\.0\+0x0|entry) .* v=(1|11|2|12) mul=7$' "$tmp/c.out")
	[ "$ins $all $nins $nall $sc" = "4 12 4 4 4" ] || {
		echo "FAIL: clones-$cc: inline $ins of $all events, --no-entry $nins of $nall, scale entries with mul=7 $sc; want 4 12 4 4 4"
		cat "$tmp/c.out" "$tmp/cn.out"; exit 1; }
	echo "ok: clones-$cc: 8 calls at the entries (scale's mul = 7 there), none with --no-entry"
	check_no_probes "clones-$cc"
done
echo PASS
