#!/bin/bash
# Sites on a branch (docs/FORMAT.md "Sites on a branch") in dump's output
# and exports, on real binaries: SQLite's -O2 builds (gcc, clang;
# tests/truth/build-sqlite.sh) and the Debian kernel's blob
# (tests/data/fetch-kernel.sh), every function with such a site:
# - `dump -j` names the condition of each (one of the 16 jcc suffixes);
# - --format=bpftrace: each such site's probe has a predicate, and for
#   every value of the five status flags (32) it holds exactly when the
#   condition holds, by the table below (the Intel SDM's jcc conditions,
#   written here, not btfinline's); every other probe has none;
#   `bpftrace -d` accepts SQLite's script;
# - --format=perf: no probe line for such a site, a comment saying why;
# - the kernel's raw blob takes its section addresses and symbols from
#   --debug-file VMLINUX (kprobe:SYM+OFF), and without it --format=perf
#   is one error line, exit 1 (it has no addresses of its own).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

sq=$("$TOP/tests/truth/build-sqlite.sh") || fail "building SQLite (tests/truth/build-sqlite.sh)"
inputs=()
for cc in gcc clang; do
	"$BTFINLINE" encode "$sq/sqlite-O2-$cc" -o "$tmp/sqlite-$cc" 2>"$tmp/enc.err" ||
		{ cat "$tmp/enc.err"; fail "encoding sqlite-O2-$cc"; }
	inputs+=("sqlite-$cc:$tmp/sqlite-$cc:")
