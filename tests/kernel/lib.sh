# Shell helpers for the qemu kernel tests (source it from tests/t_kernel_*.sh).
# Sets: KTOP, KBUILD (build dir), KCACHE (kernel cache), KOUT (per-test dir).
KTOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KBUILD=$KTOP/${BUILD:-build}

# Skip (77) unless qemu is installed; fetch the kernel. $1: test name.
kernel_test_init() {
	command -v qemu-system-x86_64 >/dev/null ||
		{ echo "skip: qemu-system-x86_64 not installed (scripts/deps.sh installs qemu-system-x86)"; exit 77; }
	KCACHE=$("$KTOP/tests/data/fetch-kernel.sh") || { echo "FAIL: fetching the Debian kernel"; exit 1; }
	KOUT=$KBUILD/kernel/$1
	rm -rf "$KOUT" && mkdir -p "$KOUT"
}

# The debug vmlinux's .BTF as a raw file (what /sys/kernel/btf/vmlinux holds
# when the kernel matches). Cached next to the build. Prints the path.
vmlinux_btf() {
	local f=$KBUILD/kernel/vmlinux.btf
	if [ ! -s "$f" ] || [ "$KCACHE/vmlinux" -nt "$f" ]; then
		objcopy -O binary --only-section=.BTF "$KCACHE/vmlinux" "$f.tmp" && mv "$f.tmp" "$f"
	fi
	echo "$f"
}

# Link-time address of a vmlinux symbol (hex without 0x).
vmlinux_sym() {
	local cache=$KBUILD/kernel/vmlinux.nm
	if [ ! -s "$cache" ] || [ "$KCACHE/vmlinux" -nt "$cache" ]; then
		nm "$KCACHE/vmlinux" >"$cache.tmp" && mv "$cache.tmp" "$cache"
	fi
	awk -v s="$1" '$3 == s { print $1; exit }' "$cache"
}

# Build a BPF object + skeleton + loader: NAME.bpf.c and NAME.c under
# tests/kernel, linked with the given src/lib sources (paths below src/lib,
# without .c) (not libbtfinline.a,
# so the kernel tests do not depend on unrelated library parts).
# Output: $KOUT/NAME.
build_loader() {
	local name=$1; shift
	local src=$KTOP/tests/kernel srcs=() f
	for f in "$@"; do srcs+=("$KTOP/src/lib/$f.c"); done
	clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I/usr/include/x86_64-linux-gnu \
		-I"$KTOP/include" -c "$src/$name.bpf.c" -o "$KOUT/$name.bpf.o" &&
	bpftool gen skeleton "$KOUT/$name.bpf.o" >"$KOUT/$name.skel.h" &&
	gcc -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE \
		-I"$KTOP/include" -I"$KTOP/src/lib" -I"$KOUT" -o "$KOUT/$name" \
		"$src/$name.c" "${srcs[@]}" -lbpf -ldw -lelf -lz
}

fail() { echo "FAIL: $*"; exit 1; }

# Libraries a program linking libbtfinline.a needs (the Makefile's list).
btfi_libs() { make -s -C "$KTOP" --no-print-directory print-libs; }

# expect_line FILE REGEX: the VM output must contain a line matching REGEX.
expect_line() {
	grep -Eq -- "$2" "$1" || fail "no line matching '$2' in $1"
	echo "ok: $2"
}

# perf probe's kprobe_events definitions for FUNC's sites (perf reads the
# debug vmlinux's DWARF: an independent reference), renamed btfi/FUNC_N.
# perf marks an argument without a location with \deade12d, which tracefs
# rejects: those arguments are dropped. Usage: perf_probe_defs FUNC ARG...
perf_probe_defs() {
	local f=$1; shift
	perf probe -k "$KCACHE/vmlinux" -D "$f $*" 2>/dev/null |
		awk -v f="$f" '/^p:/ { $1 = "p:btfi/" f "_" n++; print }' |
		sed 's/ [^ =]*=\\deade12d:[a-z0-9]*//g'
}

# The raw .BTF.inline blob of the cached debug vmlinux, encoded once and
# cached by build id and encoder (a changed btfinline binary re-encodes;
# encoding takes a few seconds). Prints the path.
kernel_inline_blob() {
	local id blob enc=${BTFINLINE:-$KBUILD/btfinline} ver
	id=$(readelf -n "$KCACHE/vmlinux" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1)
	[ -n "$id" ] || return 1
	ver=$(sha1sum <"$enc" | cut -c1-12)
	blob=$KCACHE/inline/$id-$ver.blob
	if [ ! -s "$blob" ]; then
		mkdir -p "$KCACHE/inline" && rm -f "$KCACHE/inline/$id"*.blob &&
		"$enc" encode "$KCACHE/vmlinux" --raw "$blob.tmp.$$" >&2 &&
		mv "$blob.tmp.$$" "$blob" || { rm -f "$blob.tmp.$$"; return 1; }
	fi
	echo "$blob"
}

# tests/kernel/odirect.c, static, for wl_block_read/write in the VM. Prints the path.
build_odirect() {
	gcc -O2 -static -Wall -Wextra -o "$KOUT/odirect" "$KTOP/tests/kernel/odirect.c" && echo "$KOUT/odirect"
}

# Guest-side shell functions for a VM script (print into its heredoc with
# $(vm_guest_fns)). start NAME ARGS...: $TRACE ARGS in the background, waits
# until it reports its probes, or dies, or ${WAIT:-600} tenths of a second;
# sets pid. ovl_mount "LOWER NAMES" "UPPER NAMES": an overlayfs on /tmp/m
# with those files in /tmp/l/d (content x) and /tmp/u/d (content y).
vm_guest_fns() {
	cat <<'EOG'
start() {	# name args...
	n=$1; shift
	$TRACE "$@" >$n.out 2>$n.err &
	pid=$!
	i=0
	while ! grep -qsE 'probes? on ' $n.err && kill -0 $pid 2>/dev/null && [ $i -lt ${WAIT:-600} ]; do
		sleep 0.1; i=$((i + 1))
	done
}
ovl_mount() {	# lower-names upper-names
	mkdir -p /tmp/l/d /tmp/u/d /tmp/w /tmp/m
	for n in $1; do echo x >/tmp/l/d/$n; done
	for n in $2; do echo y >/tmp/u/d/$n; done
	mount -t overlay overlay -o lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w /tmp/m ||
		{ echo "mount failed"; exit 1; }
}
EOG
}

# Boot the VM on $KOUT/vm.sh with FILES (vm-run.sh's SRC[:NAME] list);
# its output is in $KOUT/out (printed); fails on a bad exit status or a
# "failed" line of the workload.
vm_run() {
	local rc=0
	"$KTOP/tests/kernel/vm-run.sh" -o "$KOUT/vm" "$KOUT/vm.sh" "$@" >"$KOUT/out" || rc=$?
	cat "$KOUT/out"
	[ $rc = 0 ] || fail "VM script exit status $rc (console: $KOUT/vm/console.log)"
	! grep -q failed "$KOUT/out" || fail "workload failed"
}
