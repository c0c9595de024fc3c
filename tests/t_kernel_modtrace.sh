#!/bin/bash
# `btfinline trace -k` on a module, in qemu with Debian's 6.1: the image
# package's (stripped) overlay.ko is loaded with busybox insmod, an overlay
# is mounted over tmpfs directories whose file names (and a file size) the
# test chooses at random, and inlined overlayfs functions are traced:
#  1. ovl_cache_entry_add_rb(rdd, name, len, ino, d_type) (readdir of a
#     merged directory, upper layer): one line per upper entry with its
#     name, length, inode number (ls -i) and type; in the same command
#     vmlinux's ksys_fallocate (offset, len chosen) from the vmlinux blob:
#     module and vmlinux inline info together (the module's `encode -o`
#     ELF, named by its .modinfo);
#  2. dir_emit (every merged entry: name, namelen, type) and i_size_write
#     (ovl_copyattr after a write of the chosen size) from a raw blob given
#     as overlay=FILE; ovl_dentry_upper's inline sites and the entry of its
#     out-of-line copy (the module's own symbol and prototype);
#  1-2: the sequences equal perf probe's tracefs kprobes (perf reads the
#     debug module's DWARF) where perf reads the same thing;
#  3. the module is unloaded while run 2 traces: one line, the trace ends
#     by itself (no probe left), exit 0, no kprobe left (kprobes/list);
#  4. a module that is not loaded: one line, exit 1; inline info of another
#     module (raw, or an ELF naming xfs): one line, exit 1;
#  5. one event per call in a module: an overlay whose lower and upper
#     layers are two tmpfs (xino=off: inode numbers cannot be mapped),
#     `stat` of its files and directories: ovl_getattr calls
#     ovl_map_dev_ino once each; for a directory GCC jumps from
#     ovl_getattr's own xino test straight into the body's middle
#     (ovl_getattr+0x2a0), a way in the per-call rules probe of their own:
#     one event per stat, in the order stated, fsid 1 for a lower file and 0
#     for an upper one (entry-pc's address alone saw the files only).
source "$(dirname "$0")/kernel/lib.sh"
kernel_test_init modtrace
command -v perf >/dev/null || fail "perf not installed (scripts/deps.sh installs linux-perf)"
set -e
BTFINLINE=${BTFINLINE:-$KBUILD/btfinline}
DBG=$(echo "$KCACHE"/pkg-linux-image-*-dbg/usr/lib/debug)
VER=$(basename "$(readlink -f "$KCACHE/modules")")
ovl_dbg=$DBG/lib/modules/$VER/kernel/fs/overlayfs/overlay.ko
xfs_dbg=$DBG/lib/modules/$VER/kernel/fs/xfs/xfs.ko
ovl=$KCACHE/modules/kernel/fs/overlayfs/overlay.ko
[ -f "$ovl" ] && [ -f "$ovl_dbg" ] || fail "overlay.ko missing in $KCACHE"

kblob=$(kernel_inline_blob) || fail "encoding $KCACHE/vmlinux"
"$BTFINLINE" encode "$ovl" --debug-dir "$DBG" --base "$KCACHE/vmlinux" -o "$KOUT/ovl.enc.ko" ||
	fail "encode -o overlay.ko"
"$BTFINLINE" encode "$ovl_dbg" --base "$KCACHE/vmlinux" --raw "$KOUT/ovl.blob" || fail "encode overlay.ko --raw"
"$BTFINLINE" encode "$xfs_dbg" --base "$KCACHE/vmlinux" --raw "$KOUT/xfs.blob" -o "$KOUT/xfs.enc.ko" ||
	fail "encode xfs.ko"
objcopy -O binary --only-section=.BTF --set-section-flags .BTF=alloc "$ovl" "$KOUT/ovl.btf"