done
if KCACHE=$("$TOP/tests/data/fetch-kernel.sh"); then
	"$BTFINLINE" encode "$KCACHE/vmlinux" --raw "$tmp/vmlinux.blob" 2>"$tmp/enc.err" ||
		{ cat "$tmp/enc.err"; fail "encoding the Debian vmlinux"; }
	objcopy -O binary --only-section=.BTF "$KCACHE/vmlinux" "$tmp/vmlinux.btf"
	inputs+=("vmlinux:$tmp/vmlinux.blob:$tmp/vmlinux.btf:$KCACHE/vmlinux")
	# a raw blob has no section addresses: probes need its ELF's
	out=$("$BTFINLINE" dump "$tmp/vmlinux.blob" --base "$tmp/vmlinux.btf" --format=perf copy_from_user 2>&1 >/dev/null)
	rc=$?
	[ $rc = 1 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
		echo "$out" | grep -q "vmlinux.blob: a raw blob has no section addresses" ||
		fail "dump --format=perf of a raw blob without --debug-file: rc $rc, '$out'"
	echo "ok: a raw blob without --debug-file: --format=perf refused in one line"
else
	echo "note: the Debian kernel could not be fetched: SQLite only"
fi

for in in "${inputs[@]}"; do
	IFS=: read -r name file base dbg <<<"$in"
	opt=(); [ -n "$base" ] && opt=(--base "$base" --debug-file "$dbg")
	"$BTFINLINE" dump "$file" "${opt[@]}" --funcs >"$tmp/$name.funcs" || fail "$name: dump --funcs"
	xargs -r -a "$tmp/$name.funcs" "$BTFINLINE" dump "$file" "${opt[@]}" -j >"$tmp/$name.json" ||
		fail "$name: dump -j"
	python3 - "$tmp/$name.json" >"$tmp/$name.cond" <<'PY' || fail "$name: dump -j's conditions"
import json, sys
CCS = {"o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g"}
n = 0
for line in open(sys.argv[1]):
    for fn in json.loads(line):
        for st in fn["sites"]:
            if "cond" in st:
                if st["cond"] not in CCS:
                    sys.exit("%s site at .text+0x%x: condition %r" % (fn["name"], st["offset"], st["cond"]))
                print(fn["name"], "0x%x" % st.get("address", st["offset"]), st["cond"])
                n += 1
if not n:
    sys.exit("no site on a branch")
PY
	funcs=$(awk '{ print $1 }' "$tmp/$name.cond" | sort -u)
	"$BTFINLINE" dump "$file" "${opt[@]}" --format=bpftrace $funcs >"$tmp/$name.bt" || fail "$name: --format=bpftrace"
	"$BTFINLINE" dump "$file" "${opt[@]}" --format=perf $funcs >"$tmp/$name.perf" || fail "$name: --format=perf"
	python3 - "$tmp/$name.cond" "$tmp/$name.bt" "$tmp/$name.perf" "$name" <<'PY' || exit 1
import itertools, re, sys
cond_path, bt_path, perf_path, name = sys.argv[1:]
CF, PF, ZF, SF, OF = 0x1, 0x4, 0x40, 0x80, 0x800
def holds(cc, f):
    c, p, z, s, o = (bool(f & b) for b in (CF, PF, ZF, SF, OF))
    return {"o": o, "no": not o, "b": c, "ae": not c, "e": z, "ne": not z,
            "be": c or z, "a": not (c or z), "s": s, "ns": not s, "p": p, "np": not p,
            "l": s != o, "ge": s == o, "le": z or s != o, "g": not z and s == o}[cc]
want, nsites = {}, 0
for l in open(cond_path):
    f, off, cc = l.split()
    want[(f, int(off, 16))] = cc	# (a function can have two sites at one address)
    nsites += 1
# the probes: "// FUNC site N: 0xADDR ..." then the probe line, an
# optional /predicate/, then the block
probes, cur = {}, None
lines = open(bt_path).read().splitlines()
for i, l in enumerate(lines):
    m = re.match(r"// (\S+) site \d+: 0x([0-9a-f]+) ", l)
    if m:
        cur = (m.group(1), int(m.group(2), 16))
        probes[cur] = None
        continue
    m = re.match(r"^/(.*)/$", l)
    if m and cur:
        probes[cur] = m.group(1)
bad, seen = 0, set()
for key, pred in sorted(probes.items()):
    cc = want.get(key)
    if cc is None:
        if pred is not None:
            bad += 1
            print("FAIL: %s: %s 0x%x has a predicate, no condition: %s" % (name, key[0], key[1], pred))
        continue
    if pred is None:
        bad += 1
        print("FAIL: %s: %s 0x%x (if %s) has no predicate" % (name, key[0], key[1], cc))
        continue
    expr = pred.replace('reg("flags")', "F").replace("||", " or ").replace("&&", " and ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    for bits in itertools.product((0, 1), repeat=5):
        F = sum(b * v for b, v in zip(bits, (CF, PF, ZF, SF, OF))) | 0x2
        if bool(eval(expr, {"F": F})) != holds(cc, F):
            bad += 1
            print("FAIL: %s: %s 0x%x if %s: /%s/ is %s at flags 0x%x" % (name, key[0], key[1], cc, pred, not holds(cc, F), F))
            break
    seen.add(cc)
missing = set(want) - set(probes)
for k in sorted(missing)[:5]:
    bad += 1
    print("FAIL: %s: %s 0x%x (if %s): no probe in the bpftrace script" % (name, k[0], k[1], want[k]))
# perf: such a site is a comment, never a probe line
perf = open(perf_path).read()
left = re.findall(r"^# (\S+)_\d+: \S+ is a branch into the body, a call only if (\w+)", perf, re.M)
if len(left) != nsites:
    bad += 1
    print("FAIL: %s: %d sites on a branch, %d left out of the perf probes with a comment" % (name, nsites, len(left)))
if bad:
    sys.exit(1)
print("ok: %s: %d sites on a branch, conditions %s: bpftrace predicates = the jcc table on all 32 flag values; perf leaves them out"
      % (name, nsites, " ".join(sorted(seen))))
PY
	if [ "$name" = vmlinux ]; then
		nk=$(grep -c '^kprobe:[a-zA-Z_][a-zA-Z0-9_.]*+0x[0-9a-f]*$' "$tmp/$name.bt" || true)
		nu=$(grep -c '^uprobe:' "$tmp/$name.bt" || true)
		[ "$nk" -gt 0 ] && [ "$nu" = 0 ] || fail "vmlinux: $nk kprobe:SYM+OFF, $nu uprobe lines in the bpftrace script"
		echo "ok: vmlinux: $nk kprobe:SYM+OFF probes (sections and symbols from --debug-file)"
	fi
	case $name in sqlite-*)
		if command -v bpftrace >/dev/null; then
			bpftrace -d "$tmp/$name.bt" >"$tmp/$name.dry" 2>&1 ||
				{ tail -5 "$tmp/$name.dry"; fail "$name: bpftrace -d rejects the script"; }
			echo "ok: $name: bpftrace -d accepts the script"
		fi
	esac
done
echo PASS
