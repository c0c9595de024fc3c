#!/bin/bash
# `dump --format=perf` definitions work in perf as printed: each is added
# with `perf probe -x`, the fixture runs under `perf record`, and the
# argument values perf reads at each inline site equal what shapes.c prints
# for that call ("arg FUNC NAME=VALUE", one line per iteration).
set -u
command -v perf >/dev/null || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
grp=btfi$$
cleanup() { perf probe -q -d "$grp:*" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
for src in "$FIXTURES"/shapes-{gcc,clang}-dw5; do
	n=$(basename "$src"); bin=$tmp/$n
	"$BTFINLINE" encode "$src" -o "$bin" || { echo "FAIL $n: encode"; fail=1; continue; }
	"$BTFINLINE" dump "$bin" scale mix with_flags outer --format=perf >"$tmp/$n.perf" || { echo "FAIL $n: dump"; fail=1; continue; }
	nprobes=0
	while read -r line; do
		case "$line" in '#'*|'') continue ;; esac
		if ! perf probe -q -x "$bin" -a "$grp:$line" 2>"$tmp/err"; then
			grep -qi "uprobe\|permission\|not supported" "$tmp/err" && { echo "skip: perf probe: $(head -n 1 "$tmp/err")"; exit 77; }
			echo "FAIL $n: perf rejects '$line': $(head -n 2 "$tmp/err")"; fail=1; continue
		fi
		nprobes=$((nprobes + 1))
	done <"$tmp/$n.perf"
	[ $nprobes -ge 3 ] || { echo "FAIL $n: only $nprobes probes"; fail=1; }
	perf record -q -e "$grp:*" -o "$tmp/perf.data" -- "$bin" 3 >"$tmp/$n.out" 2>/dev/null ||
		{ echo "FAIL $n: perf record"; fail=1; }
	perf script -i "$tmp/perf.data" -F event,trace 2>/dev/null >"$tmp/$n.script"
	perf probe -q -d "$grp:*" >/dev/null 2>&1
	python3 - "$tmp/$n.out" "$tmp/$n.script" "$n" <<'PY' || fail=1
import re, sys
out, script, name = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
want = {}
for line in out.splitlines():
    m = re.match(r'arg (\w+) (.*)$', line)
    if m:
        for kv in m.group(2).split():
            k, _, v = kv.partition('=')
            want.setdefault((m.group(1), k), []).append(int(v))
got = {}
for line in script.splitlines():
    m = re.match(r'\s*\S+:(\w+?)_\d+:\s+\(\w+\)(.*)$', line)
    if not m: continue
    for kv in m.group(2).split():
        k, _, v = kv.partition('=')
        got.setdefault((m.group(1), k), []).append(int(v, 0))
bad = 0
for key, vals in sorted(got.items()):
    if key not in want:
        continue
    if vals != want[key]:
        bad += 1; print('FAIL %s: %s.%s perf read %s, program passed %s' % (name, key[0], key[1], vals, want[key]))
checked = [k for k in got if k in want]
print('%s %s: %d argument series read by perf at inline sites equal the program\'s values: %s' %
      ('FAIL' if bad or len(checked) < 2 else 'ok  ', name, len(checked) - bad, ' '.join('%s.%s' % k for k in sorted(checked))))
sys.exit(1 if bad or len(checked) < 2 else 0)
PY
done
exit $fail
