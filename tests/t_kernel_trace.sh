#!/bin/bash
# `btfinline trace -k` end to end on Debian's 6.1 under qemu, with a raw
# inline blob encoded from the debug vmlinux (cached by build id):
#  1. ksys_fallocate (selectively inlined): the site in __x64_sys_fallocate
#     prints the offset/len the test chose at random, and the same fd/mode
#     as perf probe's tracefs kprobe (independent DWARF reader) at the same
#     time;
#  2. blk_account_io_start (inlined everywhere, bcc #4638): one line per
#     block request on a loop device with req->__data_len = the block size,
#     the same (req, __data_len) sequence as the perf probe reference; the
#     nested partial-inlining instance (GCC's split part, inlined back) is
#     no site: one line per request also with --all-instances, -j; --count
#     and --duration;
#  3. a blob with another base, or --base with a changed BTF: one line, exit 1;
#  4. nothing left behind: no kprobe in /sys/kernel/debug/kprobes/list, no
#     BPF program or link (bpftool) after each exit (SIGTERM, SIGINT, -d);
#  5. narrowed arguments: an ia32 system call from a 64-bit process with
#     garbage in the registers' upper halves; __do_sys_nanosleep_time32's
#     rmtp (DWARF: low 32 bits of rbx) must print the 32-bit value;
#  7. a function the kernel has only as a GCC clone (ksys_msgctl.constprop.0:
#     `version` folded): trace -k ksys_msgctl probes the clone's entry with
#     its own locations; msqid/cmd are what the test passed, version IPC_64;
#     the caller read at the entry is do_syscall_64 (the syscall tail-jumps);
#  8. one event per call where GCC copied an inlined body onto two paths:
#     fdput in __x64_sys_preadv (0x61: the ESPIPE path, 0xb8: after
#     vfs_readv); N preadv calls on a file and M on a pipe give N + M events
#     there, one per call (the copy after vfs_readv had no probe before);
#  9. a body that is its own loop, entered by a branch of the caller's:
#     io_ring_add_registered_fd in io_ringfd_register searches the task's
#     ring-fd slots; K registrations in one io_uring_register call walk
#     1 + 2 + ... + K slots, and must give K events (probed at the loop's
#     exits), fd = each ring's fd, end = 16;
# 10. a call copied onto a way out of the loop around it: futex_wake_op's
#     double_unlock_hb after a failed operation (line 262) is tail-
#     duplicated onto each way out of the retry loop; N FUTEX_WAKE_OP
#     calls that do the operation and M with an unknown one (ENOSYS) give
#     N events at line 315 and M at line 262;
# 11. a constant address the code sets: copy_process's
#     list_add_tail_rcu(&p->tasks, &init_task.tasks) has no DWARF location
#     for head at its probe; `mov $init_task+off, %rsi` sets it there, a
#     link-time address KASLR moves: each fork's event has head =
#     init_task's address in /proc/kallsyms + offsetof(task_struct, tasks)
#     (pahole), not the link-time one;
# 12. a call whose argument load GCC put in the caller's loop: in
#     bdev_disk_changed, free_partitions(state)'s `state->parts` is
#     reloaded in the add_partition loop (the load is the instance's); a
#     loop device with an MBR of NP partitions (NP chosen at random, 2 to
#     4), scanned by `losetup -P` and again by `blockdev --rereadpt`: one
#     free_partitions event per scan (the binary before gave NP per scan),
#     each partition there (/sys/block/loop1/loop1pN);
# 13. a site on a branch (docs/FORMAT.md): copy_from_iter in
#     kernfs_fop_write_iter is entered, where kmalloc's buffer is not NULL,
#     by the caller's `jne` into the body's middle, which has no address of
#     its own there; K writes to a sysfs attribute (printk's `time`
#     parameter: no preallocated buffer) must give K events, each at that
#     jne (its condition tested on the flags at the probe); K selects
#     (tests/kernel/selectfds.c) passing a read, write or except set or
#     NULL in each pattern: one copy_from_user event in core_sys_select per
#     set passed, from = that set's address, none for a NULL one, though
#     the caller's jne's into the body run for every select;
# 14. a call folded to a lone jump: retry_estale in do_faccessat after N
#     access(X_OK) on a noexec mount (path_noexec's EACCES way: `jmp`
#     to the join line 489's own jmp takes, probed since 2026-12-07), K
#     access(W_OK) on a read-only mount (EROFS way) and J access(F_OK)
#     (res == 0: the call folded to nothing, no code, no event): N + K
#     events from that pid, N of them error=-13;
# 15. sites kprobes refuse, moved: do_mprotect_pkey's inlined
#     mmap_write_lock_killable begins with the mmap_lock tracepoint's
#     static key, do_sys_ftruncate's sb_start_write with might_sleep()'s
#     static call (check_kprobe_address_safe(): -EINVAL; the binary before
#     had its sites there, which best effort left out): N mprotect() and M
#     ftruncate() give N and M events there from that pid, one sb; L
#     mlock() give L in do_mlock, probed before its key with mm where it is
#     at the key (scan.c moved_locs()), the same mm as do_mprotect_pkey's
#     (best effort: both functions also have sites in notrace functions,
#     the __do_sys_* ones);
# 16. a one-call body whose argument is already in place on one way:
#     udp_sendmsg's ip_rt_put(rt) is `mov ...,%rdi; call dst_release` on its
#     ways to `out:` and a lone `call dst_release` on the RTCF_BROADCAST
#     way (a copy since 2026-12-07's thirteenth session): N sendto() to
#     127.0.0.1 and M to lo's broadcast address without SO_BROADCAST
#     (EACCES) give N + M events in udp_sendmsg from that pid;
#  6. a site kprobes cannot take (get_stack_guard_info is inlined once into
#     exc_double_fault, which the kernel's kprobe blacklist holds, and once
#     elsewhere): all-or-none refuses the function naming the site,
#     --best-effort attaches the other one and says which it left out.
source "$(dirname "$0")/kernel/lib.sh"
kernel_test_init trace
command -v perf >/dev/null || fail "perf not installed (scripts/deps.sh installs linux-perf)"
set -e
BTFINLINE=${BTFINLINE:-$KBUILD/btfinline}
FIXTURES=${FIXTURES:-$KBUILD/fixtures}

