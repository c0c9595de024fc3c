#!/bin/bash
# The reader under libFuzzer for a bounded time (45 s), after replaying the
# broken-blob regression corpus (tests/fuzz/corpus). `make fuzz` runs longer.
cd "$TOP" || exit 1
exec tests/fuzz/run.sh "$BUILD" 45
