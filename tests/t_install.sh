#!/bin/bash
# Installed btfinline, as a user gets it.
# 1. `make install DESTDIR=` (PREFIX /usr/local): exactly the files listed
#    below; the .so's SONAME, its exported symbols = the functions of the
#    installed btfinline.h = debian/libbtfinline0.symbols; pkg-config; every
#    man page renders without a groff warning and `man btfinline-trace`
#    finds it; bash completion offers the functions that have inline code
#    in the fixture's DWARF (llvm-dwarfdump, not btfinline); the
#    out-of-tree example (examples/inline-args) builds with pkg-config
#    only, loads the installed .so, and its BPF program reads the
#    arguments the fixture prints; `make uninstall` leaves no file.
# 2. The Debian packages (dpkg-buildpackage in a copy of the tree):
#    lintian without errors, each package's files, then installed with
#    apt-get, the same smoke checks against /usr only, and purged.
. "$TOP/tests/lib_trace.sh"
set -o pipefail
tmp=$(mktemp -d /tmp/btfi-install.XXXXXX)
installed_debs=
cleanup() {
	[ -n "$installed_debs" ] && apt-get purge -y -q -o DPkg::Lock::Timeout=120 \
		btfinline libbtfinline0 libbtfinline-dev >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
V=$(cat "$TOP/VERSION")
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
root=$tmp/root
P=$root/usr/local
fx=$FIXTURES/shapes-gcc-dw5
enc=$tmp/shapes
"$BTFINLINE" encode "$fx" -o "$enc" >/dev/null || fail "encode $fx"
chmod 755 "$enc"

# ---- helpers, used for the DESTDIR copy and for the packages ----

# complete COMPFILE LINE: what bash completion offers at the end of LINE.
complete_line() {
	bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
		read -ra COMP_WORDS <<<"$COMP_LINE"
		[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_btfinline "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$1" "$2" 2>/dev/null | sort -u | tr '\n' ' '
}
# Functions with at least one inline instance that has code (a non-empty
# address range) or, without code, an entry_pc (probed there), from
# llvm-dwarfdump: what completion must offer.
cat >"$tmp/dwarf_inlined.py" <<'PY'
import re, subprocess, sys
out = subprocess.run(["llvm-dwarfdump", "--debug-info", sys.argv[1]], capture_output=True, text=True, check=True).stdout
names = set()
for die in re.split(r"\n(?=0x[0-9a-f]+:\s)", out):
    if "DW_TAG_inlined_subroutine" not in die.split("\n")[0]:
        continue
    m = re.search(r'DW_AT_abstract_origin\s+\([^"]*"([^"]+)"\)', die)
    lo = re.search(r"DW_AT_low_pc\s+\((0x[0-9a-f]+)\)", die)
    hi = re.search(r"DW_AT_high_pc\s+\((0x[0-9a-f]+)\)", die)
    if m and ("DW_AT_ranges" in die or (lo and hi and int(hi.group(1), 16) > int(lo.group(1), 16))
              or "DW_AT_entry_pc" in die):
        names.add(m.group(1))
print(" ".join(sorted(names)) + " ")
PY
dwarf_inlined=$(python3 "$tmp/dwarf_inlined.py" "$fx") || fail "llvm-dwarfdump"
[ -n "${dwarf_inlined// /}" ] || fail "no inlined function in $fx's DWARF"

check_completion() {	# COMPFILE BTFINLINE
	local got
	got=$(complete_line "$1" "$2 trace -x $enc ")
	[ "$got" = "$dwarf_inlined" ] || fail "completion of 'trace -x FIXTURE ': '$got', DWARF has '$dwarf_inlined'"
	got=$(complete_line "$1" "$2 dump $enc wi")
	[ "$got" = "widen with_flags " ] || fail "completion of 'dump FIXTURE wi': '$got'"
	got=$(complete_line "$1" "$2 ")
	[ "$got" = "dump encode help stats trace " ] || fail "completion of commands: '$got'"
	got=$(complete_line "$1" "$2 trace --b")
	[ "$got" = "--base --best-effort --binary " ] || fail "completion of 'trace --b': '$got'"
	got=$(complete_line "$1" "$2 trace -p 1 -o out -x $enc sc")
	[ "$got" = "scale " ] || fail "completion of 'trace -p 1 -o out -x FIXTURE sc': '$got'"
	# every long option of every command's help text, and only those
	for c in stats encode dump trace; do
		want=$("$2" help $c | grep -E '^  -' | grep -oE -- '--[a-z][a-z-]*' | sort -u | tr '\n' ' ')
		got=$(complete_line "$1" "$2 $c --" | tr ' ' '\n' | sed 's/=$//' | grep -v '^--$' | sort -u | tr '\n' ' ')
		[ "$got" = "$want" ] || fail "completion of '$c --': '$got', help lists '$want'"
	done
	echo "ok: completion ($1): functions of the fixture: $dwarf_inlined"
}

check_man() {	# MANDIR BTFINLINE: every page renders cleanly, names every option of
		# the command's help; man finds btfinline-trace there
	local m n=0 err
	for m in btfinline btfinline-stats btfinline-encode btfinline-dump btfinline-trace; do
		f=$(MANPATH=$1 man -w "$m") || fail "man -w $m (MANPATH $1)"
		case $f in "$1"/*) ;; *) fail "man -w $m found $f, not under $1" ;; esac
		err=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$f" 2>&1 >/dev/null)
		[ -z "$err" ] || fail "man -l $f: $err"
		MANWIDTH=80 man -E UTF-8 -l "$f" 2>/dev/null | grep -q "^NAME" || fail "$f: no NAME section"
		n=$((n + 1))
	done
	for m in stats encode dump trace; do
		for o in $("$2" help $m | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
			MANWIDTH=200 man -E UTF-8 -l "$(MANPATH=$1 man -w btfinline-$m)" 2>/dev/null | grep -q -- "$o" ||
				fail "btfinline-$m(8) does not mention $o (btfinline help $m does)"
		done
	done
	MANPATH=$1 MANWIDTH=80 man btfinline-trace 2>/dev/null | grep -qE "btfinline-trace +- +trace every inline site" ||
		fail "man btfinline-trace (MANPATH $1) does not show the page"
	echo "ok: $n man pages under $1 render without warnings"
}

# build_example DIR PKG_CONFIG_ENV...: examples/inline-args copied to DIR,
# built by its Makefile with only pkg-config's flags.
build_example() {
	local dir=$1; shift
	mkdir -p "$dir" && cp "$TOP"/examples/inline-args/* "$dir"/ || fail "copy example"
	(cd "$dir" && env "$@" make >"$dir/build.log" 2>&1) || { cat "$dir/build.log"; fail "example build ($*)"; }
	grep -q -- "$TOP" "$dir/build.log" && fail "example build used the source tree: $(grep -- "$TOP" "$dir/build.log")"
	echo "ok: example built with pkg-config ($*)"
}

# run_example BIN LIBDIR: with LD_LIBRARY_PATH=LIBDIR (none if empty: the
# system's), the example loads LIBDIR's libbtfinline.so.0, and the
# arguments its BPF program reads equal those the fixture prints.
run_example() {
	local ex=$1 lib=$2 func out from
	from=$(LD_LIBRARY_PATH=$lib ldd "$ex" | sed -n 's/.*libbtfinline.so.0 => \(.*\)\/libbtfinline.so.0 .*/\1/p')
	case $from in
		"${lib:-/lib/$ma}"|"${lib:-/usr/lib/$ma}") ;;
		*) fail "$ex loads libbtfinline.so.0 from '$from', want ${lib:-the system dir}" ;;
	esac
	for func in mix scale; do
		out=$tmp/example-$func.out
		LD_LIBRARY_PATH=$lib "$ex" "$enc" $func -- "$enc" 4 >"$out" 2>"$out.err" || { cat "$out" "$out.err"; fail "example $func"; }
		python3 - "$out" $func <<'PY' || { cat "$out" "$out.err"; exit 1; }
import sys
out, func = sys.argv[1], sys.argv[2]
lines = open(out).read().splitlines()
want = [l.split()[2:] for l in lines if l.startswith("arg %s " % func)]
hits = [l.split(": ", 1) for l in lines if l.startswith(func + " ")]
inline = [h[1].split() for h in hits if h[0].split()[1] == "inline"]
entry = [dict(a.split("=") for a in h[1].split()) for h in hits if h[0].split()[1] == "entry"]
if not want or inline != want:
    sys.exit("FAIL example %s: inline hits %s, the fixture printed %s" % (func, inline, want))
if func == "mix":
    # mix_ptr(acc, 5) after the loop; acc printed after it: acc + mix(acc, 5)
    acc = int([l for l in lines if l.startswith("acc=")][0][4:])
    if len(entry) != 1 or entry[0]["y"] != "5":
        sys.exit("FAIL example mix: entry hits %s, want one with y=5" % entry)
    x = int(entry[0]["x"])
    if x + ((x ^ (5 << 7)) + 5) != acc:
        sys.exit("FAIL example mix: entry x=%d does not give the printed acc=%d" % (x, acc))
elif entry:
    sys.exit("FAIL example %s: entry hits %s, the fixture never calls it out of line" % (func, entry))
print("ok: example %s: %d inline hits = the fixture's arguments%s" % (func, len(inline), ", entry x=%s y=5" % entry[0]["x"] if entry else ""))
PY
		grep -q "^$func: 1 inline site" "$out" || fail "example $func: site list: $(head -3 "$out")"
	done
}

