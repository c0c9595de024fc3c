#!/bin/bash
# Speed/memory goal of `btfinline dump` (issue 3, section 5): in the same
# run, for a few functions of the Debian vmlinux, `perf probe -k vmlinux -D
# 'FUNC args'` (DWARF) against `btfinline dump vmlinux+.BTF.inline FUNC`
# (the blob). Prints wall time (best of N) and peak RSS of each, what each
# produced, and the ratio. Goal: >= 100x faster, dump <= 20 MB peak RSS.
# Usage: bench/dump-vs-perf.sh [VMLINUX]   (default: the cached Debian one)
set -e
cd "$(dirname "$0")/.."
BTFINLINE=${BTFINLINE:-build/btfinline}
VMLINUX=${1:-$(tests/data/fetch-kernel.sh)/vmlinux}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "no perf"; exit 1; }

"$BTFINLINE" encode "$VMLINUX" -o "$tmp/vmlinux" -v
cat "$VMLINUX" "$tmp/vmlinux" >/dev/null	# both in the page cache

python3 - "$BTFINLINE" "$VMLINUX" "$tmp/vmlinux" <<'PY'
import subprocess, sys, time, re
btfi, vml, enc = sys.argv[1:4]
# FUNC and the args given to perf; skb_put is the issue's example; the
# others have hundreds of inline sites.
specs = [('skb_put', 'skb len'), ('consume_skb', 'skb'), ('kfree_skb', 'skb'),
         ('list_add_tail', 'new head'), ('dev_name', 'dev'), ('sock_net', 'sk')]
def run(cmd, reps):
    best, rss, out = None, 0, ''
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.run(['/usr/bin/time', '-f', '%M'] + cmd, capture_output=True, text=True)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
        rss = max(rss, int(p.stderr.strip().splitlines()[-1]))
        out = (p.returncode, p.stdout, p.stderr)
    return best, rss, out
print('%-14s %10s %8s %-34s %9s %7s %6s %8s' % ('function', 'perf s', 'perf MB', 'perf result', 'dump s', 'dump MB', 'sites', 'ratio'))
ratios, rsss = [], []
for func, args in specs:
    pt, prss, (prc, pout, perr) = run(['perf', 'probe', '-k', vml, '-D', '%s %s' % (func, args)], 2)
    probes = len([l for l in pout.splitlines() if l.startswith('p:')])
    if prc == 0:
        pres = '%d probe definitions' % probes
    else:
        lines = [l.strip() for l in perr.splitlines() if l.strip() and not l.strip().startswith('Command exited')]
        pres = 'fails: ' + (lines[0] if lines else 'rc=%d' % prc)[:26]
    dt, drss, (drc, dout, derr) = run([btfi, 'dump', enc, func], 5)
    m = re.search(r'(\d+) sites?', dout)
    sites = m.group(1) if m and drc == 0 else 'err'
    ratio = pt / dt
    ratios.append(ratio); rsss.append(drss)
    print('%-14s %10.3f %8d %-34s %9.4f %7.1f %6s %7.0fx' % (func, pt, prss // 1024, pres, dt, drss / 1024, sites, ratio))
print('min ratio perf/dump: %.0fx (goal >= 100x): %s' % (min(ratios), 'met' if min(ratios) >= 100 else 'NOT met'))
print('max dump peak RSS: %.1f MB (goal <= 20 MB): %s' % (max(rsss) / 1024, 'met' if max(rsss) <= 20 * 1024 else 'NOT met'))
PY
