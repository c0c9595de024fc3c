#!/bin/bash
# The VM workloads drive the kernel's inline sites with the values the test
# chose, checked with an independent tool: perf probe reads the debug
# vmlinux's DWARF and writes kprobe_events definitions (all inline sites of
# the function, arguments by register/memory), the VM's own tracefs kprobes
# print the values. This is the reference the btfinline kernel trace test
# compares against (docs/KERNEL.md).
#   blk_account_io_start (inlined everywhere): loop device direct I/O
#   ksys_fallocate (selectively inlined): fallocate(1) with chosen offset/len
source "$(dirname "$0")/kernel/lib.sh"
kernel_test_init workload
command -v perf >/dev/null || fail "perf not installed (scripts/deps.sh installs linux-perf)"
set -e

# perf's probe definitions, renamed to btfi/<func>_<n> so each site is
# told apart in the trace. perf marks an argument without a location with
# the placeholder \deade12d, which tracefs rejects: drop those arguments.
defs() {	# func args...
	local f=$1; shift
	perf probe -k "$KCACHE/vmlinux" -D "$f $*" 2>/dev/null |
		awk -v f="$f" '/^p:/ { $1 = "p:btfi/" f "_" n++; print }' |
		sed 's/ [^ =]*=\\deade12d:[a-z0-9]*//g'
}
defs blk_account_io_start req 'req->__data_len' >"$KOUT/kprobes"
defs ksys_fallocate fd mode offset len >>"$KOUT/kprobes"
cat "$KOUT/kprobes"
nbas=$(grep -c blk_account_io_start_ "$KOUT/kprobes" || true)
nfa=$(grep -c ksys_fallocate_ "$KOUT/kprobes" || true)
[ "$nbas" -ge 1 ] && [ "$nfa" -ge 2 ] || fail "perf probe found $nbas/$nfa sites"
# The site the blk-mq submit path uses, and the x86-64 syscall's site.
bas_site=$(awk '/blk_account_io_start_/ && $2 ~ /^blk_mq_submit_bio\+/ { print $1 }' "$KOUT/kprobes")
fa_site=$(awk '/ksys_fallocate_/ && $2 ~ /^__x64_sys_fallocate\+/ { print $1 }' "$KOUT/kprobes")
[ -n "$bas_site" ] && [ -n "$fa_site" ] || fail "expected sites not in perf probe output"
bas_site=${bas_site#p:btfi/}; fa_site=${fa_site#p:btfi/}

# The project's scanner (src/lib/dwarf/scan.c) must find a site in every caller
# perf found one in (the address may differ: perf probes DW_AT_entry_pc
# even when it lies in an empty range, as in blk_execute_rq; the scanner
# does not), and each of its sites must be a valid kprobe address in the
# running kernel (registered below without arguments).
build_ksites() {
	gcc -O2 -std=gnu11 -D_GNU_SOURCE -I"$KTOP/include" -I"$KTOP/src/lib" -o "$KOUT/ksites" \
		"$KTOP/tests/kernel/ksites.c" "$KBUILD/libbtfinline.a" $(btfi_libs)
}
build_ksites || fail "building ksites"
"$KOUT/ksites" "$KCACHE/vmlinux" blk_account_io_start >"$KOUT/scan_sites"
cat "$KOUT/scan_sites"
while read -r p site _; do
	case $p in p:btfi/blk_account_io_start_*) ;; *) continue ;; esac
	grep -q " ${site%+*}+0x" "$KOUT/scan_sites" || fail "perf site $site: caller has no scanner site"
done <"$KOUT/kprobes"
awk '{ print "p:scan/s_" NR-1, $3 }' "$KOUT/scan_sites" >>"$KOUT/kprobes"
# With accounting on, the nested instance (the split-off body) runs too.
outer=$(awk -v c="${bas_site}" '$3 ~ /^blk_mq_submit_bio\+/ { print "s_" NR-1; exit }' "$KOUT/scan_sites")
nested_mq=$(awk '$3 ~ /^blk_mq_submit_bio\+/ { n++; if (n == 2) { print "s_" NR-1; exit } }' "$KOUT/scan_sites")
[ -n "$outer" ] && [ -n "$nested_mq" ] || fail "expected two scanner sites in blk_mq_submit_bio"