blob=$(kernel_inline_blob) || fail "encoding $KCACHE/vmlinux"
echo "blob: $blob ($(stat -c %s "$blob") bytes)"

# Inline info of another program (its base is not the kernel's BTF).
"$BTFINLINE" encode "$FIXTURES/shapes-gcc-dw5" --raw "$KOUT/wrong.blob" ||
	fail "encoding $FIXTURES/shapes-gcc-dw5"
# The right base with one string byte changed.
btf=$(vmlinux_btf)
cp "$btf" "$KOUT/bad.btf"
sz=$(stat -c %s "$KOUT/bad.btf")
printf 'Q' | dd of="$KOUT/bad.btf" bs=1 seek=$((sz - 2)) conv=notrunc status=none
! cmp -s "$btf" "$KOUT/bad.btf" || fail "bad.btf unchanged"

perf_probe_defs blk_account_io_start req 'req->__data_len' >"$KOUT/kprobes"
perf_probe_defs ksys_fallocate fd mode offset len >>"$KOUT/kprobes"
ref_bas=$(awk '/blk_account_io_start_/ && $2 ~ /^blk_mq_submit_bio\+/ { sub("p:btfi/", "", $1); print $1 }' "$KOUT/kprobes")
ref_fa=$(awk '/ksys_fallocate_/ && $2 ~ /^__x64_sys_fallocate\+/ { sub("p:btfi/", "", $1); print $1 }' "$KOUT/kprobes")
[ -n "$ref_bas" ] && [ -n "$ref_fa" ] || fail "perf probe reference sites missing (see $KOUT/kprobes)"

rbs=$((512 * (1 + RANDOM % 128))); rcnt=$((2 + RANDOM % 6))
wbs=$((512 * (1 + RANDOM % 128))); wcnt=$((2 + RANDOM % 6))
[ $wbs != $rbs ] || wbs=$((rbs == 65536 ? 512 : rbs + 512))
r2bs=$((512 * (1 + RANDOM % 128))); r2cnt=$((2 + RANDOM % 6))
r3cnt=$((2 + RANDOM % 6))
off=$((4096 * (RANDOM % 1000))); len=$((1 + RANDOM * 7))
echo "run1: fallocate off=$off len=$len, reads ${rcnt}x$rbs (iostats 1), writes ${wcnt}x$wbs (iostats 0)"
echo "run2: reads ${r2cnt}x$r2bs (iostats 1); run3: $r3cnt reads"

bpftool=$(command -v bpftool || true)
odirect=$(build_odirect) || fail "building tests/kernel/odirect.c"
# The public btfinline_attach_kprobe() alone, with the CLI's BPF program.
gcc -O2 -std=gnu11 -Wall -Wextra -I"$KTOP/include" -I"$KTOP/src/lib" -I"$KBUILD" \
	-o "$KOUT/kattach" "$KTOP/tests/kernel/kattach.c" "$KBUILD/libbtfinline.a" \
	$(btfi_libs) || fail "building tests/kernel/kattach.c"
off2=$((4096 * (RANDOM % 1000))); len2=$((1 + RANDOM * 5))
# 5. narrowed arguments: ia32 nanosleep_time32 with garbage above 32 bits
gcc -O2 -static -Wall -Wextra -o "$KOUT/ia32" "$KTOP/tests/kernel/ia32.c" || fail "building tests/kernel/ia32.c"
rq=$(printf '%x' $((0x10000000 + RANDOM * 4096))); rm_=$(printf '%x' $((0x80000000 + RANDOM * 64)))
# 7. a clone's entry: msgctl with a random (unknown) queue id, IPC_STAT
gcc -O2 -static -Wall -Wextra -o "$KOUT/msgctl" "$KTOP/tests/kernel/msgctl.c" || fail "building tests/kernel/msgctl.c"
mq=$((100000 + RANDOM))
# 8. a body copied onto two paths: preadv on a file and on a pipe
gcc -O2 -static -Wall -Wextra -o "$KOUT/preadv" "$KTOP/tests/kernel/preadv.c" || fail "building tests/kernel/preadv.c"
pn=$((2 + RANDOM % 5)); pm=$((1 + RANDOM % 4))
# 9. a loop-only body: io_uring ring fds registered in one call
gcc -O2 -static -Wall -Wextra -o "$KOUT/ringfd" "$KTOP/tests/kernel/ringfd.c" || fail "building tests/kernel/ringfd.c"
rk=$((3 + RANDOM % 4))
# 12. a disk image with an MBR of np primary partitions (64 sectors each)
np=$((2 + RANDOM % 3))
python3 - "$KOUT/parts.img" "$np" <<'PY' || fail "writing parts.img"
import struct, sys
mbr = bytearray(512)
for i in range(int(sys.argv[2])):
    mbr[446 + 16 * i:462 + 16 * i] = struct.pack("<B3sB3sII", 0, b"\0" * 3, 0x83, b"\0" * 3, 64 * (i + 1), 64)
mbr[510:512] = b"\x55\xaa"
with open(sys.argv[1], "wb") as f:
    f.write(mbr)
    f.truncate(1 << 20)
