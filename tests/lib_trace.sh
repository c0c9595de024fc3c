# Shared helpers for the trace tests (sourced).
# need_root_bpf: skip unless we can load BPF and use uprobes.
need_root_bpf() {
	[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
	[ -d /sys/bus/event_source/devices/uprobe ] || { echo "skip: no uprobe PMU"; exit 77; }
}
# tracefs: mount it if absent so that leftover uprobes are visible.
tracefs_dir() {
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e "$d/uprobe_events" ] && { echo "$d"; return; }
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && echo /sys/kernel/tracing
}
# encode_or_skip IN OUT: IN with .BTF.inline written to OUT.
encode_or_skip() {
	"$BTFINLINE" encode "$1" -o "$2" >"$2.log" 2>&1 && return 0
	grep -q "not implemented" "$2.log" && { echo "skip: encode not implemented yet"; exit 77; }
	echo "FAIL: encode $1:"; cat "$2.log"; exit 1
}
# check_no_probes WHAT: no uprobe, link, program or process of ours is left.
check_no_probes() {
	local t bad=0
	t=$(tracefs_dir)
	if [ -n "$t" ]; then
		if grep -q . "$t/uprobe_events"; then echo "FAIL ($1): uprobe_events not empty:"; cat "$t/uprobe_events"; bad=1; fi
	fi
	if bpftool prog list 2>/dev/null | grep -qE 'btfi_trace|btfi_empty'; then
		echo "FAIL ($1): BPF program left:"; bpftool prog list | grep -E 'btfi_trace|btfi_empty'; bad=1
	fi
	if bpftool link list 2>/dev/null | grep -B1 -A2 'perf_event' | grep -qE 'btfi_'; then
		echo "FAIL ($1): BPF link left"; bad=1
	fi
	if pgrep -f "^$BTFINLINE trace" >/dev/null; then echo "FAIL ($1): btfinline trace still running"; bad=1; fi
	[ $bad = 0 ] || exit 1
	echo "ok: nothing left after $1"
}
