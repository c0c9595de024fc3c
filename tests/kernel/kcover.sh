#!/bin/bash
# Attachability of the Debian kernel's inline functions by `trace -k`, from
# the encoded blob (docs/KERNEL.md "Coverage from the encoded blob").
#   tests/kernel/kcover.sh [FUNC]     (FUNC: its sites, args readable/total)
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/kernel/lib.sh"
kernel_test_init kcover
blob=$(kernel_inline_blob)
gcc -O2 -std=gnu11 -Wall -Wextra -I"$KTOP/include" -I"$KTOP/src/lib" -o "$KOUT/kcover" \
	"$KTOP/tests/kernel/kcover.c" "$KBUILD/libbtfinline.a" $(btfi_libs)
"$KOUT/kcover" "$blob" "$(vmlinux_btf)" "$@"
