#!/bin/bash
# dwz alternate files (issue 11): DWARF whose types and strings were moved
# by dwz into a file shared by several binaries (.gnu_debugaltlink: name +
# build-id; DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt), as Debian's -dbg
# packages ship it. Normal and, if built, ASan+UBSan CLI.
#  - shapes.c built twice (gcc DWARF 5, clang DWARF 4: dwz 0.15 cannot read
#    clang's DWARF 5) and dwz'd into a multifile: `stats --json`, `dump -j`
#    and `dump` after `encode` equal the build before dwz (the alternate
#    file's DIE offsets collide with the main file's: the encoder's types
#    once came from the wrong DIEs); -v names the alternate file;
#  - the alternate file found as named (absolute, or relative to the
#    DWARF file), under ROOT/.dwz/ and ROOT/.build-id/ (--debug-dir);
#    missing or with another build-id: one line, exit 1;
#  - Debian's liblua5.4-0 + liblua5.4-0-dbg (scripts/deps.sh): `stats`
#    counts the inline instances `llvm-dwarfdump --statistics` counts in
#    the debug file; dump of prototypes whose types are in the alternate
#    file (as in Lua 5.4.4's source); a one-step trace of index2value,
#    inlined into lua_type, in a program whose arguments the test sets.
set -u
. "$TOP/tests/lib_trace.sh"
command -v dwz >/dev/null || { echo "skip: no dwz"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "tmp: $tmp"
fail=0
. "$TOP/tests/lib_check.sh"
bins=("$BTFINLINE")
[ -x "$TOP/build-asan/btfinline" ] && bins+=("$TOP/build-asan/btfinline")
build_id() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
# set_link FILE NAME ALT: FILE's .gnu_debugaltlink names NAME, build-id ALT's
set_link() {
	python3 -c 'import sys; open(sys.argv[1], "wb").write(sys.argv[2].encode() + b"\0" + bytes.fromhex(sys.argv[3]))' \
		"$tmp/link" "$2" "$(build_id "$3")" &&
		objcopy --remove-section=.gnu_debugaltlink --add-section .gnu_debugaltlink="$tmp/link" "$1"
}

for cc in gcc clang; do
	dw=5; [ $cc = clang ] && dw=4
	d=$tmp/$cc; mkdir -p "$d"; cd "$d" || exit 1
	$cc -O2 -gdwarf-$dw -o a "$TOP/tests/fixtures/shapes.c" && pahole -J a && cp a b && cp a a.plain ||
		{ bad "$cc: build"; continue; }
	# gcc: a relative name (found next to the DWARF file), clang: absolute
	name=alt.debug; [ $cc = clang ] && name=$d/alt.debug
	dwz -m alt.debug -M "$name" a b || { bad "$cc: dwz"; continue; }
	readelf -p .gnu_debugaltlink a | grep -qF "$name" || bad "$cc: no .gnu_debugaltlink $name"
	readelf -wi a | grep -q 'DW_AT_type *: <alt 0x' || bad "$cc: no DW_FORM_GNU_ref_alt type in a"
	"$BTFINLINE" stats a.plain --json | norm >ref.stats
	for b in "${bins[@]}"; do
		"$b" stats a --json -v 2>err | norm >a.stats || bad "$cc: stats ($b): $(cat err)"
		cmp -s a.stats ref.stats || bad "$cc: stats --json differs from the build before dwz ($b)"
		# (a relative name: next to the DWARF file, here ./a)
		grep -qxF "btfinline: a: DWARF in the file; dwz alternate file $([ $cc = gcc ] && echo "./" || echo "$d/")alt.debug" err ||
			bad "$cc: -v says $(cat err)"
	done
	F=$("$BTFINLINE" stats a.plain --sites | awk '$1 == "site" && $3 != "0x0" { print $2 }' | sort -u)
	"$BTFINLINE" encode a.plain -o ref && "$BTFINLINE" encode a -o enc || { bad "$cc: encode"; continue; }
	for j in -j ""; do
		# shellcheck disable=SC2086
		cmp -s <("$BTFINLINE" dump ref $j $F) <("$BTFINLINE" dump enc $j $F) ||
			{ bad "$cc: dump $j differs from the build before dwz:"; diff <("$BTFINLINE" dump ref $j $F) <("$BTFINLINE" dump enc $j $F) | head -6; }
	done
	echo "ok   $cc: dwz'd (alternate file $name): stats, dump equal the build before dwz"
done

# Where the alternate file is looked for (gcc's, relative name alt.debug).
cd "$tmp/gcc" || exit 1
aid=$(build_id alt.debug)
mv alt.debug alt.moved
for b in "${bins[@]}"; do
	one_line 1 "^btfinline: a: dwz alternate file alt\\.debug \\(build-id $aid\\) not found \\(looked for it as named, next to the file, under ROOT/\\.dwz and ROOT/\\.build-id of $tmp/none\\)$" \
		"$b" stats a --debug-dir "$tmp/none"
done
mkdir -p "$tmp/root/.build-id/${aid:0:2}" && cp alt.moved "$tmp/root/.build-id/${aid:0:2}/${aid:2}.debug"
"$BTFINLINE" stats a --json --debug-dir "$tmp/root" | norm | cmp -s - ref.stats ||
	bad "alternate file by build-id under --debug-dir: stats differs"
# Debian's name: /usr/lib/debug/.dwz/<triplet>/<package>.debug, under ROOT
cp a dz && set_link dz /usr/lib/debug/.dwz/x86_64-linux-gnu/nothere.debug alt.moved &&
	mkdir -p "$tmp/root2/.dwz/x86_64-linux-gnu" && cp alt.moved "$tmp/root2/.dwz/x86_64-linux-gnu/nothere.debug"
"$BTFINLINE" stats dz --json -v --debug-dir "$tmp/root2" 2>err | norm | cmp -s - ref.stats && 
	grep -qF "dwz alternate file $tmp/root2/.dwz/x86_64-linux-gnu/nothere.debug" err ||
	bad "alternate file under ROOT/.dwz: $(cat err)"
echo "ok   alternate file found by build-id and under ROOT/.dwz (--debug-dir)"
# Another dwz file (clang's) where the name points: refused, named.
cp "$tmp/clang/alt.debug" alt.debug
for b in "${bins[@]}"; do
	one_line 1 "^btfinline: a: dwz alternate file \\./alt\\.debug does not match: build-id $(build_id alt.debug), want $aid$" \
		"$b" stats a
done
one_line 1 "^btfinline: a: dwz alternate file .* does not match" "$BTFINLINE" encode a -o "$tmp/x"
[ -e "$tmp/x" ] && bad "mismatch: output written"

# Debian's liblua5.4-0 with its dwz'd -dbg package.
L=/usr/lib/x86_64-linux-gnu/liblua5.4.so.0.0.0
id=$([ -e "$L" ] && build_id "$L")
D=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
if [ -z "$id" ] || [ ! -e "$D" ]; then
	echo "note: liblua5.4-0 / liblua5.4-0-dbg not installed (scripts/deps.sh installs them): Debian's dwz'd package not checked"
	exit $fail
fi
cd "$tmp" || exit 1
readelf -SW "$D" | grep -q '\.gnu_debugaltlink' || bad "$D has no .gnu_debugaltlink (not dwz'd?)"
want=$(llvm-dwarfdump --statistics "$D" | python3 -c 'import json,sys; print(json.load(sys.stdin)["#inlined functions"])')
for b in "${bins[@]}"; do
	got=$("$b" stats "$L" --json -v 2>err | python3 -c 'import json,sys; print(json.load(sys.stdin)["inline_instances"])')
	[ "$got" = "$want" ] || bad "liblua: stats: $got inline instances, llvm-dwarfdump: $want ($b)"
	grep -q "DWARF from $D (build-id); dwz alternate file /usr/lib/debug/\.dwz/" err || bad "liblua: -v says $(cat err)"
done
echo "ok   liblua5.4: $want inline instances = llvm-dwarfdump --statistics"
# pahole 1.24 reads no dwz'd DWARF: an empty base, prototypes from the DWARF
python3 -c 'import struct; open("empty.btf","wb").write(struct.pack("<HBBIIIII",0xeB9F,1,0,24,0,0,0,1) + b"\0")'
"$BTFINLINE" encode "$L" --base empty.btf --raw lua.blob || bad "liblua: encode"
"$BTFINLINE" dump lua.blob --base empty.btf add_value aux_upvalue fchecksize addquoted index2value |
	grep '^  [a-zA-Z].*(' >protos
cat >protos.want <<'EOF'
  int add_value(MatchState *ms, luaL_Buffer *b, const char *s, const char *e, int tr)
  const char *aux_upvalue(TValue *fi, int n, TValue **val, GCObject **owner)
  void fchecksize(LoadState *S, size_t size, const char *tname)
  void addquoted(luaL_Buffer *b, const char *s, size_t len)
  TValue *index2value(lua_State *L, int idx)
EOF
cmp -s <(sort protos) <(sort protos.want) && echo "ok   liblua5.4: prototypes from the alternate file's types = Lua 5.4.4's source" ||
	{ bad "liblua: dump prototypes differ from the source's:"; diff protos.want protos; }

if [ "$(id -u)" = 0 ] && [ -d /sys/bus/event_source/devices/uprobe ]; then
	cat >prog.c <<'EOF'
#include <stdlib.h>
typedef struct lua_State lua_State;
lua_State *luaL_newstate(void);
void lua_close(lua_State *L);
int lua_type(lua_State *L, int idx);
void lua_pushinteger(lua_State *L, long long n);
int main(int argc, char **argv)
{
	lua_State *L = luaL_newstate();
	int n = argc > 1 ? atoi(argv[1]) : 3;

	lua_pushinteger(L, 42);
	for (int i = 1; i <= n; i++)
		lua_type(L, i * 7);
	lua_type(L, -1);
	lua_close(L);
	return 0;
}
EOF
	gcc -O1 -o prog prog.c "$L" || bad "liblua: building the program"
	# --best-effort: lua_isnumber's site has no location for L and idx
	XDG_CACHE_HOME=$tmp/xdg timeout 60 "$BTFINLINE" trace -x "$L" --best-effort index2value -- ./prog 3 \
		>trace 2>trace.err || bad "liblua: trace: $(cat trace.err)"
	cut -d' ' -f3- trace | sed 's/L=0x[0-9a-f]*/L=PTR/' >events
	printf 'index2value lua_type+0x0 (lapi.c:289) L=PTR idx=%s\n' 7 14 21 -1 >events.want
	cmp -s events events.want && echo "ok   liblua5.4: one-step trace of index2value in lua_type: idx 7 14 21 -1" ||
		{ bad "liblua: traced events differ:"; diff events.want events; cat trace.err; }
	check_no_probes "liblua trace"
else
	echo "note: not root or no uprobes: liblua trace not checked"
fi
exit $fail
