#!/bin/bash
# debuginfod (issue 11, section 3), with Debian's debuginfod server started
# here on 127.0.0.1 over a directory holding a -dbg .deb (built with
# dpkg-deb from a fixture's compressed debug file; -U scans .deb archives):
#  - a stripped binary with no local debug file: `stats -v` says the DWARF
#    came from debuginfod (libdebuginfod's cache, DEBUGINFOD_CACHE_PATH)
#    and counts what the unstripped build counts; `trace` works in one step
#    (values = the program's);
#  - server down, 404 (a build-id the server does not have), a wrong
#    build-id (a server answering with another file's debug info): one
#    line each naming the file and the problem, exit 1.
# Normal and, if built, ASan+UBSan CLI.
set -u
. "$TOP/tests/lib_trace.sh"
for t in debuginfod dpkg-deb bsdtar pahole; do
	command -v $t >/dev/null || { echo "skip: no $t (scripts/deps.sh installs debuginfod, libarchive-tools, dwarves)"; exit 77; }
done
tmp=$(mktemp -d); srv=; web=
trap 'kill $srv $web 2>/dev/null; wait $srv $web 2>/dev/null; rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap 'kill $srv $web 2>/dev/null' EXIT && echo "tmp: $tmp"
fail=0
bad() { echo "FAIL $*"; fail=1; }
cd "$tmp" || exit 1
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# get URL: HTTP status code
get() { python3 - "$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=5).status)
except urllib.error.HTTPError as e:
    print(e.code)
except Exception:
    print(0)
PY
}

# The fixture: stripped, its compressed debug file only in a .deb.
gcc -O2 -g -o full "$TOP/tests/fixtures/shapes.c"
cp full shapes && strip --strip-all shapes
objcopy --only-keep-debug --compress-debug-sections=zlib full dbg
id=$(readelf -n shapes | sed -n 's/.*Build ID: //p')
sum=$(sha256sum <shapes)
mkdir -p pkg/DEBIAN "pkg/usr/lib/debug/.build-id/${id:0:2}" debs
cp dbg "pkg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
printf 'Package: shapes-dbg\nVersion: 1.0\nArchitecture: amd64\nMaintainer: btfinline tests <tests@localhost>\nDescription: debug info of the shapes fixture\n' >pkg/DEBIAN/control
dpkg-deb --build pkg debs/shapes-dbg_1.0_amd64.deb >/dev/null || { bad "dpkg-deb"; exit 1; }
# Another build-id the server does not know (404).
gcc -O1 -g -o other "$TOP/tests/fixtures/shapes.c" && strip --strip-all other

p=$(port)
debuginfod -U -p "$p" -d "$tmp/db.sqlite" -t 0 -g 0 --disable-source-scan debs >srv.log 2>&1 & srv=$!
url=http://127.0.0.1:$p
for _ in $(seq 300); do [ "$(get "$url/buildid/$id/debuginfo")" = 200 ] && break; sleep 0.2; done
[ "$(get "$url/buildid/$id/debuginfo")" = 200 ] || { bad "debuginfod did not serve $id: $(tail -5 srv.log)"; exit 1; }
echo "ok   debuginfod on 127.0.0.1:$p serves $id from debs/shapes-dbg_1.0_amd64.deb"

