#!/bin/bash
# `make interop`: upstream libbpf (BUILD/interop/check, built against
# LIBBPF_SRC) against btfinline's own reader, on every fixture's blob and,
# when it is cached, the Debian kernel's:
#  - upstream btf__new_split() parses the blob;
#  - its per-kind counts and bytes equal `btfinline dump FILE -j`'s table;
#  - every LOCSEC site it decodes (function, offset, each argument's
#    location, size, signedness where dump shows it) is one dump lists;
#  - field by field, independent of dump's text: check -c prints every site
#    decoded from upstream's records (section, function and its id, offset,
#    LOC_PROTO id, per argument kind, registers, offset or constant, size,
#    signedness) and BUILD/interop/ours the same line from btfinline's
#    reader API (struct btfi_loc); both sorted, they must be equal;
#  - LOCSEC entries strictly increasing in (func, offset) (upstream's tests);
#  - btf__raw_data() is the input, as parsed and re-serialized by upstream;
#  - dump of upstream's re-serialized bytes prints what dump of ours does.
# Usage: tests/interop/run.sh [BUILD]. Exit 0 when all equal, 1 otherwise.
set -u
B=${1:-build}
BIN=$B/btfinline
CHECK=$B/interop/check
OURS=$B/interop/ours
W=$B/interop/work
CACHE=${BTFI_CACHE:-$HOME/.cache/btfinline}
HERE=$(dirname "$0")
mkdir -p "$W"
fail=0
rows=()

