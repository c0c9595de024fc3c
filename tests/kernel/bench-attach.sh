#!/bin/bash
# Kprobe attach time at every inline site of one kernel function, in the
# qemu VM (TCG), against the anchor: the same sites as tracefs kprobe_events
# (what perf probe does), created and enabled in the same VM run.
#   tests/kernel/bench-attach.sh [FUNC]     (default kmalloc_array)
# BENCH_NOOPT=1: turn kprobe jump optimization off in the VM first
# (debug.kprobes-optimization=0) to see how much of the time it costs.
# Prints both times and the ratio. Not a test: no thresholds.
set -e
func=${1:-kmalloc_array}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/kernel/lib.sh"
kernel_test_init bench-attach

gcc -O2 -std=gnu11 -D_GNU_SOURCE -I"$KTOP/include" -I"$KTOP/src/lib" -o "$KOUT/ksites" \
	"$KTOP/tests/kernel/ksites.c" "$KBUILD/libbtfinline.a" $(btfi_libs)
build_loader probe_smoke attach/kallsyms attach/attach_kprobe format/base log
"$KOUT/ksites" "$KCACHE/vmlinux" "$func" >"$KOUT/sites"
n=$(grep -c "^$func 0x" "$KOUT/sites" || true)
[ "$n" -gt 0 ] || { echo "bench-attach: $func: no inline sites"; exit 1; }
awk '{ print $2 }' "$KOUT/sites" >"$KOUT/addrs"
awk '{ print "p:bench/s_" NR-1, $3 }' "$KOUT/sites" >"$KOUT/kprobes"
link_text=0x$(vmlinux_sym _text)
blob=$(kernel_inline_blob)

cat >"$KOUT/vm.sh" <<EOF
T=/sys/kernel/tracing
up() { cut -d' ' -f1 /proc/uptime; }
[ "${BENCH_NOOPT:-0}" = 1 ] && echo 0 >/proc/sys/debug/kprobes-optimization && echo "kprobes-optimization off"
./probe_smoke --many addrs $link_text
# the tool itself: attach time as it reports it, and the whole run
# (attach + 1 s + detach) from outside
t0=\$(up)
./btfinline trace -k --inline-btf k.blob --best-effort --count -d 1 $func >trace.out 2>trace.err
t1=\$(up)
sed -n 's/^btfinline: kernel: \\(.*\\) kprobes attached in \\(.*\\) s\$/trace kprobes=\\1 attach=\\2s/p' trace.err | tr '\\n' ' '
echo "whole=\$(echo "\$t1 - \$t0" | bc)s"
grep -v 'attached in\|probes on' trace.err
t0=\$(up)
ok=0; bad=0
while read -r l; do
	if echo "\$l" >>\$T/kprobe_events 2>/dev/null; then ok=\$((ok + 1)); else bad=\$((bad + 1)); fi
done <kprobes
echo 1 >\$T/events/bench/enable
t1=\$(up)
echo 0 >\$T/events/bench/enable
echo >\$T/kprobe_events
t2=\$(up)
echo "anchor sites=\$((ok + bad)) attached=\$ok failed=\$bad attach=\$(echo "\$t1 - \$t0" | bc)s detach=\$(echo "\$t2 - \$t1" | bc)s"
EOF
"$KTOP/tests/kernel/vm-run.sh" -o "$KOUT/vm" "$KOUT/vm.sh" "$KOUT/probe_smoke" \
	"$KOUT/addrs" "$KOUT/kprobes" "$KBUILD/btfinline" "$blob:k.blob" | tee "$KOUT/out"
b=$(sed -n 's/^many .* attach=\([0-9.]*\)s.*/\1/p' "$KOUT/out")
a=$(sed -n 's/^anchor .* attach=\([0-9.]*\)s.*/\1/p' "$KOUT/out")
t=$(sed -n 's/^trace .* attach=\([0-9.]*\)s.*/\1/p' "$KOUT/out")
echo "$func: $n sites; btfinline kprobe+BPF attach ${b}s, tracefs kprobe_events ${a}s," \
	"ratio $(echo "scale=2; $b / $a" | bc 2>/dev/null || echo ?)"
echo "$func: btfinline trace -k attach ${t}s, ratio to tracefs $(echo "scale=2; $t / $a" | bc 2>/dev/null || echo ?)"
