# shellcheck shell=bash
# tests/vm/lib.sh - boot a real Debian kernel under QEMU (TCG) with modsect's
# test module loaded, capture its /sys/module section maps, and keep QEMU's
# gdbstub open for debugger tests.
#
# Usage (bash):
#     . tests/vm/lib.sh
#     vm_setup            # packages, kernel, test module, initramfs
#     vm_start            # boot; returns when the guest's capture is complete
#     ... use $VM_GDB_PORT, $VM_RUN/*.txt, vm_send "poke 5", vm_wait_for ...
#     vm_stop             # also done automatically on exit (trap)
#
# See tests/vm/README.md for the list of variables and files.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_OUT=${MODSECT_VM_OUT:-$VM_DIR/out}
VM_RUN=${MODSECT_VM_RUN:-$VM_OUT/run}
# The boot waits while the guest's console output grows: it gives up after
# VM_BOOT_STALL s without any, or VM_BOOT_TIMEOUT s in all (vm_wait_boot).
VM_BOOT_TIMEOUT=${MODSECT_VM_BOOT_TIMEOUT:-1200}
VM_BOOT_STALL=${MODSECT_VM_BOOT_STALL:-600}
VM_MEM=${MODSECT_VM_MEM:-512M}
# Stock modules loaded in the guest besides modsect_test (with their deps).
VM_STOCK_MODULES=${MODSECT_VM_STOCK_MODULES:-"crc-itu-t dm-mod isofs"}
# Stock modules NOT loaded at boot, for the guest's "race" command (loaded
# and unloaded in a loop while captures run).  Each must have no
# dependencies and be unloadable.
VM_RACE_MODULES=${MODSECT_VM_RACE_MODULES:-"nls_iso8859-1 ts_kmp"}

VM_QEMU_PID=
VM_GDB_PORT=
VM_APT_UPDATED=

# shellcheck source=tests/vm/kernels.sh
. "$VM_DIR/kernels.sh"
vm_profile

vm_log() { printf 'vm: %s\n' "$*" >&2; }
vm_die() { printf 'vm: ERROR: %s\n' "$*" >&2; exit 1; }

