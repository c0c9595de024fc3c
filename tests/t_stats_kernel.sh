#!/bin/bash
# `btfinline stats` on the Debian 6.1 debug vmlinux: inline_instances must
# equal llvm-dwarfdump --statistics' "#inlined functions" (an independent
# DWARF reader, run here on the same file: about 6 s, so not cached), and
# the table's own sums must hold.
set -u
command -v llvm-dwarfdump >/dev/null || { echo "skip: no llvm-dwarfdump"; exit 77; }
CACHE=$("$TOP/tests/data/fetch-kernel.sh") || { echo "skip: cannot fetch the kernel"; exit 77; }
V=$CACHE/vmlinux
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$BTFINLINE" stats "$V" --json --ceiling --entry-rows >"$tmp/ours.json" || { echo "FAIL: stats exit $?"; exit 1; }
llvm-dwarfdump --statistics "$V" >"$tmp/llvm.json" || { echo "FAIL: llvm-dwarfdump"; exit 1; }
python3 - "$tmp/ours.json" "$tmp/llvm.json" <<'PY'
import json, sys
o, l = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = 0
def check(what, ok):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad += not ok
n = l["#inlined functions"]
check(f"inline_instances {o['inline_instances']} == llvm-dwarfdump #inlined functions {n}",
      o["inline_instances"] == n and n > 100000)
check("params_recoverable == sum of classes",
      o["params_recoverable"] == sum(o["classes"].values()))
check("params == recoverable + sum of unavailable reasons",
      o["params"] == o["params_recoverable"] + sum(o["unavailable"].values()))
check("sites_selectively_inlined + sites_fully_inlined == inline_instances",
      o["sites_selectively_inlined"] + o["sites_fully_inlined"] == o["inline_instances"])
check("instances all + some + none + split parts + shared tails == inline_instances",
      o["instances_all_recoverable"] + o["instances_some_recoverable"] +
      o["instances_none_recoverable"] + o["split_parts"] + o["shared_tails"] == o["inline_instances"])
