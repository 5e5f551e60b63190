# shellcheck shell=bash
# shellcheck disable=SC2034 # the VM_* settings are used by lib.sh and the tests
# tests/vm/kernels.sh - which kernel the VM tests boot (sourced by lib.sh).
#
# MODSECT_VM_KERNEL names it:
#   host (default)  the newest installed /boot/vmlinuz-*-amd64 with headers
#                   (Debian 12's 6.1), booted with qemu-system-x86_64
#   6.12-amd64      Debian's 6.12 LTS for x86-64 (linux-image-6.12-amd64)
#   686-pae         Debian's 6.1 for 32-bit x86 (linux-image-686-pae:i386),
#                   booted with qemu-system-i386
#   6.12-arm64      Debian's 6.12 LTS for arm64 (linux-image-6.12-arm64:arm64)
#   arm64           Debian's 6.1 for arm64 (linux-image-arm64:arm64),
#                   booted with qemu-system-aarch64 -M virt
#   armhf           Debian's 6.1 for 32-bit ARM (linux-image-armmp:armhf),
#                   booted with qemu-system-arm -M virt (Cortex-A15)
#   s390x           Debian's 6.1 for s390x (linux-image-s390x:s390x), booted
#                   with qemu-system-s390x -M s390-ccw-virtio
#   ppc64el         Debian's 6.1 for 64-bit little-endian POWER
#                   (linux-image-powerpc64le:ppc64el), booted with
#                   qemu-system-ppc64 -M pseries
# Every kernel but the host's is fetched with `apt-get download` (the
# archive's newest, through its meta-package) and unpacked with dpkg -x into
# $VM_KERNELS/<name>/, a root tree: boot/vmlinuz-REL, lib/modules/REL (with
# a modules.dep made by depmod -b) and the headers, whose host tools come
# from the x86-64 linux-kbuild package of the same version: Debian's i386
# and arm64 headers ship their tools built for their own architecture, but
# the kbuild package is the same source built for the host.  The test
# module is cross-built with those (arm64: gcc-aarch64-linux-gnu; ppc64el:
# gcc-powerpc64le-linux-gnu).
#
# Sets VM_PROFILE, VM_ARCH (uname -m of the guest), VM_DEB_ARCH, VM_ROOT
# (the root tree, empty for the host), VM_QEMU (the emulator), VM_CROSS
# (binutils prefix), VM_KMAKE (extra make arguments for Kbuild),
# VM_NO_MODULES (stock modules the kernel does not have, dropped from the
# lists of lib.sh) and VM_EARLY_MODULES (loaded by /init before it opens
# its lines to the host: the driver of those lines).

VM_KERNELS=${MODSECT_VM_KERNELS:-$VM_DIR/out/kernels}

vm_profile() {
	VM_PROFILE=${MODSECT_VM_KERNEL:-host}
	VM_ROOT='' VM_CROSS='' VM_KMAKE='' VM_META=''
	VM_NO_MODULES='' VM_EARLY_MODULES=''
	case $VM_PROFILE in
	host)
		VM_ARCH=x86_64 VM_DEB_ARCH=amd64 VM_QEMU=qemu-system-x86_64 ;;
	6.12-amd64)
		VM_ARCH=x86_64 VM_DEB_ARCH=amd64 VM_QEMU=qemu-system-x86_64
		VM_META=linux-image-6.12-amd64 ;;
	686-pae)
		VM_ARCH=i686 VM_DEB_ARCH=i386 VM_QEMU=qemu-system-i386
		VM_META=linux-image-686-pae:i386 VM_KMAKE="ARCH=x86" ;;
	arm64 | 6.12-arm64)
		VM_ARCH=aarch64 VM_DEB_ARCH=arm64 VM_QEMU=qemu-system-aarch64
		VM_META=linux-image-arm64:arm64 VM_CROSS=aarch64-linux-gnu-
		[ "$VM_PROFILE" = arm64 ] || VM_META=linux-image-6.12-arm64:arm64
		VM_KMAKE="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" ;;
	armhf)
		VM_ARCH=armv7l VM_DEB_ARCH=armhf VM_QEMU=qemu-system-arm
		VM_META=linux-image-armmp:armhf VM_CROSS=arm-linux-gnueabihf-
		VM_KMAKE="ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-"
		# CONFIG_FW_CFG_SYSFS is not set in Debian's armmp config.
		VM_NO_MODULES=qemu_fw_cfg ;;
	s390x)
		VM_ARCH=s390x VM_DEB_ARCH=s390x VM_QEMU=qemu-system-s390x
		VM_META=linux-image-s390x:s390x VM_CROSS=s390x-linux-gnu-
		VM_KMAKE="ARCH=s390 CROSS_COMPILE=s390x-linux-gnu-"
		# s390x has no fw_cfg (drivers/firmware/Kconfig: FW_CFG_SYSFS
		# depends on ARM || ARM64 || PPC64 || X86 || ...); the lines to
		# the host are virtio consoles (CONFIG_VIRTIO_CONSOLE=m).
		VM_NO_MODULES=qemu_fw_cfg VM_EARLY_MODULES=virtio_console ;;
	ppc64el)
		VM_ARCH=ppc64le VM_DEB_ARCH=ppc64el VM_QEMU=qemu-system-ppc64
		VM_META=linux-image-powerpc64le:ppc64el VM_CROSS=powerpc64le-linux-gnu-
		VM_KMAKE="ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu-"
		vm_ppc64el_stock ;;
	*)
		vm_die "MODSECT_VM_KERNEL=$VM_PROFILE: not one of host, 6.12-amd64, 686-pae, arm64, 6.12-arm64, armhf, s390x, ppc64el" ;;
	esac
}

