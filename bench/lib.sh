# Set-up shared by the bench scripts (source it first): run from the top of
# the tree, BTFINLINE, VMLINUX ($1, else the cached Debian one), a temp
# dir $tmp removed on exit, and measure.
set -e
cd "$(dirname "$0")/.."
BTFINLINE=${BTFINLINE:-build/btfinline}
VMLINUX=${1:-$(tests/data/fetch-kernel.sh)/vmlinux}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure NAME CMD...: CMD under /usr/bin/time, its output in $tmp/NAME.out;
# sets WALL (seconds) and RSS (peak, kB). A failed CMD ends the script.
measure() {
	local name=$1; shift
	/usr/bin/time -f '%e %M' -o "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>&1 ||
		{ echo "$name failed:" >&2; tail -n 5 "$tmp/$name.out" >&2; exit 1; }
	read -r WALL RSS <"$tmp/$name.time"
}
