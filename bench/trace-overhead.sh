#!/bin/bash
# Per-hit cost of a traced inline site with argument evaluation (btfinline
# trace: 3 arguments, one of them a memory load, one event per hit to
# /dev/null) vs a bare uprobe running an empty BPF program at the same site
# (btfinline trace --bare), in the same run, 3 interleaved rounds, medians;
# goal: ratio <= 1.3. Also the attach and detach time of a function with
# 1,100 inline sites. Needs root. Usage: bench/trace-overhead.sh [BUILD] [N]
set -e
build=${1:-build}; N=${2:-200000}
top=$(cd "$(dirname "$0")/.." && pwd)
btfi=$top/$build/btfinline
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/hot.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
volatile long sink, vb = 3;
static inline __attribute__((always_inline)) void hot(long a, long b, const char *s)
{ sink += a * b + s[0]; }
#define S10(x) x x x x x x x x x x
static inline __attribute__((always_inline)) void many(long a, int b) { sink ^= a + b; }
__attribute__((noinline)) void spread(long i) { S10(S10(many(i, __LINE__); sink++;)) S10(S10(S10(many(i, __LINE__); sink++;))) }
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		hot(i, vb, argv[0]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (argc > 2)
		spread(n);
	printf("loop_ns %ld\n", (t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec);
	return 0;
}
C
gcc -O2 -g -o "$tmp/hot.dbg" "$tmp/hot.c"
pahole -J "$tmp/hot.dbg"
"$btfi" encode "$tmp/hot.dbg" -o "$tmp/hot" >/dev/null
echo "site: $("$btfi" dump "$tmp/hot" hot | tail -1)"

loop() {
	local v
	v=$("$@" | awk '/^loop_ns/ {print $2}')
	[ -n "$v" ] || { echo "bench: run failed: $*" >&2; exit 1; }
	echo "$v"
}
t0=(); tb=(); ta=()
for r in 1 2 3; do
	t0+=("$(loop "$tmp/hot" $N)")
	tb+=("$(loop "$btfi" trace --bare -x "$tmp/hot" --no-entry hot -- "$tmp/hot" $N 2>/dev/null)")
	ta+=("$(loop "$btfi" trace -o "$tmp/events" -x "$tmp/hot" --no-entry hot -- "$tmp/hot" $N 2>"$tmp/err")")
	grep -i dropped "$tmp/err" || true
	ev=$(grep -c ' hot ' "$tmp/events")
	[ "$ev" = "$N" ] || { echo "bench: $ev events for $N hits" >&2; exit 1; }
done
med() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
awk -v n=$N -v t0="$(med "${t0[@]}")" -v tb="$(med "${tb[@]}")" -v ta="$(med "${ta[@]}")" 'BEGIN {
	b = (tb - t0) / n; a = (ta - t0) / n
	printf "hits %d: no probe %.1f ns/iter; bare uprobe +%.0f ns/hit; btfinline with args +%.0f ns/hit; ratio %.2f (goal <= 1.3)\n",
	       n, t0 / n, b, a, a / b }'

# attach/detach of many sites: system-wide, stop with SIGINT once attached
nsites=$("$btfi" dump "$tmp/hot" many | grep -c 'spread+')
for mode in default --no-uprobe-multi; do
	opt=; [ $mode = default ] || opt=$mode
	s=$(date +%s.%N)
	"$btfi" trace $opt -x "$tmp/hot" -c many >"$tmp/count" 2>"$tmp/err" &
	p=$!
	until grep -q probes "$tmp/err"; do kill -0 $p 2>/dev/null || { cat "$tmp/err"; exit 1; }; sleep 0.02; done
	a=$(date +%s.%N)
	"$tmp/hot" 1 spread >/dev/null
	kill -INT $p
	k=$(date +%s.%N)
	wait $p
	e=$(date +%s.%N)
	awk -v s=$s -v a=$a -v k=$k -v e=$e -v n=$nsites -v mode=$mode -v h="$(awk '{s+=$1} END {print s}' "$tmp/count")" \
		'BEGIN { printf "%d sites of many() (%s): attach %.3f s, detach+exit %.3f s, %d hits counted\n", n, mode, a - s, e - k, h }'
done
