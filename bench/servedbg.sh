#!/bin/bash
# bench/servedbg.sh - the debug files the peers of `modsect serve` need
# (bench/serve.sh): Debian's debug vmlinux of REL and the debug .ko of
# some modules, from linux-image-REL-dbg (~860 MB, the same version as the
# installed linux-image-REL).
#
#   bench/servedbg.sh REL [MODULE...]
#
# Into bench/out/ (gitignored, never committed):
#   lx/REL/vmlinux        the debug vmlinux (where bench/lxsymbols.sh puts it,
#                         so each reuses the other's)
#   serve/dbg/REL/NAME.ko each MODULE's file of usr/lib/debug/lib/modules
# The .deb is kept in bench/out/deb/ while anything is missing and deleted
# once all is there, unless BENCH_KEEP_DEB is set. A second run returns at
# once. Prints the vmlinux's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "servedbg: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: $0 REL [MODULE...]"
rel=$1
shift
vml=$here/out/lx/$rel/vmlinux
mods=$here/out/serve/dbg/$rel
mkdir -p "$(dirname "$vml")" "$mods" "$here/out/deb"

need=()
[ -s "$vml" ] || need+=("./usr/lib/debug/boot/vmlinux-$rel")
for m in "$@"; do
	m=${m//_/-}
	[ -s "$mods/$m.ko" ] || [ -s "$mods/${m//-/_}.ko" ] ||
		need+=("*/${m}.ko" "*/${m//-/_}.ko")
done
if [ ${#need[@]} -gt 0 ]; then
	ver=$(dpkg-query -W -f='${Version}' "linux-image-$rel" 2>/dev/null) ||
		die "linux-image-$rel is not installed"
	deb=$(ls "$here/out/deb/linux-image-$rel-dbg_"*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		(cd "$here/out/deb" && { apt-get download -q "linux-image-$rel-dbg=$ver" ||
			{ apt-get update -qq && apt-get download -q "linux-image-$rel-dbg=$ver"; }; }) >&2 ||
			die "apt-get download linux-image-$rel-dbg=$ver failed"
		deb=$(ls "$here/out/deb/linux-image-$rel-dbg_"*.deb | head -n 1)
	fi
	x=$here/out/serve/dbg/x
	rm -rf "$x"
	mkdir -p "$x"
	echo "servedbg: extracting ${need[*]} from $deb" >&2
	# dpkg -x of all of it is 5.6 GB; only what is named comes out.
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$x" --wildcards "${need[@]}" 2>/dev/null || true
	if [ -s "$x/usr/lib/debug/boot/vmlinux-$rel" ]; then
		mv "$x/usr/lib/debug/boot/vmlinux-$rel" "$vml"
	fi
	find "$x" -name '*.ko' -exec mv {} "$mods/" \;
	rm -rf "$x"
fi
[ -s "$vml" ] || die "no vmlinux-$rel in the package"
for m in "$@"; do
	m=${m//_/-}
	[ -s "$mods/$m.ko" ] || [ -s "$mods/${m//-/_}.ko" ] || die "no debug $m.ko in the package"
done
[ -n "${BENCH_KEEP_DEB:-}" ] || rm -f "$here/out/deb/linux-image-$rel-dbg_"*.deb
echo "$vml"