PY
# 10. a copy on a way out of a loop: futex(FUTEX_WAKE_OP), valid and unknown ops
gcc -O2 -static -Wall -Wextra -o "$KOUT/futexop" "$KTOP/tests/kernel/futexop.c" || fail "building tests/kernel/futexop.c"
fn=$((2 + RANDOM % 4)); fm=$((1 + RANDOM % 4))
# 14. a call folded to a lone jump: access() on noexec and read-only mounts
gcc -O2 -static -Wall -Wextra -o "$KOUT/access" "$KTOP/tests/kernel/access.c" || fail "building tests/kernel/access.c"
an=$((2 + RANDOM % 4)); ak=$((1 + RANDOM % 4)); aj=$((1 + RANDOM % 3))
# 15. sites moved off what kprobes refuse: mprotect() and ftruncate()
gcc -O2 -static -Wall -Wextra -o "$KOUT/keysites" "$KTOP/tests/kernel/keysites.c" || fail "building tests/kernel/keysites.c"
kn=$((2 + RANDOM % 5)); km=$((1 + RANDOM % 5)); kl=$((1 + RANDOM % 4))
# 16. a lone call whose argument is in place: sendto() to lo's broadcast
gcc -O2 -static -Wall -Wextra -o "$KOUT/udpbcast" "$KTOP/tests/kernel/udpbcast.c" || fail "building tests/kernel/udpbcast.c"
gcc -O2 -static -Wall -Wextra -o "$KOUT/forks" "$KTOP/tests/kernel/forks.c" || fail "building tests/kernel/forks.c"
gcc -O2 -static -Wall -Wextra -o "$KOUT/leases" "$KTOP/tests/kernel/leases.c" || fail "building tests/kernel/leases.c"
un=$((1 + RANDOM % 4)); um=$((1 + RANDOM % 4))
fk=$((6 + RANDOM % 5))
ln=$((2 + RANDOM % 4))
# 13. sites on a branch: copy_from_iter's in kernfs_fop_write_iter,
# copy_from_user's in core_sys_select (the offsets in the caller of FUNC's
# sites on a branch, from dump of the blob)
cond_sites() {	# FUNC CALLER
	local ka ksz text c a
	read -r ka ksz < <(nm -S "$KCACHE/vmlinux" | awk -v f="$2" '$4 == f { print $1, $2 }')
	text=$(vmlinux_sym _text)
	for c in $("$BTFINLINE" dump "$blob" --base "$btf" "$1" |
		   sed -nE 's/^  \.text\+0x([0-9a-f]+) if [a-z]+:.*/\1/p'); do
		a=$((0x$text + 0x$c))
		if [ $a -ge $((0x$ka)) ] && [ $a -lt $((0x$ka + 0x$ksz)) ]; then printf '0x%x\n' $((a - 0x$ka)); fi
	done
}
kw=$((2 + RANDOM % 5)); ks=$((8 + RANDOM % 8))
kcond=$(cond_sites copy_from_iter kernfs_fop_write_iter)
scond=$(cond_sites copy_from_user core_sys_select | paste -sd' ')
[ "$(echo "$kcond" | grep -c .)" = 1 ] || fail "copy_from_iter in kernfs_fop_write_iter: sites on a branch '$kcond', expected one (dump of $blob)"
[ -n "$scond" ] || fail "no site on a branch of copy_from_user in core_sys_select (dump of $blob)"
gcc -O2 -static -Wall -Wextra -o "$KOUT/selectfds" "$KTOP/tests/kernel/selectfds.c" || fail "building tests/kernel/selectfds.c"
echo "run16: $kw sysfs writes, copy_from_iter's site on a branch kernfs_fop_write_iter+$kcond; $ks selects, copy_from_user's core_sys_select+{$scond}"
cat >"$KOUT/vm.sh" <<EOS
. ./workload.sh
T=/sys/kernel/tracing
L=/sys/kernel/debug/kprobes/list
B="./btfinline trace -k --inline-btf k.blob"
wl_loop_setup || { echo "loop setup failed"; exit 1; }
$(vm_guest_fns)
TRACE=\$B
# What is left after a trace exits: registered kprobes beyond the tracefs
# reference events, BPF programs of ours, BPF links.
leftover() {	# name
	echo "LEFT \$1 kprobes=\$((\$(grep -c . \$L) - base)) progs=\$(./bpftool prog list 2>/dev/null | grep -c btfi_) links=\$(./bpftool link list 2>/dev/null | grep -Ec '^[0-9]+: ')"
}
cat kprobes >>\$T/kprobe_events || exit 1
base=\$(grep -c . \$L)
echo "KPROBES-REFERENCE \$base"

# run 1: SIGTERM; reference events on during this run only
start run1 ksys_fallocate 'blk_account_io_start req req->__data_len'
echo 1 >\$T/events/btfi/enable
wl_fallocate $off $len || echo "fallocate failed"
wl_iostats 1
wl_block_read $rbs $rcnt || echo "read failed"
wl_iostats 0
wl_block_write $wbs $wcnt || echo "write failed"
echo 0 >\$T/events/btfi/enable
grep -c . \$L | sed 's/^/KPROBES-DURING-RUN1 /'
leftover during-run1
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run1 \$?"
leftover run1

# run 2: nested instances shown, JSON, SIGINT
start run2 --all-instances -j blk_account_io_start
wl_iostats 1
wl_block_read $r2bs $r2cnt || echo "read failed"
sleep 0.3
kill -INT \$pid; wait \$pid; echo "RC run2 \$?"
leftover run2

# run 3: --count, ends by itself after -d
start run3 --count -d 4 blk_account_io_start
wl_iostats 0
wl_block_read 4096 $r3cnt || echo "read failed"
wait \$pid; echo "RC run3 \$?"
leftover run3

# run 7: rmtp is the low half of a register whose high half is garbage
start run7 __do_sys_nanosleep_time32
./ia32 $rq $rm_
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run7 \$?"
leftover run7

# run 10: a function only a GCC clone has
start run10 ksys_msgctl
./msgctl $mq 2
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run10 \$?"
leftover run10

# run 11: fdput's two copies in __x64_sys_preadv
start run11 --best-effort --no-entry fdput
./preadv /init $pn $pm
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run11 \$?"
leftover run11

# run 12: io_ring_add_registered_fd's slot loop, probed at its exits
start run12 --best-effort --no-entry io_ring_add_registered_fd
./ringfd $rk
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run12 \$?"
leftover run12

# run 13: double_unlock_hb's copies in futex_wake_op
start run13 --best-effort --no-entry double_unlock_hb
./futexop $fn $fm
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run13 \$?"
leftover run13

# run 14: a constant address argument, moved by KASLR
start run14 --best-effort --no-entry 'list_add_tail_rcu head'
for i in 1 2 3; do /bin/sh -c : ; done
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run14 \$?"
leftover run14
grep ' init_task\$' /proc/kallsyms | sed 's/^/KSYM /'