# perf probe's definitions on the debug module, renamed btfi/FUNC_N
mdefs() {	# func args...
	local f=$1; shift
	perf probe -m "$ovl_dbg" -D "$f $*" 2>/dev/null |
		awk -v f="$f" '/^p:/ { $1 = "p:btfi/" f "_" n++; print }' |
		sed 's/ [^ =]*=\\deade12d:[a-z0-9]*//g'
}
{ mdefs ovl_cache_entry_add_rb 'name:string' len ino d_type
  mdefs dir_emit namelen ino type
  mdefs i_size_write i_size
  perf probe -k "$KCACHE/vmlinux" -D 'ksys_fallocate fd offset len' 2>/dev/null |
	awk '/^p:/ { $1 = "p:btfi/ksys_fallocate_" n++; print }'
} >"$KOUT/kprobes"
cat "$KOUT/kprobes"
for f in ovl_cache_entry_add_rb dir_emit i_size_write; do
	grep -q "^p:btfi/${f}_0 overlay:" "$KOUT/kprobes" || fail "perf probe: no site of $f in overlay.ko"
done

# Names and sizes the test chooses.
rname() { tr -dc 'a-z0-9_' </dev/urandom | head -c $((3 + RANDOM % 20)); }
lower="l$(rname) l$(rname) l$(rname)"
upper="u$(rname) u$(rname)"
newf=n$(rname)
xlf="f$(rname) f$(rname)"; xld="e$(rname) e$(rname) e$(rname)"; xuf="g$(rname)"
size=$((1 + RANDOM % 60000))
off=$((4096 * (RANDOM % 500))); len=$((1 + RANDOM * 3))
echo "lower: $lower; upper: $upper; new: $newf size $size; fallocate $off $len"

cat >"$KOUT/vm.sh" <<EOS
T=/sys/kernel/tracing
L=/sys/kernel/debug/kprobes/list
insmod ./overlay.ko || { echo "insmod failed"; exit 1; }
cmp /sys/kernel/btf/overlay ovl.btf && echo "BTF-SAME"
$(vm_guest_fns)
TRACE="./btfinline trace -k"
ovl_mount "$lower" "$upper"
ls -ia /tmp/u/d | sed 's/^ */INO /'
kprobes() { grep -c . \$L; }
ref() {	# 0|1 func...: the reference events of these functions
	v=\$1; shift
	for f in "\$@"; do for e in \$T/events/btfi/\${f}_*; do echo \$v >\$e/enable; done; done
}
evs() {	# run: the reference events so far, then cleared
	grep -v '^#' \$T/trace | sed -E "s/^.* [0-9]+\\.[0-9]+: ([A-Za-z0-9_]+): /EV \$1 \\1: /"
	echo >\$T/trace
}
cat kprobes >>\$T/kprobe_events || exit 1
base=\$(kprobes)
echo "KPROBES-REFERENCE \$base"

# run 1: the module's ELF and vmlinux's blob in one command
start run1 --inline-btf ovl.enc.ko --inline-btf k.blob --str ovl_cache_entry_add_rb 'ksys_fallocate fd offset len'
ref 1 ovl_cache_entry_add_rb ksys_fallocate
ls /tmp/m/d >/dev/null
fallocate -o $off -l $len /tmp/m/d/${upper%% *} || echo "fallocate failed"
ref 0 ovl_cache_entry_add_rb ksys_fallocate
evs run1
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run1 \$?"
echo "LEFT run1 \$((\$(kprobes) - base))"

# run 2: a raw blob as overlay=FILE; then the module goes away under it
start run2 --inline-btf overlay=ovl.blob --str dir_emit i_size_write ovl_dentry_upper
ref 1 dir_emit i_size_write
ls -a /tmp/m/d >/dev/null
dd if=/dev/zero of=/tmp/m/d/$newf bs=$size count=1 2>/dev/null || echo "dd failed"
ref 0 dir_emit i_size_write
evs run2
sleep 0.3
grep -c . \$L | sed 's/^/KPROBES-DURING-RUN2 /'
echo >\$T/kprobe_events
umount /tmp/m && rmmod overlay && echo "RMMOD-OK"
i=0
while kill -0 \$pid 2>/dev/null && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
kill -0 \$pid 2>/dev/null && { echo "run2 still running"; kill -TERM \$pid; }
wait \$pid; echo "RC run2 \$?"
echo "LEFT run2 \$(kprobes)"
echo "KLIST-BEGIN"; cat \$L; echo "KLIST-END"