# ---- 1. make install DESTDIR ----
make -s -C "$TOP" install DESTDIR="$root" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "make install"; }
want="./usr/local/bin/btfinline
./usr/local/include/btfinline.bpf.h
./usr/local/include/btfinline.h
./usr/local/lib/libbtfinline.a
./usr/local/lib/libbtfinline.so
./usr/local/lib/libbtfinline.so.0
./usr/local/lib/libbtfinline.so.$V
./usr/local/lib/pkgconfig/btfinline.pc
./usr/local/share/bash-completion/completions/btfinline
./usr/local/share/man/man8/btfinline-dump.8
./usr/local/share/man/man8/btfinline-encode.8
./usr/local/share/man/man8/btfinline-stats.8
./usr/local/share/man/man8/btfinline-trace.8
./usr/local/share/man/man8/btfinline.8"
got=$(cd "$root" && find . \( -type f -o -type l \) | sort)
[ "$got" = "$want" ] || { diff <(echo "$want") <(echo "$got"); fail "installed files differ"; }
[ "$(readlink "$P/lib/libbtfinline.so")" = libbtfinline.so.0 ] &&
	[ "$(readlink "$P/lib/libbtfinline.so.0")" = "libbtfinline.so.$V" ] || fail "library links"
echo "ok: make install: $(echo "$want" | wc -l) files under $root"

