#!/bin/bash
# Kernel modules read from Debian's 6.1 -dbg package (no VM: the files only;
# tests/t_kernel_modtrace.sh traces them in qemu):
#  1. stats on overlay.ko and xfs.ko: inline instances = llvm-dwarfdump
#     --statistics (its own DWARF reader and relocation), the table's sums;
#     the stripped module of the image package finds the same DWARF under
#     the debug root by its module path;
#  2. round trip exact (build/tests/test_roundtrip --base VMLINUX), also
#     read back from a file over the module's .BTF and vmlinux's;
#  3. encode: a module needs --base (one line), --base VMLINUX ELF or its raw
#     .BTF give the same bytes, `encode -o` of the stripped module holds
#     them, .ko.xz, .ko.gz, .ko.bz2 give them too (--raw), .ko.zst is one
#     error line, and so is each of those cut short (no endless loop);
#  4. dump without the module loaded: the inline sites perf probe (its own
#     DWARF reader) finds for a sample of functions, by caller+offset; the
#     raw blob over --base MODULE --base VMLINUX dumps the same sites; a
#     wrong vmlinux base is one error line.
#  6. every module of the package under ASan+UBSan (build-asan, when
#     built): `stats --sites` exits 0 with no report and prints what the
#     normal build prints (the relocation reader and the per-call rules
#     on 1,121 real inputs; rmi_core.ko found a memcpy from NULL);
#  5. per-call probes in a module (its branches read through its own
#     relocations) = those of a copy GNU ld linked (tests/kernel/modlink.sh),
#     for overlay.ko, xfs.ko and kvm-amd.ko; and the module's instances are
#     placed by the per-call rules, not at entry-pc's address (no_cfg 0).
set -u
command -v llvm-dwarfdump >/dev/null || { echo "skip: no llvm-dwarfdump"; exit 77; }
command -v perf >/dev/null || { echo "FAIL: perf not installed (scripts/deps.sh installs linux-perf)"; exit 1; }
CACHE=$("$TOP/tests/data/fetch-kernel.sh") || { echo "skip: cannot fetch the kernel"; exit 77; }
BUILD=${BUILD:-build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad=0
ok() { echo "ok   $*"; }
no() { echo "FAIL $*"; bad=$((bad + 1)); }
DBG=$(echo "$CACHE"/pkg-linux-image-*-dbg/usr/lib/debug)
VER=$(basename "$(readlink -f "$CACHE/modules")")
V=$CACHE/vmlinux
ovl=$DBG/lib/modules/$VER/kernel/fs/overlayfs/overlay.ko
xfs=$DBG/lib/modules/$VER/kernel/fs/xfs/xfs.ko
ovl_run=$CACHE/modules/kernel/fs/overlayfs/overlay.ko
[ -f "$ovl" ] && [ -f "$xfs" ] && [ -f "$ovl_run" ] || { echo "FAIL: modules missing under $DBG, $CACHE/modules"; exit 1; }

# --- 1. instance counts
for m in "$ovl" "$xfs"; do
	n=$(basename "$m")
	"$BTFINLINE" stats "$m" --json >"$tmp/$n.json" || { no "$n: stats exit $?"; continue; }
	llvm-dwarfdump --statistics "$m" >"$tmp/$n.llvm" || { no "$n: llvm-dwarfdump"; continue; }
	python3 - "$tmp/$n.json" "$tmp/$n.llvm" "$n" <<'PY' && ok "$n: counts" || no "$n: counts"
import json, sys
o, l, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
want = l["#inlined functions"]
checks = [
    (f"inline_instances {o['inline_instances']} == llvm-dwarfdump #inlined functions {want}",
     o["inline_instances"] == want and want > 1000),
    ("params_recoverable == sum of classes", o["params_recoverable"] == sum(o["classes"].values())),
    ("params == recoverable + unavailable", o["params"] == o["params_recoverable"] + sum(o["unavailable"].values())),
    ("selective + full sites == instances",
     o["sites_selectively_inlined"] + o["sites_fully_inlined"] == o["inline_instances"]),
    ("no ADDR constants (a module's sections load apart)", o["classes"].get("addr", 0) == 0),
]
for what, good in checks:
    print(("  ok   " if good else "  FAIL ") + n + ": " + what)
sys.exit(0 if all(g for _, g in checks) else 1)
PY
done
"$BTFINLINE" stats "$ovl_run" --debug-dir "$DBG" -v --json 2>"$tmp/run.err" >"$tmp/run.json" ||
	no "stripped overlay.ko: stats exit $? ($(cat "$tmp/run.err"))"
grep -q "DWARF from $ovl (module path)" "$tmp/run.err" && ok "stripped overlay.ko: DWARF found at ROOT/lib/modules/..." ||
	no "stripped overlay.ko: $(cat "$tmp/run.err")"
cmp -s <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["inline_instances"])' "$tmp/run.json") \
       <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["inline_instances"])' "$tmp/overlay.ko.json") &&
	ok "stripped overlay.ko: same count as the debug module" || no "stripped overlay.ko: count differs"

