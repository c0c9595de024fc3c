#!/bin/bash
# `btfinline trace -k FUNC` in one step on Debian's 6.1 under qemu: no
# --inline-btf, no blob made by hand.
#  1. The discovery + encode path on the host, for the VM's kernel:
#     `encode --kernel RELEASE --build-id ID --debug-dir ROOT` (the option
#     names the kernel to look for) finds the -dbg package's vmlinux by its
#     build-id under ROOT, encodes it and writes the cache entry
#     (XDG_CACHE_HOME); the same for overlay.ko (--module, --base).
#  2. In the VM, the cache-hit path: XDG_CACHE_HOME holds the vmlinux entry
#     from 1; `trace -k -v ksys_fallocate` says it read the cache and prints
#     the offset/len the test chose.
#  3. In the VM, the discovery + encode path for a module: the debug
#     overlay.ko sits under a debug root (ROOT/lib/modules/RELEASE/...),
#     `trace -k -m overlay --debug-dir ROOT` finds it by the loaded module's
#     build-id (/sys/module/overlay/notes), encodes it (saying so), caches
#     it, traces ovl_cache_entry_add_rb (names and lengths the test chose);
#     the next run reads the cache; ovl_dentry_upper (a symbol of overlay)
#     brings the module in without -m.
#  4. Refusals, one line, exit 1: no DWARF anywhere (the line names what to
#     install for Debian), DWARF of another build under the module's name.
source "$(dirname "$0")/kernel/lib.sh"
kernel_test_init onestep
set -e
BTFINLINE=${BTFINLINE:-$KBUILD/btfinline}
DBG=$(echo "$KCACHE"/pkg-linux-image-*-dbg/usr/lib/debug)
VER=$(basename "$(readlink -f "$KCACHE/modules")")
ovl=$KCACHE/modules/kernel/fs/overlayfs/overlay.ko
ovl_dbg=$DBG/lib/modules/$VER/kernel/fs/overlayfs/overlay.ko
loop_dbg=$DBG/lib/modules/$VER/kernel/drivers/block/loop.ko
bid() { readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1; }
kid=$(bid "$KCACHE/vmlinux"); oid=$(bid "$ovl")

# --- 1. discovery + encode on the host, for the VM's kernel
export XDG_CACHE_HOME=$KOUT/xdg
"$BTFINLINE" encode --kernel "$VER" --build-id "$kid" --debug-dir "$DBG" -v 2>"$KOUT/enc.err" ||
	fail "encode --kernel: $(cat "$KOUT/enc.err")"
cat "$KOUT/enc.err"
entry=$XDG_CACHE_HOME/btfinline/encoded/vmlinux-$kid.elf
[ -s "$entry" ] || fail "no cache entry $entry"
expect_line "$KOUT/enc.err" "^btfinline: kernel: vmlinux: encoding its inline info from $DBG/boot/vmlinux-$VER \(once: then cached\)\$"
expect_line "$KOUT/enc.err" "^btfinline: kernel: vmlinux: DWARF from $DBG/boot/vmlinux-$VER \(in the file\); vmlinux build-id $kid\$"
# the entry's blob is what `encode vmlinux --raw` writes
objcopy -O binary --only-section=.BTF.inline --set-section-flags .BTF.inline=alloc "$entry" "$KOUT/entry.blob"
cmp -s "$KOUT/entry.blob" "$(kernel_inline_blob)" && echo "ok: the cache entry's blob = encode vmlinux --raw" ||
	fail "the cache entry's blob differs from encode vmlinux --raw"
"$BTFINLINE" encode --kernel "$VER" --module overlay --build-id "$oid" --debug-dir "$DBG" \
	--base "$KCACHE/vmlinux" 2>"$KOUT/enc2.err" || fail "encode --kernel --module: $(cat "$KOUT/enc2.err")"
[ -s "$XDG_CACHE_HOME/btfinline/encoded/kmod-overlay-$oid.elf" ] || fail "no overlay cache entry"
"$BTFINLINE" encode --kernel "$VER" --build-id "$oid" --debug-dir "$DBG" 2>"$KOUT/err" && fail "wrong build-id accepted"
[ "$(wc -l <"$KOUT/err")" = 1 ] && grep -q "has build-id $kid, want $oid" "$KOUT/err" ||
	fail "another build: $(cat "$KOUT/err")"
echo "ok: another build's vmlinux: $(cat "$KOUT/err")"
unset XDG_CACHE_HOME