# vm_need_pkgs "check:package" ...
# check is a command name, or an absolute path that must exist.  Missing
# packages are installed with apt-get when running as root; otherwise the
# exact apt-get command is printed and we fail.
vm_need_pkgs() {
	local spec chk pkg missing=
	for spec in "$@"; do
		chk=${spec%%:*} pkg=${spec#*:}
		case $chk in
		/*) [ -e "$chk" ] && continue ;;
		*) command -v "$chk" >/dev/null 2>&1 && continue ;;
		esac
		case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		vm_die "missing packages; run as root: apt-get install -y$missing"
	fi
	vm_log "installing:$missing"
	if [ -z "$VM_APT_UPDATED" ]; then
		# A mirror in the middle of a sync fails one index ("File has
		# unexpected size"); once more, then the lists as they are.
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 ||
			{ sleep 10 && DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2; } ||
			vm_log "apt-get update failed; installing from the package lists as they are"
		VM_APT_UPDATED=1
	fi
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2 ||
		vm_die "apt-get install -y$missing failed"
}

# A static busybox: /bin/busybox from busybox-static (the plain "busybox"
# package also ships /bin/busybox but dynamically linked).
vm_busybox() {
	local bb
	if [ -n "$VM_ROOT" ]; then
		[ -x "$VM_ROOT/bin/busybox" ] && echo "$VM_ROOT/bin/busybox"
		return
	fi
	for bb in /bin/busybox /usr/bin/busybox; do
		if [ -x "$bb" ] && ! readelf -lW "$bb" 2>/dev/null | grep -q INTERP; then
			echo "$bb"
			return 0
		fi
	done
	return 1
}

vm_ensure_host_pkgs() {
	vm_need_pkgs qemu-system-x86_64:qemu-system-x86 cpio:cpio gzip:gzip \
		modprobe:kmod readelf:binutils strip:binutils objcopy:binutils \
		gcc:gcc make:make \
		gdb:gdb od:coreutils awk:mawk timeout:coreutils
	vm_profile_pkgs
	[ "$VM_PROFILE" = host ] && return 0
	if ! vm_busybox >/dev/null; then
		if [ "$(id -u)" != 0 ]; then
			vm_die "need a static busybox; run as root: apt-get install -y busybox-static"
		fi
		vm_need_pkgs /nonexistent/force:busybox-static
		vm_busybox >/dev/null || vm_die "busybox-static installed but no static /bin/busybox"
	fi
}

# vm_find_kernel: sets VM_KREL, VM_KERNEL, VM_KBUILD.  Newest
# /boot/vmlinuz-*-amd64 whose /lib/modules/<rel>/build exists.
# MODSECT_VM_KREL forces a release.
vm_find_kernel() {
	local k rel
	VM_KREL=
	if [ "$VM_PROFILE" != host ]; then
		vm_fetch_kernel
		VM_KERNEL=$VM_ROOT/boot/vmlinuz-$VM_KREL
		VM_KBUILD=$VM_ROOT/lib/modules/$VM_KREL/build
		vm_set_moddir
		return 0
	fi
	if [ -n "${MODSECT_VM_KREL:-}" ]; then
		VM_KREL=$MODSECT_VM_KREL
	else
		for k in $(ls -1 /boot/vmlinuz-*-amd64 2>/dev/null | sort -rV); do
			rel=${k#/boot/vmlinuz-}
			if [ -e "/lib/modules/$rel/build/Makefile" ]; then
				VM_KREL=$rel
				break
			fi
		done
	fi
	if [ -z "$VM_KREL" ]; then
		if [ "$(id -u)" = 0 ] && [ -z "${VM_KERNEL_INSTALL_TRIED:-}" ]; then
			VM_KERNEL_INSTALL_TRIED=1
			vm_need_pkgs /nonexistent/force:"linux-image-amd64 linux-headers-amd64"
			vm_find_kernel
			return
		fi
		vm_die "no /boot/vmlinuz-*-amd64 with matching /lib/modules/<rel>/build; run as root: apt-get install -y linux-image-amd64 linux-headers-amd64"
	fi
	VM_KERNEL=/boot/vmlinuz-$VM_KREL
	VM_KBUILD=/lib/modules/$VM_KREL/build
	[ -r "$VM_KERNEL" ] || vm_die "$VM_KERNEL not readable (run as root)"
	[ -e "$VM_KBUILD/Makefile" ] ||
		vm_die "no kernel headers for $VM_KREL; run as root: apt-get install -y linux-headers-$VM_KREL"
	[ -e "/lib/modules/$VM_KREL/modules.dep" ] || vm_die "/lib/modules/$VM_KREL/modules.dep missing"
	vm_set_moddir
	vm_log "kernel $VM_KREL"
}

# vm_set_moddir: VM_MODDIR, the guest kernel's module directory on the
# host, and VM_MODDIR_ARGS, the modsect options that name it.  The host
# kernel's stock modules are where modsect looks by default
# (/lib/modules/<release of the map>), so there VM_MODDIR_ARGS is empty
# and the scripts check that default; another kernel's are in its root
# tree (kernels.sh), which only --moddir names.  Needs VM_KREL (and
# VM_ROOT for a kernel other than the host's).
# shellcheck disable=SC2034 # the scripts read VM_MODDIR_ARGS
vm_set_moddir() {
	if [ "$VM_PROFILE" = host ]; then
		VM_MODDIR=/lib/modules/$VM_KREL
		VM_MODDIR_ARGS=()
	else
		VM_ROOT=${VM_ROOT:-$VM_KERNELS/$VM_PROFILE}
		VM_MODDIR=$VM_ROOT/lib/modules/$VM_KREL
		VM_MODDIR_ARGS=(--moddir "$VM_MODDIR")
	fi
}

# vm_build_testmod: builds tests/vm/testmod in $VM_OUT/testmod.  Sets
# VM_TESTMOD_KO (with debug info), VM_TESTMOD_KO_STRIPPED (strip
# --strip-debug: what the guest loads) and VM_TESTMOD_DEBUG (objcopy
# --only-keep-debug of the full module: the separate debug file), and
# VM_TESTMOD_BUILD_ID.  All three carry the same build-id.
vm_build_testmod() {
	local b=$VM_OUT/testmod
	mkdir -p "$b"
	cp "$VM_DIR/testmod/modsect_test.c" "$VM_DIR/testmod/Makefile" "$b/"
	# shellcheck disable=SC2086
	if ! make -s -C "$VM_KBUILD" M="$b" $VM_KMAKE modules >"$VM_OUT/testmod-build.log" 2>&1; then
		cat "$VM_OUT/testmod-build.log" >&2
		vm_die "building the test module failed"
	fi
	VM_TESTMOD_KO=$b/modsect_test.ko
	VM_TESTMOD_KO_STRIPPED=$b/modsect_test.stripped.ko
	"${VM_CROSS}strip" --strip-debug -o "$VM_TESTMOD_KO_STRIPPED" "$VM_TESTMOD_KO" ||
		vm_die "strip failed"
	readelf -S "$VM_TESTMOD_KO" | grep -q '\.debug_info' ||
		vm_die "$VM_TESTMOD_KO has no debug info"
	! readelf -S "$VM_TESTMOD_KO_STRIPPED" | grep -q '\.debug_' ||
		vm_die "$VM_TESTMOD_KO_STRIPPED still has debug sections"
	# Not named *.ko*: --search "$b" must keep finding modsect_test.ko.
	VM_TESTMOD_DEBUG=$b/modsect_test.debug
	"${VM_CROSS}objcopy" --only-keep-debug "$VM_TESTMOD_KO" "$VM_TESTMOD_DEBUG" ||
		vm_die "objcopy --only-keep-debug failed"
	VM_TESTMOD_BUILD_ID=$(vm_build_id "$VM_TESTMOD_KO")
	[ -n "$VM_TESTMOD_BUILD_ID" ] &&
		[ "$(vm_build_id "$VM_TESTMOD_KO_STRIPPED")" = "$VM_TESTMOD_BUILD_ID" ] &&
		[ "$(vm_build_id "$VM_TESTMOD_DEBUG")" = "$VM_TESTMOD_BUILD_ID" ] ||
		vm_die "the full, stripped and debug test module files differ in build-id"
	vm_log "test module: $VM_TESTMOD_KO"
}

# vm_build_id FILE: the GNU build-id of an ELF file, in hex.
vm_build_id() {
	readelf -n "$1" 2>/dev/null | sed -n 's/^.*Build ID: *\([0-9a-f]*\).*$/\1/p' | head -n 1
}

# vm_kconfig NAME: is CONFIG_NAME=y in the guest kernel's config?
vm_kconfig() {
	grep -q "^CONFIG_$1=y\$" "${VM_ROOT:-}/boot/config-$VM_KREL" 2>/dev/null
}

# vm_gdb_arch: the guest's architecture as gdb's `set architecture` names it.
vm_gdb_arch() {
	case $VM_ARCH in
	x86_64) echo i386:x86-64 ;;
	i686) echo i386 ;;
	aarch64) echo aarch64 ;;
	armv7l) echo arm ;;
	s390x) echo s390:64-bit ;;
	ppc64le) echo powerpc:common64 ;;
	esac
}

# vm_bp_continue: the gdb `continue`s that run the guest to a breakpoint on
# a module function.  On arm64 -fpatchable-function-entry puts NOPs
# between the ELF symbol and the DWARF function: `break f` has two
# locations, N.1 at the ELF symbol (no arguments yet) and N.2 at the
# function's first line, so two.
vm_bp_continue() {
	echo continue
	[ "$VM_ARCH" != aarch64 ] || echo continue
}

# vm_lldb_arch: the guest's architecture as lldb's `target create --arch`
# names it.
vm_lldb_arch() {
	case $VM_ARCH in
	i686) echo i386 ;;
	armv7l) echo armv7 ;;
	ppc64le) echo powerpc64le ;;
	*) echo "$VM_ARCH" ;;
	esac
}

# Print the host paths of a stock module and its dependencies, dependencies
# first (the order modprobe would insmod them).
vm_module_paths() {
	modprobe -d "${VM_ROOT:-/}" -S "$VM_KREL" --show-depends "$1" 2>/dev/null |
		awk '$1 == "insmod" { print $2 }'
}

# vm_build_initramfs: $VM_OUT/initramfs.cpio.gz with static busybox, /init,
# the test module and the stock modules.  Sets VM_INITRD, VM_MODLIST
# (host paths of the stock modules in load order, one per line).
vm_build_initramfs() {
	local root=$VM_OUT/initramfs bb m p name n=0
	bb=$(vm_busybox) || vm_die "no static busybox"
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/modules"
	cp "$bb" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	cp "$VM_DIR/init.sh" "$root/init"
	chmod 755 "$root/init"

	VM_MODLIST=$VM_OUT/modules.list
	: >"$VM_MODLIST"
	: >"$root/modules/order"
	: >"$root/modules/early"
	for m in $VM_EARLY_MODULES $VM_STOCK_MODULES; do
		# A module this kernel is built without (kernels.sh).
		case " $VM_NO_MODULES " in *" $m "*) continue ;; esac
		p=$(vm_module_paths "$m")
		[ -n "$p" ] || vm_die "stock module $m not found for $VM_KREL"
		for p in $p; do
			grep -qxF "$p" "$VM_MODLIST" && continue
			echo "$p" >>"$VM_MODLIST"
			n=$((n + 1))
			name=$(printf '%02d-%s' "$n" "${p##*/}")
			case $p in
			*.ko) cp "$p" "$root/modules/$name" ;;
			*.ko.xz) name=${name%.xz}; xz -dc "$p" >"$root/modules/$name" ;;
			*.ko.zst) name=${name%.zst}; zstd -qdc "$p" >"$root/modules/$name" ;;
			*.ko.gz) name=${name%.gz}; gzip -dc "$p" >"$root/modules/$name" ;;
			*) vm_die "unknown module file type: $p" ;;
			esac
			case " $VM_EARLY_MODULES " in
			*" $m "*) echo "$name" >>"$root/modules/early" ;;
			*) echo "$name" >>"$root/modules/order" ;;
			esac
		done
	done
	# The race modules, in /modules/race/ (not in /modules/order): only the
	# "race" trigger loads them.  VM_RACE_LIST: their host paths.
	VM_RACE_LIST=$VM_OUT/race-modules.list
	: >"$VM_RACE_LIST"
	mkdir -p "$root/modules/race"
	for m in $VM_RACE_MODULES; do
		p=$(vm_module_paths "$m")
		[ -n "$p" ] || vm_die "race module $m not found for $VM_KREL"
		[ "$(echo "$p" | wc -l)" = 1 ] || vm_die "race module $m has dependencies"
		grep -qxF "$p" "$VM_MODLIST" && vm_die "race module $m is loaded at boot"
		echo "$p" >>"$VM_RACE_LIST"
		name=${p##*/}
		case $p in
		*.ko) cp "$p" "$root/modules/race/$name" ;;
		*.ko.xz) xz -dc "$p" >"$root/modules/race/${name%.xz}" ;;
		*.ko.zst) zstd -qdc "$p" >"$root/modules/race/${name%.zst}" ;;
		*.ko.gz) gzip -dc "$p" >"$root/modules/race/${name%.gz}" ;;
		*) vm_die "unknown module file type: $p" ;;
		esac
	done

	# The guest gets the stripped module, as distributions ship them: its
	# DWARF exists only on the host (VM_TESTMOD_KO, VM_TESTMOD_DEBUG).
	cp "$VM_TESTMOD_KO_STRIPPED" "$root/modules/99-modsect_test.ko"
	echo 99-modsect_test.ko >>"$root/modules/order"

	if [ -n "${MODSECT_STATIC:-}" ]; then
		[ -x "$MODSECT_STATIC" ] || vm_die "MODSECT_STATIC=$MODSECT_STATIC is not an executable"
		if readelf -lW "$MODSECT_STATIC" | grep -q INTERP; then
			vm_die "MODSECT_STATIC=$MODSECT_STATIC is dynamically linked; it must be static"
		fi
		cp "$MODSECT_STATIC" "$root/bin/modsect"
		vm_log "guest /bin/modsect <- $MODSECT_STATIC"
	fi

	# The full (dynamic) modsect runs live in the guest: its shared
	# libraries go along, and the modules get a real /lib/modules tree
	# with modules.dep so libkmod finds them by name.
	if [ -n "${MODSECT_DYN:-}" ]; then
		vm_add_dynamic "$root" "$MODSECT_DYN" /bin/modsect-live
		mkdir -p "$root/lib/modules/$VM_KREL/kernel"
		while read -r p; do
			name=${p##*/}
			name=${name%.xz}; name=${name%.zst}; name=${name%.gz}
			cp "$root/modules/$(grep -F -- "-$name" "$root/modules/order" | head -n 1)" \
				"$root/lib/modules/$VM_KREL/kernel/$name"
		done <"$VM_MODLIST"
		mkdir -p "$root/lib/modules/$VM_KREL/extra"
		cp "$VM_TESTMOD_KO_STRIPPED" "$root/lib/modules/$VM_KREL/extra/modsect_test.ko"
		depmod -b "$root" "$VM_KREL" 2>/dev/null || vm_die "depmod for the initramfs failed"
		vm_log "guest /bin/modsect-live <- $MODSECT_DYN"
	fi

	VM_INITRD=$VM_OUT/initramfs.cpio.gz
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0) | gzip -1 >"$VM_INITRD" ||
		vm_die "cpio failed"
	vm_log "initramfs: $VM_INITRD ($(wc -c <"$VM_INITRD") bytes)"
}