# run 15: free_partitions once per partition scan
start run15 --best-effort --no-entry free_partitions
losetup -P /dev/loop1 parts.img || echo "losetup -P failed"
sleep 0.2
blockdev --rereadpt /dev/loop1 || echo "rereadpt failed"
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run15 \$?"
leftover run15
ls -d /sys/block/loop1/loop1p* | sed 's/^/PART /'
losetup -d /dev/loop1

# run 16: a site on a branch: copy_from_iter in kernfs writes
start run16 --best-effort --no-entry copy_from_iter copy_from_user
./selectfds $ks
sh -c 'echo "KW pid \$\$"; i=0; while [ \$i -lt $kw ]; do echo Y >/sys/module/printk/parameters/time; i=\$((i + 1)); done'
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run16 \$?"
leftover run16

# run 17: retry_estale's folded copies in do_faccessat
mkdir -p nx ro && mount -t tmpfs -o noexec tmpfs nx && mount -t tmpfs tmpfs ro &&
	: >nx/f && chmod 755 nx/f && : >ro/f && mount -o remount,ro ro || echo "access mounts failed"
start run17 --best-effort --no-entry retry_estale
./access nx/f $an ro/f $ak $aj
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run17 \$?"
leftover run17

# run 18: sites moved off a static key and a static call (best effort:
# both have sites in notrace functions, __do_sys_mlockall's and others)
start run18 --best-effort --no-entry mmap_write_lock_killable sb_start_write
./keysites kf 0 0 0
./keysites kf $kn $km $kl
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run18 \$?"
leftover run18

# run 19: ip_rt_put's lone call on udp_sendmsg's broadcast way
start run19 --best-effort --no-entry ip_rt_put
./udpbcast $un $um
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run19 \$?"
leftover run19

# run 20: dup_task_struct once per fork, past static_cpu_has()'s jump
start run20 --best-effort --no-entry dup_task_struct
./forks $fk
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run20 \$?"
leftover run20

# run 21: locks_wake_up_blocks once per lease change, on each of
# lease_modify's three ways (the F_UNLCK way's copy of its entry row)
start run21 --best-effort --no-entry locks_wake_up_blocks
./leases lease.f $ln
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run21 \$?"
leftover run21

# run 8: a blacklisted site (noinstr text): refused, then best effort
\$B -d 0.3 get_stack_guard_info >run8.out 2>run8.err; echo "RC run8 \$?"
\$B -d 0.3 --best-effort get_stack_guard_info >run9.out 2>run9.err; echo "RC run9 \$?"
leftover run9

# wrong inline info / wrong base / right base
./btfinline trace -k --inline-btf wrong.blob ksys_fallocate >run4.out 2>run4.err; echo "RC run4 \$?"
\$B --base bad.btf ksys_fallocate >run5.out 2>run5.err; echo "RC run5 \$?"
\$B --base vmlinux.btf -d 0.5 ksys_fallocate >run6.out 2>run6.err; echo "RC run6 \$?"
leftover run6

./kattach k.blob $off2 $len2 | sed 's/^/kattach: /'
leftover kattach

grep -v '^#' \$T/trace | sed -E 's/^.* [0-9]+\.[0-9]+: ([A-Za-z0-9_]+): /EV \1: /'
echo >\$T/kprobe_events
echo "KLIST-BEGIN"; cat \$L; echo "KLIST-END"
for n in run1 run2 run3 run4 run5 run6 run7 run8 run9 run10 run11 run12 run13 run14 run15 run16 run17 run18 run19 run20 run21; do
	sed "s/^/\$n: /" \$n.out; sed "s/^/\$n-err: /" \$n.err
done
EOS
files=("$BTFINLINE:btfinline" "$blob:k.blob" "$KOUT/wrong.blob:wrong.blob" "$KOUT/bad.btf:bad.btf"
       "$btf:vmlinux.btf" "$KOUT/kprobes:kprobes" "$KTOP/tests/kernel/workload.sh:workload.sh" "$odirect:odirect" "$KOUT/kattach:kattach"
       "$KOUT/ia32:ia32" "$KOUT/msgctl:msgctl" "$KOUT/preadv:preadv" "$KOUT/ringfd:ringfd"
       "$KOUT/futexop:futexop" "$KOUT/parts.img:parts.img" "$KOUT/selectfds:selectfds"
       "$KOUT/access:access" "$KOUT/keysites:keysites" "$KOUT/udpbcast:udpbcast" "$KOUT/forks:forks"
       "$KOUT/leases:leases")
[ -n "$bpftool" ] && files+=("$bpftool:bpftool")
vm_run "${files[@]}"
o=$KOUT/out
# Event lines of run RUN from pid PID: FUNC at CALLER+off, then TAIL (a
# regex: the arguments) if given.
events() {	# RUN PID FUNC CALLER [TAIL]
	grep -E "^$1: [0-9.-]+ $2 $3 $4\+0x[0-9a-f]+ ${5-}" "$o" || true
}
# the number of lines of $1 (0 for none)
nlines() {
	printf '%s' "$1" | grep -c . || true
}
# RUN PID FUNC CALLER WANT FOR: exactly WANT events of FUNC in CALLER
# from PID (FOR: what made them, for the message); sets ev and n
expect_events() {
	ev=$(events "$1" "$2" "$3" "$4")
	n=$(nlines "$ev")
	[ "$n" = "$5" ] || fail "$1: $n $3 events in $4 from pid $2 for $6; events: $ev"
}
# the pid a workload program printed first on its line: "PROG pid P ..."
pid_of() {
	sed -nE "s/^$1 pid ([0-9]+) .*/\1/p" "$o"
}

# --- 1. ksys_fallocate: the values the workload passed, and perf's fd/mode
for r in run1 run2 run6; do expect_line "$o" "^RC $r 0\$"; done
line=$(grep -E "^run1: [0-9.]+ [0-9]+ ksys_fallocate __x64_sys_fallocate\+0x[0-9a-f]+ fd=" "$o") ||
	fail "no ksys_fallocate line at __x64_sys_fallocate"