# --- 2. the module's .BTF over vmlinux's, flattened = libbpf's own split
"$TOP/$BUILD/tests/test_kmod" "$ovl_run" "$V" >"$tmp/kmod" 2>&1 && ok "$(grep 'types through' "$tmp/kmod")" ||
	no "test_kmod: $(tail -n 3 "$tmp/kmod")"

# --- 2. round trip
"$TOP/$BUILD/tests/test_roundtrip" --base "$V" "$ovl" "$xfs" >"$tmp/rt" 2>&1 && ok "round trip" || no "round trip"
sed 's/^/     /' "$tmp/rt"
[ "$(grep -c '^ok .*sites from the scan' "$tmp/rt")" = 2 ] || no "round trip: not both modules"

# --- 3. encode
"$BTFINLINE" encode "$ovl" --raw "$tmp/x" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "kernel module.*--base VMLINUX" "$tmp/err" &&
	ok "no --base: one line, exit 1" || no "no --base: rc $rc: $(cat "$tmp/err")"
"$BTFINLINE" encode "$ovl" --base "$V" --raw "$tmp/ovl.blob" || no "encode overlay.ko"
"$BTFINLINE" encode "$xfs" --base "$V" --raw "$tmp/xfs.blob" || no "encode xfs.ko"
objcopy -O binary --only-section=.BTF "$V" "$tmp/vmlinux.btf"
"$BTFINLINE" encode "$ovl" --base "$tmp/vmlinux.btf" --raw "$tmp/ovl2.blob" || no "encode --base raw BTF"
cmp -s "$tmp/ovl.blob" "$tmp/ovl2.blob" && ok "--base vmlinux ELF or its raw .BTF: same blob" || no "--base ELF vs raw differ"
"$BTFINLINE" encode "$ovl_run" --debug-dir "$DBG" --base "$V" -o "$tmp/ovl.enc.ko" || no "encode -o stripped overlay.ko"
objcopy -O binary --only-section=.BTF.inline --set-section-flags .BTF.inline=alloc "$tmp/ovl.enc.ko" "$tmp/sec"
cmp -s "$tmp/ovl.blob" "$tmp/sec" && ok "encode -o of the stripped module: the same blob" || no "encode -o blob differs"
# A compressed module: libdwfl decompresses it for the DWARF, the scan
# again for its relocations as stored (libdwfl's image has applied some):
# the same blob as the plain module's, xz, gzip and bzip2.
cp "$ovl" "$tmp/o.ko" && xz -k "$tmp/o.ko" && gzip -k "$tmp/o.ko" && bzip2 -k "$tmp/o.ko" || no "compressing"
for z in xz gz bz2; do
	"$BTFINLINE" encode "$tmp/o.ko.$z" --base "$V" --raw "$tmp/$z.blob" &&
		cmp -s "$tmp/ovl.blob" "$tmp/$z.blob" && ok ".ko.$z: the same blob" || no ".ko.$z"
done
# cut short: elfutils 0.188's bzip2 reader loops for ever on it; ours stops
for z in xz gz bz2; do
	head -c $(($(stat -c %s "$tmp/o.ko.$z") * 4 / 5)) "$tmp/o.ko.$z" >"$tmp/cut.ko.$z"
	timeout 60 "$BTFINLINE" stats "$tmp/cut.ko.$z" >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "cut.ko.$z: corrupt or truncated" "$tmp/err" &&
		ok "cut .ko.$z: one line, exit 1" || no "cut .ko.$z: rc $rc $(cat "$tmp/err")"