# A server with another file's debug info under this build-id.
w=$(port)
mkdir -p "web/buildid/$id" && objcopy --only-keep-debug other "web/buildid/$id/debuginfo"
(cd web && exec python3 -m http.server "$w" --bind 127.0.0.1 >../web.log 2>&1) & web=$!
for _ in $(seq 100); do [ "$(get "http://127.0.0.1:$w/buildid/$id/debuginfo")" = 200 ] && break; sleep 0.1; done
oid=$(readelf -n other | sed -n 's/.*Build ID: //p')

counts() { python3 -c 'import json, sys; j = json.load(sys.stdin); [j.pop(k) for k in ("file", "extraction_secs")]; print(j)'; }
# one_line RC REGEX CMD...: exit RC, one stderr line matching, no stdout.
one_line() {
	local want=$1 re=$2 rc; shift 2
	"$@" >o.out 2>o.err; rc=$?
	[ $rc = "$want" ] && [ "$(wc -l <o.err)" = 1 ] && grep -Eq "$re" o.err && [ ! -s o.out ] ||
		bad "$*: rc $rc (want $want), stderr: $(cat o.err), stdout $(wc -c <o.out) bytes"
}
export XDG_CACHE_HOME=$tmp/xdg
"$BTFINLINE" stats full --json >want.json || bad "stats full"
for BT in "$BTFINLINE" "$TOP/build-asan/btfinline"; do
	[ -x "$BT" ] || continue
	which=$(basename "$(dirname "$BT")")
	rm -rf dcache xdg
	export DEBUGINFOD_CACHE_PATH=$tmp/dcache
	DEBUGINFOD_URLS=$url "$BT" stats shapes --json -v >got.json 2>v.err || bad "$which: stats: $(cat v.err)"
	grep -qx "btfinline: shapes: DWARF from $tmp/dcache/$id/debuginfo (debuginfod)" v.err || bad "$which: stats -v: $(cat v.err)"
	[ "$(counts <want.json)" = "$(counts <got.json)" ] || bad "$which: stats through debuginfod differs from the unstripped build's"
	[ -s "dcache/$id/debuginfo" ] || bad "$which: nothing in libdebuginfod's cache"
	echo "ok   $which: stats shapes: DWARF fetched into libdebuginfod's cache, same counts as the unstripped build"

	if [ "$(id -u)" = 0 ] && [ -d /sys/bus/event_source/devices/uprobe ]; then
		DEBUGINFOD_URLS=$url timeout 60 "$BT" trace -v -x ./shapes scale 'obj_id o->id' -- ./shapes 2 >t.out 2>t.err ||
			bad "$which: trace: $(cat t.err)"
		grep -q "built from the DWARF of $tmp/dcache/$id/debuginfo (debuginfod)" t.err || bad "$which: trace -v: $(cat t.err)"
		diff <(grep -E '^arg (scale|obj_id) ' t.out | cut -d' ' -f2-) \
		     <(grep -E '^[0-9.]+ [0-9]+ (scale|obj_id) ' t.out | sed 's/^[^ ]* [^ ]* \([^ ]*\) [^ ]* ([^)]*)/\1/') >/dev/null ||
			bad "$which: trace values differ from the program's: $(cat t.out)"
		echo "ok   $which: one-step trace with the DWARF from debuginfod: $(grep -cE '^[0-9.]+ ' t.out) events = the program's values"
	fi

	# (each with an empty libdebuginfod cache: it remembers a 404 for 10 min)
	rm -rf dcache
	one_line 1 "^btfinline: other: no DWARF debug info: none in the file, no debug file for build-id $oid \(searched [^)]*\); debuginfod $url: no debug file for this build-id there$" \
		env DEBUGINFOD_URLS=$url "$BT" stats other
	dead=$(port)
	rm -rf dcache
	one_line 1 "^btfinline: other: no DWARF debug info: .*; debuginfod http://127.0.0.1:$dead: cannot connect \(connection refused\)$" \
		env DEBUGINFOD_URLS=http://127.0.0.1:$dead "$BT" stats other
	rm -rf dcache
	one_line 1 "^btfinline: shapes: debug file $tmp/dcache/$id/debuginfo \(from debuginfod\) does not match: build-id $oid, want $id$" \
		env DEBUGINFOD_URLS=http://127.0.0.1:$w "$BT" stats shapes
	rm -rf dcache xdg	# (the cache entry of the trace above would be used)
	one_line 1 "^btfinline: \./shapes: no .BTF.inline section, and none can be built: debug file .* does not match: build-id $oid, want $id$" \
		env DEBUGINFOD_URLS=http://127.0.0.1:$w timeout 60 "$BT" trace -x ./shapes scale
	echo "ok   $which: 404, server down, wrong build-id: one line each, exit 1"
done
[ "$(sha256sum <shapes)" = "$sum" ] || bad "shapes modified"
exit $fail