# check_one LABEL BASE BLOB RAW DUMPFILE [--base BASE]: BLOB is what the
# checker reads (ELF or raw), RAW the same bytes alone (encode --raw),
# DUMPFILE what dump reads for the comparison.
check_one() {
	local label=$1 base=$2 blob=$3 raw=$4 dfile=$5 p=$W/$1 parsed=no kinds=- sites=- rawid=- reser=- redump=- signs=- res
	local canon=- fields=- nu no
	shift 5
	if "$CHECK" -o "$p.up" -c "$p.canon.up" "$base" "$blob" >"$p.check" 2>"$p.err"; then :; else
		fail=1
		sed 's/^/  /' "$p.err"
	fi
	if grep -qx 'parsed ok' "$p.check"; then
		parsed=ok
		"$BIN" dump "$dfile" "$@" -j >"$p.sum" || fail=1
		awk '$1 == "site" { print $3 }' "$p.check" | sort -u >"$p.funcs"
		xargs -r -a "$p.funcs" "$BIN" dump "$dfile" "$@" -j >"$p.sites" || fail=1
		if res=$(python3 "$HERE/compare.py" "$p.check" "$p.sum" "$p.sites"); then :; else fail=1; fi
		kinds=${res%% *}; kinds=${kinds#kinds=}
		sites=$(echo "$res" | sed 's/.*sites=\([^ ]*\).*/\1/')
		signs=$(echo "$res" | sed 's/.*signs=\([^ ]*\).*/\1/')
		[ "$kinds" = equal ] || fail=1
		rawid=$(sed -n 's/^raw parsed \([a-z]*\).*/\1/p' "$p.check")
		reser=$(sed -n 's/^raw reserialized \([a-z]*\).*/\1/p' "$p.check")
		[ "$rawid" = identical ] && [ "$reser" = identical ] || fail=1
		grep -q '^order strict' "$p.check" || { echo "  $label: LOCSEC entries not strictly increasing in (func, offset)"; fail=1; }
		# Every field of every site: upstream's decoding against our reader's.
		LC_ALL=C sort "$p.canon.up" >"$p.canon.up.s"
		if "$OURS" "$base" "$blob" >"$p.canon.ours" 2>"$p.ours.err"; then
			LC_ALL=C sort "$p.canon.ours" >"$p.canon.ours.s"
			nu=$(wc -l <"$p.canon.up.s"); no=$(wc -l <"$p.canon.ours.s")
			canon=$(LC_ALL=C comm -12 "$p.canon.up.s" "$p.canon.ours.s" | wc -l)/$((nu > no ? nu : no))
			if ! cmp -s "$p.canon.up.s" "$p.canon.ours.s"; then
				fail=1
				echo "  $label: sites differ field by field (< upstream, > ours):"
				diff "$p.canon.up.s" "$p.canon.ours.s" | grep '^[<>]' | head -20 | sed 's/^/    /'
			fi
		else
			fail=1
			sed 's/^/  ours: /' "$p.ours.err"
		fi
		# args: LOC_PROTO slots; located: not none; signed: SIGNED set.
		fields=$(awk '{ for (i = 6; i <= NF; i++) { a++; if ($i !~ /=none$/) l++; if ($i ~ /\/s$/) s++ } }
			END { printf "%d/%d/%d", s, l, a }' "$p.canon.up.s")
		# Upstream's bytes back into btfinline: the raw file and dump's view.
		redump=differs
		if cmp -s "$p.up" "$raw" &&
		   "$BIN" dump "$p.up" --base "$base" -j | sed 's/^{"file":"[^"]*",//' >"$p.up.sum" &&
		   "$BIN" dump "$raw" --base "$base" -j | sed 's/^{"file":"[^"]*",//' >"$p.raw.sum" &&
		   cmp -s "$p.up.sum" "$p.raw.sum" &&
		   xargs -r -a "$p.funcs" "$BIN" dump "$p.up" --base "$base" -j >"$p.up.sites" &&
		   { [ "$raw" = "$dfile" ] && cp "$p.sites" "$p.raw.sites" ||
		     xargs -r -a "$p.funcs" "$BIN" dump "$raw" --base "$base" -j >"$p.raw.sites"; } &&
		   cmp -s "$p.up.sites" "$p.raw.sites"; then
			redump=identical
		else
			fail=1
		fi
	else
		fail=1
	fi
	rows+=("$(printf '%-22s %-6s %-7s %-15s %-10s %-13s %-10s %-14s %-15s %s' "$label" "$parsed" \
		"$kinds" "$sites" "$rawid" "$reser" "$redump" "${signs:--}" "$canon" "$fields")")
}

[ -x "$CHECK" ] && [ -x "$OURS" ] && [ -x "$BIN" ] || { echo "interop: build $CHECK, $OURS and $BIN first (make interop LIBBPF_SRC=DIR)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "interop: python3 is needed (apt-get install python3)" >&2; exit 2; }
echo "interop: upstream $("$CHECK" -V) vs $BIN"

n=0
for f in "$B"/fixtures/*-{gcc,clang}-dw[45]; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	if ! "$BIN" encode "$f" -o "$W/$name.enc" --raw "$W/$name.blob" 2>"$W/$name.encerr"; then
		echo "  $name: encode failed: $(cat "$W/$name.encerr")"
		fail=1
		continue
	fi
	check_one "$name" "$f" "$W/$name.enc" "$W/$name.blob" "$W/$name.enc"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "interop: no fixtures in $B/fixtures (make fixtures)" >&2; fail=1; }

V=$CACHE/vmlinux
if [ -f "$V" ]; then
	K=$W/vmlinux.blob
	# The kernel encode takes a while: redo it only when btfinline changed.
	if [ ! -s "$K" ] || [ "$BIN" -nt "$K" ] || [ "$V" -nt "$K" ]; then
		"$BIN" encode "$V" --raw "$K.tmp" -v && mv "$K.tmp" "$K" || { echo "  vmlinux: encode failed"; fail=1; }
	fi
	[ -s "$K" ] && check_one vmlinux "$V" "$K" "$K" "$K" --base "$V"
else
	echo "interop: no $V (tests/data/fetch-kernel.sh): kernel skipped"
fi

printf '%-22s %-6s %-7s %-15s %-10s %-13s %-10s %-14s %-15s %s\n' input parsed kinds "sites equal" raw \
	re-serial. "dump(up)" "signs shown" "fields equal" "signed/loc/args"
printf '%s\n' "${rows[@]}"
if [ "$fail" = 0 ]; then echo "interop: all equal"; else echo "interop: DIFFERENCES (details above, files in $W)"; fi
exit "$fail"