rbs=$((512 * (1 + RANDOM % 128))); rcnt=$((2 + RANDOM % 6))
wbs=$((512 * (1 + RANDOM % 128))); wcnt=$((2 + RANDOM % 6))
[ $wbs != $rbs ] || wbs=$((rbs == 65536 ? 512 : rbs + 512))	# tell them apart
off=$((4096 * (RANDOM % 1000))); len=$((1 + RANDOM * 7))
echo "reads ${rcnt}x$rbs writes ${wcnt}x$wbs fallocate off=$off len=$len"
cat >"$KOUT/vm.sh" <<EOS
. ./workload.sh
T=/sys/kernel/tracing
wl_loop_setup || { echo "loop setup failed"; exit 1; }
cat kprobes >>\$T/kprobe_events || exit 1
echo 1 >\$T/events/btfi/enable
echo 1 >\$T/events/scan/enable
wl_iostats 1
wl_block_read $rbs $rcnt || echo "read failed"
wl_iostats 0
wl_block_write $wbs $wcnt || echo "write failed"
wl_fallocate $off $len || echo "fallocate failed"
echo 0 >\$T/events/btfi/enable
echo 0 >\$T/events/scan/enable
grep -v '^#' \$T/trace | sed -E 's/^.* [0-9]+\.[0-9]+: ([A-Za-z0-9_]+): /EV \1: /'
EOS
t0=$SECONDS
rc=0
odirect=$(build_odirect) || fail "building tests/kernel/odirect.c"
"$KTOP/tests/kernel/vm-run.sh" -o "$KOUT/vm" "$KOUT/vm.sh" "$KOUT/kprobes" \
	"$KTOP/tests/kernel/workload.sh" "$odirect:odirect" >"$KOUT/out" || rc=$?
cat "$KOUT/out"
echo "vm: rc=$rc, $((SECONDS - t0))s"
[ $rc = 0 ] || fail "VM script exit status $rc (console: $KOUT/vm/console.log)"
o=$KOUT/out
! grep -q failed "$o" || fail "workload failed"

n=$(grep -Ec "^EV $bas_site: .* req=0xffff[0-9a-f]{12} __data_len=$(printf '0x%x' $rbs)\$" "$o" || true)
[ "$n" = "$rcnt" ] || fail "$bas_site: $n reads of $rbs bytes, expected $rcnt"
echo "ok: $rcnt requests of $rbs bytes at $bas_site"
n=$(grep -Ec "^EV $bas_site: .* req=0xffff[0-9a-f]{12} __data_len=$(printf '0x%x' $wbs)\$" "$o" || true)
[ "$n" = "$wcnt" ] || fail "$bas_site: $n writes of $wbs bytes, expected $wcnt"
echo "ok: $wcnt requests of $wbs bytes at $bas_site"
n=$(grep -c "^EV blk_account_io_start_" "$o" || true)
[ "$n" = $((rcnt + wcnt)) ] || fail "$n blk_account_io_start hits in all, expected $((rcnt + wcnt))"
echo "ok: $((rcnt + wcnt)) blk_account_io_start hits in all"
n=$(grep -c "^EV $outer: " "$o" || true)
[ "$n" = $((rcnt + wcnt)) ] || fail "scanner site $outer: $n hits, expected $((rcnt + wcnt))"
n=$(grep -c "^EV $nested_mq: " "$o" || true)
[ "$n" = $rcnt ] || fail "nested scanner site $nested_mq: $n hits, expected $rcnt (reads with iostats on)"
n=$(grep -c "^EV s_" "$o" || true)
[ "$n" = $((2 * rcnt + wcnt)) ] || fail "scanner sites: $n hits in all, expected $((2 * rcnt + wcnt))"
echo "ok: scanner sites: $outer hit by every request, nested $nested_mq only with iostats on"
expect_line "$o" "^EV $fa_site: .* fd=[0-9]+ mode=0 offset=$off len=$len\$"
n=$(grep -c "^EV ksys_fallocate_" "$o" || true)
[ "$n" = 1 ] || fail "$n ksys_fallocate hits, expected 1"
echo PASS
