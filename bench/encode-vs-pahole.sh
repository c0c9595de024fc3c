#!/bin/bash
# Speed goal of `btfinline encode` (issue 3, section 5): in the same run on
# the same vmlinux, `pahole -J` on a copy against `btfinline encode` (which
# runs the whole DWARF scan, then encodes, then writes the ELF copy), under
# /usr/bin/time. Prints wall times, peak RSS and the ratio encode/pahole.
# Goal: ratio <= 1.0. Also times `encode --raw` (no 590 MB ELF copy).
# Usage: bench/encode-vs-pahole.sh [VMLINUX]   (default: the cached Debian one)
. "$(dirname "$0")/lib.sh"

cp "$VMLINUX" "$tmp/vmlinux.copy"
sync
cat "$VMLINUX" "$tmp/vmlinux.copy" >/dev/null
measure pahole pahole -J "$tmp/vmlinux.copy"
p_wall=$WALL p_rss=$RSS
rm -f "$tmp/vmlinux.copy"
measure encode "$BTFINLINE" encode "$VMLINUX" -o "$tmp/vmlinux.enc" -v
e_wall=$WALL e_rss=$RSS
measure raw "$BTFINLINE" encode "$VMLINUX" --raw "$tmp/vmlinux.inline"
r_wall=$WALL r_rss=$RSS
sed 's/^/  /' "$tmp/encode.out"
printf '%-34s %8s s  %6s MB\n' "pahole -J (copy)" "$p_wall" "$((p_rss / 1024))"
printf '%-34s %8s s  %6s MB\n' "btfinline encode -o (scan+encode)" "$e_wall" "$((e_rss / 1024))"
printf '%-34s %8s s  %6s MB\n' "btfinline encode --raw" "$r_wall" "$((r_rss / 1024))"
awk -v e="$e_wall" -v r="$r_wall" -v p="$p_wall" 'BEGIN {
	printf "ratio encode/pahole: %.2f (goal <= 1.0): %s\n", e / p, e / p <= 1.0 ? "met" : "NOT met"
	printf "ratio encode --raw/pahole: %.2f\n", r / p
}'