# run 3: not loaded; run 4: another module's inline info
./btfinline trace -k --inline-btf ovl.enc.ko dir_emit >run3.out 2>run3.err; echo "RC run3 \$?"
insmod ./overlay.ko || echo "insmod failed"
./btfinline trace -k --inline-btf overlay=xfs.blob dir_emit >run4.out 2>run4.err; echo "RC run4 \$?"
./btfinline trace -k --inline-btf overlay=xfs.enc.ko dir_emit >run5.out 2>run5.err; echo "RC run5 \$?"

# run 6: two filesystems, xino=off; one stat per path, in this order
mkdir -p /tmp/x /tmp/y /tmp/m2
mount -t tmpfs none /tmp/x && mount -t tmpfs none /tmp/y || echo "mount failed"
mkdir -p /tmp/x/l/d /tmp/y/u/d /tmp/y/w
for n in $xlf; do echo x >/tmp/x/l/d/\$n; done
for n in $xld; do mkdir /tmp/x/l/d/\$n; done
for n in $xuf; do echo y >/tmp/y/u/d/\$n; done
mount -t overlay overlay -o lowerdir=/tmp/x/l,upperdir=/tmp/y/u,workdir=/tmp/y/w,xino=off /tmp/m2 ||
	echo "mount failed"
start run6 --inline-btf overlay=ovl.blob --best-effort --no-entry ovl_map_dev_ino
(cd /tmp/m2/d && stat -c %n $xlf $xld $xuf . >/dev/null)
sleep 0.3
kill -TERM \$pid; wait \$pid; echo "RC run6 \$?"
echo "LEFT run6 \$(kprobes)"
for n in run1 run2 run3 run4 run5 run6; do
	sed "s/^/\$n: /" \$n.out; sed "s/^/\$n-err: /" \$n.err
done
EOS
files=("$BTFINLINE:btfinline" "$kblob:k.blob" "$ovl:overlay.ko" "$KOUT/ovl.enc.ko:ovl.enc.ko"
       "$KOUT/ovl.blob:ovl.blob" "$KOUT/xfs.blob:xfs.blob" "$KOUT/xfs.enc.ko:xfs.enc.ko"
       "$KOUT/ovl.btf:ovl.btf" "$KOUT/kprobes:kprobes")
vm_run "${files[@]}"
o=$KOUT/out
expect_line "$o" "^BTF-SAME\$"

# --- 1. ovl_cache_entry_add_rb: the upper layer's entries, = perf's
python3 - "$o" "$upper" "$lower" "$newf" "$size" "$off" "$len" <<'PY' || fail "values (above)"
import re, sys
out, upper, lower, newf, size, off, ln = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), \
    sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
lines = open(out).read().splitlines()
bad = 0
def check(what, good):
    global bad
    print(("ok: " if good else "FAIL: ") + what)
    bad += not good
ino = {}
for l in lines:
    m = re.match(r'INO (\d+) (\S+)$', l)
    if m:
        ino[m.group(2)] = int(m.group(1))
args = lambda l: dict(re.findall(r' ([a-z_]+)=("[^"]*"|\S+)', l))
def ours(run, func):
    return [args(l) for l in lines if re.match(r'%s: [0-9.]+ \d+ %s ' % (run, func), l)]
def ref(run, func):
    return [args(l) for l in lines if re.match(r'EV %s %s_\d+: ' % (run, func), l)]