"$P/bin/btfinline" dump "$enc" scale >"$tmp/dump.inst" && "$BTFINLINE" dump "$enc" scale >"$tmp/dump.build" &&
	cmp -s "$tmp/dump.inst" "$tmp/dump.build" || fail "installed btfinline dump differs from the build's"

so=$P/lib/libbtfinline.so.$V
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libbtfinline.so.0 ] || fail "SONAME '$soname'"
needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
[ "$needed" = "libbpf.so.1 libbz2.so.1.0 libc.so.6 libcapstone.so.4 libdw.so.1 libelf.so.1 liblzma.so.5 libz.so.1 " ] || fail "NEEDED: $needed"
exported=$(nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }' | sort)
echo "$exported" | grep -qv "@@LIBBTFINLINE_$V\$" && fail "symbols outside the version node: $(echo "$exported" | grep -v "@@LIBBTFINLINE_$V")"
exported=$(echo "$exported" | sed 's/@.*//')
# Each top-level declaration of the header: a function if its first
# "name(" is one of ours (not static inline, not a typedef).
cat >"$tmp/declared.py" <<'PY'
import re, sys
for stmt in re.split(r"[;{}]", sys.stdin.read()):
    m = re.search(r"\b(btfi\w*|btfinline\w*)\s*\(", stmt)
    if m and "static" not in stmt and "typedef" not in stmt:
        print(m.group(1))
PY
declared=$(gcc -E -P "$P/include/btfinline.h" | python3 "$tmp/declared.py" | sort -u)
[ -n "$declared" ] && [ "$exported" = "$declared" ] ||
	{ diff <(echo "$declared") <(echo "$exported"); fail ".so exports (>) differ from the header's functions (<)"; }
symfile=$(sed -n 's/^ \([a-z_]*\)@LIBBTFINLINE_.*/\1/p' "$TOP/debian/libbtfinline0.symbols" | sort)
[ "$symfile" = "$exported" ] || { diff <(echo "$symfile") <(echo "$exported"); fail "debian/libbtfinline0.symbols (<) differs from the .so (>)"; }
echo "ok: $so: SONAME $soname, $(echo "$exported" | wc -l) symbols = btfinline.h = debian symbols file, NEEDED $needed"

pc=(env PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_PATH="$P/lib/pkgconfig")
[ "$("${pc[@]}" pkg-config --modversion btfinline)" = "$V" ] || fail "pkg-config --modversion"
libs=$("${pc[@]}" pkg-config --libs btfinline)
case " $libs " in *" -L$P/lib -lbtfinline "*" -lbpf "*) ;; *) fail "pkg-config --libs: $libs" ;; esac
echo "ok: pkg-config: $libs"

check_man "$P/share/man" "$P/bin/btfinline"
check_completion "$P/share/bash-completion/completions/btfinline" "$P/bin/btfinline"

if [ "$(id -u)" = 0 ] && [ -d /sys/bus/event_source/devices/uprobe ]; then
	build_example "$tmp/ex" "${pc[@]}"
	run_example "$tmp/ex/inline_args" "$P/lib"
else
	echo "not root or no uprobes: the example is built but not run"
	build_example "$tmp/ex" "${pc[@]}"
fi

make -s -C "$TOP" uninstall DESTDIR="$root" >"$tmp/uninstall.log" 2>&1 || { cat "$tmp/uninstall.log"; fail "make uninstall"; }
left=$(cd "$root" && find . \( -type f -o -type l \))
[ -z "$left" ] || fail "make uninstall left: $left"
echo "ok: make uninstall leaves no file"

