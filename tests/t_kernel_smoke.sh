#!/bin/bash
# Kernel attach path on Debian's 6.1 under qemu: boots the VM, checks that
# kprobes and /sys/kernel/btf/vmlinux work there, that the debug vmlinux's
# .BTF is the running kernel's BTF, and that a BPF program (clang + libbpf
# skeleton) loads and attaches through src/lib/attach/attach_kprobe.c with bpf
# cookies at symbol+0, symbol+offset, a KASLR-rebased absolute address and an
# address from src/lib/attach/kallsyms.c; clean detach; negative attaches; the
# base-BTF check refuses other BTFs.
source "$(dirname "$0")/kernel/lib.sh"
kernel_test_init smoke
set -e

func=vfs_read
link_text=0x$(vmlinux_sym _text)
func_link=0x$(vmlinux_sym $func)
[ "$func_link" != 0x ] || fail "$func not in $KCACHE/vmlinux"

# Probe points from the disassembly of the debug vmlinux: the second
# instruction (just after the fentry call) and the last multi-byte
# instruction before the first branch, so every read() executes both.
objdump -d --no-show-raw-insn --start-address=$func_link \
	--stop-address=$(printf '0x%x' $((func_link + 0x100))) "$KCACHE/vmlinux" |
	sed -n 's/^ *\(ffffffff[0-9a-f]*\):[[:space:]]*\([a-z0-9]*\).*/\1 \2/p' >"$KOUT/insns"
addrs=(); mnems=()
while read -r a m; do addrs+=($((0x$a))); mnems+=("$m"); done <"$KOUT/insns"
first_branch=${#addrs[@]}
for ((i = 1; i < ${#addrs[@]}; i++)); do
	case ${mnems[i]} in j*|call*|ret*) first_branch=$i; break ;; esac
done
last=0
for ((i = 1; i < first_branch - 1; i++)); do
	[ $((addrs[i + 1] - addrs[i])) -ge 2 ] && last=$i
done
[ ${#addrs[@]} -gt 2 ] && [ $last -gt 0 ] || fail "no probe point found in $func (see $KOUT/insns)"
off=$(printf '0x%x' $((addrs[1] - addrs[0])))
abs=$(printf '0x%x' ${addrs[last]})
echo "probe points: $func+$off and $abs"

btf=$(vmlinux_btf)
build_loader probe_smoke attach/kallsyms attach/attach_kprobe format/base log
# Two BTFs that must be refused: the kernel's with one string changed, and
# the BTF of an unrelated program.
cp "$btf" "$KOUT/changed.btf"
pos=$(grep -boa "${func}" "$KOUT/changed.btf" | head -n 1 | cut -d: -f1)
printf 'w' | dd of="$KOUT/changed.btf" bs=1 seek="$pos" conv=notrunc status=none
pahole --btf_encode_detached="$KOUT/other.btf" "$KOUT/probe_smoke"

count=$((1000 + RANDOM % 60000))	# read() size the probes must see
cat >"$KOUT/vm.sh" <<EOF
echo "btf-sha \$(sha256sum </sys/kernel/btf/vmlinux | cut -c1-64) \$(sha256sum <vmlinux.btf | cut -c1-64)"
echo 'p:btfi_smoke $func' >/sys/kernel/tracing/kprobe_events && echo "kprobe-events ok"
echo '-:kprobes/btfi_smoke' >>/sys/kernel/tracing/kprobe_events && echo "kprobe-events removed"
grep -E ' ($func|_text)\$' /proc/kallsyms | sed 's/^/kallsyms /'
./probe_smoke $func $off $abs $link_text $count vmlinux.btf changed.btf other.btf 2>&1
EOF
t0=$SECONDS
rc=0
"$KTOP/tests/kernel/vm-run.sh" -o "$KOUT/vm" "$KOUT/vm.sh" "$KOUT/probe_smoke" \
	"$btf:vmlinux.btf" "$KOUT/changed.btf" "$KOUT/other.btf" >"$KOUT/out" || rc=$?
cat "$KOUT/out"
echo "vm: rc=$rc, $((SECONDS - t0))s"
[ $rc = 0 ] || fail "VM script exit status $rc (console: $KOUT/vm/console.log)"

o=$KOUT/out
read -r _ sha_k sha_f < <(grep '^btf-sha ' "$o")
[ -n "$sha_k" ] && [ "$sha_k" = "$sha_f" ] ||
	fail "/sys/kernel/btf/vmlinux ($sha_k) differs from the debug vmlinux .BTF ($sha_f)"
echo "ok: /sys/kernel/btf/vmlinux == .BTF of $KCACHE/vmlinux"
expect_line "$o" '^kprobe-events ok$'
expect_line "$o" '^kprobe-events removed$'
expect_line "$o" '^loaded$'

# Expected runtime addresses from the kernel's own /proc/kallsyms lines.
text_rt=0x$(awk '$1 == "kallsyms" && $4 == "_text" { print $2 }' "$o")
func_rt=0x$(awk -v f=$func '$1 == "kallsyms" && $4 == f { print $2 }' "$o")
[ "$text_rt" != 0x ] && [ "$func_rt" != 0x ] || fail "no kallsyms lines"
[ $((func_rt - text_rt)) = $((func_link - link_text)) ] ||
	fail "$func is at _text+$((func_rt - text_rt)) at runtime, +$((func_link - link_text)) in vmlinux"
hex() { printf '0x%x' $(($1)); }
expect_line "$o" "^text=$text_rt delta=$(hex "text_rt - link_text")\$"
abs_rt=$(hex "abs - link_text + text_rt")
expect_line "$o" "^func=$func addr=$func_rt abs=$abs_rt abs_in=$func\\+$(hex "abs - func_link")\$"
for c in 1 2 3 4; do expect_line "$o" "^attach cookie=$c rc=0\$"; done
# A kprobe's regs->ip is its address + 1 (the int3, or its ftrace/optprobe
# emulation); bpf_get_func_ip() gives the address at a function entry and,
# on 6.1, 0 elsewhere.
for tag in attached detached; do	# detached: no new hits after destroy
	expect_line "$o" "^$tag cookie=1 hits=3 func_ip=$func_rt ip=$(hex "func_rt + 1") arg3=$count\$"
	expect_line "$o" "^$tag cookie=2 hits=3 func_ip=0x0 ip=$(hex "func_rt + off + 1") arg3=$count\$"
	expect_line "$o" "^$tag cookie=3 hits=3 func_ip=0x0 ip=$(hex "abs_rt + 1") arg3=$count\$"
	expect_line "$o" "^$tag cookie=4 hits=3 func_ip=$func_rt ip=$(hex "func_rt + 1") arg3=$count\$"
done
expect_line "$o" "^btfinline: kprobe at $(hex "abs_rt + 1"): not an instruction boundary\$"
expect_line "$o" '^bad-addr rc=-84$'
expect_line "$o" '^btfinline: kprobe at btfi_no_such_function\+0x0: no such kernel symbol$'
expect_line "$o" '^bad-sym rc=-2$'
expect_line "$o" '^base-check vmlinux.btf rc=0$'
n='[0-9]+ types, [0-9]+ string bytes'
expect_line "$o" "^btfinline: base BTF does not match the running kernel's /sys/kernel/btf/vmlinux \\(running: $n; this one: $n; first difference at byte $((pos))\\): inline info built for another kernel\$"
expect_line "$o" '^base-check changed.btf rc=-116$'
expect_line "$o" '^base-check other.btf rc=-116$'
[ "$(grep -c '^btfinline: base BTF does not match' "$o")" = 2 ] || fail "expected 2 base mismatch messages"
echo "PASS"
