# VM-side workloads with test-controlled values. Sourced inside the VM
# (pass this file to vm-run.sh and `. ./workload.sh` in the script).
# See docs/KERNEL.md for the kernel functions and sites they drive.

# A loop block device (blk-mq, so requests go through blk_mq_submit_bio and
# the inlined blk_account_io_start) backed by a tmpfs file. brd would not
# do: it is bio-based and never allocates a request.
wl_loop_setup() {	# [size_mb]
	insmod /lib/modules/loop.ko 2>/dev/null || grep -q '^loop ' /proc/modules || return 1
	dd if=/dev/zero of=/tmp/disk.img bs=1M count="${1:-16}" 2>/dev/null &&
	losetup /dev/loop0 /tmp/disk.img
}

# COUNT synchronous direct reads (writes) of BS bytes: one request each,
# with __data_len == BS (BS <= 64 KiB, a multiple of 512). ./odirect
# (tests/kernel/odirect.c, pass it to vm-run.sh) uses an aligned buffer;
# busybox dd's may be unaligned, and then dd falls back to buffered I/O.
wl_block_read() {	# bs count
	if [ -x ./odirect ]; then ./odirect r /dev/loop0 "$1" "$2"; else
	dd if=/dev/loop0 of=/dev/null bs="$1" count="$2" iflag=direct 2>/dev/null; fi
}
wl_block_write() {	# bs count
	if [ -x ./odirect ]; then ./odirect w /dev/loop0 "$1" "$2"; else
	dd if=/dev/zero of=/dev/loop0 bs="$1" count="$2" oflag=direct 2>/dev/null; fi
}

# fallocate(fd, 0, OFFSET, LEN) on a tmpfs file: the x86-64 syscall inlines
# ksys_fallocate(fd, mode, offset, len) into __x64_sys_fallocate.
wl_fallocate() {	# offset len
	rm -f /tmp/wl_fa && fallocate -o "$1" -l "$2" /tmp/wl_fa
}

# I/O accounting on loop0 (1/0). blk_account_io_start's body is a GCC
# partial-inlining split: a nested inline instance of itself that runs only
# when accounting is on (docs/KERNEL.md).
wl_iostats() {	# 0|1
	echo "$1" >/sys/block/loop0/queue/iostats
}
