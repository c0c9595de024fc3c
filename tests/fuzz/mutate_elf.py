#!/usr/bin/env python3
"""Mutation fuzzing of the CLI on ELF input: flip a few bytes in one of
ELF's DWARF/BTF/symbol sections, run `CMD... FILE` (or CMD with FILE in
place of a `{}` argument), and keep every input that crashes, trips a
sanitizer, or exits 1 with more than one line.

    tests/fuzz/mutate_elf.py ELF N CMD...   (env SEED, OUT=dir for kept inputs,
    SECS=.rela,.text,__jump_table to mutate those instead of DWARF/BTF)

e.g. tests/fuzz/mutate_elf.py build/fixtures/shapes-gcc-dw5 500 build-asan/btfinline stats
Exit 0 when nothing was kept. `make fuzz` runs it on stats, encode and dump.
"""
import os, random, subprocess, sys, tempfile

src, n, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
if os.path.exists(cmd[0]):	# runs in a scratch directory
    cmd[0] = os.path.abspath(cmd[0])
out = os.environ.get("OUT", ".")
orig = open(src, "rb").read()
# sections to mutate: DWARF and BTF, or those named by SECS (prefixes)
pfx = tuple(os.environ["SECS"].split(",")) if os.environ.get("SECS") else (".debug_", ".BTF")
secs = []
for l in subprocess.run(["readelf", "-SW", src], capture_output=True, text=True).stdout.splitlines():
    f = l.replace("[ ", "[").split()
    if len(f) > 5 and (f[1].startswith(pfx) or f[1] in (".eh_frame", ".symtab", ".strtab")):
        secs.append((f[1], int(f[4], 16), int(f[5], 16)))
random.seed(int(os.environ.get("SEED", "1")))
kept = 0
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "m.elf")
    for i in range(n):
        d = bytearray(orig)
        name, off, size = random.choice(secs)
        for _ in range(random.choice([1, 2, 4, 16])):
            p = off + random.randrange(max(size, 1))
            d[p] = random.randrange(256) if random.random() < 0.7 else random.choice([0, 0xff, 0x80, 0x7f])
        open(path, "wb").write(d)
        argv = [path if a == "{}" else a for a in cmd] if "{}" in cmd else cmd + [path]
        r = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=120, cwd=tmp)
        lines = r.stderr.strip().splitlines()
        why = None
        if r.returncode not in (0, 1) or "Sanitizer" in r.stderr or "runtime error" in r.stderr:
            why = "crash rc=%d" % r.returncode
        elif r.returncode == 1 and len(lines) != 1:
            why = "%d error lines" % len(lines)
        if why:
            kept += 1
            keep = os.path.join(out, "mutant-%d%s.elf" % (i, name))
            open(keep, "wb").write(d)
            print("KEPT %s: %s: %s" % (keep, why, lines[-1][:200] if lines else ""))
print("%d inputs, %d kept" % (n, kept))
sys.exit(1 if kept else 0)