# vm_add_dynamic ROOT BINARY DEST: copy a dynamic executable and every
# shared library it needs (from ldd) into ROOT. modsect dlopen()s libkmod
# when it first looks a module up by name (lib/module/finder.c), which ldd does
# not see: it and its own libraries go too.
vm_add_dynamic() {
	local root=$1 bin=$2 dest=$3 lib kmod
	mkdir -p "$root$(dirname "$dest")"
	cp "$bin" "$root$dest"
	# Where the loader finds it: beside the binary's libc.
	kmod=$(ldd "$bin" | awk '$1 == "libc.so.6" { print $3 }')
	kmod=${kmod%/*}/libkmod.so.2
	[ -e "$kmod" ] || vm_die "$kmod not found: install libkmod2"
	for lib in $({ ldd "$bin"; echo "	libkmod.so.2 => $kmod"; ldd "$kmod"; } |
		awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | sort -u); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	# The dynamic loader is looked up in /lib64 on x86-64.
	if [ -e /lib64/ld-linux-x86-64.so.2 ] && [ ! -e "$root/lib64/ld-linux-x86-64.so.2" ]; then
		mkdir -p "$root/lib64"
		cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
	fi
}

# vm_setup: everything up to (not including) booting.
vm_setup() {
	mkdir -p "$VM_OUT"
	vm_ensure_host_pkgs
	vm_find_kernel
	vm_build_testmod
	vm_build_initramfs
}

# Is TCP port $1 free on 127.0.0.1?  (best effort via /proc/net/tcp*)
vm_port_free() {
	local hex
	hex=$(printf '%04X' "$1")
	! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

# MODSECT_VM_SERIAL3: a QEMU chardev for a fourth serial line, the
# guest's ttyS3 (x86: tests/vm/serve.sh's tcp:... for serve --kcore).
#
# vm_start: boot QEMU in the background; returns once the guest has written
# its capture (marker ==MODSECT-READY==), leaving QEMU running with the
# gdbstub listening on 127.0.0.1:$VM_GDB_PORT.  Must run in the main shell
# (not in $(...)).  Installs `trap vm_stop EXIT` (and INT/TERM/HUP -> exit),
# replacing any EXIT trap of the caller: a caller that wants its own EXIT
# trap sets it after vm_start and calls vm_stop from it.
vm_start() {
	local try port t0
	[ -n "${VM_INITRD:-}" ] || vm_die "vm_start: run vm_setup first"
	rm -rf "$VM_RUN"
	mkdir -p "$VM_RUN"
	mkfifo "$VM_RUN/trigger.in" "$VM_RUN/trigger.out"
	: >"$VM_RUN/serial1.log"
	trap vm_stop EXIT
	trap 'exit 130' INT TERM HUP

	for try in 1 2 3 4 5; do
		port=${MODSECT_VM_GDB_PORT:-$((20000 + RANDOM % 20000))}
		vm_port_free "$port" || continue
		VM_GDB_PORT=$port
		t0=$(date +%s)
		# ttyS0: kernel console -> console.log
		# ttyS1: guest capture/acks -> serial1.log
		# ttyS2: host -> guest triggers via FIFO trigger.in (trigger.out unused)
		# qmp.sock: QMP for vm_dump.  -device vmcoreinfo: the guest's
		# qemu_fw_cfg driver hands QEMU its VMCOREINFO note for dumps.
		rm -f "$VM_RUN/qmp.sock"
		vm_qemu_machine "$VM_RUN"
		"$VM_QEMU" -accel tcg -m "$VM_MEM" -smp 1 \
			-nographic -nodefaults -monitor none -no-reboot \
			-qmp "unix:$VM_RUN/qmp.sock,server=on,wait=off" \
			"${VM_VMCOREINFO[@]}" \
			-kernel "$VM_KERNEL" -initrd "$VM_INITRD" \
			-append "console=$VM_CONSOLE panic=1 loglevel=7 $VM_APPEND ${MODSECT_VM_APPEND:-}" \
			"${VM_QEMU_ARGS[@]}" \
			${MODSECT_VM_SERIAL3:+-serial "$MODSECT_VM_SERIAL3"} \
			-gdb "tcp:127.0.0.1:$port" \
			</dev/null >"$VM_RUN/qemu.log" 2>&1 &
		VM_QEMU_PID=$!
		echo "$VM_QEMU_PID" >"$VM_RUN/qemu.pid"
		echo "$port" >"$VM_RUN/gdb.port"
		sleep 1
		if kill -0 "$VM_QEMU_PID" 2>/dev/null; then
			break
		fi
		wait "$VM_QEMU_PID" 2>/dev/null || true
		VM_QEMU_PID=
		if grep -qi 'address already in use' "$VM_RUN/qemu.log" && [ -z "${MODSECT_VM_GDB_PORT:-}" ]; then
			continue
		fi
		cat "$VM_RUN/qemu.log" >&2
		vm_die "qemu failed to start"
	done
	[ -n "$VM_QEMU_PID" ] || vm_die "could not find a free gdb port"
	vm_log "qemu pid $VM_QEMU_PID, gdbstub 127.0.0.1:$VM_GDB_PORT, run dir $VM_RUN"

	if ! vm_wait_boot '^==MODSECT-READY==$' "$t0"; then
		vm_log "last console lines:"
		tail -n 30 "$VM_RUN/console.log" >&2 || true
		vm_die "guest did not complete its capture: $VM_BOOT_WHY"
	fi
	VM_BOOT_SECONDS=$(($(date +%s) - t0))
	echo "$VM_BOOT_SECONDS" >"$VM_RUN/boot.seconds"
	vm_split_capture
	vm_log "guest ready after ${VM_BOOT_SECONDS}s (longest console silence ${VM_BOOT_SILENCE}s)"
}

# vm_wait_boot REGEX T0: wait for a line of serial1.log that matches REGEX
# for as long as the guest makes progress, QEMU having started at T0 (date
# +%s).  A fixed wait is either too short for a slow guest on a loaded
# machine (s390x under TCG: 72 s alone, over 240 s beside other VMs) or
# too long for a hung one; the console (console.log, serial1.log) growing
# is the progress.  Fails after VM_BOOT_STALL s without new output, or
# VM_BOOT_TIMEOUT s after T0, or when QEMU exits; VM_BOOT_WHY says which,
# with the console's last line.  Sets VM_BOOT_SILENCE: the longest stretch
# without output, in s.
vm_wait_boot() {
	local re=$1 t0=$2 now size last_size=- last_t quiet
	last_t=$t0 VM_BOOT_SILENCE=0 VM_BOOT_WHY=
	while :; do
		grep -qE -- "$re" "$VM_RUN/serial1.log" 2>/dev/null && return 0
		now=$(date +%s)
		size=$(stat -c %s "$VM_RUN/console.log" "$VM_RUN/serial1.log" 2>/dev/null || true)
		[ "$size" = "$last_size" ] || last_size=$size last_t=$now
		quiet=$((now - last_t))
		[ "$quiet" -le "$VM_BOOT_SILENCE" ] || VM_BOOT_SILENCE=$quiet
		if ! kill -0 "$VM_QEMU_PID" 2>/dev/null; then
			VM_BOOT_WHY="QEMU exited after $((now - t0)) s"
		elif [ "$quiet" -ge "$VM_BOOT_STALL" ]; then
			VM_BOOT_WHY="no console output for $quiet s (MODSECT_VM_BOOT_STALL=$VM_BOOT_STALL), $((now - t0)) s after QEMU started"
		elif [ $((now - t0)) -ge "$VM_BOOT_TIMEOUT" ]; then
			VM_BOOT_WHY="not ready after $((now - t0)) s (MODSECT_VM_BOOT_TIMEOUT=$VM_BOOT_TIMEOUT), its console still growing"
		else
			sleep 0.5
			continue
		fi
		VM_BOOT_WHY+="; last line: $(vm_console_last)"
		return 1
	done
}

# vm_console_last: the console's last line that is not empty, without its
# \r and terminal escapes (the firmware's), cut to 200 characters ("(none)"
# if there is none).
vm_console_last() {
	local l
	l=$(sed -E 's/\x1b\[[0-9;?]*[A-Za-z]//g' "$VM_RUN/console.log" 2>/dev/null |
		tr -cd '[:print:]\t\n' | grep -v '^[[:space:]]*$' | tail -n 1 | cut -c 1-200)
	echo "${l:-(none)}"
}

# vm_wait_for REGEX [TIMEOUT]: wait until a line of serial1.log matches the
# (grep -E) REGEX.  Fails early if QEMU exits.
vm_wait_for() {
	local re=$1 timeout=${2:-60} end
	end=$(($(date +%s) + timeout))
	while :; do
		if grep -qE -- "$re" "$VM_RUN/serial1.log" 2>/dev/null; then
			return 0
		fi
		if [ -n "$VM_QEMU_PID" ] && ! kill -0 "$VM_QEMU_PID" 2>/dev/null; then
			vm_log "qemu exited while waiting for /$re/"
			return 2
		fi
		[ "$(date +%s)" -lt "$end" ] || { vm_log "timeout (${timeout}s) waiting for /$re/"; return 1; }
		sleep 0.3
	done
}

# vm_section NAME [FILE]: print the lines between ==MODSECT-BEGIN NAME== and
# ==MODSECT-END NAME== of serial1.log (or FILE).
vm_section() {
	awk -v b="==MODSECT-BEGIN $1==" -v e="==MODSECT-END $1==" '
		$0 == e { on = 0 } on { print } $0 == b { on = 1 }' "${2:-$VM_RUN/serial1.log}"
}

# Split the guest's capture into host files in $VM_RUN.
vm_split_capture() {
	vm_section capture >"$VM_RUN/capture.txt"
	vm_section capture-stderr >"$VM_RUN/capture-stderr.txt"
	# `modsect capture --kallsyms`, sent gzip'ed and in base64.
	: >"$VM_RUN/capture-kallsyms.txt"
	if grep -qxF '==MODSECT-BEGIN capture-kallsyms.gz.b64==' "$VM_RUN/serial1.log"; then
		vm_section capture-kallsyms.gz.b64 | base64 -d | gzip -dc >"$VM_RUN/capture-kallsyms.txt" ||
			vm_log "capture-kallsyms: could not decode the guest's gzip+base64"
	fi
	vm_section capture-kallsyms-stderr >"$VM_RUN/capture-kallsyms-stderr.txt"
	vm_section sections >"$VM_RUN/sections.txt"
	vm_section sysfs-grep >"$VM_RUN/sysfs-grep.txt"
	vm_section readme-loop >"$VM_RUN/readme-loop.txt"
	vm_section readme-grep >"$VM_RUN/readme-grep.txt"
	vm_section kallsyms >"$VM_RUN/kallsyms.txt"
	# The guest's whole /proc/kallsyms, sent gzip'ed and in base64.
	: >"$VM_RUN/kallsyms-all.txt"
	if grep -qxF '==MODSECT-BEGIN kallsyms-all.gz.b64==' "$VM_RUN/serial1.log"; then
		vm_section kallsyms-all.gz.b64 | base64 -d | gzip -dc >"$VM_RUN/kallsyms-all.txt" ||
			vm_log "kallsyms-all: could not decode the guest's gzip+base64"
	fi
	vm_section uname >"$VM_RUN/uname.txt"
	vm_section build-id >"$VM_RUN/build-id.txt"
	vm_section initstate >"$VM_RUN/initstate.txt"
	vm_section insmod >"$VM_RUN/insmod.txt"
	vm_section proc-modules >"$VM_RUN/proc-modules.txt"
	vm_section live-list >"$VM_RUN/live-list.txt"
	vm_section live-gdb >"$VM_RUN/live-gdb.txt"
	vm_section live-lldb >"$VM_RUN/live-lldb.txt"
	vm_section live-sections >"$VM_RUN/live-sections.txt"
	vm_section live-debuginfo >"$VM_RUN/live-debuginfo.txt"
	vm_section live-stderr >"$VM_RUN/live-stderr.txt"
	vm_section dmesg-0 >"$VM_RUN/dmesg-0.txt"
	[ -s "$VM_RUN/sections.txt" ] || vm_die "empty sections capture"
	[ -s "$VM_RUN/kallsyms.txt" ] || vm_die "empty kallsyms capture"
}

# vm_send LINE: send one trigger line to the guest (ttyS2).  Guest commands:
#   poke N   write N to /sys/module/modsect_test/parameters/poke
#   warn [N] write N to .../parameters/warn, then dump dmesg (section "dmesg-K")
#   dmesg    dump dmesg
#   ksyms NAME...  the guest's core /proc/kallsyms lines of these names and
#            "core-lines N" (section "ksyms-K")
#   race N   load and unload the race modules in a loop while N captures
#            run; everything in section "race-K.gz.b64" (see init.sh)
#   quit     power off
# Each command k (counting from 1) is acknowledged on ttyS1 with the line
# "==MODSECT-ACK k <command>==" after it completed.
vm_send() {
	[ -p "$VM_RUN/trigger.in" ] || vm_die "vm_send: no VM running"
	# QEMU holds trigger.in open read-write, so this does not block.
	timeout 10 sh -c 'printf "%s\n" "$1" >"$2"' sh "$1" "$VM_RUN/trigger.in" ||
		vm_die "vm_send: writing trigger failed"
}

# vm_cmd LINE [TIMEOUT]: vm_send and wait for the guest's acknowledgement.
vm_cmd() {
	local n
	n=$(grep -c '^==MODSECT-ACK ' "$VM_RUN/serial1.log" || true)
	n=$((n + 1))
	VM_LAST_ACK=$n
	vm_send "$1"
	vm_wait_for "^==MODSECT-ACK $n " "${2:-60}"
}

# vm_pause: stop the guest's CPUs and leave them stopped.  gdb attaches to
# the gdbstub and `disconnect`s (QEMU resumes only on continue/detach).
# Needed before attaching lldb 14: when QEMU stops a *running* guest on a new
# gdbstub connection it sends an unsolicited stop reply ("T02thread:01;")
# that lldb takes as the answer to its handshake and gives up
# ("failed to get reply to handshake packet").  gdb tolerates it.
vm_pause() {
	timeout 60 "$(vm_gdb)" -q -nx -batch -ex "target remote 127.0.0.1:$VM_GDB_PORT" \
		-ex disconnect >/dev/null 2>&1 || vm_die "vm_pause: gdb could not attach"
}

# vm_resume: let a paused guest run again (gdb attaches and detaches).
vm_resume() {
	timeout 60 "$(vm_gdb)" -q -nx -batch -ex "target remote 127.0.0.1:$VM_GDB_PORT" \
		-ex detach >/dev/null 2>&1 || vm_die "vm_resume: gdb could not attach"
}

# vm_dump FILE [FORMAT [TIMEOUT [paging]]]: QMP dump-guest-memory of the running VM
# into FILE (absolute or relative to the current directory), FORMAT elf
# (default), kdump-zlib, kdump-lzo or kdump-snappy (the last two are not
# built into Debian's QEMU 7.2), physical memory only (paging: false).  QEMU stops the guest while it dumps and lets it run
# again after.  Waits (query-dump) until the dump completed, at most
# TIMEOUT seconds (default 300).  The dump carries the guest's VMCOREINFO
# only if the guest loaded qemu_fw_cfg (CONFIG_FW_CFG_SYSFS).
vm_dump() {
	local file=$1 format=${2:-elf} timeout=${3:-300} paging=${4:-}
	[ -S "$VM_RUN/qmp.sock" ] || vm_die "vm_dump: no QMP socket $VM_RUN/qmp.sock"
	case $file in /*) ;; *) file=$PWD/$file ;; esac
	rm -f "$file"
	timeout "$((timeout + 10))" python3 - "$VM_RUN/qmp.sock" "$file" "$format" "$timeout" "$paging" <<'EOF_PY' ||
import json, socket, sys, time
sock_path, path, fmt, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(limit)
s.connect(sock_path)
f = s.makefile("rw")
def reply():
    # Skip asynchronous events (STOP, RESUME, DUMP_COMPLETED...).
    while True:
        line = f.readline()
        if not line:
            sys.exit("vm_dump: QMP connection closed")
        msg = json.loads(line)
        if "return" in msg:
            return msg["return"]
        if "error" in msg:
            sys.exit("vm_dump: QMP error: %s" % msg["error"].get("desc", msg))
def cmd(name, **args):
    f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
    f.flush()
    return reply()
json.loads(f.readline())  # greeting
cmd("qmp_capabilities")
# paging: PT_LOADs at the virtual addresses of the CPU's page tables,
# which a debugger reading the dump as a core file needs.
cmd("dump-guest-memory", paging=sys.argv[5] == "paging", protocol="file:" + path,
    format=fmt, detach=True)
end = time.time() + limit
while True:
    st = cmd("query-dump")
    if st["status"] == "completed":
        break
    if st["status"] == "failed":
        sys.exit("vm_dump: dump-guest-memory %s failed" % fmt)
    if time.time() > end:
        sys.exit("vm_dump: dump not complete after %gs: %s" % (limit, st))
    time.sleep(0.2)
EOF_PY
		vm_die "vm_dump $file $format failed"
	[ -s "$file" ] || vm_die "vm_dump: $file is empty"
}

# vm_stop: ask the guest to power off, then make sure QEMU is gone.
vm_stop() {
	local pid=$VM_QEMU_PID i
	[ -n "$pid" ] || return 0
	VM_QEMU_PID=
	if kill -0 "$pid" 2>/dev/null; then
		[ -p "$VM_RUN/trigger.in" ] &&
			timeout 2 sh -c 'printf "quit\n" >"$1"' sh "$VM_RUN/trigger.in" 2>/dev/null
		for i in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		kill "$pid" 2>/dev/null || true
		for i in 1 2 3 4 5 6; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		kill -9 "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	rm -f "$VM_RUN/qemu.pid"
}

# vm_modsect DEFAULT: $MODSECT (DEFAULT when unset) made an absolute path
# to an executable and exported, or the script dies.
vm_modsect() {
	MODSECT=${MODSECT:-$1}
	case $MODSECT in /*) ;; */*) MODSECT=$PWD/$MODSECT ;; *) MODSECT=$(command -v "$MODSECT") ;; esac
	[ -x "$MODSECT" ] || vm_die "MODSECT=$MODSECT is not executable (run make first)"
	export MODSECT
	# LSAN_OPTIONS (tests/lsan.supp): tests/common.sh.
}

# The checks: the vocabulary (tests/common.sh), ms, expect_refused, the
# expected symbols and the debugger files.
# shellcheck source=tests/vm/checks.sh
. "$VM_DIR/checks.sh"
