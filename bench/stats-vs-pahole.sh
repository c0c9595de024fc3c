#!/bin/bash
# Speed/memory goal of `btfinline stats` (issue 2, section 5): run, in the
# same run on the same vmlinux, `btfinline stats` and `pahole -J` (on a copy)
# under /usr/bin/time -v, and print both wall times, peak RSS and the ratio.
# Goal on 2 cores: ratio <= 0.7 and stats peak RSS <= 400 MB. Also prints
# the ratio to the multi-threaded `pahole -J -j` (informative).
# Usage: bench/stats-vs-pahole.sh [VMLINUX]   (default: the cached Debian one)
set -e
cd "$(dirname "$0")/.."
BTFINLINE=${BTFINLINE:-build/btfinline}
VMLINUX=${1:-$(tests/data/fetch-kernel.sh)/vmlinux}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

measure() {	# name, command... -> prints "secs rss_kb"
	local name=$1; shift
	/usr/bin/time -v "$@" >"$tmp/$name.out" 2>"$tmp/$name.time" ||
		{ echo "$name failed:"; tail -n 5 "$tmp/$name.time"; exit 1; }
	local wall rss
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/$name.time" |
	       awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/$name.time")
	echo "$wall $rss"
}

cp "$VMLINUX" "$tmp/vmlinux.copy"
sync
# Warm the page cache for both so neither pays the first read.
cat "$VMLINUX" "$tmp/vmlinux.copy" >/dev/null
read -r p_wall p_rss < <(measure pahole pahole -J "$tmp/vmlinux.copy")
cp "$VMLINUX" "$tmp/vmlinux.copy2"
read -r j_wall j_rss < <(measure pahole-j pahole -J -j "$tmp/vmlinux.copy2")
read -r s_wall s_rss < <(measure stats "$BTFINLINE" stats "$VMLINUX")
printf '%-28s %8s s  %8s MB\n' "pahole -J (copy)" "$p_wall" "$((p_rss / 1024))"
printf '%-28s %8s s  %8s MB\n' "pahole -J -j (copy, threads)" "$j_wall" "$((j_rss / 1024))"
printf '%-28s %8s s  %8s MB\n' "btfinline stats" "$s_wall" "$((s_rss / 1024))"
awk -v s="$s_wall" -v p="$p_wall" -v j="$j_wall" -v r="$s_rss" 'BEGIN {
	printf "ratio stats/pahole: %.2f (goal <= 0.70): %s\n", s / p, s / p <= 0.7 ? "met" : "NOT met"
	printf "ratio stats/(pahole -J -j): %.2f\n", s / j
	printf "stats peak RSS: %d MB (goal <= 400 MB): %s\n", r / 1024, r <= 400 * 1024 ? "met" : "NOT met"
}'
grep -E 'inline instances|extraction time' "$tmp/stats.out"