# 1. add_rb: every upper entry (and . ..), its name, length, inode, type
a = ours('run1', 'ovl_cache_entry_add_rb')
got = sorted((x['name'].strip('"'), int(x['len']), int(x['ino'], 0), int(x['d_type'])) for x in a)
want = sorted((n, len(n), ino[n], 4 if n in ('.', '..') else 8) for n in upper + ['.', '..'])
check('run1 ovl_cache_entry_add_rb: %d lines (name, len, ino, d_type) = the upper entries %s' % (len(a), want), got == want)
sites = {re.search(r' (ovl_fill_merge\+0x[0-9a-f]+) ', l).group(1) for l in lines
         if re.match(r'run1: [0-9.]+ \d+ ovl_cache_entry_add_rb ', l)}
check('run1 ovl_cache_entry_add_rb at %s (perf: ovl_fill_merge+57)' % sites, sites == {'ovl_fill_merge+0x39'})
r = ref('run1', 'ovl_cache_entry_add_rb')
check('run1 ovl_cache_entry_add_rb = perf probe\'s sequence (%d events)' % len(r),
      [(x['name'].strip('"'), int(x['len']), int(x['ino'], 0), int(x['d_type'], 0)) for x in a] ==
      [(x['name_string'].strip('"'), int(x['len']), int(x['ino'], 0), int(x['d_type'], 0)) for x in r])
f = ours('run1', 'ksys_fallocate')
rf = [x for x in ref('run1', 'ksys_fallocate') if int(x['offset'], 0) == off]
check('run1 ksys_fallocate (vmlinux, same command): offset=%d len=%d fd=perf\'s' % (off, ln),
      len(f) == 1 and int(f[0]['offset']) == off and int(f[0]['len']) == ln and len(rf) == 1 and
      int(f[0]['fd']) == int(rf[0]['fd'], 0))
# 2. dir_emit: every merged entry once; i_size_write: the size written
d = ours('run2', 'dir_emit')
names = upper + lower + ['.', '..']
got = sorted((x['name'].strip('"'), int(x['namelen']), int(x['type'])) for x in d)
want = sorted((n, len(n), 4 if n in ('.', '..') else 8) for n in names)
check('run2 dir_emit: %d lines (name, namelen, type) = the merged entries' % len(d), got == want)
r = ref('run2', 'dir_emit')
check('run2 dir_emit (namelen, ino, type) = perf probe\'s sequence (%d events; not the name: '
      'perf -D reads it as a pointer stored at the name\'s address)' % len(r),
      [(int(x['namelen']), int(x['ino'], 0), int(x['type'], 0)) for x in d] ==
      [(int(x['namelen']), int(x['ino'], 0), int(x['type'], 0)) for x in r])
s = ours('run2', 'i_size_write')
check('run2 i_size_write: i_size=%d among %s' % (size, [x['i_size'] for x in s]),
      any(int(x['i_size']) == size for x in s))
r = ref('run2', 'i_size_write')
check('run2 i_size_write = perf probe\'s sequence (%d events)' % len(r),
      [int(x['i_size']) for x in s] == [int(x['i_size'], 0) for x in r] and len(r) > 0)
sys.exit(1 if bad else 0)
PY

# --- 3. unloaded while tracing
expect_line "$o" "^RC run1 0\$"
expect_line "$o" "^LEFT run1 0\$"
expect_line "$o" "^RMMOD-OK\$"
expect_line "$o" "^run2-err: btfinline: kernel: module overlay was unloaded: its [0-9]+ probes removed\$"
expect_line "$o" "^run2-err: btfinline: kernel: no probe left\$"
! grep -q "run2 still running" "$o" || fail "run2 did not end when the module went"
expect_line "$o" "^RC run2 0\$"
expect_line "$o" "^LEFT run2 0\$"
np=$(sed -nE 's/^run2-err: btfinline: ([0-9]+) probes on .*/\1/p' "$o")
n=$(sed -nE 's/^run2-err: .*its ([0-9]+) probes removed$/\1/p' "$o")
[ "$n" = "$np" ] || fail "run2 attached $np probes, removed $n"
d=$(sed -nE 's/^KPROBES-DURING-RUN2 //p' "$o"); nref=$(sed -nE 's/^KPROBES-REFERENCE //p' "$o")
[ "$d" = $((nref + np)) ] || fail "during run2 $d kprobes, expected $nref + $np"
[ "$(sed -n '/^KLIST-BEGIN$/,/^KLIST-END$/p' "$o" | wc -l)" = 2 ] || fail "kprobes left after the unload"
echo "ok: overlay unloaded under run2: its $np probes removed, the trace ended, no kprobe left"