# The host packages a profile needs besides lib.sh's common ones.
vm_profile_pkgs() {
	case $VM_PROFILE in
	686-pae) vm_need_pkgs qemu-system-i386:qemu-system-x86 ;;
	arm64 | 6.12-arm64) vm_need_pkgs qemu-system-aarch64:qemu-system-arm \
		aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu \
		aarch64-linux-gnu-strip:binutils-aarch64-linux-gnu ;;
	armhf) vm_need_pkgs qemu-system-arm:qemu-system-arm \
		arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf \
		arm-linux-gnueabihf-strip:binutils-arm-linux-gnueabihf ;;
	s390x) vm_need_pkgs qemu-system-s390x:qemu-system-misc \
		s390x-linux-gnu-gcc:gcc-s390x-linux-gnu \
		s390x-linux-gnu-strip:binutils-s390x-linux-gnu ;;
	ppc64el) vm_need_pkgs qemu-system-ppc64:qemu-system-ppc \
		powerpc64le-linux-gnu-gcc:gcc-powerpc64le-linux-gnu \
		powerpc64le-linux-gnu-strip:binutils-powerpc64le-linux-gnu ;;
	esac
	case $VM_PROFILE in
	686-pae | arm64 | 6.12-arm64 | armhf | s390x | ppc64el) vm_need_pkgs gdb-multiarch:gdb-multiarch ;;
	esac
	# Kbuild runs pahole for the BTF of modules of kernels built with it.
	[ "$VM_PROFILE" = host ] ||
		vm_need_pkgs xz:xz-utils depmod:kmod dpkg-deb:dpkg pahole:dwarves
}

# vm_apt_field PACKAGE FIELD: a field of the candidate version.
vm_apt_field() {
	apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n "s/^$2: //p" | head -n 1
}

# vm_apt_dep PACKAGE PATTERN: the first dependency of PACKAGE matching the
# (grep -E) PATTERN, without version or architecture.
vm_apt_dep() {
	vm_apt_field "$1" Depends | tr ',|' '\n\n' | sed 's/^ *//; s/[ :(].*//' |
		grep -E -m 1 -- "$2"
}