# ---- 2. Debian packages ----
if [ "$(id -u)" != 0 ]; then
	echo "skip: installing the packages needs root"; exit 77
fi
for c in dpkg-buildpackage dh lintian; do
	command -v $c >/dev/null || { echo "skip: no $c (apt-get install dpkg-dev debhelper lintian)"; exit 77; }
done
for p in btfinline libbtfinline0 libbtfinline-dev; do
	if dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q "install ok installed"; then
		echo "$p is installed on this machine already: not replacing it; packages not tested"
		exit 0
	fi
done
t0=$SECONDS
make -C "$TOP" deb DEBDIR="$tmp/deb" >"$tmp/deb-build.log" 2>&1 || { tail -30 "$tmp/deb-build.log"; fail "make deb (dpkg-buildpackage)"; }
echo "ok: dpkg-buildpackage -us -uc -b in $((SECONDS - t0)) s: $(cd "$tmp/deb" && ls *.deb | tr '\n' ' ')"
lintian -EIL +pedantic "$tmp/deb/btfinline_${V}_amd64.changes" >"$tmp/lintian.log" 2>&1
grep "^E:" "$tmp/lintian.log" && { dpkg-deb -I "$tmp/deb/libbtfinline0_${V}_amd64.deb" triggers; fail "lintian errors (above)"; }
echo "ok: lintian: 0 errors, $(grep -c '^W:' "$tmp/lintian.log") warnings, $(grep -c '^[IP]:' "$tmp/lintian.log") info/pedantic"
cat "$tmp/lintian.log"

contents() { dpkg-deb -c "$tmp/deb/$1_${V}_amd64.deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./||' | grep -v '^usr/share/doc/' | sort | tr '\n' ' '; }
[ "$(contents btfinline)" = "usr/bin/btfinline usr/share/bash-completion/completions/btfinline usr/share/man/man8/btfinline-dump.8.gz usr/share/man/man8/btfinline-encode.8.gz usr/share/man/man8/btfinline-stats.8.gz usr/share/man/man8/btfinline-trace.8.gz usr/share/man/man8/btfinline.8.gz " ] ||
	fail "btfinline package: $(contents btfinline)"
[ "$(contents libbtfinline0)" = "usr/lib/$ma/libbtfinline.so.0 usr/lib/$ma/libbtfinline.so.$V " ] || fail "libbtfinline0 package: $(contents libbtfinline0)"
[ "$(contents libbtfinline-dev)" = "usr/include/btfinline.bpf.h usr/include/btfinline.h usr/lib/$ma/libbtfinline.a usr/lib/$ma/libbtfinline.so usr/lib/$ma/pkgconfig/btfinline.pc " ] ||
	fail "libbtfinline-dev package: $(contents libbtfinline-dev)"
dep=$(dpkg-deb -f "$tmp/deb/btfinline_${V}_amd64.deb" Depends)
case $dep in *libbpf1*libcapstone4*libdw1*libelf1*) ;; *) fail "btfinline Depends: $dep" ;; esac
echo "ok: package contents; btfinline Depends: $dep"

installed_debs=1
apt-get install -y -q -o DPkg::Lock::Timeout=120 "$tmp/deb/btfinline_${V}_amd64.deb" \
	"$tmp/deb/libbtfinline0_${V}_amd64.deb" "$tmp/deb/libbtfinline-dev_${V}_amd64.deb" >"$tmp/deb/apt.log" 2>&1 ||
	{ cat "$tmp/deb/apt.log"; fail "apt-get install the packages"; }
[ "$(/usr/bin/btfinline dump "$enc" scale)" = "$(cat "$tmp/dump.build")" ] || fail "packaged btfinline dump"
check_man /usr/share/man /usr/bin/btfinline
check_completion /usr/share/bash-completion/completions/btfinline /usr/bin/btfinline
# pkg-config of the system only (not a /usr/local install of this machine).
build_example "$tmp/ex-deb" PKG_CONFIG_LIBDIR=/usr/lib/$ma/pkgconfig:/usr/share/pkgconfig
run_example "$tmp/ex-deb/inline_args" ""
apt-get purge -y -q -o DPkg::Lock::Timeout=120 btfinline libbtfinline0 libbtfinline-dev >"$tmp/deb/purge.log" 2>&1 ||
	{ cat "$tmp/deb/purge.log"; fail "apt-get purge"; }
installed_debs=
for f in /usr/bin/btfinline /usr/lib/$ma/libbtfinline.so.0 /usr/include/btfinline.h /usr/share/bash-completion/completions/btfinline; do
	[ -e "$f" ] && fail "$f left after purge"
done
echo "ok: packages installed, smoke-tested from /usr, purged"
