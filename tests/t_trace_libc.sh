#!/bin/bash
# Shared libraries by name, in one step (issue 11, sections 5 and 6):
# `trace -x libc checked_request2size` on Debian's stripped libc.so.6
# (no .BTF.inline; DWARF in libc6-dbg's compressed build-id file, no .BTF
# anywhere). checked_request2size(req) is inlined into malloc, realloc,
# _int_malloc and _int_memalign, where req is the size the program asked
# for. The sites and their addresses come from `stats --sites` on the
# DWARF; the program prints the sizes it asked for.
#  - `-- CMD`: "libc" resolved through the ld.so cache; the inline info
#    built from the debug file (-v), then cached (second run: -v says so);
#    each size at the sites of the functions that handle it; labels from
#    the debug file's symbols, file:line from its DWARF;
#  - `-p A` with A and B mapping libc: "libc" resolved in A's maps, only
#    A's calls traced; without -p or CMD: both processes traced.
set -u
. "$TOP/tests/lib_trace.sh"
need_root_bpf
lib=/lib/x86_64-linux-gnu/libc.so.6
id=$(readelf -n "$lib" | sed -n 's/.*Build ID: //p')
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
[ -e "$dbg" ] || { echo "skip: no $dbg (libc6-dbg not installed, scripts/deps.sh installs it)"; exit 77; }
command -v pahole >/dev/null || { echo "skip: no pahole"; exit 77; }
tmp=$(mktemp -d); trap 'kill $pa $pb 2>/dev/null; rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap 'kill $pa $pb 2>/dev/null' EXIT && echo "tmp: $tmp"
pa= pb=
fail=0
bad() { echo "FAIL $*"; fail=1; }
cd "$tmp" || exit 1
export XDG_CACHE_HOME=$tmp/xdg
F=checked_request2size

# The sites, by address, and the function each is in (stats on the DWARF).
"$BTFINLINE" stats "$lib" --sites >sites || { bad "stats --sites"; exit 1; }
grep "^site $F " sites | awk '{ split($5, a, "+"); print $3, a[1] }' >want
[ "$(wc -l <want)" -ge 4 ] || { bad "stats: $(wc -l <want) sites of $F"; cat want; exit 1; }
nm --defined-only "$dbg" | awk '{ print $3, $1 }' >syms	# name -> address
# function -> its site addresses (one per way into the instance: malloc's
# checked_request2size has two, the hook-initialised first call's and the rest's)
site_of() { awk -v f="$1" '$2 == f { printf "%s%s", s, $1; s = " " }' want; }
m_site=$(site_of __libc_malloc) im_site=$(site_of _int_malloc)
r_site=$(site_of __libc_realloc) a_site=$(site_of _int_memalign)
[ -n "$m_site" ] && [ -n "$im_site" ] && [ -n "$r_site" ] && [ -n "$a_site" ] ||
	{ bad "stats: $F not in malloc, _int_malloc, realloc, _int_memalign: $(cat want)"; exit 1; }

cat >m.c <<'EOF'
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
/* m BASE [GO]: malloc(BASE+1), realloc to BASE+2, memalign(64, BASE+3);
 * with GO, first wait until the file GO exists. */
int main(int argc, char **argv)
{
	long base = atol(argv[1]);
	void *p, *q;

	while (argc > 2 && access(argv[2], F_OK))
		usleep(10000);
	void *volatile w = malloc(16);	/* the first call takes malloc's init path */

	free(w);
	p = malloc(base + 1);
	p = realloc(p, base + 2);
	q = memalign(64, base + 3);
	printf("pid %d asked %ld %ld %ld\n", getpid(), base + 1, base + 2, base + 3);
	free(p);
	free(q);
	return 0;
}
EOF
gcc -O2 -o m m.c || exit 1

# events FILE: "pid address req" per line of trace -j, address from the
# label (symbol + offset, through the debug file's symbols).
events() {
	python3 - "$1" syms <<'PY'
import json, sys
syms = dict(l.split() for l in open(sys.argv[2]) if len(l.split()) == 2)
for l in open(sys.argv[1]):
    if not l.startswith("{"):
        continue
    e = json.loads(l)
    name, _, off = e["site"].partition("+")
    addr = int(syms[name], 16) + int(off or "0", 16) if name in syms else -1
    print(e["pid"], hex(addr), e["args"]["req"])
PY
}
# has FILE PID ADDRS REQ: an event of PID with REQ at one of ADDRS
has() {
	local a
	for a in $3; do
		events "$1" | grep -x "$2 $a $4" >/dev/null && return 0
	done
	return 1
}