check("split parts counted apart (GCC's partial inlining)", 0 < o["split_parts"] < o["inline_instances"] // 10)
check("instances without any address count as none recoverable",
      0 < o["instances_noaddr"] <= o["instances_none_recoverable"])
# --ceiling: a location anywhere the instance can be probed. Above what
# the probe got; never where there is no location or no code at all.
c, u = o["ceiling"], o["unavailable"]
check("ceiling: recoverable <= params <= params_any_location",
      o["params_recoverable"] <= c["params"] <= c["params_any_location"])
check("ceiling: any location only where a list or value is, at an address",
      c["params_any_location"] <= o["params"] - u["no_location"] - u["no_code_addr"])
check("ceiling: every probe's non-location counts (entry_value, ... unsupported_expr) are a location",
      c["params_any_location"] >= o["params_recoverable"] + u["entry_value"] + u["implicit_pointer"]
      + u["parameter_ref"] + u["unsupported_expr"] + u["no_cfa"])
check("ceiling: instances with every parameter located >= with all recoverable",
      o["instances_all_recoverable"] <= c["instances_all"])
# The CFG reaches every block over the edges that are not back edges
# (scan_cfg.c reach_all()): where it did not, per-call found no way in and
# kept entry_pc undecided (`ambiguous`: 1,463 before, ~100 after).
check(f"per-call ambiguous {o['per_call']['ambiguous']} < 500", o["per_call"]["ambiguous"] < 500)
print(f"     params {o['params']}, recoverable {100*o['params_recoverable']/o['params']:.1f}%, "
      f"instances all recoverable {100*o['instances_all_recoverable']/(o['inline_instances'] - o['split_parts'] - o['shared_tails']):.1f}%")
sys.exit(1 if bad else 0)
PY
r=$?
# ksm_scan_thread's for_each_vma loop was cut off from the entry (66 of its
# 554 blocks reached): list_add at ksm.c:1759 had one probe, the marker
# 0xffffffff81311a99, for its copies; objdump shows the other way's copy
# at 0xffffffff81311dbe (`mov migrate_nodes,%r14`, list_add's head->next).
all=$("$BTFINLINE" stats "$V" --sites --entry-rows)
sites=$(printf '%s\n' "$all" | grep -E '^site list_add 0x[0-9a-f]+ in ksm_scan_thread\+0x[0-9a-f]+ at ksm.c:1759 ')
n=$(printf '%s\n' "$sites" | grep -c .)
if printf '%s\n' "$sites" | grep -q ' 0xffffffff81311a99 ' && printf '%s\n' "$sites" | grep -q ' 0xffffffff81311dbe '; then
	echo "ok   list_add in ksm_scan_thread: $n probes, the marker's and the for_each_vma way's copy"
else
	echo "FAIL list_add in ksm_scan_thread: probes $(printf '%s' "$sites" | awk '{print $3}' | tr '\n' ' ')"; r=1
fi
# probes FUNC CALLER [FILE:LINE]: the sorted probe addresses of FUNC's
# instances in CALLER (at that call line); expect WHAT GOT WANT.
probes() {
	printf '%s\n' "$all" | awk -v f="$1" -v c="$2+" -v l="${3-}" \
		'$1 == "site" && $2 == f && index($5, c) == 1 && (l == "" || $7 == l) {print $3}' | sort | tr '\n' ' '
}
expect() {
	if [ "$2" = "$3" ]; then echo "ok   $1 ($2)"; else echo "FAIL $1: probes $2, expected $3"; r=1; fi
}
# percpu_ref_tryget_many's rcu_read_unlock in cgroup_sk_alloc: GCC copied
# it onto the two ways out of the retry loop and onto the retry way inside
# it (objdump: 0xffffffff81173823 `call __rcu_read_unlock; pause`, after
# the failed atomic_long_add_unless): a call that returns into its loop
# sets the call's depth (scan_cfg.c loop_call()), every copy is probed.
expect "rcu_read_unlock in cgroup_sk_alloc: its three copies" \
	"$(probes rcu_read_unlock cgroup_sk_alloc percpu-refcount.h:250)" \
	"0xffffffff811737d1 0xffffffff81173811 0xffffffff81173823 "
# folio_pgoff(folio) in rmap_walk_anon runs once, before the interval tree
# loop (objdump: rmap_walk_anon+0x3b `mov %rbx,%rdi; call PageHeadHuge`,
# the marker, folio in %rbx). GCC gives the instance two reloads of
# folio->index inside the loop too, where folio has no location: code
# outside the call's binds does not make the call a loop's (scan_cfg.c
# bound_ranges()); they were its probes, one event per vma. The same rule
# keeps handle_softirqs' ffs in the loop: its second copy's `mov $-1,%ebx`
# has no location, but the `bsf` in its block has.
expect "folio_pgoff in rmap_walk_anon: one probe, at the marker before the loop" \
	"$(probes folio_pgoff rmap_walk_anon)" "0xffffffff812d64bb "
printf '%s\n' "$all" | grep -q '^site folio_pgoff 0xffffffff812d64bb .*: folio=%rbx$' ||
	{ echo "FAIL folio_pgoff in rmap_walk_anon: folio not in %rbx at the marker"; r=1; }
expect "variable_ffs in handle_softirqs: before the loop and in it" \
	"$(probes variable_ffs handle_softirqs)" "0xffffffff8109c53d 0xffffffff8109c5ba "
# A one-call body GCC copied onto both ways of `if (!elem)
# sock_hash_seq_show(seq, NULL)`: `jmp __rcu_read_unlock` twice, a call as
# a tail jump on each way (scan_cfg.c lone_copy()); one probe before.
expect "rcu_read_unlock in sock_hash_seq_stop: both tail-jump copies" \
	"$(probes rcu_read_unlock sock_hash_seq_stop)" "0xffffffff8180173a 0xffffffff81801744 "
# check_segment at acpi.c:422 and 412 (pci_acpi_root_init_info.cold)
# share the _dev_err path (0xffffffff81a0337e): 412's `jne` goes there.
# Splitting 422's marker into its two exits put a probe on it, an event
# for 412's calls too; a way in from another call of the same function is
# no reason to split (scan_cfg.c marker_exit(), sibling_call()).
expect "check_segment at acpi.c:422: its marker only, not 412's shared path" \
	"$(probes check_segment pci_acpi_root_init_info acpi.c:422)" "0xffffffff81a03371 "
# put_device(new_parent) at core.c:4707 in device_move: GCC copied the
# error path's cleanup onto three ways; two reach the body through
# 0xffffffff816fafeb, past the marker. Deciding against the marker first
# keeps them (code ahead of the marker no longer beats them).
expect "put_device at core.c:4707: the marker and both ways past it" \
	"$(probes put_device device_move core.c:4707)" "0xffffffff816fae22 0xffffffff816fafe8 0xffffffff816fb033 "
# retry_estale(error, flags) at open.c:481 in do_faccessat's retry loop:
# on the read-only-filesystem way out of the loop GCC knows error ==
# -EROFS and the call folds to `jmp` to the return (0xffffffff81347c7c),
# a lone jump: the call's copy on that exit (scan_cfg.c loop_exits()).
# The same on path_noexec's -EACCES exit (0xffffffff81347da7), a `jmp` to
# the join that line 489's own jmp also takes: a lone jump to a join is
# no sign of a caller's block (callers_copy()).
expect "retry_estale in do_faccessat: in the loop, on its -EROFS and -EACCES exits" \
	"$(probes retry_estale do_faccessat open.c:481)" "0xffffffff81347c7c 0xffffffff81347ccf 0xffffffff81347da7 "
# dec_cluster_info_page() in swapcache_free_entries: GCC hoisted its
# index computation above lock_cluster()'s `if (ci)` and copied the body's
# `if (!cluster_info)` test onto both ways (0xffffffff812f54d8, the
# marker, and 0xffffffff812f55c5), each going on into the body at
# 0xffffffff812f54dd: a probe on each (scan_cfg.c test_copies()).
expect "dec_cluster_info_page in swapcache_free_entries: its test on both ways of lock_cluster" \
	"$(probes dec_cluster_info_page swapcache_free_entries)" "0xffffffff812f54d8 0xffffffff812f55c5 "
# rcu_read_unlock() in fib_lookup() (ip_fib.h:397) inlined in
# ip_route_output_key_hash_rcu: `call __rcu_read_unlock` on the
# -ENETUNREACH way (0xffffffff81841f7f) and `call __rcu_read_unlock; mov
# (%rsp),%eax` on the other (0xffffffff81841f23): the reload is the
# caller's, the two are copies of one call (scan_cfg.c lone_copy()).
expect "rcu_read_unlock in fib_lookup in ip_route_output_key_hash_rcu: both copies" \
	"$(probes rcu_read_unlock ip_route_output_key_hash_rcu ip_fib.h:397)" "0xffffffff81841f23 0xffffffff81841f7f "
# pcibios_err_to_errno(err) in pci_user_read_config_byte: on the err == 0
# way GCC folded the call to `jmp` to the return (0xffffffff815e3045),
# whose range goes on with the body's table lookup: still the call's copy
# on that way (scan_cfg.c lone_jump()).
expect "pcibios_err_to_errno in pci_user_read_config_byte: the test and the folded jmp" \
	"$(probes pcibios_err_to_errno pci_user_read_config_byte)" "0xffffffff815e300d 0xffffffff815e3045 "
# spin_unlock_bh() in bpf_link_by_id() (syscall.c:4850) in __sys_bpf: its
# copy on the idr_find() NULL way (0xffffffff81200a16) goes on to the
# `mov $-ENOENT,%r9d` that DWARF gives the instance and the `!id` way
# shares; that later one, no work of the call, does not beat the copy
# (scan_cfg.c way_kept()).
expect "spin_unlock_bh at syscall.c:4850 in __sys_bpf: its three copies" \
	"$(probes spin_unlock_bh __sys_bpf syscall.c:4850)" "0xffffffff811ffd73 0xffffffff81200a16 0xffffffff81200b26 "
# arch_irqs_disabled_flags(flags) in refill_obj_stock's local_irq_restore:
# on the cached-objcg way GCC computes it once, `and $0x200,%r12d`
# (0xffffffff81338c8f), before a branch to two copies of the `test`; a
# computation on registers alone is a copy of the same bytes elsewhere in
# the instance (scan_cfg.c lone_copy()): one probe there covers both ways,
# where before only one of them had one.
expect "arch_irqs_disabled_flags in refill_obj_stock: one probe per way" \
	"$(probes arch_irqs_disabled_flags refill_obj_stock)" "0xffffffff81338c4e 0xffffffff81338c8f 0xffffffff81338cc5 "
# A body that is its own loop, one of several ways into the call going
# into the loop: the ways into the loop from outside it, not its blocks
# (each runs per iteration). pci_fixup_device's switch(pass) picks the
# fixup table and GCC threads each case into pci_do_fixups' loop: a `jmp`
# to its head from passes 0/1, 4, 5, 6, 7, the `jne` of pass 2's
# pci_apply_fixup_final_quirks test, and pass 3's own copy of the loop
# test (0xffffffff81606f6b): seven ways, one probe each (before: pass 5's
# jmp, the marker, alone).
expect "pci_do_fixups in pci_fixup_device: a probe on each pass's way into its loop" \
	"$(probes pci_do_fixups pci_fixup_device)" "0xffffffff81606f6b 0xffffffff81606f9d 0xffffffff8160703f 0xffffffff8160706a 0xffffffff8160707d 0xffffffff81607097 0xffffffff816070b0 "
# __rb_erase_augmented's augment->propagate(tmp, NULL) (line 295) in
# interval_tree_remove: every case of the erase jumps into the callback's
# `while (rb != stop)`, the black-successor case by a `jne` into its middle
# (0xffffffff815aad10, `if ne`); each case has one probe (before: the
# marker alone, the child2 case).
expect "interval_tree_augment_propagate at line 295 in interval_tree_remove: each erase case" \
	"$(probes interval_tree_augment_propagate interval_tree_remove rbtree_augmented.h:295)" "0xffffffff815aac92 0xffffffff815aad10 0xffffffff815aad12 0xffffffff815aad94 0xffffffff815aadb1 0xffffffff815aade1 0xffffffff815aadf3 0xffffffff815aadf8 0xffffffff815aae09 "
# skipn_spaces at lib.c:107 in aa_splitn_fqname: two `jne`s go into its
# loop where the caller knows n != 0; the third follows the marker's
# `test` of n, which counts those calls already (no second probe).
expect "skipn_spaces at lib.c:107 in aa_splitn_fqname: two branches into its loop and the marker" \
	"$(probes skipn_spaces aa_splitn_fqname lib.c:107)" "0xffffffff814f2629 0xffffffff814f262f 0xffffffff814f263b "
# Copies on a way out of the loop around the call that only the call's
# hoisted code runs before (scan_cfg.c loop_exits()): wait_task_inactive's
# task_rq_unlock after the state test that leaves the loop (0x...418d;
# the loads at 0x...412b/0x...4135 come before that test), beside the one
# that stays in it; fib_table_flush_external's alias_free_mem_rcu for the
# list's last alias (0x...a98d, after the `lea` both ways share). Before:
# one probe each, the last pass missed.
expect "task_rq_unlock in wait_task_inactive: both ways out of the unlock" \
	"$(probes task_rq_unlock wait_task_inactive)" "0xffffffff810d414c 0xffffffff810d418d "
expect "alias_free_mem_rcu in fib_table_flush_external: the last alias too" \
	"$(probes alias_free_mem_rcu fib_table_flush_external)" "0xffffffff818aa925 0xffffffff818aa98d "
# The same around an irreducible loop: xfrm_get_type_offload's `goto
# retry` loop in __xfrm_init_state; its rcu_read_unlock at line 426 runs
# on the retry way (0x...53ab) or, once try_module_get() succeeds, on the
# way out (0x...5508), which had no probe.
expect "rcu_read_unlock at xfrm_state.c:426 in __xfrm_init_state: both ways" \
	"$(probes rcu_read_unlock __xfrm_init_state xfrm_state.c:426)" "0xffffffff818d53ab 0xffffffff818d5508 "
# A copy on the way back of a loop the entries leave (deeper_copies()):
# sk_stream_wait_connect's do/while has remove_wait_queue(sk_sleep(sk))
# on its two ways out and on the way back (0x...9874, no probe before).
expect "sk_sleep in sk_stream_wait_connect: both ways out and the way back" \
	"$(probes sk_sleep sk_stream_wait_connect stream.c:79)" "0xffffffff81799807 0xffffffff81799874 0xffffffff817998f5 "
# GCC's unrolled copies by their code's shape (shape_copy_of()), a
# compare's operands in either order: asymmetric_match_key_ids' two
# asymmetric_key_id_same calls in asymmetric_key_cmp, `cmp %dx,(%rbp)`
# in the first and `cmp (%rbp),%dx` in the second (0x...48ce, no probe
# before).
expect "asymmetric_key_id_same in asymmetric_key_cmp: both unrolled calls" \
	"$(probes asymmetric_key_id_same asymmetric_key_cmp)" "0xffffffff815348aa 0xffffffff815348ce "
# A rotated `for` loop's step copied to the end of the body (dup_of()'s
# duplicate with the path after it): resctrl_inc in
# rdt_staged_configs_clear is `add $0xb0,%rcx; cmp; ja` at the continues'
# target and `add; cmp; jbe` after the inner list loop (no probe there
# before).
expect "resctrl_inc in rdt_staged_configs_clear: both copies of the loop step" \
	"$(probes resctrl_inc rdt_staged_configs_clear)" "0xffffffff81051ebe 0xffffffff81051f0a "
# A copy of the body's first test that jumps into its own copy of the
# body (test_copies(), into_body()): dma_map_page_attrs'
# is_swiotlb_force_bounce on the map-less DMA_MAPPING_ERROR way, `test
# %r8,%r8; je` at 0x...32e0 into its own `cmpb $0x0,0x31(%r8)` (no probe
# there before; 0x...3230 is the copy test_copies() took before).
expect "is_swiotlb_force_bounce in dma_map_page_attrs: the entry and both test copies" \
	"$(probes is_swiotlb_force_bounce dma_map_page_attrs)" "0xffffffff81133179 0xffffffff81133230 0xffffffff811332e0 "
# A jump through .altinstr_aux (static_cpu_has()) is a branch of the
# function's (aux_branch()): pfn_modify_allowed's pfn_valid is entered at
# 0x...d69d and goes through two such jumps (pgtable_l5_enabled()); their
# ways (0x...d6b2, 0x...d6e1, 0x...d761) were probes too, two or three
# events a call (t_kernel_trace run 20 counts dup_task_struct's).
expect "pfn_valid in pfn_modify_allowed: one probe, not one per static_cpu_has() way" \
	"$(probes pfn_valid pfn_modify_allowed)" "0xffffffff8107d69d "
# A way in whose code goes straight over a back edge into the marker at
# the loop's head is the same call going on there (into_next_pass()):
# interval_remove's augment propagate loop has compute_max's child loads
# at its latch (0x...b59), falling into the marker 0x...b61 (a probe there
# too before: two events per call after the loop's first).
expect "interval_augment_compute_max in interval_remove: no probe on the latch's loads" \
	"$(probes interval_augment_compute_max interval_remove)" "0xffffffff81084ab9 0xffffffff81084b61 "
# A lone call that another range sets the argument up for (lone_copy(),
# setup_then_call()): udp_sendmsg's ip_rt_put on the RTCF_BROADCAST way is
# `call dst_release` alone, %rdi already rt (t_kernel_trace run 19).
expect "ip_rt_put in udp_sendmsg: the broadcast way's lone call" \
	"$(probes ip_rt_put udp_sendmsg | grep -o 0xffffffff8188b416)" "0xffffffff8188b416"
# Instructions kprobes refuse (a static key's jump label, a WARN's ud2, a
# static call): no probe there where another address runs as often.
# kmem_cache_alloc's slab_alloc: the memcg static key's `jmp`
# (0xffffffff8131856d) also falls through (its nop when the key is on):
# that is no second way into the body (one probe, not two: two events per
# call with memcg kmem accounting on, before).
expect "slab_alloc in kmem_cache_alloc: one probe (the static key falls through)" \
	"$(probes slab_alloc kmem_cache_alloc)" "0xffffffff81318548 "
# do_mprotect_pkey's mmap_write_lock_killable begins with the mmap_lock
# tracepoint's key (0xffffffff812cfff1): probed at the join its call of
# __mmap_lock_do_trace_start_locking returns to (scan_cfg.c label_join()).
expect "mmap_write_lock_killable in do_mprotect_pkey: after the tracepoint's key" \
	"$(probes mmap_write_lock_killable do_mprotect_pkey)" "0xffffffff812cfff6 "
# vdso_fault's page_fixed_fake_head: its key (0xffffffff810046b9) alone in
# its block, its ways on joins: compound_head's `jne` (head & 1) into it,
# taken when it falls through (`if e`, scan_cfg.c ways_into()).
expect "page_fixed_fake_head in vdso_fault: the branch into its key" \
	"$(probes page_fixed_fake_head vdso_fault)" "0xffffffff810046b7 "
# __switch_to's resctrl_sched_in: its key (0xffffffff8102f417) after
# loadsegment(ss)'s `je` and `mov %eax,%ss` (an exception fixup no other
# way) on X86_BUG_SYSRET_SS_ATTRS's way, and straight from that
# static_cpu_has() jump (0xffffffff8102f402) on the other, which those two
# probes missed: the jump decides for every way in (scan_cfg.c dom_way()).
expect "resctrl_sched_in in __switch_to: the static_cpu_has() jump before its key" \
	"$(probes resctrl_sched_in __switch_to)" "0xffffffff8102f402 "
# __sgx_encl_get_backing's put_page(): put_devmap_managed_page's key
# (0xffffffff810593e8) right after page_fixed_fake_head's, a join of that
# key's two ways and of compound_head's other one: no way into it, so
# where its two ways go on (scan_cfg.c label_exits()): the fall-through's
# folio_put_testzero `lock decl`, and the `jne` past it when
# __put_devmap_managed_page_refs() took the page; every other way of the
# key's code comes back to the `lock decl`.
expect "put_devmap_managed_page in __sgx_encl_get_backing: where its key's ways go on" \
	"$(probes put_devmap_managed_page __sgx_encl_get_backing)" "0xffffffff810593ea 0xffffffff81059413 "
# GCC's inline-entry row on a path no other address shares is a way in
# of its own (scan.c entry_copies()): default_send_IPI_self's
# __prepare_ICR folded to `mov $0x40400,%edi` (0xffffffff8106599c) on the
# NMI way (`cmp $0x2,%edi`) beside the `or $0x40000,%edi` of the others;
# perf_ibs_get_mem_snoop's `test %r9d,%r9d` copied after each mem_lvl
# `switch` arm of perf_ibs_handle_irq. Only one address each before.
expect "__prepare_ICR in default_send_IPI_self: the NMI way's copy too" \
	"$(probes __prepare_ICR default_send_IPI_self)" "0xffffffff8106597a 0xffffffff8106599c "
expect "perf_ibs_get_mem_snoop in perf_ibs_handle_irq: its four copies" \
	"$(probes perf_ibs_get_mem_snoop perf_ibs_handle_irq)" \
	"0xffffffff8100df29 0xffffffff8100e0c0 0xffffffff8100e212 0xffffffff8100e22d "
# ... but not a row another instance of the function holds: DWARF gives
# the `lea 0x60(%r12),%rax` that begins each of sk_setsockopt's options
# to SO_BROADCAST's sock_valbool_flag (sock.c:1118) too; taken, its
# rows stood at eight other options' calls and pushed their probes off
# (SO_KEEPALIVE's at 1394 to the `test` after).
expect "sock_valbool_flag in sk_setsockopt at sock.c:1118: its own address only" \
	"$(probes sock_valbool_flag sk_setsockopt sock.c:1118)" "0xffffffff8178a39b "
expect "sock_valbool_flag in sk_setsockopt at sock.c:1394: at its lea" \
	"$(probes sock_valbool_flag sk_setsockopt sock.c:1394)" "0xffffffff81789ff6 "
# Those left (no way round): the --sites lines marked `refused` are the
# lines at an address of the kernel's tables, and those marked `notrace`
# the lines in a function without an ftrace call (the kprobe PMU refuses
# both on Debian's 6.1), each read apart from btfinline
# (tests/kernel/krefused.py), as many as the JSON's refused_left and
# notrace.
printf '%s\n' "$all" >"$tmp/sites"
if out=$(python3 "$TOP/tests/kernel/krefused.py" "$V" "$tmp/sites"); then
	read -r left nt < <(python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["per_call"]; print(o["refused_left"], o["notrace"])' "$tmp/ours.json")
	n=$(grep -cE ' refused( notrace)?( unprobed-copy 0x[0-9a-f]+)?$' "$tmp/sites")
	n2=$(grep -cE ' notrace( unprobed-copy 0x[0-9a-f]+)?$' "$tmp/sites")
	if [ "$n" = "$left" ] && [ "$n2" = "$nt" ] && [ "$nt" -gt 0 ]; then
		echo "ok   kprobe-refused addresses and notrace functions: $(echo "$out" | paste -sd';'); JSON refused_left $left, notrace $nt"
	else
		echo "FAIL kprobe-refused: $n lines marked refused, JSON $left; $n2 marked notrace, JSON $nt"; r=1
	fi
else
	echo "FAIL kprobe-refused addresses or notrace functions: $out"; r=1
fi
# No call meets two probes of its instance on one straight path: read
# apart from btfinline (tests/kernel/straight.py: objdump's code, the
# instances' `multi` lines), no address of an instance with several runs
# on (falling through, forward jumps) into another. Each rule of the
# fourteenth session removed such pairs: a static_cpu_has() jump's ways
# (aux_branch()), a rotated loop's latch into its head
# (into_next_pass()), native_read_msr_safe's fixup way (ways_into()).
if out=$(python3 "$TOP/tests/kernel/straight.py" "$V" "$tmp/sites") && [ "$(echo "$out" | tail -n 1)" = 0 ] &&
   [ "$(printf '%s\n' "$all" | grep -c '^multi ')" -gt 5000 ]; then
	echo "ok   no instance has two probes on one straight path ($(printf '%s\n' "$all" | grep -c '^multi ') instances with several)"
else
	echo "FAIL two probes of one instance on one straight path: $(echo "$out" | head -5 | paste -sd';')"; r=1
fi
# --entry-rows: the instances whose copies lack a probe are the --sites
# lines that name one (`unprobed-copy ADDR`), as many as the JSON says.
n=$(printf '%s\n' "$all" | grep -c ' unprobed-copy 0x')
want=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["entry_rows"]; print(e["instances"] - e["probe_on_each"])' "$tmp/ours.json")
if [ "$n" = "$want" ] && [ "$n" -gt 0 ]; then
	echo "ok   --entry-rows: $n instances name a copy of their entry row without a probe (JSON: $want)"
else
	echo "FAIL --entry-rows: $n unprobed-copy lines, JSON instances - probe_on_each = $want"; r=1
fi
# A kernel whose debug sections are compressed (CONFIG_DEBUG_INFO_COMPRESSED,
# here objcopy's): libelf decompresses them and the line tables the entry
# rows need come from another handle on that Elf (scan.c rows_cu()), not
# from a mapping of the file: the same sites as the file as stored.
if objcopy --compress-debug-sections=zlib "$V" "$tmp/vmlinux.z" 2>/dev/null; then
	z=$("$BTFINLINE" stats "$tmp/vmlinux.z" --sites --entry-rows)
	if [ "$z" = "$all" ] && [ -n "$z" ]; then
		echo "ok   compressed debug sections: the same $(printf '%s\n' "$z" | grep -c '^site ') site lines"
	else
		echo "FAIL compressed debug sections: $(diff <(printf '%s\n' "$all") <(printf '%s\n' "$z") | head -3 | paste -sd';')"; r=1
	fi
	rm -f "$tmp/vmlinux.z"
else
	echo "FAIL objcopy --compress-debug-sections"; r=1
fi
exit $r