done
"$BTFINLINE" encode "$tmp/o.ko.xz" --base "$V" -o "$tmp/xz.ko" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok ".ko.xz -o: usage, one line" || no ".ko.xz -o: rc $rc $(cat "$tmp/err")"
if command -v zstd >/dev/null; then
	zstd -q "$tmp/o.ko" -o "$tmp/o.ko.zst"
	"$BTFINLINE" stats "$tmp/o.ko.zst" >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "zstd" "$tmp/err" &&
		ok ".ko.zst: one line: $(cat "$tmp/err")" || no ".ko.zst: rc $rc $(cat "$tmp/err")"
fi

# --- 4. dump: perf probe's inline sites. perf probes each instance at its
# DW_AT_entry_pc: the blobs compared are encoded with --probe=entry-pc (the
# per-call default moves some probes; docs/DESIGN.md). perf also probes instances
# whose only range is empty (GCC keeps their DW_AT_entry_pc); the scan gives
# those no address (stats: "without any code address"), so perf's sites
# not in the dump must be at most that many (the dump may have more: perf
# lists one of two nested instances). perf refuses functions with more
# than 128 sites.
funcs_ovl="ovl_cache_entry_add_rb dir_emit i_size_write ovl_do_setxattr ovl_upper_mnt ovl_upper_mnt_userns dget ovl_dentry_upper ovl_do_rename path_put_init"
funcs_xfs="xfs_ifork_ptr xfs_is_shutdown xfs_buf_relse xfs_inode_has_attr_fork xfs_has_v3inodes xfs_buf_daddr xfs_btree_get_sibling xfs_inode_data_fork_size xfs_end_cksum xfs_has_reflink"
site_set() {	# dump output -> caller+decimal offset per site
	python3 -c '
import re, sys
for l in sys.stdin:
    m = re.match(r"  \.\S+ (\S+)\+0x([0-9a-f]+):", l)
    if m: print("%s+%d" % (m.group(1), int(m.group(2), 16)))' | sort
}
check_perf() {	# module.ko dumpable func...
	local ko=$1 dumpable=$2; shift 2
	local f n=0 nperf=0 nsame=0 nnoaddr=0 nextra=0 miss noaddr
	"$BTFINLINE" stats "$ko" --probe=entry-pc --sites >"$tmp/sites" 2>/dev/null
	for f in "$@"; do
		perf probe -m "$ko" -D "$f" 2>/dev/null | awk '$1 ~ /^p:/ { print $2 }' | sed 's/^[a-z_]*://' |
			grep -v "^$f\(\.[a-z0-9.]*\)\?+0\$" | sort >"$tmp/perf.$f"
		"$BTFINLINE" dump "$dumpable" --base "$V" "$f" | site_set >"$tmp/ours.$f"
		miss=$(comm -23 "$tmp/perf.$f" "$tmp/ours.$f" | wc -l)
		noaddr=$(grep -c "^site $f 0x0 in " "$tmp/sites")
		if [ -s "$tmp/perf.$f" ] && [ "$miss" -le "$noaddr" ]; then
			n=$((n + 1)); nperf=$((nperf + $(wc -l <"$tmp/perf.$f")))
			nsame=$((nsame + $(comm -12 "$tmp/perf.$f" "$tmp/ours.$f" | wc -l)))
			nnoaddr=$((nnoaddr + miss)); nextra=$((nextra + $(comm -13 "$tmp/perf.$f" "$tmp/ours.$f" | wc -l)))
		else
			no "$(basename "$ko") $f: perf probe has $miss sites not in the dump, the scan $noaddr without address: $(comm -23 "$tmp/perf.$f" "$tmp/ours.$f" | head -3 | tr '\n' ' ')"
		fi
	done
	ok "$(basename "$ko"): $n functions, perf probe's $nperf inline sites: $nsame in the dump (caller+offset), $nnoaddr at instances the scan gives no address; $nextra only in the dump"
}
"$BTFINLINE" encode "$ovl_run" --debug-dir "$DBG" --base "$V" --probe=entry-pc -o "$tmp/ovl.epc.ko" ||
	no "encode --probe=entry-pc overlay.ko"