# --- 2-4 in the VM
upper="u$RANDOM$RANDOM u_$((RANDOM % 1000))_x"
off=$((4096 * (RANDOM % 500))); len=$((1 + RANDOM * 3))
cat >"$KOUT/vm.sh" <<EOS
mkdir -p /etc && cp os-release /etc/os-release
insmod ./overlay.ko || { echo "insmod failed"; exit 1; }
insmod /lib/modules/loop.ko || echo "insmod loop failed"
$(vm_guest_fns)
TRACE="./btfinline trace -k" WAIT=900
ovl_mount lower_file "$upper"
# 2. vmlinux from the cache
export XDG_CACHE_HOME=/b/xdg
start run1 -v ksys_fallocate
fallocate -o $off -l $len /tmp/wl_fa || echo "fallocate failed"
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run1 \$?"
# 3. overlay: found under the debug root, encoded, cached; then the cache
export XDG_CACHE_HOME=/tmp/xdg
cp -r /b/xdg /tmp/xdg && rm -f /tmp/xdg/btfinline/encoded/kmod-*
start run2 -v -m overlay --debug-dir /b/dbg --str ovl_cache_entry_add_rb
ls /tmp/m/d >/dev/null
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run2 \$?"
ls /tmp/xdg/btfinline/encoded | sed 's/^/CACHED /'
start run3 -v -m overlay ovl_cache_entry_add_rb
kill -TERM \$pid; wait \$pid; echo "RC run3 \$?"
start run4 -v ovl_dentry_upper
ls /tmp/m/d/${upper%% *} >/dev/null
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run4 \$?"
# 4. no DWARF for loop; another build's DWARF named overlay; no vmlinux DWARF
./btfinline trace -k -m loop lo_rw_aio >run5.out 2>run5.err; echo "RC run5 \$?"
rm -f /tmp/xdg/btfinline/encoded/kmod-*
./btfinline trace -k -m overlay --debug-dir /b/bad ovl_cache_entry_add_rb >run6.out 2>run6.err; echo "RC run6 \$?"
XDG_CACHE_HOME=/tmp/empty ./btfinline trace -k ksys_fallocate >run7.out 2>run7.err; echo "RC run7 \$?"
for n in run1 run2 run3 run4 run5 run6 run7; do
	sed "s/^/\$n: /" \$n.out; sed "s/^/\$n-err: /" \$n.err
done
EOS
files=("$BTFINLINE:btfinline" "$ovl:overlay.ko" "/etc/os-release:os-release"
       "$entry:xdg/btfinline/encoded/vmlinux-$kid.elf"
       "$ovl_dbg:dbg/lib/modules/$VER/kernel/fs/overlayfs/overlay.ko"
       "$loop_dbg:bad/lib/modules/$VER/kernel/fs/overlayfs/overlay.ko")
grep -q '^ID=debian' /etc/os-release || fail "the host is not Debian: the install hint differs"
vm_run "${files[@]}"
o=$KOUT/out

# 2. the cache hit
expect_line "$o" "^RC run1 0\$"
expect_line "$o" "^run1-err: btfinline: kernel: vmlinux: inline info from the cache, /b/xdg/btfinline/encoded/vmlinux-$kid.elf \(vmlinux build-id $kid\)"
expect_line "$o" "^run1: [0-9.]+ [0-9]+ ksys_fallocate __x64_sys_fallocate\+0x[0-9a-f]+ fd=[0-9]+ mode=0 offset=$off len=$len\$"
! grep -q "^run1-err: .*encoding" "$o" || fail "run1 encoded"
# 3. the module: discovery + encode, then the cache, then by symbol
expect_line "$o" "^RC run2 0\$"
expect_line "$o" "^run2-err: btfinline: kernel: module overlay: encoding its inline info from /b/dbg/lib/modules/$VER/kernel/fs/overlayfs/overlay.ko \(once: then cached\)\$"
expect_line "$o" "^run2-err: btfinline: kernel: overlay: inline info built from the DWARF of /b/dbg/lib/modules/$VER/kernel/fs/overlayfs/overlay.ko \(in the file\).*cached as /tmp/xdg/btfinline/encoded/kmod-overlay-$oid.elf\$"
for n in $upper . ..; do
	expect_line "$o" "^run2: [0-9.]+ [0-9]+ ovl_cache_entry_add_rb ovl_fill_merge\+0x39 rdd=0x[0-9a-f]+ name=\"$n\"@0x[0-9a-f]+ len=${#n} ino=[0-9]+ d_type=[48]\$"
done
[ "$(grep -c '^run2: .* ovl_cache_entry_add_rb ' "$o")" = 4 ] || fail "run2: not one line per upper entry"
expect_line "$o" "^CACHED kmod-overlay-$oid.elf\$"
expect_line "$o" "^RC run3 0\$"
expect_line "$o" "^run3-err: btfinline: kernel: overlay: inline info from the cache, /tmp/xdg/btfinline/encoded/kmod-overlay-$oid.elf"
! grep -q "^run3-err: .*encoding" "$o" || fail "run3 encoded again"
expect_line "$o" "^RC run4 0\$"
expect_line "$o" "^run4-err: btfinline: kernel: overlay: inline info from the cache"
expect_line "$o" "^run4: [0-9.]+ [0-9]+ ovl_dentry_upper (ovl_[a-z_]+\+0x[0-9a-f]+|entry) dentry=0xffff[0-9a-f]{12}\$"
# 4. refusals
for r in run5 run6 run7; do
	expect_line "$o" "^RC $r 1\$"
	[ "$(grep -c "^$r-err: " "$o")" = 1 ] || fail "$r: not one error line"
done
expect_line "$o" "^run5-err: btfinline: kernel: no inline info for module loop \(build-id [0-9a-f]+\): .*install linux-image-$VER-dbg, or set DEBUGINFOD_URLS\$"
expect_line "$o" "^run6-err: btfinline: kernel: module overlay: /b/bad/lib/modules/$VER/kernel/fs/overlayfs/overlay.ko has build-id [0-9a-f]+, want $oid: debug info of another build\$"
expect_line "$o" "^run7-err: btfinline: kernel: no inline info for vmlinux \(build-id $kid\): .*/usr/lib/debug/boot/vmlinux-$VER.*install linux-image-$VER-dbg"
echo PASS
