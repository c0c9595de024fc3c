# Shared checks of the debug-info tests (sourced): bad, norm, one_line.
# bad MSG: report a failure, the script goes on (fail=1).
bad() { echo "FAIL $*"; fail=1; }
# norm: stats --json without the path and the wall time (stdin -> stdout)
norm() {
	python3 -c 'import json,sys; j=json.load(sys.stdin); j.pop("file"); j.pop("extraction_secs"); print(json.dumps(j, sort_keys=True))'
}
# one_line RC PATTERN CMD...: CMD exits RC with exactly one stderr line matching
one_line() {
	local rc=$1 pat=$2 out got; shift 2
	out=$("$@" 2>&1 >/dev/null); got=$?
	if [ $got != "$rc" ] || [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] || ! printf '%s\n' "$out" | grep -qE "$pat"; then
		bad "$*: rc=$got (want $rc), stderr: $out"
	else
		echo "ok   $(basename "$2"): ${out#btfinline: }"
	fi
}
