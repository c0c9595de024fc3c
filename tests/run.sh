#!/bin/bash
# Run every test: unit binaries (normal and ASan+UBSan builds) and the
# tests/t_*.sh scripts. A script exits 0 (pass), 77 (skip) or else (fail).
# Ends with "N passed, N failed, N skipped".
# Environment: BUILD (default build), TESTS (glob filter, e.g. 't_stats*').
cd "$(dirname "$0")/.." || exit 1
export BUILD=${BUILD:-build}
export TOP=$PWD
export BTFINLINE=$TOP/$BUILD/btfinline
export FIXTURES=$TOP/$BUILD/fixtures
export TESTLOG=$TOP/$BUILD/test-logs
mkdir -p "$TESTLOG"
tests/fixtures/build.sh "$FIXTURES" || { echo "fixture build failed"; echo "0 passed, 1 failed"; exit 1; }

pass=0; fail=0; skip=0; failed=()
run_one() {	# name, command...
	local name=$1; shift
	local log="$TESTLOG/${name//\//_}.log" t0=$SECONDS rc
	"$@" >"$log" 2>&1; rc=$?
	if [ $rc = 0 ]; then pass=$((pass + 1)); echo "PASS $name ($((SECONDS - t0))s)"
	elif [ $rc = 77 ]; then skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$log")"
	else fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (rc=$rc), last lines of $log:"; tail -n 15 "$log" | sed 's/^/    /'
	fi
}

filter=${TESTS:-*}
for b in "$BUILD"/tests/test_* build-asan/tests/test_*; do
	[ -x "$b" ] || continue
	case "$(basename "$b")" in $filter) ;; *) continue ;; esac
	run_one "$b" "$b"
done
for t in tests/t_*.sh; do
	[ -e "$t" ] || continue
	case "$(basename "$t")" in $filter) ;; *) continue ;; esac
	run_one "$t" bash "$t"
done
echo
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[@]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