[ "$(echo "$line" | wc -l)" = 1 ] || fail "ksys_fallocate printed $(echo "$line" | wc -l) times, expected once"
ref=$(grep -E "^EV $ref_fa: " "$o") || fail "reference $ref_fa did not fire"
rfd=$(echo "$ref" | sed -nE 's/.* fd=([0-9]+) mode=([0-9]+) .*/\1/p')
echo "$line" | grep -Eq " fd=$rfd mode=0 offset=$off len=$len\$" ||
	fail "ksys_fallocate: '$line', expected fd=$rfd mode=0 offset=$off len=$len (reference: $ref)"
echo "ok: ksys_fallocate fd=$rfd mode=0 offset=$off len=$len"

# --- 2. blk_account_io_start: one line per request, = the perf reference
bas() { grep -E "^$1: [0-9.]+ [0-9]+ blk_account_io_start " "$o" || true; }
bas run1 >"$KOUT/run1.bas"
n=$(grep -Ec " blk_mq_submit_bio\+0x[0-9a-f]+ req=0xffff[0-9a-f]{12} req->__data_len=$rbs\$" "$KOUT/run1.bas" || true)
[ "$n" = $rcnt ] || fail "run1: $n requests of $rbs bytes, expected $rcnt"
n=$(grep -Ec " blk_mq_submit_bio\+0x[0-9a-f]+ req=0xffff[0-9a-f]{12} req->__data_len=$wbs\$" "$KOUT/run1.bas" || true)
[ "$n" = $wcnt ] || fail "run1: $n requests of $wbs bytes, expected $wcnt"
n=$(wc -l <"$KOUT/run1.bas")
[ "$n" = $((rcnt + wcnt)) ] || fail "run1: $n blk_account_io_start lines, expected $((rcnt + wcnt)) (one per request)"
awk '{ sub("req->__data_len=", "", $7); sub("req=", "", $6); print $6, $7 }' "$KOUT/run1.bas" >"$KOUT/run1.pairs"
grep -E "^EV $ref_bas: " "$o" | sed -nE 's/.* req=(0x[0-9a-f]+) __data_len=(0x[0-9a-f]+)$/\1 \2/p' |
	while read -r req l; do echo "$req $((l))"; done >"$KOUT/ref.pairs"
cmp -s "$KOUT/run1.pairs" "$KOUT/ref.pairs" ||
	fail "run1 (req, __data_len) differ from perf probe's: $(diff "$KOUT/ref.pairs" "$KOUT/run1.pairs" | head -5 | tr '\n' ' ')"
echo "ok: $((rcnt + wcnt)) requests, (req, __data_len) sequence = perf probe reference, the nested split part no site"

sites=$(grep -c '^p:btfi/blk_account_io_start_' "$KOUT/kprobes")
grep "^run2: {.*\"func\": \"blk_account_io_start\"" "$o" >"$KOUT/run2.bas" || true
n=$(grep -c '"site": "blk_mq_submit_bio+' "$KOUT/run2.bas" || true)
[ "$n" = $r2cnt ] || fail "run2 (--all-instances, iostats 1): $n lines, expected $r2cnt (the nested split part is no site)"
n=$(grep -Ec "\"args\": \{\"req\": \"?0xffff[0-9a-f]{12}\"?\}" "$KOUT/run2.bas" || true)
[ "$n" = $r2cnt ] || fail "run2: $n JSON lines with a kernel req pointer, expected $r2cnt"
n=$(grep -o '"site": "blk_mq_submit_bio+0x[0-9a-f]*"' "$KOUT/run2.bas" | sort -u | wc -l)
[ "$n" = 1 ] || fail "run2: $n distinct blk_mq_submit_bio sites, expected 1"
echo "ok: --all-instances -j: $r2cnt requests, one site each (the split part is no site)"

n=$(grep -E "^run3: +[0-9]+ blk_account_io_start blk_mq_submit_bio\+" "$o" | awk '{ s += $2 } END { print s + 0 }')
[ "$n" = $r3cnt ] || fail "run3 --count: $n hits in blk_mq_submit_bio, expected $r3cnt"
expect_line "$o" "^RC run3 0\$"
echo "ok: --count -d: $r3cnt hits"
expect_line "$o" "^run1-err: btfinline: ([0-9]+) probes on 2 functions in kernel\$"

# --- 3. wrong inline info, wrong base: one line, exit 1
expect_line "$o" "^RC run4 1\$"
expect_line "$o" "^RC run5 1\$"
[ "$(grep -c '^run4-err: ' "$o")" = 1 ] || fail "run4: not one error line"
[ "$(grep -c '^run5-err: ' "$o")" = 1 ] || fail "run5: not one error line"
expect_line "$o" "^run4-err: btfinline: wrong.blob: .*not inline info for the running kernel"
expect_line "$o" "^run5-err: btfinline: bad.btf: base BTF does not match the running kernel's /sys/kernel/btf/vmlinux"

# the library API alone: ksys_fallocate's 2 inline sites + entry
expect_line "$o" "^kattach: probes=3\$"
n=$(grep -Ec "^kattach: hit nargs=4 fd=[0-9]+ mode=0 offset=$off2 len=$len2\$" "$o" || true)
[ "$n" = 1 ] || fail "btfinline_attach_kprobe: $n events with offset=$off2 len=$len2, expected 1"
[ "$(grep -c '^kattach: hit' "$o")" = 1 ] || fail "btfinline_attach_kprobe: unexpected events"
expect_line "$o" "^kattach: done\$"

# --- 5. narrowed values (DW_OP_and 0xffffffff on a wider register)
expect_line "$o" "^ia32 nanosleep_time32: -14\$"
expect_line "$o" "^RC run7 0\$"
line=$(grep -E "^run7: [0-9.]+ [0-9]+ __do_sys_nanosleep_time32 __ia32_sys_nanosleep_time32\+0x[0-9a-f]+ " "$o") ||
	fail "run7: no __do_sys_nanosleep_time32 line at __ia32_sys_nanosleep_time32"
echo "$line" | grep -Eq " rqtp=0x$rq rmtp=0x$rm_\$" ||
	fail "run7: '$line', expected rqtp=0x$rq rmtp=0x$rm_ (the high halves held 0xdeadbeef)"
