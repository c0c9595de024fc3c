#!/bin/bash
# Speed/memory goal of `btfinline stats` (issue 2, section 5): run, in the
# same run on the same vmlinux, `btfinline stats` and `pahole -J` (on a copy)
# under /usr/bin/time -v, and print both wall times, peak RSS and the ratio.
# Goal on 2 cores: ratio <= 0.7 and stats peak RSS <= 400 MB. Also prints
# the ratio to the multi-threaded `pahole -J -j` (informative).
# Usage: bench/stats-vs-pahole.sh [VMLINUX]   (default: the cached Debian one)
. "$(dirname "$0")/lib.sh"

cp "$VMLINUX" "$tmp/vmlinux.copy"
sync
# Warm the page cache for both so neither pays the first read.
cat "$VMLINUX" "$tmp/vmlinux.copy" >/dev/null
measure pahole pahole -J "$tmp/vmlinux.copy"
p_wall=$WALL p_rss=$RSS
cp "$VMLINUX" "$tmp/vmlinux.copy2"
measure pahole-j pahole -J -j "$tmp/vmlinux.copy2"
j_wall=$WALL j_rss=$RSS
measure stats "$BTFINLINE" stats "$VMLINUX"
s_wall=$WALL s_rss=$RSS
printf '%-28s %8s s  %8s MB\n' "pahole -J (copy)" "$p_wall" "$((p_rss / 1024))"
printf '%-28s %8s s  %8s MB\n' "pahole -J -j (copy, threads)" "$j_wall" "$((j_rss / 1024))"
printf '%-28s %8s s  %8s MB\n' "btfinline stats" "$s_wall" "$((s_rss / 1024))"
awk -v s="$s_wall" -v p="$p_wall" -v j="$j_wall" -v r="$s_rss" 'BEGIN {
	printf "ratio stats/pahole: %.2f (goal <= 0.70): %s\n", s / p, s / p <= 0.7 ? "met" : "NOT met"
	printf "ratio stats/(pahole -J -j): %.2f\n", s / j
	printf "stats peak RSS: %d MB (goal <= 400 MB): %s\n", r / 1024, r <= 400 * 1024 ? "met" : "NOT met"
}'
grep -E 'inline instances|extraction time' "$tmp/stats.out"
