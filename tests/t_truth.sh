#!/bin/bash
# Truth harness, bounded (issue 13, section 1; `make truth` is the full run):
# the fixtures and at most $TRUTH_CAP (default 40) SQLite functions per
# compiler, gcc and clang at -O2, against a gcc -O0 build seen by bpftrace.
# Fails when any value differs from the truth, or any (function, call line)
# whose call the -O2 binary has gives more or fewer events than calls,
# unless that mismatch is in tests/truth/expected with its diagnosis (a
# compiler's wrong DWARF, or an open probe-address case): a new one fails.
# The tables (tests/truth/truth.py) are printed either way.
# Skips (77) only without root, uprobes, bpftrace or npm; the first run
# builds SQLite (cached in $BTFI_CACHE or ~/.cache/btfinline/truth).
. "$TOP/tests/lib_trace.sh"
need_root_bpf
command -v bpftrace >/dev/null || { echo "skip: bpftrace not installed"; exit 77; }
command -v npm >/dev/null || [ -f "${BTFI_CACHE:-$HOME/.cache/btfinline}/truth/src/.done" ] ||
	{ echo "skip: npm not installed (SQLite comes from the npm package better-sqlite3)"; exit 77; }
out=$TOP/$BUILD/truth
mkdir -p "$out"
# Besides the capped set, functions each of whose calls once needed a rule
# of the per-call probe (docs/DESIGN.md): a tail-duplicated entry in a
# multi-entry loop (sqlite3ApiExit, gcc), line-0 code of other paths in the
# range (sqlite3Utf8Read, clang), a stray deeper instruction (sqlite3HashFind,
# clang), a way in past the marker (sqlite3VdbeSerialTypeLen, gcc), a body
# that is its own loop probed at its exits (findRightmost, both), a load
# shared with the caller above its branch (sqlite3PcacheClearWritable,
# gcc), a call folded to a view-only piece (whereRangeAdjust, gcc), a
# caller's loop threaded through the body (sqlite3_vfs_register, gcc), an
# entry the call's own code reaches over a back edge (sqlite3DbMallocZero
# in jsonParseFuncArg, gcc), another call's cross-jumped tail
# (sqlite3_result_text64 in jsonReturnString, gcc), sites on a caller's
# branch (dropCell, sqlite3BtreeLast, searchWith, gcc; moveToLeftmost,
# clang), the caller's own return cross-jumped into the body's
# (sqlite3_value_text in sqlite3_value_blob, gcc: 2,256 events for no call
# when taken for a way in), a later statement of the caller branching into
# code the body shares with it (sqlite3CopySortOrder in sqlite3Select, gcc),
# a call whose only code is its argument's setup hoisted above the
# caller's choice between it and a sibling call sharing the body
# (sqlite3VdbeSetChanges in sqlite3VdbeHalt, gcc: probed on that branch),
# the caller's loop exits straight to GCC's marker (sqlite3CheckCollSeq in
# sqlite3ExprCollSeq, gcc: the exits probed as edges), a copy on a way out
# of the caller's loop that only the call's hoisted argument setup runs
# before (sqlite3_value_bytes in isDate on a NULL modifier, gcc), another
# statement's argument code cross-jumped into a body nested in the call
# (parseDateOrTime in isDate, gcc: 20 events for no call when taken for a
# way in).
TRUTH_INCLUDE=${TRUTH_INCLUDE-sqlite3ApiExit,sqlite3Utf8Read,sqlite3HashFind,sqlite3VdbeSerialTypeLen,findRightmost,sqlite3PcacheClearWritable,whereRangeAdjust,sqlite3_vfs_register,sqlite3DbMallocZero,sqlite3_result_text64,dropCell,sqlite3BtreeLast,moveToLeftmost,searchWith,sqlite3_value_text,sqlite3CopySortOrder,sqlite3VdbeSetChanges,sqlite3CheckCollSeq,jsonAppendRaw,sqlite3_str_append,sqlite3VdbeUsesBtree,sqlite3_value_bytes,parseDateOrTime} \
TRUTH_OUT=$out bash "$TOP/tests/truth/run.sh" --quick
rc=$?
# The harness must see every kind of result it reports: calls and events
# on both compilers of both programs, and values compared.
python3 - "$out" <<'PY' || exit 1
import json, sys
bad = 0
for prog in ("shapes", "sqlite"):
    try:
        r = json.load(open("%s/%s.json" % (sys.argv[1], prog)))
    except OSError:
        print("FAIL: no result for %s" % prog); bad = 1; continue
    for cc in ("gcc", "clang"):
        t = r.get(cc, {}).get("totals", {})
        if not t.get("calls") or not t.get("events") or not t.get("equal"):
            print("FAIL: %s %s: nothing measured (%s)" % (prog, cc, t)); bad = 1
sys.exit(bad)
PY
case $rc in
0) echo PASS ;;
1) echo "FAIL: values or counts differ beyond tests/truth/expected (tables above)"; exit 1 ;;
*) echo "FAIL: harness error"; exit 1 ;;
esac