[ "$(echo "$line" | wc -l)" = 1 ] || fail "run7: $(echo "$line" | wc -l) lines, expected 1"
echo "ok: ia32 nanosleep_time32: rqtp=0x$rq rmtp=0x$rm_ (narrowed register read)"

# --- 7. a clone's entry (no symbol of the function's own name)
expect_line "$o" "^msgctl: -1\$"
expect_line "$o" "^RC run10 0\$"
line=$(grep -E "^run10: [0-9.]+ [0-9]+ ksys_msgctl ksys_msgctl\.constprop\.0\+0x0 " "$o") ||
	fail "run10: no ksys_msgctl line at ksys_msgctl.constprop.0+0x0"
[ "$(echo "$line" | wc -l)" = 1 ] || fail "run10: $(echo "$line" | wc -l) lines, expected 1"
echo "$line" | grep -Eq " msqid=$mq cmd=2 buf=[^ ]+ version=256\$" ||
	fail "run10: '$line', expected msqid=$mq cmd=2 version=256 (IPC_64)"
# __x64_sys_msgctl tail-jumps to the clone (`jmp ksys_msgctl.constprop.0`):
# the return address read at the entry is do_syscall_64's, after its
# indirect call of the syscall
echo "$line" | grep -Eq " from do_syscall_64\+0x[0-9a-f]+ " ||
	fail "run10: '$line', expected 'from do_syscall_64+0x..' (the tail call's return address)"
echo "ok: ksys_msgctl at its clone's entry: msqid=$mq cmd=2 version=256, from do_syscall_64"

# --- 8. one event per call at a body copied onto two paths
expect_line "$o" "^preadv pid [0-9]+ ok $pn espipe $pm\$"
expect_line "$o" "^RC run11 0\$"
ppid=$(pid_of preadv)
n=$(grep -Ec "^run11: [0-9.]+ $ppid fdput __x64_sys_preadv\+0x[0-9a-f]+ " "$o" || true)
[ "$n" = $((pn + pm)) ] || fail "run11: $n fdput events in __x64_sys_preadv for $((pn + pm)) calls ($pn on a file, $pm on a pipe)"
n2=$(grep -E "^run11: [0-9.]+ $ppid fdput __x64_sys_preadv\+" "$o" | awk '{ print $5 }' | sort -u | wc -l)
[ "$n2" = 2 ] || fail "run11: fdput events at $n2 sites of __x64_sys_preadv, expected 2 (the two copies)"
echo "ok: fdput in __x64_sys_preadv: $((pn + pm)) events for $pn + $pm calls, at both copies"

# --- 9. a body that is its own loop: one event per call at the loop's exits
expect_line "$o" "^ringfd pid [0-9]+ fds [0-9,]+ slots [0-9,]+\$"
expect_line "$o" "^RC run12 0\$"
rpid=$(pid_of ringfd)
rfds=$(sed -nE 's/^ringfd pid [0-9]+ fds ([0-9,]+) .*/\1/p' "$o")
[ "$(echo "$rfds" | tr , '\n' | grep -c .)" = "$rk" ] || fail "ringfd: fds '$rfds', expected $rk"
ev=$(events run12 "$rpid" io_ring_add_registered_fd io_ringfd_register)
n=$(nlines "$ev")
[ "$n" = "$rk" ] || fail "run12: $n io_ring_add_registered_fd events for $rk calls (the slot loop walks $((rk * (rk + 1) / 2)) slots)"
got=$(echo "$ev" | sed -nE 's/.* fd=([0-9]+) .*end=16$/\1/p' | paste -sd, -)
[ "$got" = "$rfds" ] || fail "run12: fd values '$got' (with end=16), the program registered '$rfds'; events: $ev"
echo "ok: io_ring_add_registered_fd: $rk events for $rk calls (loop exits), fd = $rfds, end = 16"

# --- 10. a copy on a way out of the loop around the call
expect_line "$o" "^futexop pid [0-9]+ ok $fn enosys $fm\$"
expect_line "$o" "^RC run13 0\$"
expect_events run13 "$(pid_of futexop)" double_unlock_hb futex_wake_op $((fn + fm)) \
	"$((fn + fm)) calls ($fn ops done, $fm ENOSYS)"
echo "ok: double_unlock_hb in futex_wake_op: $n events for $fn + $fm calls (the ENOSYS way's copy probed)"

# --- 14. a call folded to a lone jump: retry_estale in do_faccessat
expect_line "$o" "^access pid [0-9]+ eacces $an erofs $ak ok $aj\$"
expect_line "$o" "^RC run17 0\$"
apid=$(pid_of access)
ev=$(events run17 "$apid" retry_estale do_faccessat)
n=$(nlines "$ev")
ne=$(echo "$ev" | grep -c " error=-13 " || true)
[ "$n" = $((an + ak)) ] && [ "$ne" = "$an" ] ||
	fail "run17: $n retry_estale events in do_faccessat ($ne with error=-13) for $an EACCES + $ak EROFS calls and $aj that return 0; events: $ev"
echo "ok: retry_estale in do_faccessat: $n events for $an EACCES + $ak EROFS calls, none for $aj successful ones"

# --- 15. sites moved off what kprobes refuse
# (a static binary's start-up calls mprotect() too: the run with 0 counts it)
expect_line "$o" "^keysites pid [0-9]+ mprotect 0 ftruncate 0 mlock 0\$"
expect_line "$o" "^keysites pid [0-9]+ mprotect $kn ftruncate $km mlock $kl\$"
expect_line "$o" "^RC run18 0\$"
kpid0=$(sed -nE 's/^keysites pid ([0-9]+) mprotect 0 ftruncate 0 mlock 0$/\1/p' "$o")
kpid=$(sed -nE "s/^keysites pid ([0-9]+) mprotect $kn ftruncate $km mlock $kl\$/\1/p" "$o")
kev() {	# pid function caller
	events run18 "$1" "$2" "$3" '[a-z]+=0x[0-9a-f]+$'
}
ev=$(kev "$kpid" mmap_write_lock_killable do_mprotect_pkey)
n=$(( $(nlines "$ev") - $(nlines "$(kev "$kpid0" mmap_write_lock_killable do_mprotect_pkey)") ))
evl=$(kev "$kpid" mmap_write_lock_killable do_mlock)
nl=$(nlines "$evl")
nmm=$(printf '%s\n%s\n' "$ev" "$evl" | sed -nE 's/.* mm=(0x[0-9a-f]+)$/\1/p' | sort -u | grep -c . || true)
[ "$n" = "$kn" ] && [ "$nl" = "$kl" ] && [ "$nmm" = 1 ] ||
	fail "run18: $n more mmap_write_lock_killable events in do_mprotect_pkey for $kn more mprotect() calls, $nl in do_mlock for $kl mlock() calls, $nmm distinct mm: $ev $evl"