check_perf "$ovl" "$tmp/ovl.epc.ko" $funcs_ovl
"$BTFINLINE" encode "$xfs" --base "$V" --probe=entry-pc -o "$tmp/xfs.epc.ko" || no "encode -o xfs.ko"
check_perf "$xfs" "$tmp/xfs.epc.ko" $funcs_xfs
for f in $funcs_ovl; do
	"$BTFINLINE" dump "$tmp/ovl.enc.ko" --base "$V" "$f" | sed -E 's/^(  \.[^ ]+) [^:]*:/\1:/'
done >"$tmp/elf.dump"
"$BTFINLINE" dump "$tmp/ovl.blob" --base "$ovl" --base "$V" $funcs_ovl | sed '/^  ?: /d' >"$tmp/raw.dump"
sed '/^  ?: /d' "$tmp/elf.dump" | cmp -s - "$tmp/raw.dump" &&
	ok "raw blob --base MODULE --base VMLINUX: the same sites and locations ($(grep -c '^  \.' "$tmp/raw.dump") sites)" ||
	no "raw and ELF dumps differ: $(diff <(sed '/^  ?: /d' "$tmp/elf.dump") "$tmp/raw.dump" | head -4 | tr '\n' ' ')"
"$BTFINLINE" dump "$tmp/ovl.enc.ko" --base "$tmp/ovl.enc.ko" dget >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok "a module's own .BTF as vmlinux: one line: $(cat "$tmp/err")" ||
	no "wrong base's base: rc $rc: $(cat "$tmp/err")"
"$BTFINLINE" dump "$tmp/ovl.enc.ko" --base "$FIXTURES/shapes-gcc-dw5" dget >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok "another vmlinux: one line: $(cat "$tmp/err")" ||
	no "another vmlinux: rc $rc: $(cat "$tmp/err")"
# --- 5. per-call probes: the module's own relocations = ld's
kvm_amd=$DBG/lib/modules/$VER/kernel/arch/x86/kvm/kvm-amd.ko
for m in "$ovl" "$xfs" "$kvm_amd"; do
	"$TOP/tests/kernel/modlink.sh" "$BTFINLINE" "$m" "$tmp" >"$tmp/modlink" 2>&1 &&
		ok "per-call probes, $(head -n 1 "$tmp/modlink") from ld's linked copy" ||
		no "per-call probes: $(head -n 4 "$tmp/modlink" | tr '\n' ' ')"
done
python3 - "$tmp/xfs.ko.json" <<'PY' && ok "xfs.ko: every placed instance by the per-call rules (no_cfg 0)" || no "xfs.ko: no_cfg"
import json, sys
h = json.load(open(sys.argv[1]))["per_call"]
print("  xfs.ko per_call:", h)
sys.exit(0 if h.get("no_cfg", 1) == 0 and h.get("multi", 0) > 100 else 1)
PY
# --- 6. every module under ASan+UBSan
if [ -x "$TOP/build-asan/btfinline" ]; then
	n=0; nbad=0
	while read -r m; do
		n=$((n + 1))
		"$TOP/build-asan/btfinline" stats --sites "$m" >"$tmp/asan.out" 2>"$tmp/asan.err"; rc=$?
		"$BTFINLINE" stats --sites "$m" >"$tmp/asan.ref" 2>/dev/null
		if [ $rc != 0 ] || [ -s "$tmp/asan.err" ] || ! cmp -s "$tmp/asan.out" "$tmp/asan.ref"; then
			nbad=$((nbad + 1)); echo "  $(basename "$m"): rc $rc $(head -c 300 "$tmp/asan.err")"
		fi
	done < <(find "$DBG/lib/modules/$VER/kernel" -name '*.ko' | sort)
	[ $n -gt 1000 ] && [ $nbad = 0 ] && ok "ASan+UBSan: $n modules, exit 0, no report, the normal build's output" ||
		no "ASan+UBSan: $nbad of $n modules"
else
	echo "note: no build-asan/btfinline: the ASan sweep is skipped"
fi
[ $bad = 0 ] && echo PASS || { echo "$bad failed"; exit 1; }
