#!/bin/bash
# CLI conventions: `help CMD` = `CMD -h` = `CMD --help` (stdout, exit 0),
# the overview names every command; usage errors exit 2 with nothing on
# stdout and, on stderr, the problem, the synopsis of `help CMD` and a hint;
# --version prints the VERSION file's version (text and -j JSON).
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$BTFINLINE" help >"$tmp/help" || bad "help: rc $?"
for c in stats encode dump trace; do
	grep -q "^  btfinline $c " "$tmp/help" || bad "help does not list $c"
	"$BTFINLINE" help "$c" >"$tmp/$c" || bad "help $c: rc $?"
	grep -q "^usage: btfinline $c " "$tmp/$c" || bad "help $c: no usage line"
	for h in -h --help; do
		"$BTFINLINE" "$c" "$h" >"$tmp/$c$h" 2>"$tmp/err"; rc=$?
		[ $rc = 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/$c" "$tmp/$c$h" ||
			bad "$c $h: rc $rc, not the text of 'help $c'"
	done
	# every synopsis line of `help CMD` is in the overview
	grep '^usage: \|^       btfinline' "$tmp/$c" | sed -E 's/^(usage:|      ) //' | while read -r l; do
		grep -qF "  $l" "$tmp/help" || { echo "FAIL help: '$l' missing"; exit 1; }
	done || fail=1
done
"$BTFINLINE" -h | cmp -s - "$tmp/help" || bad "-h is not 'help'"

# Usage errors: rc 2, stdout empty, problem + synopsis + hint on stderr.
while IFS='|' read -r cmd args problem; do
	# shellcheck disable=SC2086
	"$BTFINLINE" $cmd $args >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ $rc != 2 ] || [ -s "$tmp/out" ] || ! grep -qF "btfinline $cmd: $problem" "$tmp/err" ||
	   ! grep -q "^usage: btfinline $cmd " "$tmp/err" || ! grep -q "^Try 'btfinline help $cmd'" "$tmp/err"; then
		bad "$cmd $args: rc $rc (want 2), stderr:"; cat "$tmp/err"
	else
		echo "ok   $cmd $args: $(head -n 1 "$tmp/err")"
	fi
done <<EOF2
stats|--bogus $FIXTURES/shapes-gcc-dw5|unrecognized option '--bogus'
stats|-q $FIXTURES/shapes-gcc-dw5|unknown option '-q'
stats|--probe=nope $FIXTURES/shapes-gcc-dw5|unknown probe policy 'nope'
stats|a b|extra argument 'b'
dump|f --format=xml|unknown format 'xml'
dump|f --base|option '--base' needs an argument
dump|f --addr zz|--addr 'zz': not an address
encode|f|no output
encode|f -o a --in-place|-o and --in-place exclude each other
trace|-x|option '-x' needs an argument
trace|-k -x f g|-k traces the kernel
trace|-x f -p 0 g|-p '0': not a PID
trace|-x f|no FUNC
EOF2
for args in "" "nosuchcommand" "help nosuchcommand" "-j dump"; do
	# shellcheck disable=SC2086
	"$BTFINLINE" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q "^usage: btfinline COMMAND" "$tmp/err" ||
		bad "'$args': rc $rc (want 2)"
done

# Version: one place (VERSION), text as bpftool's, and JSON.
v=$(cat "$TOP/VERSION")
"$BTFINLINE" --version | head -n 1 | grep -qx "btfinline v$v" || bad "--version: $("$BTFINLINE" --version)"
"$BTFINLINE" -V | grep -q "^using libbpf v[0-9]" || bad "-V: no libbpf version"
"$BTFINLINE" -V -j | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(d["version"] != sys.argv[1] or not d["libbpf_version"])' "$v" ||
	bad "-V -j: not JSON with version $v"
[ $fail = 0 ] && echo "ok   help, usage errors and version of 4 commands"
exit $fail