ev2=$(kev "$kpid" sb_start_write do_sys_ftruncate)
n2=$(nlines "$ev2")
nsb=$(echo "$ev2" | sed -nE 's/.* sb=(0x[0-9a-f]+)$/\1/p' | sort -u | grep -c . || true)
[ "$n2" = "$km" ] && [ "$nsb" = 1 ] && [ -z "$(kev "$kpid0" sb_start_write do_sys_ftruncate)" ] ||
	fail "run18: $n2 sb_start_write events in do_sys_ftruncate ($nsb distinct sb) for $km ftruncate() calls: $ev2"
# the sites the kernel refused are those stats marks (notrace function, or
# an instruction kprobes refuse): the encoder knew
marked=$("$BTFINLINE" stats --sites "$KCACHE/vmlinux" |
	awk '$1 == "site" && ($2 == "mmap_write_lock_killable" || $2 == "sb_start_write") && / (refused|notrace)/ { print $5 }' |
	sort | paste -sd' ')
skipped=$(sed -nE 's/^run18-err: btfinline: kernel: [0-9]+ sites? refused by the kernel, skipped: //p' "$o" |
	tr ',' '\n' | sed -E 's/^ *([^ ]+) .*/\1/' | sort | paste -sd' ')
[ -n "$marked" ] && [ "$marked" = "$skipped" ] ||
	fail "run18: the kernel refused '$skipped', stats --sites marks '$marked'"
echo "ok: the sites the kernel refused are those stats marks notrace or refused: $marked"
echo "ok: static key and static call sites moved: $n mmap_write_lock_killable events for $kn mprotect() (beyond start-up's) and $nl for $kl mlock(), one mm; $n2 sb_start_write for $km ftruncate(), one sb"

# --- 16. a lone call whose argument is in place: ip_rt_put in udp_sendmsg
expect_line "$o" "^udpbcast pid [0-9]+ ok $un eacces $um\$"
expect_line "$o" "^RC run19 0\$"
upid=$(pid_of udpbcast)
ev=$(events run19 "$upid" ip_rt_put udp_sendmsg 'rt=0x[0-9a-f]+$')
n=$(nlines "$ev")
# a sent datagram's route went to the cork (ip_setup_cork() sets rt to
# NULL): rt=0 there; the EACCES way still holds its route
nz=$(echo "$ev" | grep -c ' rt=0x0$' || true)
[ "$n" = $((un + um)) ] && [ "$nz" = "$un" ] ||
	fail "run19: $n ip_rt_put events in udp_sendmsg ($nz with rt=0) for $un sendto() to 127.0.0.1 and $um EACCES ones to 127.255.255.255: $ev"
echo "ok: ip_rt_put in udp_sendmsg: $n events for $un + $um sendto(), rt=0 for the $un sent (the broadcast way's lone call probed)"

# --- 17. a jump through .altinstr_aux (static_cpu_has()) is a branch of
# the function's: dup_task_struct in copy_process, one event per fork
expect_line "$o" "^forks pid [0-9]+ n $fk\$"
expect_line "$o" "^RC run20 0\$"
expect_events run20 "$(pid_of forks)" dup_task_struct copy_process "$fk" "$fk fork()s"
echo "ok: dup_task_struct in copy_process: $n events for $fk fork()s (static_cpu_has()'s jump followed through .altinstr_aux)"

# --- 18. GCC's entry row copied onto a way no other probe shares: each
# lease change is one lease_modify(), one inlined locks_wake_up_blocks()
# on the way of the new type (F_UNLCK's copy unprobed before: 2 events
# for every 3 changes)
expect_line "$o" "^leases pid [0-9]+ n $ln changes $((3 * ln))\$"
expect_line "$o" "^RC run21 0\$"
expect_events run21 "$(pid_of leases)" locks_wake_up_blocks lease_modify $((3 * ln)) \
	"$((3 * ln)) lease changes"
echo "ok: locks_wake_up_blocks in lease_modify: $n events for $((3 * ln)) lease changes (the F_UNLCK way's entry-row copy probed)"

# --- 11. a constant address from the code: KASLR's runtime address
expect_line "$o" "^RC run14 0\$"
ksym=$(sed -nE 's/^KSYM ([0-9a-f]+) . init_task$/\1/p' "$o")
link=$(nm "$KCACHE/vmlinux" | sed -nE 's/^([0-9a-f]+) . init_task$/\1/p')
toff=$(pahole -F btf -C task_struct "$KCACHE/vmlinux" |
	sed -nE 's/^[[:space:]]*struct list_head[[:space:]]+tasks;[[:space:]]*\/\*[[:space:]]*([0-9]+).*/\1/p')
[ -n "$ksym" ] && [ -n "$link" ] && [ -n "$toff" ] || fail "run14: init_task '$ksym' (kallsyms), '$link' (nm), tasks at '$toff'"
want=$(printf '0x%x' $((0x$ksym + toff)))
# (copy_process's other list_add_tail_rcu sites add to lists on the heap)
ev=$(grep -E "^run14: [0-9.-]+ [0-9]+ list_add_tail_rcu copy_process\+0x[0-9a-f]+ head=0xffffffff" "$o" || true)
n=$(nlines "$ev")
[ "$n" -ge 3 ] || fail "run14: $n list_add_tail_rcu events in copy_process with a head in the kernel image for 3 forks or more; $(grep '^run14' "$o" | head -5)"
bad=$(echo "$ev" | grep -v " head=$want\$" || true)
[ -z "$bad" ] || fail "run14: head is not &init_task.tasks = $want (init_task at 0x$ksym, link-time 0x$link): $(echo "$bad" | head -3)"
[ "$ksym" != "$link" ] || echo "note: run14: KASLR left init_task at its link-time address"
echo "ok: list_add_tail_rcu in copy_process: $n events, head = &init_task.tasks = $want (link-time 0x$(printf '%x' $((0x$link + toff))))"