# selectively inlined in the module: its inline sites and its out-of-line
# copy's entry (the module's kallsyms symbol, the module's FUNC prototype)
n=$("$BTFINLINE" dump "$KOUT/ovl.enc.ko" --base "$KCACHE/vmlinux" ovl_dentry_upper | grep -c '^  \.text')
[ "$np" = $((2 + n + 1)) ] || fail "run2: $np probes, expected 2 + $n ovl_dentry_upper sites + its entry"
# the entry's callers are overlay's own functions (the return address read
# at the entry, symbolized in the module's kallsyms)
expect_line "$o" "^run2: [0-9.]+ [0-9]+ ovl_dentry_upper entry from ovl_[a-z_0-9]+\+0x[0-9a-f]+ \[overlay\] dentry=0xffff[0-9a-f]{12}\$"
echo "ok: ovl_dentry_upper: $n inline sites + the module's out-of-line entry, called from overlay"

# --- 4. not loaded, another module's inline info
for r in run3 run4 run5; do
	expect_line "$o" "^RC $r 1\$"
	[ "$(grep -c "^$r-err: " "$o")" = 1 ] || fail "$r: not one error line"
done
expect_line "$o" "^run3-err: btfinline: kernel: module overlay is not loaded\$"
expect_line "$o" "^run4-err: btfinline: xfs.blob: .*not inline info for module overlay as loaded"
expect_line "$o" "^run5-err: btfinline: xfs.enc.ko: inline info of module xfs, not of overlay\$"

# --- 5. one event per call: ovl_map_dev_ino, the directory's way in of its own
expect_line "$o" "^RC run6 0\$"
expect_line "$o" "^LEFT run6 0\$"
python3 - "$o" "$xlf" "$xld" "$xuf" <<'PY' || fail "run6 (above)"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
nlf, nld, nuf = (len(a.split()) for a in sys.argv[2:5])
# what each stat must give: (site, fsid) in order; a directory's site
# has no argument locations (printed ?)
want = [("file", "1")] * nlf + [("dir", None)] * (nld + 1)
want[nlf + nld:nlf + nld] = [("file", "0")] * nuf
ev = [l for l in lines if re.match(r"run6: [0-9.]+ \d+ ovl_map_dev_ino ", l)]
sites = [re.search(r" (ovl_getattr\+0x[0-9a-f]+) ", l).group(1) if " ovl_getattr+" in l else l for l in ev]
fsid = [(re.search(r" fsid=(\S+)", l) or re.search(r"()$", l)).group(1) for l in ev]
print("\n".join("  " + l for l in ev))
files = {s for s, (k, _) in zip(sites, want) if k == "file"}
dirs = {s for s, (k, _) in zip(sites, want) if k == "dir"}
ok = len(ev) == len(want) and len(files) == 1 and len(dirs) == 1 and files != dirs and \
     all(f == w for f, (k, w) in zip(fsid, want) if k == "file")
print(("ok" if ok else "FAIL") + ": run6 ovl_map_dev_ino: %d events for %d stat calls (%d lower files, %d "
      "directories, %d upper files); files at %s with fsid 1 (lower) / 0 (upper), directories at %s"
      % (len(ev), len(want), nlf, nld + 1, nuf, files, dirs))
sys.exit(0 if ok else 1)
PY
echo PASS