# vm_fetch_kernel: the root tree of a profile other than the host's, made
# once per kernel version; sets VM_ROOT, VM_KREL.
vm_fetch_kernel() {
	local a=$VM_DEB_ARCH image headers common kbuild ver root dl p
	# An architecture added here needs its package lists, even when an
	# update ran before it (lib.sh's install of qemu-system-arm).
	if [ "$(id -u)" = 0 ] && [ "$a" != amd64 ] &&
		! dpkg --print-foreign-architectures | grep -qx "$a"; then
		dpkg --add-architecture "$a" || vm_die "dpkg --add-architecture $a failed"
		VM_APT_UPDATED=
	fi
	if [ -z "${VM_APT_UPDATED:-}" ] && [ "$(id -u)" = 0 ]; then
		# A mirror in the middle of a sync fails the update of one index
		# ("File has unexpected size"): once more, then the lists there
		# are (they still name the kernel; a tree made from them, .stamp,
		# is reused).
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 ||
			{ sleep 10 && DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2; } ||
			vm_log "apt-get update failed; going on with the package lists as they are"
		VM_APT_UPDATED=1
	fi
	image=$(vm_apt_dep "$VM_META" '^linux-image-[0-9]')
	[ -n "$image" ] || vm_die "no kernel package behind $VM_META (as root: dpkg --add-architecture $a && apt-get update)"
	VM_KREL=${image#linux-image-}
	ver=$(vm_apt_field "$image:$a" Version)
	headers=linux-headers-$VM_KREL
	common=$(vm_apt_dep "$headers:$a" '^linux-headers-.*-common$')
	kbuild=$(vm_apt_dep "$headers:$a" '^linux-kbuild-')
	[ -n "$ver" ] && [ -n "$common" ] && [ -n "$kbuild" ] ||
		vm_die "cannot resolve the packages of $image (version '$ver', '$common', '$kbuild')"
	root=$VM_KERNELS/$VM_PROFILE
	VM_ROOT=$root
	if [ "$(cat "$root/.stamp" 2>/dev/null)" = "$image $ver" ]; then
		vm_log "kernel $VM_KREL ($ver) in $root"
		return 0
	fi
	vm_log "fetching $image $ver ($a) into $root"
	dl=$VM_KERNELS/debs/$VM_PROFILE
	rm -rf "$root" "$dl"
	mkdir -p "$root" "$dl"
	# apt-get download writes into the current directory; _apt cannot
	# write into a root-owned one, so apt warns and downloads as root.
	(cd "$dl" && apt-get download -q "$image:$a=$ver" "$headers:$a=$ver" \
		"$common=$ver" "$kbuild:amd64=$ver" "busybox-static:$a" 2>&1) |
		grep -v '^W: Download is performed unsandboxed' >&2
	for p in "$dl"/*.deb; do
		dpkg-deb -x "$p" "$root" || vm_die "dpkg-deb -x $p failed"
	done
	vm_ppc64el_image "$root"
	[ -e "$root/boot/vmlinuz-$VM_KREL" ] || vm_die "$image has no boot/vmlinuz-$VM_KREL"
	# The headers include the common tree by its installed path.
	sed -i "s|/usr/src/|$root/usr/src/|" "$root/usr/src/linux-headers-$VM_KREL/Makefile"
	ln -sfn "$root/usr/src/linux-headers-$VM_KREL" "$root/lib/modules/$VM_KREL/build"
	depmod -b "$root" -F "$root/boot/System.map-$VM_KREL" "$VM_KREL" ||
		vm_die "depmod -b $root $VM_KREL failed"
	rm -rf "$dl"
	echo "$image $ver" >"$root/.stamp"
	vm_log "kernel $VM_KREL ($ver) in $root"
}

# vm_ppc64el_stock: the stock modules less qemu_fw_cfg: QEMU's pseries
# has no fw_cfg (nor its vmcoreinfo device), and Debian's ppc64el kernel
# no CONFIG_FW_CFG_SYSFS.
vm_ppc64el_stock() {
	# shellcheck disable=SC2086 # the list, one word a module
	VM_STOCK_MODULES=$(printf '%s\n' $VM_STOCK_MODULES | grep -vx qemu_fw_cfg | tr '\n' ' ')
}

# vm_ppc64el_image ROOT: Debian's powerpc images are the ELF vmlinux
# (boot/vmlinux-REL; QEMU's pseries boots it with -kernel): named
# vmlinuz-REL as the other profiles' images are.
vm_ppc64el_image() {
	[ "$VM_PROFILE" = ppc64el ] && [ -e "$1/boot/vmlinux-$VM_KREL" ] || return 0
	ln -sfn "vmlinux-$VM_KREL" "$1/boot/vmlinuz-$VM_KREL"
}

# vm_qemu_machine: the emulator's machine and serial arguments, in the
# array VM_QEMU_ARGS.  The guest's /init talks on ttyS1 (out) and ttyS2
# (in) and the kernel's console is CONSOLE.  arm64's and armhf's virt
# machine has one PL011 (ttyAMA0, the console); a 4-port PCI 16550 card
# gives it ttyS0-3, of which ports 2 and 3 carry ttyS1 and ttyS2 as on a
# PC.  s390x's machine has no UART: the console is the SCLP VT220
# (ttysclp0) and /init's lines are two virtio consoles, hvc0 and hvc1
# (VM_APPEND names them to /init: the kernel hands a parameter NAME=VALUE
# without a dot to init as an environment variable, init/main.c).
vm_qemu_machine() {
	local run=$1
	VM_APPEND=''
	# QEMU's vmcoreinfo device hangs off fw_cfg, which s390x's machine
	# has not.
	VM_VMCOREINFO=(-device vmcoreinfo)
	case $VM_ARCH in
	aarch64 | armv7l)
		VM_CONSOLE=ttyAMA0
		# armhf: highmem=off, or QEMU puts the PCIe ECAM above 4 GiB,
		# where armmp (no LPAE) cannot map it: "can't claim ECAM area",
		# no PCI, no ttyS1.
		# shellcheck disable=SC2054 # commas inside QEMU option values
		if [ "$VM_ARCH" = aarch64 ]; then
			VM_QEMU_ARGS=(-M virt -cpu "${MODSECT_VM_CPU:-cortex-a57}")
		else
			VM_QEMU_ARGS=(-M virt,highmem=off -cpu "${MODSECT_VM_CPU:-cortex-a15}")
		fi
		# shellcheck disable=SC2054
		VM_QEMU_ARGS+=(
			-serial "file:$run/console.log"
			-chardev "file,id=s1,path=$run/serial1.log"
			-chardev "pipe,id=s2,path=$run/trigger"
			-device pci-serial-4x,chardev2=s1,chardev3=s2) ;;
	s390x)
		VM_CONSOLE=ttysclp0
		VM_APPEND="MODSECT_TTY_OUT=hvc0 MODSECT_TTY_IN=hvc1"
		VM_VMCOREINFO=()
		# shellcheck disable=SC2054 # commas inside QEMU option values
		VM_QEMU_ARGS=(-M s390-ccw-virtio -cpu "${MODSECT_VM_CPU:-qemu}"
			-serial "file:$run/console.log"
			-device virtio-serial-ccw
			-chardev "file,id=s1,path=$run/serial1.log"
			-chardev "pipe,id=s2,path=$run/trigger"
			-device virtconsole,chardev=s1,nr=1
			-device virtconsole,chardev=s2,nr=2) ;;
	ppc64le) vm_ppc64el_machine "$run" ;;
	*)
		VM_CONSOLE=ttyS0
		VM_QEMU_ARGS=(-serial "file:$run/console.log"
			-serial "file:$run/serial1.log"
			-serial "pipe:$run/trigger") ;;
	esac
}

# vm_ppc64el_machine RUN: pseries (POWER9, radix MMU under TCG); the
# console is the hypervisor's virtual terminal, hvc0 (spapr-vty, made of
# the first -serial); as on arm64 a 4-port PCI 16550 card gives ttyS0-3
# (pseries has no legacy ports), ports 2 and 3 ttyS1 and ttyS2.  No
# vmcoreinfo device: it needs fw_cfg.  The caps off are the Spectre
# mitigations TCG cannot emulate (QEMU warns about each otherwise).
vm_ppc64el_machine() {
	VM_CONSOLE=hvc0
	VM_VMCOREINFO=()
	# shellcheck disable=SC2054 # commas inside QEMU option values
	VM_QEMU_ARGS=(-M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off
		-cpu "${MODSECT_VM_CPU:-power9}"
		-serial "file:$1/console.log"
		-chardev "file,id=s1,path=$1/serial1.log"
		-chardev "pipe,id=s2,path=$1/trigger"
		-device pci-serial-4x,chardev2=s1,chardev3=s2)
}

# vm_gdb: the gdb that debugs the guest from this host.
vm_gdb() {
	case $VM_ARCH in
	x86_64) echo gdb ;;
	*) echo gdb-multiarch ;;
	esac
}
