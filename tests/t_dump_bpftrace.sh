#!/bin/bash
# `dump --format=bpftrace` scripts run in Debian's bpftrace 0.17:
# - the script of every function of the gcc shapes fixture passes
#   bpftrace's parser, semantic analysis and code generation (`bpftrace -d`,
#   which fails on a broken script: checked with one);
# - the probes Debian's bpftrace can attach (at a symbol's start: it is
#   built without (k|u)probe offset support, so SYM+OFF is refused) run
#   while `btfinline trace` traces the same run: every value bpftrace reads
#   equals btfinline's, hit by hit, and the value the fixture printed.
. "$TOP/tests/lib_trace.sh"
need_root_bpf
command -v bpftrace >/dev/null || { echo "skip: no bpftrace (apt-get install bpftrace)"; exit 77; }
tmp=$(mktemp -d); tp=
trap '[ -n "$tp" ] && kill $tp 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
bin=$tmp/shapes
encode_or_skip "$FIXTURES/shapes-gcc-dw5" "$bin"
chmod 755 "$bin"

funcs=$("$BTFINLINE" dump "$bin" --funcs) || fail "dump --funcs"
"$BTFINLINE" dump "$bin" --format=bpftrace $funcs >"$tmp/all.bt" || fail "dump --format=bpftrace"
nprobes=$(grep -c "^uprobe:$bin:" "$tmp/all.bt")
[ "$nprobes" -ge 5 ] || fail "only $nprobes probes in the script"
bpftrace -d "$tmp/all.bt" >"$tmp/dry.log" 2>&1 || { tail -5 "$tmp/dry.log"; fail "bpftrace -d rejects the script"; }
sed '0,/reg("[a-z0-9]*")/s//reg("nosuchreg")/' "$tmp/all.bt" >"$tmp/broken.bt"
bpftrace -d "$tmp/broken.bt" >/dev/null 2>&1 && fail "bpftrace -d accepts a script with reg(\"nosuchreg\"): the dry run checks nothing"
echo "ok: bpftrace -d accepts the script: $nprobes probes on $(echo $funcs | wc -w) functions"

# The blocks attached at a symbol's start: what this bpftrace can run.
awk -v p="^uprobe:$bin:" '
	/^\/\// { c = $0 } $0 ~ p { keep = ($0 !~ /\+/) } keep { print } /^}/ { keep = 0 }' "$tmp/all.bt" >"$tmp/run.bt"
grep "^uprobe:" "$tmp/run.bt" >/dev/null || fail "no site at a symbol's start in the fixture"
echo "runnable here: $(grep -c '^uprobe:' "$tmp/run.bt") probe(s): $(grep '^uprobe:' "$tmp/run.bt" | tr '\n' ' ')"
rfuncs=$(grep -A2 '^uprobe:' "$tmp/run.bt" | sed -n 's/^\tprintf("\([a-z_0-9]*\) .*/\1/p' | sort -u)

# btfinline trace of every process running BIN, then bpftrace runs it.
"$BTFINLINE" trace -x "$bin" --no-entry --best-effort -j -o "$tmp/trace.json" $rfuncs 2>"$tmp/trace.err" &
tp=$!
for i in $(seq 100); do grep -q "probes on" "$tmp/trace.err" && break; sleep 0.1; done
grep -q "probes on" "$tmp/trace.err" || { cat "$tmp/trace.err"; fail "btfinline trace did not attach"; }
bpftrace "$tmp/run.bt" -c "$bin 4" >"$tmp/bt.out" 2>"$tmp/bt.err" || { cat "$tmp/bt.err"; fail "bpftrace run"; }
sleep 0.5
kill -INT $tp; wait $tp; tp=
python3 - "$tmp/bt.out" "$tmp/trace.json" <<'PY' || exit 1
import json, sys
out, js = sys.argv[1], sys.argv[2]
lines = open(out).read().splitlines()
bt = [l.split() for l in lines if l and not l.startswith(("arg ", "acc=", "Attaching"))]
bt = [(w[0], w[1], dict(a.split("=") for a in w[2:])) for w in bt]
tr = []
for l in open(js):
    r = json.loads(l)
    tr.append((r["func"], r["site"], r["args"]))
sites = {(f, s) for f, s, _ in bt}
tr = [t for t in tr if (t[0], t[1]) in sites]
if not bt or len(bt) != len(tr):
    sys.exit("FAIL: bpftrace %d hits, btfinline trace %d at the same sites %s" % (len(bt), len(tr), sorted(sites)))
bad = 0
for (f, s, a), (f2, s2, a2) in zip(bt, tr):
    if (f, s) != (f2, s2) or any(a[k] != "?" and int(a[k], 0) != a2.get(k) for k in a):
        bad += 1
        print("FAIL: bpftrace %s %s %s, btfinline trace %s %s %s" % (f, s, a, f2, s2, a2))
# The fixture prints each call's arguments: the first widen of an
# iteration is the call at drive_widen's start.
want = {}
for l in lines:
    if l.startswith("arg "):
        w = l.split()
        want.setdefault(w[1], []).append(dict(x.split("=") for x in w[2:]))
for f, s in sorted(sites):
    got = [a for g, t, a in bt if (g, t) == (f, s)]
    exp = want.get(f, [])
    if f == "widen":
        exp = exp[0::2]
    for a, e in zip(got, exp):
        for k in e:
            if k in a and a[k] != "?" and int(a[k]) != int(e[k]):
                bad += 1
                print("FAIL: %s %s: bpftrace %s=%s, the fixture passed %s" % (f, s, k, a[k], e[k]))
    if len(got) != len(exp):
        bad += 1
        print("FAIL: %s %s: %d hits, the fixture made %d calls" % (f, s, len(got), len(exp)))
if bad:
    sys.exit(1)
print("ok: %d bpftrace hits at %s = btfinline trace's, hit by hit, = the fixture's arguments" %
      (len(bt), " ".join("%s@%s" % x for x in sorted(sites))))
PY
