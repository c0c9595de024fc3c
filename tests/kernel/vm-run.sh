#!/bin/bash
# Boot Debian's 6.1 cloud kernel under qemu (TCG) with an initramfs and run
# one shell script inside it as root.
#
#   tests/kernel/vm-run.sh [-o OUTDIR] SCRIPT [FILE[:DEST]]...
#
# Inside the VM: busybox (ash + applets) in /bin, proc/sys/devtmpfs/debugfs/
# tracefs/bpffs mounted, block modules (brd, loop) in /lib/modules/*.ko,
# every FILE copied to /b/DEST (default: its basename) and SCRIPT run as
# `sh /b/script.sh` with cwd /b. Dynamic ELF files get their shared
# libraries and the loader copied too (ldd), so a normal build/btfinline
# runs unchanged.
#
# Output: the script's console output (between the harness markers, CR
# stripped) on stdout; the full console log in $VM_LOG (default
# OUTDIR/console.log). Exit status: the script's, or 125 when the VM did not
# report one (boot failure, panic, timeout).
#
# Environment: BTFI_CACHE (kernel cache dir, see tests/data/fetch-kernel.sh),
# VM_TIMEOUT (seconds, default 600), VM_MEM (default 1G), VM_APPEND (extra
# kernel command line), VM_KERNEL (default $CACHE/vmlinuz), QEMU.
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=
while getopts o: opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-o OUTDIR] SCRIPT [FILE[:DEST]]..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-o OUTDIR] SCRIPT [FILE[:DEST]]..." >&2; exit 2; }
script=$1; shift
[ -r "$script" ] || { echo "vm-run: $script: cannot read" >&2; exit 2; }

QEMU=${QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null || { echo "vm-run: $QEMU not found" >&2; exit 77; }
cache=$("$top/tests/data/fetch-kernel.sh")
kernel=${VM_KERNEL:-$cache/vmlinuz}

cleanup_out=
if [ -z "$out" ]; then
	out=$(mktemp -d /tmp/btfi-vm.XXXXXX)
	cleanup_out=$out
fi
mkdir -p "$out"
log=${VM_LOG:-$out/console.log}
root=$out/root
rm -rf "$root" "$out/initrd.img"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,b,lib/modules,sys,run}

# busybox with one symlink per applet (no --install at boot: saves time
# and keeps the image reproducible).
cp "$cache/busybox" "$root/bin/busybox"
for a in $("$cache/busybox" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
done
ln -s bin "$root/sbin"
mkdir -p "$root/usr"; ln -s ../bin "$root/usr/bin"; ln -s ../bin "$root/usr/sbin"

# Block modules: Debian ships them uncompressed (CONFIG_MODULE_COMPRESS_NONE)
# and without dependencies, so busybox insmod loads them directly.
for m in brd loop; do
	f=$(find "$cache/modules/kernel/drivers/block" -name "$m.ko*" | head -n 1)
	case $f in
	*.ko) cp "$f" "$root/lib/modules/" ;;
	*.ko.xz) xz -dc "$f" >"$root/lib/modules/$m.ko" ;;
	*.ko.zst) zstd -qdc "$f" >"$root/lib/modules/$m.ko" ;;
	*) echo "vm-run: module $m not found in $cache/modules" >&2; exit 1 ;;
	esac
done

# Copy a file and, when it is a dynamic ELF, its libraries at their paths.
add_libs() {
	ldd "$1" 2>/dev/null | while read -r a b c _; do
		case $a in /*) lib=$a ;; *) [ "$b" = "=>" ] && lib=$c || lib= ;; esac
		case $lib in /*) ;; *) continue ;; esac
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
for spec in "$@"; do
	src=${spec%%:*}; dst=${spec#*:}
	[ "$dst" = "$spec" ] && dst=$(basename "$src")
	[ -e "$src" ] || { echo "vm-run: $src: no such file" >&2; exit 2; }
	mkdir -p "$(dirname "$root/b/$dst")"
	cp -L "$src" "$root/b/$dst"
	if head -c 4 "$src" | grep -q ELF; then add_libs "$src"; fi
done
cp "$script" "$root/b/script.sh"

cat >"$root/init" <<'EOF'
#!/bin/sh
export PATH=/bin LD_LIBRARY_PATH= HOME=/b
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
mount -t tmpfs tmp /tmp
ulimit -l unlimited
cd /b
echo; echo "BTFI-START uptime=$(cut -d' ' -f1 /proc/uptime)"
sh /b/script.sh </dev/null
rc=$?
echo "BTFI-EXIT=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
sync
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.img"

t0=$(date +%s.%N)
rc=0
timeout "${VM_TIMEOUT:-600}" "$QEMU" -accel tcg -m "${VM_MEM:-1G}" -smp 1 \
	-nographic -no-reboot -monitor none -serial stdio -net none \
	-kernel "$kernel" -initrd "$out/initrd.img" \
	-append "console=ttyS0 panic=-1 quiet loglevel=3 ${VM_APPEND:-}" \
	</dev/null >"$log" 2>&1 || rc=$?
t1=$(date +%s.%N)
tr -d '\r' <"$log" >"$log.txt" && mv "$log.txt" "$log"

# Console escape sequences may precede a marker on its line: match anywhere.
status=$(sed -n 's/^.*BTFI-EXIT=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
sed -n '/BTFI-START uptime=/,/^BTFI-EXIT=/{/BTFI-START uptime=/d;/^BTFI-EXIT=/d;p}' "$log"
start=$(sed -n 's/^.*BTFI-START uptime=//p' "$log")
echo "vm-run: qemu ${rc:+rc=$rc }wall=$(echo "$t1 - $t0" | bc)s guest-boot=${start:-?}s log=$log" >&2
if [ -z "$status" ]; then
	echo "vm-run: the VM reported no exit status (qemu rc=$rc); last console lines:" >&2
	tail -n 30 "$log" >&2
	exit 125
fi
[ -n "$cleanup_out" ] && [ -z "${VM_LOG:-}" ] && [ "$status" = 0 ] && rm -rf "$cleanup_out"
exit "$status"
