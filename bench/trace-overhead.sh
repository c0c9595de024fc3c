#!/bin/bash
# Per-hit cost of a traced inline site with argument evaluation (btfinline
# trace, events to /dev/null) vs a bare uprobe running an empty BPF program
# at the same sites (btfinline trace --bare), in the same run; goal: ratio
# <= 1.3. Also the attach (and detach) time of a function with many sites.
# Needs root. Usage: bench/trace-overhead.sh [BUILD] [N]
set -e
build=${1:-build}; N=${2:-200000}
top=$(cd "$(dirname "$0")/.." && pwd)
btfi=$top/$build/btfinline
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/hot.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
volatile long sink;
static inline __attribute__((always_inline)) void hot(long a, int b, const char *s)
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
		hot(i, (int)i & 7, "x");
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

loop() { "$@" | awk '/^loop_ns/ {print $2}'; }
t0=$(loop "$tmp/hot" $N)
tb=$(loop "$btfi" trace --bare -x "$tmp/hot" --no-entry hot -- "$tmp/hot" $N 2>/dev/null)
ta=$(loop "$btfi" trace -o /dev/null -x "$tmp/hot" --no-entry hot -- "$tmp/hot" $N 2>"$tmp/err")
grep -i dropped "$tmp/err" || true
awk -v n=$N -v t0="$t0" -v tb="$tb" -v ta="$ta" 'BEGIN {
	b = (tb - t0) / n; a = (ta - t0) / n
	printf "hits %d: no probe %.1f ns/iter; bare uprobe +%.0f ns/hit; btfinline with args +%.0f ns/hit; ratio %.2f (goal <= 1.3)\n",
	       n, t0 / n, b, a, a / b }'

nsites=$("$btfi" dump "$tmp/hot" many 2>/dev/null | grep -c . || true)
s=$(date +%s.%N)
"$btfi" trace -x "$tmp/hot" -c many -- "$tmp/hot" 1 spread >"$tmp/count" 2>"$tmp/err"
e=$(date +%s.%N)
head -1 "$tmp/err"
awk -v s=$s -v e=$e -v k="$(awk '{s+=$1} END {print s}' "$tmp/count")" -v p="$(grep -c . "$tmp/count")" \
	'BEGIN { printf "attach+run+detach of %d sites of many(): %.3f s (%d hits counted)\n", p, e - s, k }'
