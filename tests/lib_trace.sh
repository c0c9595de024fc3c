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
	local t bad=0 i
	# The kernel frees a uprobe_multi link (and so its program) after an
	# RCU-tasks-trace grace period, after our process is gone: wait up to
	# 3 s for that before calling anything left over.
	for i in $(seq 30); do
		bpftool prog list 2>/dev/null | grep -qE 'btfi_trace|btfi_empty' || break
		sleep 0.1
	done
	t=$(tracefs_dir)
	if [ -n "$t" ]; then
		# only ours: other tests (perf probe) may run at the same time
		if [ -n "$tmp" ] && grep -qF "$tmp/" "$t/uprobe_events"; then
			echo "FAIL ($1): uprobe_events has probes on our files:"; grep -F "$tmp/" "$t/uprobe_events"; bad=1
		fi
	fi
	if bpftool prog list 2>/dev/null | grep -qE 'btfi_trace|btfi_empty'; then
		echo "FAIL ($1): BPF program left:"; bpftool prog list | grep -E 'btfi_trace|btfi_empty'; bad=1
	fi
	# libbpf attaches through the uprobe PMU (perf_event_open), which
	# uprobe_events does not list; bpftool perf lists them per process.
	if [ -n "$tmp" ] && bpftool perf list 2>/dev/null | grep uprobe | grep -qF "$tmp/"; then
		echo "FAIL ($1): uprobe left:"; bpftool perf list | grep -F "$tmp/"; bad=1
	fi
	if [ "$(live_btfi_links)" != 0 ]; then echo "FAIL ($1): BPF link of ours left"; bpftool link list; bad=1; fi
	if pgrep -f "^$BTFINLINE trace" >/dev/null; then echo "FAIL ($1): btfinline trace still running"; bad=1; fi
	[ $bad = 0 ] || exit 1
	echo "ok: nothing left after $1"
}
# live_uprobes PATH: per-site (PMU) uprobes on PATH now, as bpftool perf
# lists them. live_btfi_links: BPF links (perf_event or uprobe_multi) whose
# program is one of ours. Positive controls for check_no_probes: the same
# listings show the probes while a trace runs.
live_uprobes() {
	bpftool perf list 2>/dev/null | grep uprobe | grep -cF "filename $1 " || true
}
live_btfi_links() {
	python3 - <<'PY'
import json, subprocess
j = lambda *a: json.loads(subprocess.run(["bpftool", "-j", *a], capture_output=True, text=True).stdout or "[]")
ours = {p["id"] for p in j("prog", "list") if p.get("name", "").startswith("btfi_")}
print(sum(1 for l in j("link", "list") if l.get("prog_id") in ours))
PY
}
