#!/bin/bash
# Real uprobes on the shapes fixture (gcc and clang): every argument
# btfinline reports at every site equals the value the program printed for
# that call ("arg FUNC name=value"); also the refusal message without
# --best-effort, detach on exit/SIGINT/SIGTERM, --count and -j.
. "$TOP/tests/lib_trace.sh"
need_root_bpf
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
N=4
funcs=(scale mix pair_sum 'obj_id o o->id o->pos.x o->name' big_first outer inner with_flags)
for cc in gcc clang; do
	bin=$tmp/shapes-$cc
	encode_or_skip "$FIXTURES/shapes-$cc-dw5" "$bin"
	"$BTFINLINE" trace -x "$bin" --best-effort -j -o "$tmp/$cc.json" "${funcs[@]}" -- "$bin" $N >"$tmp/$cc.out" 2>"$tmp/$cc.err" || { echo "FAIL: trace $cc"; cat "$tmp/$cc.err"; exit 1; }
	cat "$tmp/$cc.err"
	python3 - "$tmp/$cc.out" "$tmp/$cc.json" $N $cc <<'PY' || exit 1
import json, sys, collections
out, js, n, cc = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
exp = collections.defaultdict(list)
for l in open(out):
    if l.startswith("arg "):
        w = l.split()
        exp[w[1]].append(dict(x.split("=", 1) for x in w[2:]))
# derived: outer(a, c) calls inner(a + 1, c); obj_id(o) reads o->pos.x == i
for e, o in zip(exp["outer"], exp["obj_id"]):
    exp["inner"].append({"a": str(int(e["a"]) + 1), "b": e["c"]})
for i, o in enumerate(exp["obj_id"]):
    o["o->pos.x"] = str(i); o["o->name"] = '"obj%d"' % i
got = collections.defaultdict(list)
for l in open(js):
    r = json.loads(l)
    if r["site"] != "entry":
        got[r["func"]].append(r)
def actual(f, r):
    a = r["args"]
    if f == "pair_sum":
        p = a.get("p")
        return {"p.lo": p and p["lo"], "p.hi": p and p["hi"]}
    if f == "big_first":
        b = a.get("b")
        return {"b.v0": b and b["v"][0]}
    if f == "obj_id":
        return {"o->id": a["o->id"], "o->pos.x": a["o->pos.x"], "o->name": a["o->name"] and json.dumps(a["o->name"])}
    return a
checked = unavail = bad = 0
for f, calls in exp.items():
    g = got.get(f, [])
    if len(g) != len(calls):
        print(f"FAIL {cc}: {f}: {len(g)} hits, program made {len(calls)} calls"); bad += 1; continue
    for i, (e, r) in enumerate(zip(calls, g)):
        a = actual(f, r)
        for k, v in e.items():
            if a.get(k) is None:
                unavail += 1; continue
            checked += 1
            if str(a[k]) != v:
                print(f"FAIL {cc}: {f} call {i} at {r['site']}: {k}={a[k]}, program passed {v}"); bad += 1
print(f"{cc}: {checked} values equal the known ones, {unavail} unavailable, {bad} mismatches, functions: {sorted(exp)}")
sys.exit(1 if bad or checked < 4 * n else 0)
PY
	check_no_probes "$cc target exit"
done

# All-or-none: where the traced run showed an unavailable argument of
# outer, attaching without --best-effort must refuse and name it.
bin=$tmp/shapes-gcc
if grep '"func": "outer"' "$tmp/gcc.json" | grep -q null; then
	if "$BTFINLINE" trace -x "$bin" outer -- "$bin" 1 >/dev/null 2>"$tmp/refuse.err"; then
		echo "FAIL: outer has unavailable args but all-or-none attached"; exit 1
	fi
	cat "$tmp/refuse.err"
	grep -q "outer" "$tmp/refuse.err" && grep -q "refusing" "$tmp/refuse.err" || { echo "FAIL: refusal message"; exit 1; }
	check_no_probes "refusal"
fi

# --count: hits per site equal the calls.
"$BTFINLINE" trace -x "$bin" -c scale -- "$bin" 5 >"$tmp/count.out" 2>/dev/null || { echo "FAIL: --count"; exit 1; }
hits=$(grep -E '^ *[0-9]+ scale main' "$tmp/count.out" | awk '{s += $1} END {print s}')
[ "$hits" = 5 ] || { echo "FAIL: --count reported $hits hits of scale, expected 5"; grep scale "$tmp/count.out"; exit 1; }
echo "ok: --count: 5 hits"
check_no_probes "--count"

# Ctrl-C and SIGTERM detach everything (system-wide attach, no target).
for sig in INT TERM; do
	"$BTFINLINE" trace -x "$bin" scale >"$tmp/sig.out" 2>&1 &
	tp=$!
	sleep 1
	"$bin" 2 >/dev/null
	sleep 0.5
	kill -$sig $tp
	wait $tp; rc=$?
	[ $rc = 0 ] || { echo "FAIL: SIG$sig: exit $rc"; cat "$tmp/sig.out"; exit 1; }
	n=$(grep -c ' scale ' "$tmp/sig.out")
	[ "$n" = 2 ] || { echo "FAIL: SIG$sig: $n scale lines, expected 2"; cat "$tmp/sig.out"; exit 1; }
	check_no_probes "SIG$sig"
done
echo PASS
