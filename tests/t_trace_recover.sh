#!/bin/bash
# The recovery rules on a fixture (tests/fixtures/recover.c, gcc and clang):
# GCC's sub_and_test(2, ...) binds i at a later location view of its entry
# address, count_down's n = 65536 and neg_big's m = -2^31 are constants
# DWARF computes from literals. stats shows those locations (and counts
# the later view), llvm-dwarfdump shows the literal arithmetic, and uprobes
# at every site read exactly the values the program passed ("arg ..."
# lines, in call order). The register-copy rule: tests/unit/test_insn.c.
. "$TOP/tests/lib_trace.sh"
need_root_bpf
command -v llvm-dwarfdump >/dev/null || { echo "skip: no llvm-dwarfdump"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
N=3
for cc in gcc clang; do
	src=$FIXTURES/recover-$cc-dw5 bin=$tmp/recover-$cc
	"$BTFINLINE" stats --sites "$src" >"$tmp/$cc.sites" || { echo "FAIL: stats --sites $cc"; exit 1; }
	"$BTFINLINE" stats --json "$src" >"$tmp/$cc.json" || { echo "FAIL: stats --json $cc"; exit 1; }
	for want in 'site count_down .* n=0x10000 step=%r' 'site neg_big .* m=-2147483648$' \
		    'site sub_and_test .* in put_two+0x[0-9a-f]* .* depth 1 .* i=0x2 r=%r' \
		    'site sub_and_test .* depth 2 .* i=0x1 r=%r'; do
		grep -q "$want" "$tmp/$cc.sites" || { echo "FAIL $cc: no '$want' in stats --sites:"; grep -E 'count_down|neg_big|sub_and_test' "$tmp/$cc.sites"; exit 1; }
	done
	echo "ok $cc: stats --sites has the constants and sub_and_test's i at every site"
	if [ $cc = gcc ]; then
		# the forms this test is about are really there
		llvm-dwarfdump --debug-info "$src" | grep -q 'DW_OP_lit16, DW_OP_lit12, DW_OP_shl, DW_OP_stack_value' ||
			{ echo "FAIL: gcc wrote 65536 otherwise: the fixture no longer tests constant arithmetic"; exit 1; }
		llvm-dwarfdump --debug-info "$src" | grep -q 'DW_OP_lit16, DW_OP_lit27, DW_OP_shl, DW_OP_neg, DW_OP_stack_value' ||
			{ echo "FAIL: gcc wrote -2^31 otherwise"; exit 1; }
		python3 - "$tmp/$cc.json" <<'PY' || exit 1
import json, sys
o = json.load(open(sys.argv[1]))
shapes = [s["shape"] for s in o["unsupported_shapes"]]
bad = [s for s in shapes if "lit16" in s]
if o["next_view"] < 1 or bad:
    print(f"FAIL gcc: next_view {o['next_view']} (want >= 1), literal shapes left unsupported: {bad}"); sys.exit(1)
print(f"ok gcc: {o['next_view']} location(s) from a later view, no literal arithmetic unsupported")
PY
	fi
	encode_or_skip "$src" "$bin"
	"$BTFINLINE" trace -x "$bin" --best-effort -j -o "$tmp/$cc.ev" count_down neg_big sub_and_test -- "$bin" $N >"$tmp/$cc.out" 2>"$tmp/$cc.err" ||
		{ echo "FAIL: trace $cc"; cat "$tmp/$cc.err"; exit 1; }
	PYTHONPATH=$TOP/tests python3 - "$tmp/$cc.out" "$tmp/$cc.ev" $cc $N <<'PY' || exit 1
import sys
from trace_check import program_args, events
out, ev, cc, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
want, got = program_args(out), events(ev)
bad = checked = 0
for f in ("count_down", "neg_big", "sub_and_test"):
    if len(got[f]) != len(want[f]) or len(want[f]) < n:
        print(f"FAIL {cc}: {f}: {len(got[f])} events, the program made {len(want[f])} calls"); bad += 1; continue
    for i, (w, r) in enumerate(zip(want[f], got[f])):
        for k, v in w.items():
            a = r["args"].get(k)
            if a is None or str(a) != v:
                print(f"FAIL {cc}: {f} call {i} at {r['site']}: {k}={a}, the program passed {v}"); bad += 1
            checked += 1
print(f"{cc}: {checked} values checked, {bad} wrong")
sys.exit(1 if bad else 0)
PY
	check_no_probes "$cc"
done
echo PASS
