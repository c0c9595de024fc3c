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
"$BTFINLINE" stats "$V" --json --ceiling >"$tmp/ours.json" || { echo "FAIL: stats exit $?"; exit 1; }
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
print(f"     params {o['params']}, recoverable {100*o['params_recoverable']/o['params']:.1f}%, "
      f"instances all recoverable {100*o['instances_all_recoverable']/(o['inline_instances'] - o['split_parts'] - o['shared_tails']):.1f}%")
sys.exit(1 if bad else 0)
PY
