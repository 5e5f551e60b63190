#!/bin/bash
# tests/vm/memsrc.sh - the memory sources against a real kernel (QEMU, TCG,
# KASLR on, Debian's kernel): the section map read from the kernel's own
# memory over QEMU's gdbstub and from vmcores, against the guest's own sysfs
# capture of the same boot.
#
#   MODSECT=build/san/modsect MODSECT_STATIC=$PWD/modsect-static tests/vm/memsrc.sh
#
# One boot; the guest also loads qemu_fw_cfg, which hands QEMU's vmcoreinfo
# device the kernel's VMCOREINFO, so dumps carry it.
#
#  1. vmcore: QMP dump-guest-memory to an ELF vmcore and to kdump-zlib
#     (vm_dump).  Through the test helper memread (lib/target/vmcore.c): VMCOREINFO
#     has the guest's OSRELEASE and a KERNELOFFSET; linux_banner at its
#     kallsyms address is the guest's "Linux version" line; every module's
#     .text reads, the same bytes from both dumps; unmapped and user-space
#     addresses are clear errors.
#  2. the whole map: `modsect capture` from --remote (TCP, with and without
#     --kernel-image), from both vmcores (with and without --kernel-image)
#     and from --remote on a tty (socat pty, --baud 115200) equals the
#     guest's sysfs capture module by module and section by section;
#     `modsect gdb --all --remote` written with no gdb attached, then sourced
#     by a gdb on the stub: every module symbol of kallsyms (unique, in the
#     module file's symtab) is at its kallsyms address; a vmlinuz whose
#     build-id differs (a fake bzImage made from the real one) is refused
#     with both build-ids named; the guest still runs after all that.
#  3. bench: the time of `modsect capture --remote` (TCP, with and without
#     the image; the tty) and the tty capture's round trips (packets modsect
#     sent, counted in socat's log), in $VM_RUN/memsrc/bench.txt.
#
# Prints "ok - memsrc: ..." / "not ok - memsrc: ..." per check, then "N
# passed, N failed" alone on the last line; exit 1 if anything failed.  Run
# as root (see README.md).  Environment: MODSECT (default ./modsect),
# MODSECT_STATIC (static modsect for the guest's capture; default
# ./modsect-static), MODSECT_VM_GDB_TIMEOUT (120 s),
# MODSECT_VM_KEEP_DUMPS=1 keeps the dumps, and lib.sh's MODSECT_VM_*.  By
# default this test's build products and run state are in out/memsrc/ (its
# initramfs differs from the other tests').
set -u
unset DEBUGINFOD_URLS
VM_DIR0=$(cd "$(dirname "$0")" && pwd)
export MODSECT_VM_OUT=${MODSECT_VM_OUT:-$VM_DIR0/out/memsrc}
export MODSECT_VM_STOCK_MODULES=${MODSECT_VM_STOCK_MODULES:-"crc-itu-t dm-mod isofs qemu_fw_cfg"}
. "$VM_DIR0/lib.sh"

TOP=$(cd "$VM_DIR/../.." && pwd)
GDB_TIMEOUT=${MODSECT_VM_GDB_TIMEOUT:-120}
vm_modsect "$TOP/modsect"
# The test helpers are built beside the binary under test (tests/common.sh).
TEST_TOOLS=$(test_tools_dir "$MODSECT" "$TOP")
[ -x "$TEST_TOOLS/memread" ] || vm_die "$TEST_TOOLS/memread missing (make test-tools, or make san)"
if [ -z "${MODSECT_STATIC:-}" ] && [ -x "$TOP/modsect-static" ]; then
	export MODSECT_STATIC=$TOP/modsect-static
fi
for t in python3 socat gdb; do
	command -v "$t" >/dev/null 2>&1 || vm_die "$t is missing (scripts/deps.sh check installs it)"
done


vm_setup
vm_start

W=$VM_RUN/memsrc
rm -rf "$W"
mkdir -p "$W/ko" "$W/sym"
# Run copies: a `make` elsewhere in the tree may replace the binaries.
cp "$MODSECT" "$W/modsect" && cp "$TEST_TOOLS/memread" "$W/memread" ||
	vm_die "cannot copy $MODSECT or $TEST_TOOLS/memread"
