#!/bin/bash
# Build the libFuzzer reader target (clang, ASan+UBSan) and fuzz it.
#   tests/fuzz/run.sh [BUILD] [SECONDS]
# Seeds and regression inputs: tests/fuzz/corpus/ (each broken-blob kind of
# issue 3 plus a good blob). New inputs go to BUILD-fuzz/corpus. First every
# regression input is replayed once; then fuzzing runs for SECONDS.
# Exit 0: no crash; 77: no libFuzzer available; else: crash (input saved).
set -u
cd "$(dirname "$0")/../.." || exit 1
build=${1:-build}; secs=${2:-60}
out=$build-fuzz; mkdir -p "$out/corpus"
bin=$out/fuzz_reader
srcs=$(make -s --no-print-directory print-reader-srcs) || exit 1
if [ ! -x "$bin" ] || [ -n "$(find $srcs tests/fuzz/fuzz_reader.c tests/unit/blob_fixture.h include src/lib/format -newer "$bin" 2>/dev/null)" ]; then
	clang -g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -Iinclude -Isrc/lib -Itests/unit \
		-o "$bin" tests/fuzz/fuzz_reader.c $srcs -lbpf -ldw -lelf -lz 2>"$out/build.log" || {
		if grep -q "fuzzer" "$out/build.log"; then echo "no libFuzzer: $(tail -n 1 "$out/build.log")"; exit 77; fi
		cat "$out/build.log"; exit 1; }
fi
echo "replaying $(ls tests/fuzz/corpus | wc -l) regression inputs"
"$bin" -runs=0 tests/fuzz/corpus/* >"$out/replay.log" 2>&1 || { tail -n 30 "$out/replay.log"; exit 1; }
echo "fuzzing for ${secs}s"
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="$out/" "$out/corpus" tests/fuzz/corpus >"$out/fuzz.log" 2>&1
rc=$?
grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$out/fuzz.log" | tail -n 2
if [ $rc != 0 ]; then
	echo "fuzzer failed (rc=$rc):"; grep -A 30 "ERROR\|==ERROR\|runtime error" "$out/fuzz.log" | head -n 40
	ls "$out"/crash-* "$out"/timeout-* "$out"/leak-* 2>/dev/null
	exit 1
fi
echo "no crash"
