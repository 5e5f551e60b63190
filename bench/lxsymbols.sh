#!/bin/bash
# bench/lxsymbols.sh - the kernel's own lx-symbols (scripts/gdb) against a
# QEMU guest of tests/vm/lib.sh, for a head-to-head with modsect's in-gdb load.
#
#   bench/lxsymbols.sh prepare REL
#       Into bench/out/lx/REL/ (gitignored): `vmlinux` from
#       linux-image-REL-dbg, scripts/gdb from linux-source-X.Y of the same
#       version, with linux/constants.py generated through Kbuild of
#       /lib/modules/REL/build (linux-headers-REL). Checks that gdb loads
#       vmlinux-gdb.py and has lx-symbols. A second run returns at once.
#       Downloads ~1 GB (dbg 859 MB + source 139 MB); the .debs are deleted
#       after unpacking; ~640 MB stay (vmlinux).
#
#   EXPECT=all.uexp bench/lxsymbols.sh run REL PORT MODDIR OUT
#       gdb on the gdbstub 127.0.0.1:PORT (guest paused or running): file
#       vmlinux, source vmlinux-gdb.py, target remote, `lx-symbols MODDIR`
#       timed (line "LXTIME <s>"; "FILETIME <s>" is the first `file`), then
#       symdump.py's "SYM name hex" / "SYMERR name error" for every
#       "<name> <hex>" line of $EXPECT (vm_expected_syms' all.uexp; optional),
#       then detach (the guest runs on). All gdb output goes to OUT.
#
# MODDIR: a directory (searched recursively) with one plain `NAME.ko` per
# loaded module, named as the file (dashes or underscores both match):
# lx-symbols only looks at *.ko and *.ko.debug, so Debian's .ko.xz must be
# decompressed first (vm_expected_syms leaves them in DIR/ko/; symlinks are
# fine) plus $VM_TESTMOD_KO. Nothing else named like a module may be in it:
# lx-symbols takes the first file whose name matches.
#
# The guest must boot with `nokaslr` (MODSECT_VM_APPEND=nokaslr): 6.1's
# lx-symbols reads `modules` at vmlinux's link address and reloads vmlinux
# with `symbol-file vmlinux`, dropping any offset given to `file -o`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
die() { echo "lxsymbols: $*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: $0 prepare REL | run REL PORT MODDIR OUT"
mode=$1 rel=$2
d=$here/out/lx/$rel

# gdb check shared by prepare: vmlinux-gdb.py loads and defines lx-symbols.
gdb_check() {
	gdb -q -nx -batch -ex 'add-auto-load-safe-path /' -ex "file $d/vmlinux" \
		-ex "source $d/vmlinux-gdb.py" -ex 'help lx-symbols' 2>&1
}

prepare() {
	[ -e "$d/prepared" ] && { echo "lxsymbols: $d ready"; return; }
	rm -rf "$d/deb"     # leftovers of an interrupted run
	mkdir -p "$d/deb"
	# The installed image's version; the dbg package of the same ABI (REL)
	# must have it, or its vmlinux is another build.
	local ver xy srcver deb
	ver=$(dpkg-query -W -f='${Version}' "linux-image-$rel" 2>/dev/null) ||
		die "linux-image-$rel is not installed"
	xy=$(echo "$rel" | cut -d. -f1,2)
	if [ ! -s "$d/vmlinux" ]; then
		(cd "$d/deb" && apt-get download -q "linux-image-$rel-dbg=$ver") ||
			die "apt-get download linux-image-$rel-dbg=$ver failed (apt-get update?)"
		deb=$(ls "$d"/deb/linux-image-"$rel"-dbg_*.deb)
		# The data tar is ~5.6 GB unpacked (all modules' debug files):
		# --occurrence stops tar after vmlinux, which comes first.
		dpkg-deb --fsys-tarfile "$deb" 2>/dev/null | tar -x -C "$d/deb" --occurrence=1 \
			"./usr/lib/debug/boot/vmlinux-$rel" || true
		# Same build as the image that boots (Debian's /boot/System.map is a
		# placeholder): vmlinux's build-id is in the xz payload of vmlinuz.
		local id
		id=$(readelf -n "$d/deb/usr/lib/debug/boot/vmlinux-$rel" | sed -n 's/.*Build ID: *//p' | head -n 1)
		python3 - "/boot/vmlinuz-$rel" "$id" <<'EOF' || die "vmlinux of $deb is not the build of /boot/vmlinuz-$rel"
import lzma, struct, sys
b = open(sys.argv[1], "rb").read()
base = ((b[0x1f1] or 4) + 1) * 512          # setup_sects; payload_offset, _length:
off, ln = struct.unpack_from("<II", b, 0x248)
sys.exit(bytes.fromhex(sys.argv[2]) not in lzma.LZMADecompressor().decompress(b[base + off:base + off + ln]))
EOF
		# Named `vmlinux`: lx-symbols reloads the objfile whose name ends
		# in "vmlinux" (else ./vmlinux); Debian's vmlinux-REL would not match.
		mv "$d/deb/usr/lib/debug/boot/vmlinux-$rel" "$d/vmlinux"
		rm -rf "$d/deb/usr" "$deb"
	fi
	if [ ! -e "$d/scripts/gdb/vmlinux-gdb.py" ]; then
		# linux-source is built from the same `linux` source package as the
		# dbg one; take the image's version, or else the newest (warned).
		srcver=$ver
		if ! apt-cache madison "linux-source-$xy" | awk '{ print $3 }' | grep -qxF "$ver"; then
			srcver=$(apt-cache policy "linux-source-$xy" | awk '/Candidate:/ { print $2 }')
			echo "lxsymbols: WARNING: no linux-source-$xy $ver, using $srcver" >&2
		fi
		(cd "$d/deb" && apt-get download -q "linux-source-$xy=$srcver") ||
			die "apt-get download linux-source-$xy=$srcver failed"
		deb=$(ls "$d"/deb/linux-source-"$xy"_*.deb)
		dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/linux-source-$xy.tar.xz" |
			tar -xJ -C "$d" --strip-components=1 --wildcards "linux-source-$xy/scripts/gdb/*"
		rm -f "$deb"
		echo "$srcver" >"$d/scripts/gdb/source-version"
	fi
	# The kernel's own rule (scripts/gdb/linux/Makefile: $(CPP) -E -x c -P
	# $(c_flags) then sed) run as an external Kbuild directory, so the
	# headers package supplies c_flags and the config; no kernel build.
	if [ ! -s "$d/scripts/gdb/linux/constants.py" ]; then
		make -s -C "/lib/modules/$rel/build" M="$d/scripts/gdb/linux" >"$d/constants.log" 2>&1 ||
			{ cat "$d/constants.log" >&2; die "generating constants.py failed"; }
	fi
	# abspath, not realpath, of __file__ + /scripts/gdb: a symlink beside
	# scripts/ is the layout of a kernel build tree.
	ln -sfn scripts/gdb/vmlinux-gdb.py "$d/vmlinux-gdb.py"
	gdb_check >"$d/check.log" || true
	grep -q 'Usage\|(Re-)load symbols' "$d/check.log" ||
		{ cat "$d/check.log" >&2; die "vmlinux-gdb.py does not give lx-symbols"; }
	touch "$d/prepared"
	echo "lxsymbols: $d ready"
}

run() {
	[ $# -eq 3 ] || die "usage: $0 run REL PORT MODDIR OUT"
	local port=$1 moddir out=$3
	moddir=$(cd "$2" && pwd)
	[ -e "$d/prepared" ] || die "run '$0 prepare $rel' first"
	[ -z "${EXPECT:-}" ] || [ -r "$EXPECT" ] || die "EXPECT=$EXPECT not readable"
	# One python block: a gdb error must not end the script before
	# `detach` (gdb exiting attached kills the inferior, i.e. QEMU).
	local cmds
	cmds=$(mktemp)
	cat >"$cmds" <<EOF
set pagination off
set confirm off
# sourced explicitly below; auto-load would also re-source it at the reload
set auto-load python-scripts off
source $top/tests/vm/symdump.py
python import time; t0 = time.time()
file $d/vmlinux
python gdb.write("FILETIME %.3f\\n" % (time.time() - t0))
source $d/vmlinux-gdb.py
target remote 127.0.0.1:$port
python
t0 = time.time()
try:
    gdb.execute("lx-symbols $moddir")
except Exception as e:
    gdb.write("LXERR %s\\n" % " ".join(str(e).split()))
gdb.write("LXTIME %.3f\\n" % (time.time() - t0))
if "${EXPECT:-}":
    ms_addr("${EXPECT:-}", "SYM")
gdb.execute("detach")
end
EOF
	# lx-symbols also walks the cwd for modules, so run in $d (no .ko).
	(cd "$d" && timeout 900 gdb -q -nx -batch -x "$cmds" >"$out" 2>&1) || true
	rm -f "$cmds"
	grep -E '^(LXTIME|LXERR)' "$out" || die "no LXTIME in $out"
	if grep -q '^LXERR.*Cannot access memory' "$out"; then
		echo "lxsymbols: KASLR? boot the guest with nokaslr" >&2
	fi
	! grep -q '^LXERR' "$out"
}

case $mode in
prepare) prepare ;;
run) shift 2; run "$@" ;;
*) die "unknown mode $mode" ;;
esac