MS=$W/modsect
MEMREAD=$W/memread
SOCAT_PID=
cleanup() {
	if [ -n "$SOCAT_PID" ]; then
		kill "$SOCAT_PID" 2>/dev/null
		wait "$SOCAT_PID" 2>/dev/null
		SOCAT_PID=
	fi
	[ "${MODSECT_VM_KEEP_DUMPS:-0}" = 1 ] || rm -f "$W/core.elf" "$W/core.kdump"
	vm_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Commands run through lib.sh's vm_run NAME CMD... (output and time in
# $W/NAME.*; a sanitizer report fails), and expect_refused NAME DESC ERE...
# -- CMD... where they must fail saying why.

REF=$VM_RUN/capture.txt
if [ -z "${MODSECT_STATIC:-}" ]; then
	not_ok "MODSECT_STATIC not set: the guest ran no modsect capture to compare with"
elif grep -qx 'rc=0' "$VM_RUN/capture-stderr.txt" && grep -q '^modsect-capture 1$' "$REF"; then
	ok "guest's sysfs capture: $(grep -c '^module ' "$REF") modules, $(grep -c '^section ' "$REF") sections, $(grep -c '^kallsyms ' "$REF") kallsyms lines"
else
	not_ok "guest's modsect capture failed"
	detail <"$VM_RUN/capture-stderr.txt"
fi
if grep -q '^FAIL' "$VM_RUN/insmod.txt"; then
	not_ok "guest insmod failed"
	detail <"$VM_RUN/insmod.txt"
fi
KREL=$(cat "$VM_RUN/uname.txt")
MODS=$(awk '$2 == ".text" { print $1 }' "$VM_RUN/sections.txt" | sort -u)
REMOTE=127.0.0.1:$VM_GDB_PORT

# A kernel without BTF (Debian's 686-pae, armmp: no CONFIG_DEBUG_INFO_BTF):
# modsect reads struct module's layout from the DWARF of a module built
# for it (#31), here the test module's, found in --search; without one it
# must refuse, naming BTF and what to give.  libkdumpfile 0.5.1 cannot
# translate a PAE ia32 dump (it reads the page tables through the
# addresses they translate), which lib/target/vmcore.c must name.  The
# rest of this script needs BTF.
if ! vm_kconfig DEBUG_INFO_BTF; then
	# ppc64: modsect finds no kernel in memory without its image (as
	# kernel.sh); given it, what it lacks is BTF.
	IMG=()
	[ "$VM_ARCH" != ppc64le ] || IMG=(--kernel-image "$VM_KERNEL")
	expect_refused nobtf "capture --remote of a kernel without BTF and no module with DWARF refused, naming BTF and what to give" \
		'BTF' 'give a module built with debug info for kernel' -- \
		"$MS" capture --remote "$REMOTE" "${IMG[@]}" -o "$W/nobtf.txt"
	# The guest's sysfs map (init.sh's sh loop, build-id.txt) against
	# the capture's: "module section address" and "module build-id".
	secs() { awk '{ a = $3; sub(/^0x0*/, "", a); print $1, $2, a }' "$VM_RUN/sections.txt" | sort; }
	mem_secs() { awk '$1 == "section" { a = $4; sub(/^0x0*/, "", a); print $2, $3, a }' "$1" | sort; }
	# ppc64: no kernel found in memory without the image; 32-bit ARM:
	# modsect reads no zImage (lib/kernel/kunpack.c), so memory alone.
	for how in memory image; do
		[ "$how" = memory ] && [ "$VM_ARCH" = ppc64le ] && continue
		[ "$how" = image ] && [ "$VM_ARCH" = armv7l ] && continue
		A=("${IMG[@]}")
		[ "$how" = memory ] || A=(--kernel-image "$VM_KERNEL")
		rc=0
		vm_run "dwarf-$how" "$MS" capture --remote "$REMOTE" "${A[@]}" --search "$VM_OUT/testmod" \
			-o "$W/dwarf-$how.txt" || rc=$?
		note=$(grep -c "^modsect: note: the kernel has no BTF: struct layouts from the DWARF of $VM_OUT/testmod/modsect_test.ko (built for $KREL)\$" "$W/dwarf-$how.err")
		if [ "$rc" = 0 ] && [ "$note" = 1 ] && diff <(secs) <(mem_secs "$W/dwarf-$how.txt") >"$W/dwarf-$how.diff" &&
			diff <(awk '{ print $1, $2 }' "$VM_RUN/build-id.txt" | sort) \
				<(awk '$1 == "build-id" { print $2, $3 }' "$W/dwarf-$how.txt" | sort) >>"$W/dwarf-$how.diff"; then
			ok "capture --remote ($how) with layouts from the test module's DWARF: the guest's sysfs map, $(secs | wc -l) sections and $(grep -c '^build-id ' "$W/dwarf-$how.txt") build-ids, the file named ($(cat "$W/dwarf-$how.time") s)"
			echo "bench: capture --remote ($how) from DWARF seconds $(cat "$W/dwarf-$how.time")"
		else
			not_ok "capture --remote ($how) with layouts from DWARF: exit $rc, note $note, or a map other than the guest's"
			{ head -n 5 "$W/dwarf-$how.err"; head -n 20 "$W/dwarf-$how.diff"; } | detail
		fi
	done
	# Without BTF and CONFIG_KALLSYMS_ALL nothing in memory tells which
	# note is the kernel's build-id (the vDSO's comes first): from memory
	# alone the capture has none, never a wrong one.
	if [ -s "$W/dwarf-memory.txt" ] && [ -s "$W/dwarf-image.txt" ] &&
		diff <(grep -v '^#' "$W/dwarf-memory.txt") <(grep -v '^#\|^kernel-build-id ' "$W/dwarf-image.txt") >"$W/dwarf-both.diff"; then
		ok "from memory alone and with the image: the same capture (the image's adds kernel-build-id $(sed -n 's/^kernel-build-id //p' "$W/dwarf-image.txt"))"
	elif [ "$VM_ARCH" != ppc64le ] && [ "$VM_ARCH" != armv7l ]; then
		not_ok "from memory alone and with the image: the captures differ"
		head -n 10 "$W/dwarf-both.diff" | detail
	fi
	if [ "$VM_ARCH" = i686 ]; then
		vm_dump "$W/core.elf" elf
		m=$(echo "$MODS" | head -n 1)
		a=$(awk -v m="$m" '$1 == m && $2 == ".text" { print $3 }' "$VM_RUN/sections.txt")
		# libkdumpfile 0.5.1 translates no such dump (if it reads, update this test).
		expect_refused nopae "[elf] reading $m .text at $a of a PAE ia32 dump fails with libkdumpfile's reason" \
			"$a is not mapped in the dumped kernel: .*No way to translate" -- "$MEMREAD" --vmcore "$W/core.elf" "${a#0x}" 16
	fi
	if vm_cmd dmesg 60; then
		ok "the guest still runs after the remote capture"
	else
		not_ok "the guest does not answer after the remote capture"
		vm_resume
	fi
	ok "vmcores through lib/target/vmcore.c, the other captures from memory, gdb --all --remote, bench (skipped on $VM_PROFILE: no CONFIG_DEBUG_INFO_BTF$([ "$VM_ARCH" != i686 ] || echo ", and no translation of its PAE dumps"))"
	summary
	exit
fi

# --- 1. vmcores through lib/target/vmcore.c ----------------------------------------------
t0=$(date +%s)
vm_dump "$W/core.elf" elf
t1=$(date +%s)
vm_dump "$W/core.kdump" kdump-zlib
t2=$(date +%s)
echo "info: ELF vmcore $(($(stat -c %s "$W/core.elf") >> 20)) MiB in $((t1 - t0)) s, kdump-zlib $(($(stat -c %s "$W/core.kdump") >> 20)) MiB in $((t2 - t1)) s"

# The banner the kernel printed first at boot is linux_banner itself, what
# /proc/version shows (dmesg-0 is the guest's dmesg after boot).
BANNER=$(sed -n 's/^\[[ 0-9.]*\] \(Linux version .*\)$/\1/p' "$VM_RUN/dmesg-0.txt" | head -n 1)
BANNER_ADDR=$(awk '$3 == "linux_banner" { print $1; exit }' "$VM_RUN/kallsyms-all.txt")
[ -n "$BANNER" ] || not_ok "no 'Linux version' line in the guest's dmesg"
NO_BANNER=
if [ -n "$BANNER_ADDR" ]; then
	:
elif ! vm_kconfig KALLSYMS_ALL; then
	NO_BANNER=1
	ok "linux_banner read from the vmcores (skipped on $VM_PROFILE: no CONFIG_KALLSYMS_ALL, kallsyms has no linux_banner)"
else
	not_ok "no linux_banner in the guest's kallsyms"
fi
# hex2str: the bytes of memread's "ADDR HEX" line up to the first NUL.
hex2str() { awk '{ print $2 }' | python3 -c 'import sys; sys.stdout.write(bytes.fromhex(sys.stdin.read().strip()).split(b"\0")[0].decode("latin-1"))'; }

# QEMU 7.2 writes an arm64 guest's kdump in 64 KiB blocks of a kernel
# with 4 KiB pages, which libkdumpfile 0.5.1 cannot read: modsect must
# refuse it, saying why and what to do (lib/target/vmcore.c).
FMTS="elf kdump"
KDUMP_OK=1
if [ "$VM_ARCH" = aarch64 ]; then
	FMTS=elf
	KDUMP_OK=
	# libkdumpfile 0.5.1 cannot read it (if it does, update this test).
	expect_refused kdump-arm64 "[kdump] QEMU's arm64 kdump-zlib refused" \
		"compressed kdump in 65536-byte blocks of a kernel with 4096-byte pages.*dump it in ELF format" -- \
		"$MS" capture --vmcore "$W/core.kdump" -o "$W/kdump-arm64.txt"
	[ ! -s "$W/kdump-arm64.txt" ] || not_ok "[kdump] QEMU's arm64 kdump-zlib refused, but $W/kdump-arm64.txt written"
fi
for fmt in $FMTS; do
	core=$W/core.$fmt
	if vm_run "vmcoreinfo-$fmt" "$MEMREAD" --vmcore "$core" --vmcoreinfo OSRELEASE --vmcoreinfo KERNELOFFSET; then
		rel=$(sed -n 's/^OSRELEASE=//p' "$W/vmcoreinfo-$fmt.out")
		off=$(sed -n 's/^KERNELOFFSET=//p' "$W/vmcoreinfo-$fmt.out")
		if [ "$rel" = "$KREL" ] && [[ $off =~ ^[0-9a-f]+$ ]]; then
			ok "[$fmt] VMCOREINFO: OSRELEASE=$rel (guest's uname -r), KERNELOFFSET=$off"
		else
			not_ok "[$fmt] VMCOREINFO: OSRELEASE='$rel' (guest: $KREL), KERNELOFFSET='$off'"
			detail <"$W/vmcoreinfo-$fmt.out"
		fi
	else
		not_ok "[$fmt] memread --vmcore failed"
		detail <"$W/vmcoreinfo-$fmt.err"
	fi
	n=$((${#BANNER} + 2))
	if [ -n "$NO_BANNER" ]; then
		:
	elif [ -n "$BANNER_ADDR" ] && vm_run "banner-$fmt" "$MEMREAD" --vmcore "$core" "$BANNER_ADDR" "$n"; then
		got=$(hex2str <"$W/banner-$fmt.out")
		if [ "$got" = "$BANNER" ]; then
			ok "[$fmt] linux_banner at $BANNER_ADDR: '${got:0:40}...' == the guest's"
		else
			not_ok "[$fmt] linux_banner at $BANNER_ADDR differs from the guest's"
			printf 'guest:  %s\nvmcore: %s\n' "$BANNER" "$got" | detail
		fi
	else
		not_ok "[$fmt] reading linux_banner at ${BANNER_ADDR:-?} failed"
		detail <"$W/banner-$fmt.err"
	fi
	# Each module's .text (the first 256 bytes): mapped, read, compared
	# between the formats below.
	: >"$W/text-$fmt.txt"
	nt=0
	for m in $MODS; do
		a=$(awk -v m="$m" '$1 == m && $2 == ".text" { print $3 }' "$VM_RUN/sections.txt")
		if vm_run "text-$fmt-$m" "$MEMREAD" --vmcore "$core" "${a#0x}" 256; then
			echo "$m $(cat "$W/text-$fmt-$m.out")" >>"$W/text-$fmt.txt"
			nt=$((nt + 1))
		else
			not_ok "[$fmt] $m .text at $a: read failed"
			detail <"$W/text-$fmt-$m.err"
		fi
	done
	[ "$nt" = 0 ] || ok "[$fmt] .text of $nt modules read (256 bytes each)"
	# An unmapped kernel address (the bottom of the module area, below
	# the randomized module base) and a user-space one: clear errors.
	for a in ffffffffc0000000:'is not mapped in the dumped kernel' 10:'is not a kernel address'; do
		expect_refused "unmapped-$fmt" "[$fmt] reading 0x${a%%:*} refused" "0x${a%%:*} ${a#*:}" -- \
			"$MEMREAD" --vmcore "$core" "${a%%:*}" 8
	done
done
if [ -z "$KDUMP_OK" ]; then
	:
elif [ -s "$W/text-elf.txt" ] && cmp -s "$W/text-elf.txt" "$W/text-kdump.txt" &&
	[ "$(grep -c . "$W/text-elf.txt")" = "$(echo "$MODS" | wc -w)" ]; then
	ok "module .text bytes identical in the ELF and kdump vmcores ($(echo "$MODS" | wc -w) modules)"
else
	not_ok "module .text bytes differ between the ELF and kdump vmcores"
	diff "$W/text-elf.txt" "$W/text-kdump.txt" | cut -c1-120 | detail
fi
expect_refused not-a-vmcore "a text file as --vmcore refused" 'not a vmcore' -- \
	"$MEMREAD" --vmcore "$VM_RUN/sections.txt"

# --- 2. the whole map from memory ---------------------------------------------------
# cap_split FILE DIR: a capture without its '#' line, as DIR/header (the
# lines that are no module's) and DIR/M for each module M: its module,
# build-id and section lines in file order, then its kallsyms lines sorted
# (their order in memory need not be /proc/kallsyms').
cap_split() {
	rm -rf "$2"
	mkdir -p "$2"
	: >"$2/header"
	awk -v d="$2" '
		/^#/ { next }
		$1 == "module" || $1 == "build-id" || $1 == "section" { print > (d "/" $2); next }
		$1 == "kallsyms" { print > (d "/" $2 ".kallsyms"); next }
		{ print > (d "/header") }' "$1"
	for k in "$2"/*.kallsyms; do
		[ -e "$k" ] || continue
		sort "$k" >>"${k%.kallsyms}"
		rm -f "$k"
	done
}

# cap_compare LABEL FILE: FILE (a capture from memory) equals the guest's
# sysfs capture, module by module; a diff per module on failure.
cap_compare() {
	local label=$1 got=$2 d=$W/cmp/$1 m diffs=
	cap_split "$REF" "$d/guest"
	cap_split "$got" "$d/mem"
	diff -u --label "guest sysfs" --label "$label" "$d/guest/header" "$d/mem/header" >"$d/diff" || diffs=" header"
	for m in $( (ls "$d/guest"; ls "$d/mem") | grep -vx header | sort -u); do
		if [ ! -e "$d/mem/$m" ]; then
			echo "module $m: only in the guest's capture" >>"$d/diff"
		elif [ ! -e "$d/guest/$m" ]; then
			echo "module $m: only in $label" >>"$d/diff"
		elif diff -u --label "$m (guest sysfs)" --label "$m ($label)" "$d/guest/$m" "$d/mem/$m" >>"$d/diff"; then
			continue
		fi
		diffs="$diffs $m"
	done
	if [ -z "$diffs" ]; then
		ok "$label: the map == the guest's sysfs capture ($(grep -c '^module ' "$got") modules, $(grep -c '^section ' "$got") sections, $(grep -c '^kallsyms ' "$got") kallsyms lines)"
	else
		not_ok "$label: the map differs from the guest's sysfs capture in:$diffs"
		head -n 60 "$d/diff" | detail
	fi
}

# capture LABEL ARGS...: modsect capture ARGS -o FILE, compared.
capture() {
	local label=$1
	shift
	if vm_run "cap-$label" "$MS" capture "$@" -o "$W/cap-$label.txt"; then
		cap_compare "$label" "$W/cap-$label.txt"
	else
		not_ok "$label: modsect capture $* failed"
		head -n 5 "$W/cap-$label.err" | detail
	fi
}

capture vmcore-elf-image --vmcore "$W/core.elf" --kernel-image "$VM_KERNEL"
capture vmcore-elf --vmcore "$W/core.elf"
if [ -n "$KDUMP_OK" ]; then
	capture vmcore-kdump-image --vmcore "$W/core.kdump" --kernel-image "$VM_KERNEL"
	capture vmcore-kdump --vmcore "$W/core.kdump"
fi
capture remote-image --remote "$REMOTE" --kernel-image "$VM_KERNEL"
capture remote --remote "$REMOTE"

# The tty path: modsect on a pty that socat joins to the gdbstub.  socat's
# -v log of what modsect sent counts its packets ('$' starts each one; the
# hex of 'm' requests has none).
socat -v "pty,link=$W/tty,raw,echo=0" "tcp:$REMOTE" 2>"$W/socat.log" &
SOCAT_PID=$!
for _ in $(seq 50); do [ -e "$W/tty" ] && break; sleep 0.1; done
if [ -e "$W/tty" ]; then
	capture remote-tty-image --remote "$W/tty" --baud 115200 --kernel-image "$VM_KERNEL"
else
	not_ok "socat made no pty $W/tty"
	detail <"$W/socat.log"
fi
kill "$SOCAT_PID" 2>/dev/null
wait "$SOCAT_PID" 2>/dev/null
SOCAT_PID=
TTY_PACKETS=$(python3 - "$W/socat.log" <<'EOF'
import re, sys
# "> DATE TIME  length=N from=A to=B\n" comes before each chunk of data,
# which need not end in a newline; ">" is what modsect sent.
parts = re.split(r"([<>]) \d{4}/\d\d/\d\d [0-9:.]+ +length=\d+ from=\d+ to=\d+\n",
                 open(sys.argv[1], errors="replace").read())
print(sum(parts[i + 1].count("$") for i in range(1, len(parts) - 1, 2)
          if parts[i] == ">"))
EOF
)

# A vmlinuz of another build: the real bzImage with the build-id bytes of
# its vmlinux changed (the payload decompressed, the 20 bytes of the GNU
# build-id note flipped, gzip'ed, appended to a copy of the file, and
# payload_offset/payload_length pointed at it; the payload may be xz, gzip
# or zstd).  arm64's vmlinuz is the Image itself: the note is flipped in
# place.
KBID=$(sed -n 's/^kernel-build-id //p' "$REF")
WRONG=$VM_OUT/wrong-vmlinuz
WRONG_BID=$(python3 - "$VM_KERNEL" "$WRONG" "$KBID" <<'EOF'
import gzip, lzma, struct, subprocess, sys, zlib
src, dst, bid = sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3])
img = bytearray(open(src, "rb").read())
note = struct.pack("<III", 4, 20, 3) + b"GNU\0"
new = bytes(b ^ 0xff for b in bid)
if img[0x38:0x3c] == b"ARMd":
    # arm64 (Debian's vmlinuz): the Image itself, the note in it.
    if img.count(note + bid) != 1:
        sys.exit("build-id %s not found once in the Image" % bid.hex())
    open(dst, "wb").write(bytes(img).replace(note + bid, note + new))
    print(new.hex())
    sys.exit(0)
pm = ((img[0x1f1] or 4) + 1) * 512
off, plen = struct.unpack_from("<II", img, 0x248)
pay = bytes(img[pm + off:pm + off + plen])
if pay.startswith(b"\xfd7zXZ\0"):
    raw = lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(pay)
elif pay.startswith(b"\x1f\x8b"):
    raw = zlib.decompressobj(31).decompress(pay)
elif pay.startswith(b"\x28\xb5\x2f\xfd"):
    # zstd (Debian's 6.12): the kernel appends the size in 4 bytes
    # (zstd22_with_size), which zstd takes for another frame.
    raw = subprocess.run(["zstd", "-qdc"], input=pay[:-4], check=True,
                         stdout=subprocess.PIPE).stdout
    if struct.unpack("<I", pay[-4:])[0] != len(raw):
        sys.exit("zstd payload: %d bytes, its size field says %d" % (len(raw), struct.unpack("<I", pay[-4:])[0]))
else:
    sys.exit("payload compression not known: %s" % pay[:6].hex())
if raw.count(note + bid) != 1:
    sys.exit("build-id %s not found once in the vmlinux" % bid.hex())
raw = raw.replace(note + bid, note + new)
pay = gzip.compress(raw, 1) + struct.pack("<I", len(raw))
struct.pack_into("<II", img, 0x248, len(img) - pm, len(pay))
open(dst, "wb").write(img + pay)
print(new.hex())
EOF
) || not_ok "could not make a vmlinuz with another build-id"
WRONG_FMT=kdump
[ -n "$KDUMP_OK" ] || WRONG_FMT=elf
if [ -n "$WRONG_BID" ]; then
	for src in "remote:--remote $REMOTE" "vmcore:--vmcore $W/core.$WRONG_FMT"; do
		# shellcheck disable=SC2086
		expect_refused "wrong-${src%%:*}" "[${src%%:*}] a vmlinuz of another build ($WRONG_BID) refused for the kernel $KBID, naming both" \
			"$WRONG_BID" "$KBID" -- "$MS" capture ${src#*:} --kernel-image "$WRONG" -o "$W/wrong.txt"
	done
fi

# modsect gdb --all --remote, written while no gdb is attached; then a gdb
# on the stub sources it.  Expected: for each module, the kallsyms names
# defined once in its file's symtab and once in kallsyms, not generated
# (.LC*, __UNIQUE_ID_*, _note_*) nor in .init.*, and unique across modules
# (one gdb holds them all): "<name> <kallsyms address>" (test.sh's check).
vm_expected_syms "$W/sym"

if vm_run gdb-remote "$MS" gdb --all --remote "$REMOTE" --kernel-image "$VM_KERNEL" \
	"${VM_MODDIR_ARGS[@]}" --search "$VM_OUT/testmod" -o "$W/remote.gdb"; then
	n=$(grep -c '^add-symbol-file ' "$W/remote.gdb")
	nm=$(echo "$MODS" | wc -w)
	if [ "$n" = "$nm" ]; then
		ok "modsect gdb --all --remote: $n add-symbol-file commands for $nm modules"
	else
		not_ok "modsect gdb --all --remote: $n add-symbol-file commands, $nm modules loaded"
	fi
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "set width 0"
		echo "target remote $REMOTE"
		echo "source $W/remote.gdb"
		echo "source $VM_DIR/symdump.py"
		echo "python ms_addr('$W/sym/all.uexp', 'SYM')"
		# arm64: functions behind patchable NOPs (vm_compare_syms).
		[ "$VM_ARCH" != aarch64 ] || echo "python ms_where('$W/sym/all.uexp', 'RSYM')"
		echo "detach"
	} >"$W/remote-session.gdb"
	rc=0
	timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/remote-session.gdb" >"$W/remote-session.out" 2>&1 </dev/null || rc=$?
	[ "$rc" = 0 ] || not_ok "gdb on the stub: exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
	res=$(vm_compare_syms "$W/sym/all.uexp" "$W/remote-session.out" SYM RSYM)
	read -r _ nok nbad <<<"$(tail -n 1 <<<"$res")"
	if [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then
		ok "gdb on the stub sourcing modsect gdb --all --remote: $nok/$nok module symbols at their kallsyms addresses"
	else
		not_ok "gdb on the stub sourcing modsect gdb --all --remote: $nbad of $((nok + nbad)) module symbols not at their kallsyms addresses"
		sed '$d' <<<"$res" | detail
	fi
else
	not_ok "modsect gdb --all --remote failed"
	head -n 5 "$W/gdb-remote.err" | detail
fi

# Every remote reader must have let the guest run again.
if vm_cmd dmesg 60; then
	ok "the guest still runs after the remote captures"
else
	not_ok "the guest does not answer after the remote captures"
	vm_resume
fi

# --- 3. bench -------------------------------------------------------------------------
{
	echo "# modsect capture from memory, $(date -u +%Y-%m-%dT%H:%MZ), kernel $KREL, TCG"
	for l in remote-image remote remote-tty-image vmcore-elf-image vmcore-elf vmcore-kdump-image vmcore-kdump; do
		[ -e "$W/cap-$l.time" ] && echo "capture $l seconds $(cat "$W/cap-$l.time")"
	done
	echo "capture remote-tty-image packets-sent ${TTY_PACKETS:-?}"
} >"$W/bench.txt"
sed 's/^/bench: /' "$W/bench.txt"

summary