# --- 12. free_partitions: one event per partition scan, not per partition
expect_line "$o" "^RC run15 0\$"
n=$(grep -c "^PART /sys/block/loop1/loop1p[0-9]\$" "$o" || true)
[ "$n" = "$np" ] || fail "run15: $n partitions on loop1, the image has $np"
ev=$(grep -E "^run15: [0-9.-]+ [0-9]+ free_partitions bdev_disk_changed\+0x[0-9a-f]+ state=0xffff" "$o" || true)
n=$(nlines "$ev")
[ "$n" = 2 ] || fail "run15: $n free_partitions events for 2 scans of $np partitions; $(grep '^run15' "$o" | head -8)"
echo "ok: free_partitions: 2 events for 2 scans of $np partitions"

# --- 13. a site on a branch: one event per write, at the caller's jne
expect_line "$o" "^RC run16 0\$"
kpid=$(sed -nE 's/^KW pid ([0-9]+)$/\1/p' "$o")
[ -n "$kpid" ] || fail "run16: the writer's pid is missing"
ev=$(events run16 "$kpid" copy_from_iter kernfs_fop_write_iter)
n=$(nlines "$ev")
[ "$n" = "$kw" ] || fail "run16: $n copy_from_iter events in kernfs_fop_write_iter for $kw writes; $(grep '^run16' "$o" | head -8)"
nc=$(echo "$ev" | grep -c "kernfs_fop_write_iter+$kcond " || true)
[ "$nc" = "$kw" ] || fail "run16: $nc of the $kw events at the site on a branch kernfs_fop_write_iter+$kcond; events: $ev"
echo "ok: copy_from_iter in kernfs_fop_write_iter: $kw events for $kw writes, at the caller's branch +$kcond"
read -r spid sin nin sout nout sex nex < <(sed -nE 's/^selectfds pid ([0-9]+) in (0x[0-9a-f]+) ([0-9]+) out (0x[0-9a-f]+) ([0-9]+) ex (0x[0-9a-f]+) ([0-9]+)$/\1 \2 \3 \4 \5 \6 \7/p' "$o")
[ -n "$spid" ] || fail "run16: selectfds printed no result"
ev=$(events run16 "$spid" copy_from_user core_sys_select)
n=$(nlines "$ev")
[ "$n" = $((nin + nout + nex)) ] || fail "run16: $n copy_from_user events in core_sys_select for $((nin + nout + nex)) sets passed ($nin + $nout + $nex in $ks selects); events: $ev"
# from = the set's address (or ? where DWARF has no location: +0x35f)
nq=$(echo "$ev" | grep -c " from=? " || true)
mt=0
for v in "$sin $nin" "$sout $nout" "$sex $nex"; do
	set -- $v
	m=$(echo "$ev" | grep -c " from=$1 " || true)
	[ "$m" -le "$2" ] && [ $((m + nq)) -ge "$2" ] ||
		fail "run16: $m copy_from_user events with from=$1 ($nq unknown), the set passed $2 times; events: $ev"
	mt=$((mt + m))
done
[ $((mt + nq)) = "$n" ] || fail "run16: copy_from_user events with a from that is no set's; events: $ev"
nc=0
for c in $scond; do nc=$((nc + $(echo "$ev" | grep -c "core_sys_select+$c " || true))); done
[ "$nc" -gt 0 ] || fail "run16: no event at copy_from_user's sites on a branch core_sys_select+{$scond}; events: $ev"
echo "ok: copy_from_user in core_sys_select: $n events for $ks selects passing $nin + $nout + $nex sets, from = each set, $nc at the caller's branches (the jne runs for every select), $nq with from unknown"

# --- 6. a site kprobes cannot take: all-or-none refuses, best effort goes on
expect_line "$o" "^RC run8 1\$"
expect_line "$o" "^run8-err: btfinline: kernel: get_stack_guard_info: 1 site cannot be probed, calls there would be missed, refusing \(--best-effort to attach the others\): .*kprobe blacklist"
expect_line "$o" "^RC run9 0\$"
expect_line "$o" "^run9-err: btfinline: 1 probe on 1 function in kernel\$"
expect_line "$o" "^run9-err: btfinline: kernel: get_stack_guard_info: 1 site skipped: .*kprobe blacklist"
echo "ok: get_stack_guard_info: blacklisted site refused by default, the other attached with --best-effort"

# --- 4. nothing left behind
for r in run1 run2 run3 run6 run7 run9 run10 run11 run12 run13 run14 run15 run16 run17 run18 run19 run20 kattach; do
	expect_line "$o" "^LEFT $r kprobes=0 progs=0 links=0\$"
done
n=$(grep -E '^KPROBES-DURING-RUN1 ' "$o" | awk '{ print $2 }')
nref=$(grep -E '^KPROBES-REFERENCE ' "$o" | awk '{ print $2 }')
np=$(sed -nE 's/^run1-err: btfinline: ([0-9]+) probes on .*/\1/p' "$o")
[ "$n" = $((nref + np)) ] || fail "during run1 $n kprobes registered, expected $nref reference + $np"
echo "ok: run1 registered $np kprobes (+ $nref reference)"
if [ -n "$bpftool" ]; then	# the leftover counts can see ours
	expect_line "$o" "^LEFT during-run1 kprobes=$np progs=[1-9][0-9]* links=$np\$"
fi
[ "$(sed -n '/^KLIST-BEGIN$/,/^KLIST-END$/p' "$o" | wc -l)" = 2 ] || fail "kprobes left at the end"
echo "ok: no kprobe, BPF program or link left"
[ -n "$bpftool" ] || echo "note: bpftool not installed on the host: progs/links counted as 0"
echo PASS