# One step, with CMD: libc from the ld.so cache, built, then cached.
base=$((RANDOM * 1000 + 1000000))
for run in 1 2; do
	timeout 120 "$BTFINLINE" trace -v -j -x libc $F -- ./m $base >out$run 2>err$run ||
		{ bad "run $run: $(cat err$run)"; continue; }
	pid=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' out$run)
	grep -qx "btfinline: libc: $lib (ld.so cache)" err$run || bad "run $run: -v: libc not from the ld.so cache: $(head -1 err$run)"
	if [ $run = 1 ]; then
		grep -q "^btfinline: $lib: no .BTF.inline: built from the DWARF of $dbg (build-id) .*base BTF: pahole" err1 ||
			bad "run 1: -v: not built from $dbg: $(cat err1)"
	else
		grep -q "^btfinline: $lib: inline info from the cache, .*/$id.elf (build-id $id), opened in" err2 ||
			bad "run 2: -v: the cache not used: $(cat err2)"
	fi
	has out$run "$pid" "$m_site" $((base + 1)) || bad "run $run: malloc($((base + 1))) not seen at $m_site"
	has out$run "$pid" "$im_site" $((base + 1)) || bad "run $run: _int_malloc($((base + 1))) not seen at $im_site"
	has out$run "$pid" "$r_site" $((base + 2)) || bad "run $run: realloc(.., $((base + 2))) not seen at $r_site"
	has out$run "$pid" "$a_site" $((base + 3)) || bad "run $run: memalign(64, $((base + 3))) not seen at $a_site"
	events out$run | awk '$2 == "-0x1"' | grep . >/dev/null && bad "run $run: labels not from the debug file's symbols: $(grep -m1 '"site"' out$run)"
	grep -q '"site": "_int_malloc+0x0", "where": "malloc.c:[0-9]*"' out$run || bad "run $run: no label and file:line from the debug file"
	echo "ok   run $run: $(grep -c '^{' out$run) events, the program's sizes at $m_site $im_site $r_site $a_site; $(grep -o 'ready .*' err$run)"
done

# Two processes map libc; -p A traces A only ("libc" from A's maps).
start_pair() {
	rm -f go
	./m $((base + 10000)) go >a.out & pa=$!
	./m $((base + 20000)) go >b.out & pb=$!
	for _ in $(seq 100); do grep -q libc "/proc/$pa/maps" 2>/dev/null && grep -q libc "/proc/$pb/maps" 2>/dev/null && break; sleep 0.05; done
}
wait_ready() {	# ERRFILE: the trace has attached
	for _ in $(seq 600); do grep -q "probes\? on" "$1" && return 0; sleep 0.1; done
	bad "trace did not attach: $(cat "$1")"; return 1
}
start_pair
timeout 120 "$BTFINLINE" trace -v -j -x libc -p $pa $F >pout 2>perr & tr=$!
wait_ready perr && touch go
wait $pa $pb; wait $tr || bad "-p: trace failed: $(cat perr)"
grep -qx "btfinline: libc: /usr/lib/x86_64-linux-gnu/libc.so.6 (mapped by the process)\|btfinline: libc: $lib (mapped by the process)" perr ||
	bad "-p: libc not resolved in the process's maps: $(head -1 perr)"
has pout $pa "$m_site" $((base + 10001)) && has pout $pa "$r_site" $((base + 10002)) ||
	bad "-p $pa: its calls not seen"
events pout | awk -v a=$pa '$1 != a' | grep . >/dev/null && bad "-p $pa: other processes traced: $(events pout | awk -v a=$pa '$1 != a' | head -3)"
events pout | awk -v lo=$((base + 20001)) -v hi=$((base + 20003)) '$3 >= lo && $3 <= hi' | grep . >/dev/null &&
	bad "-p $pa: B's sizes traced"
echo "ok   -p $pa: $(events pout | wc -l) events, all of pid $pa; pid $pb (same libc) not traced"

# No -p, no CMD: every process mapping libc.
start_pair
timeout 120 "$BTFINLINE" trace -j -x libc $F -d 600 >aout 2>aerr & tr=$!
wait_ready aerr && touch go
wait $pa $pb
kill -INT $tr; wait $tr
has aout $pa "$m_site" $((base + 10001)) && has aout $pb "$m_site" $((base + 20001)) ||
	bad "all processes: A's or B's calls not seen"
echo "ok   without -p: both processes traced"
pa= pb=
check_no_probes "libc traces"
exit $fail
