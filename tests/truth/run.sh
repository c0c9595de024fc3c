#!/bin/bash
# Truth harness (issue 13, section 1; tests/truth/truth.py says how it
# works): the fixtures and SQLite, gcc and clang at -O2, each against the
# same compiler at -O0.
#   tests/truth/run.sh           every reached inlined function (`make truth`)
#   tests/truth/run.sh --quick   fixtures + at most $TRUTH_CAP (default 40)
#                                SQLite functions per compiler, and those in
#                                $TRUTH_INCLUDE (t_truth.sh)
#   TRUTH_ONLY=f,g tests/truth/run.sh   SQLite only, just these functions
# Environment: BUILD (default build), BTFI_CACHE (cache root, as
# tests/data/fetch-kernel.sh), TRUTH_OUT (directory for the JSON results).
# Exit 0: every (function, call line) has events = calls and no value
# differs; 1: some do not (tables on stdout); 2: the harness failed.
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}
BTFINLINE=${BTFINLINE:-$PWD/$BUILD/btfinline}
PROTOS=$PWD/$BUILD/tests/truth_protos
CACHE=${BTFI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/btfinline}/truth
quick=0; [ "$1" = --quick ] && quick=1
cap=0; [ $quick = 1 ] && cap=${TRUTH_CAP:-40}
# the full run lists every mismatch (the quick one its first 15)
list=15; [ $quick = 1 ] || list=100000
out=${TRUTH_OUT:-$BUILD/truth}
mkdir -p "$out" "$CACHE"
for t in bpftrace llvm-symbolizer setarch nm; do
	command -v $t >/dev/null || { echo "truth: $t not found (scripts/deps.sh installs it)"; exit 2; }
done
[ -x "$BTFINLINE" ] && [ -x "$PROTOS" ] || { echo "truth: build first (make all unit)"; exit 2; }

# Fixtures: the -O2 builds tests/fixtures/build.sh makes (what the other
# tests use) and -O0 truth builds. always_inline is inlined even at
# -O0, so the truth build turns it into noinline.
tests/fixtures/build.sh "$BUILD/fixtures" || exit 2
rc=0
fixtures=tests/fixtures/*.c; [ -n "$TRUTH_ONLY" ] && fixtures=
for src in $fixtures; do
	name=$(basename "$src" .c)
	for cc in gcc clang; do
		o0=$out/$name-O0-$cc
		if [ ! -e "$o0" ] || [ "$src" -nt "$o0" ]; then
			$cc -O0 -g -Dalways_inline=noinline -Wno-attributes -o "$o0" "$src" || exit 2
		fi
	done
	python3 tests/truth/truth.py --name "$name" \
		--build gcc="$out/$name-O0-gcc,$BUILD/fixtures/$name-gcc-dw5" \
		--build clang="$out/$name-O0-clang,$BUILD/fixtures/$name-clang-dw5" \
		--btfinline "$BTFINLINE" --protos "$PROTOS" --cache "$CACHE/results" \
		--json "$out/$name.json" --expect tests/truth/expected -- 5
	r=$?; [ $r -gt $rc ] && rc=$r
done

dir=$(tests/truth/build-sqlite.sh) || exit 2
python3 tests/truth/truth.py --name sqlite --cap $cap --list $list \
	--build gcc="$dir/sqlite-O0-gcc,$dir/sqlite-O2-gcc" \
	--build clang="$dir/sqlite-O0-clang,$dir/sqlite-O2-clang" \
	--btfinline "$BTFINLINE" --protos "$PROTOS" --cache "$CACHE/results" \
	--json "$out/sqlite.json" --expect tests/truth/expected ${TRUTH_ONLY:+--only "$TRUTH_ONLY"} ${TRUTH_INCLUDE:+--include "$TRUTH_INCLUDE"} -- 1
r=$?; [ $r -gt $rc ] && rc=$r
exit $rc
