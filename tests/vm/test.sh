#!/bin/bash
# tests/vm/test.sh - modsect against a real kernel (QEMU, TCG, KASLR on).
#
#   MODSECT=build/san/modsect MODSECT_STATIC=$PWD/modsect-static tests/vm/test.sh
#
# One boot.  The guest loads modsect_test and a few stock modules and reports
# its section maps twice: with the static modsect (`modsect capture`, with
# build-ids) and with a plain sh loop over /sys/module/*/sections.  Then:
#
#  1. `modsect gdb --all --capture F` for both captures (and for the
#     `grep -r . /sys/module/*/sections/` format): one add-symbol-file per
#     module, the right file and .text address, "verified: build-id" when the
#     capture has build-ids, "unverified" when it has not.
#  2. gdb attached to QEMU's gdbstub sources the script; every module symbol
#     of the guest's /proc/kallsyms that is also in the module file's symtab
#     must have the kallsyms address in gdb (the per-cpu modsect_test_pcpu
#     too).  The same in fresh offline gdbs (module files only).
#  3. a breakpoint on modsect_test_poke is hit when the guest writes the poke
#     parameter; bt, args and globals are right; 0x10 is no module symbol.
#  4. lldb (offline): `image lookup -a` of every kallsyms address names the
#     right symbol.
#  5. `modsect sections` and `modsect list` on the captures.
#  6. debug info: the guest loaded the STRIPPED test module; on the host,
#     `modsect debuginfo` finds its DWARF in a --debug-dir (by build-id and
#     by module path) and from a real debuginfod on 127.0.0.1, each verified
#     against the build-id of the guest's notes/; none with --offline and
#     no debug info.  gdb attached to the guest with `modsect gdb
#     --debug-dir` (and with the debuginfod file) stops at modsect_test_poke
#     with its source file and line, and lists the source.
#  7. decode: the guest writes the warn parameter (WARN() in an inlined
#     helper of modsect_test_warn); its dmesg through `modsect decode` with
#     and without the capture, and with the DWARF only in a --debug-dir:
#     each [modsect_test] frame (WARNING, RIP, call trace) annotated with
#     the function, file:line:col and inlined helper that eu-addr2line and
#     the source give, every other line unchanged.  resolve with the
#     guest's `modsect capture --kallsyms`: core addresses from the guest's
#     /proc/kallsyms name the call trace's "F+0xOFF/0xSIZE [kernel]"; the
#     raw RIP gives modsect_test_warn with the inline chain.
#  8. the whole kernel without a debug vmlinux: `modsect kallsyms` and
#     `gdb --all --kernel` of the guest's capture --kallsyms against its
#     whole /proc/kallsyms (kallsyms-all.txt): every (name, address),
#     sizes; gdb attached to the guest sources the script, stops in
#     modsect_test_poke, bt names param_attr_store and the other core
#     frames (pc inside the kallsyms symbol, names in the kernel's own call
#     trace); info symbol of 100 addresses inside random text symbols
#     (fixed seed); lldb --all --kernel offline image lookup -a of 10.
#  9. races (the last section): the guest loads and unloads two stock
#     modules that are not loaded at boot in a loop while it runs 10
#     `modsect capture`s (and 5 single-module `modsect sections`): each
#     capture exits 0 (or says "kept changing"), lists the boot modules
#     exactly as the boot's capture does, and a race module either not at
#     all or whole from one load (section names, address deltas, kallsyms
#     at section + symbol value, as in a quiet load and the .ko); the host
#     reads every capture; a module listed in sys/module but gone when read
#     is reported on stderr.
#
# Prints "ok - test: ..." / "not ok - test: ..." per check (tests/common.sh),
# then "N passed, N failed" alone on the last line.
# Exit status 1 if anything failed.
#
# Environment: MODSECT (default ./modsect), MODSECT_STATIC (static modsect
# for the guest; without it the static-capture checks fail),
# MODSECT_VM_TEST_ATTACH=RUNDIR reuses a VM that is already running with that
# run directory (development; the VM is left running), MODSECT_VM_LLDB=0 skips
# lldb, MODSECT_VM_GDB_TIMEOUT (120 s), MODSECT_VM_RACE_N (captures in
# section 9, 10), and lib.sh's MODSECT_VM_* variables.
# DEBUGINFOD_URLS is ignored: only the test's own debuginfod is asked.
set -u
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_TIMEOUT
. "$(dirname "$0")/lib.sh"

t_start=$(date +%s)
GDB_TIMEOUT=${MODSECT_VM_GDB_TIMEOUT:-120}
vm_modsect "./modsect"
MODSECT_ORIG=$MODSECT
# The same binary also runs live inside the guest (with its libraries),
# where the guest can run it: not on a kernel of another architecture.
if [ "$VM_ARCH" = "$(uname -m)" ]; then
	export MODSECT_DYN=${MODSECT_DYN:-$MODSECT_ORIG}
else
	unset MODSECT_DYN
fi

note() { printf 'note: %s\n' "$*"; }
# modsect's cache (its copies of module files for the debuggers, the
# kallsyms ELF) where no --cache-dir says otherwise.
DEF_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/modsect

finish() {
	echo "timing: boot ${VM_BOOT_SECONDS:-?}s, total $(($(date +%s) - t_start))s"
	summary
}

# --- boot (or attach) -------------------------------------------------------
if [ -n "${MODSECT_VM_TEST_ATTACH:-}" ]; then
	VM_RUN=$MODSECT_VM_TEST_ATTACH
	VM_GDB_PORT=$(cat "$VM_RUN/gdb.port")
	VM_QEMU_PID=$(cat "$VM_RUN/qemu.pid")
	VM_BOOT_SECONDS=$(cat "$VM_RUN/boot.seconds")
	VM_TESTMOD_KO=$VM_OUT/testmod/modsect_test.ko
	VM_TESTMOD_KO_STRIPPED=$VM_OUT/testmod/modsect_test.stripped.ko
	VM_TESTMOD_DEBUG=$VM_OUT/testmod/modsect_test.debug
	VM_TESTMOD_BUILD_ID=$(vm_build_id "$VM_TESTMOD_KO")
	# shellcheck disable=SC2034 # lib.sh's vm_set_moddir reads it
	VM_KREL=$(cat "$VM_RUN/uname.txt")
	VM_MODLIST=$VM_OUT/modules.list
	VM_RACE_LIST=$VM_OUT/race-modules.list
	vm_set_moddir
	kill -0 "$VM_QEMU_PID" 2>/dev/null || vm_die "no QEMU running for $VM_RUN"
	VM_QEMU_PID= # never stop a VM we did not start
	vm_log "attached to the VM of $VM_RUN (gdbstub $VM_GDB_PORT)"
else
	vm_setup
	vm_start
fi
# vm_start's EXIT trap, plus the test's debuginfod (section 6).
DFD_PID=
dfd_stop() {
	local pid=$DFD_PID
	[ -n "$pid" ] || return 0
	DFD_PID=
	kill "$pid" 2>/dev/null || true
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.3
	done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
trap 'dfd_stop; vm_stop' EXIT
trap 'exit 130' INT TERM HUP
# The JSON checks need jq; a missing tool fails the test, never skips it.
command -v jq >/dev/null 2>&1 || vm_die "jq is missing (scripts/deps.sh check installs it)"
# Section 7's reference for source lines.
command -v eu-addr2line >/dev/null 2>&1 && command -v eu-readelf >/dev/null 2>&1 ||
	vm_die "eu-addr2line/eu-readelf missing (apt-get install -y elfutils)"
# The guest's debugger: gdb, gdb-multiarch for i386 and arm64 (kernels.sh);
# its architecture as gdb and lldb name it.
GDB=$(vm_gdb)
GDB_ARCH=$(vm_gdb_arch)
LLDB_ARCH=$(vm_lldb_arch)
# `break modsect_test_poke`: one location, where gdb stops with the
# arguments ("Breakpoint 1, modsect_test_poke (value=N)").  On arm64
# -fpatchable-function-entry puts NOPs between the ELF symbol and the
# DWARF function: two locations, 1.1 at the ELF symbol (no arguments, the
# line of whatever precedes) and 1.2 at the function's first line; the
# scripts continue from 1.1 to 1.2.
BP=1 BP_RE='Breakpoint 1'
if [ "$VM_ARCH" = aarch64 ]; then
	BP=2 BP_RE='Breakpoint 1\.2'
fi
# bp_continue: the gdb commands that run the guest to the breakpoint.
bp_continue() { for _ in $(seq "$BP"); do echo "continue"; done; }
"$GDB" -nx -batch -ex 'python import gdb' >/dev/null 2>&1 ||
	vm_die "gdb has no Python support (tests/vm/symdump.py needs it)"

W=$VM_RUN/test
rm -rf "$W"
mkdir -p "$W/ko" "$W/sym"
TD=$(dirname "$VM_TESTMOD_KO")
# Run a copy: a `make` elsewhere in the tree may replace the binary meanwhile.
cp "$MODSECT_ORIG" "$W/modsect" || vm_die "cannot copy $MODSECT_ORIG"
MODSECT=$W/modsect

# lib.sh's `ms NAME ARGS` runs it, output in $W/NAME.out and .err.

# --- the modules and their files ---------------------------------------------
# module_files LIST KODIR: for each module file in LIST, the line
# "<module> <host file (uncompressed into KODIR)> <realpath of the original>"
module_files() {
	local p b m f
	while read -r p; do
		[ -n "$p" ] || continue
		b=${p##*/}
		m=${b%.ko*}
		m=${m//-/_}
		case $p in
		*.ko) f=$p ;;
		*.ko.xz) f=$2/$m.ko; xz -dc "$p" >"$f" ;;
		*.ko.zst) f=$2/$m.ko; zstd -qdc "$p" >"$f" ;;
		*.ko.gz) f=$2/$m.ko; gzip -dc "$p" >"$f" ;;
		*) vm_die "unknown module file $p" ;;
		esac
		echo "$m $f $(readlink -f "$p")"
	done <"$1"
}
module_files "$VM_MODLIST" "$W/ko" >"$W/modules"
echo "modsect_test $VM_TESTMOD_KO $(readlink -f "$VM_TESTMOD_KO")" >>"$W/modules"
MODS=$(awk '{ printf "%s ", $1 }' "$W/modules")
mod_file() { awk -v m="$1" '$1 == m { print $2 }' "$W/modules"; }
mod_orig() { awk -v m="$1" '$1 == m { print $3 }' "$W/modules"; }

# Every module must have loaded, and the guest's kallsyms must know it.
if grep -q '^FAIL' "$VM_RUN/insmod.txt"; then
	not_ok "guest insmod failed"
	detail <"$VM_RUN/insmod.txt"
fi
for m in $MODS; do
	grep -q "^$m .text 0x" "$VM_RUN/sections.txt" || not_ok "$m: no .text in the guest's sysfs sections"
done
# The guest loaded the stripped test module: no DWARF in the guest.  The
# checks below find the module file on the host with --search "$TD", which
# holds the full modsect_test.ko (same build-id); section 6 uses a directory
# with only the stripped file.
GUEST_ID=$(awk '$1 == "modsect_test" { print $2 }' "$VM_RUN/build-id.txt")
guest_ko=$VM_OUT/initramfs/modules/99-modsect_test.ko
if cmp -s "$guest_ko" "$VM_TESTMOD_KO_STRIPPED" && ! readelf -SW "$guest_ko" | grep -q '\.debug_' &&
	[ -n "$GUEST_ID" ] && [ "$GUEST_ID" = "$VM_TESTMOD_BUILD_ID" ] &&
	[ "$(vm_build_id "$VM_TESTMOD_DEBUG")" = "$GUEST_ID" ]; then
	ok "guest loaded the stripped modsect_test.ko (no .debug_*), build-id $GUEST_ID (notes/) == full .ko == --only-keep-debug file"
else
	not_ok "guest's modsect_test is not the stripped module with build-id ${VM_TESTMOD_BUILD_ID:-?} (guest notes/: ${GUEST_ID:-none})"
fi

# --- the captures ---------------------------------------------------------------
CAP_static=$VM_RUN/capture.txt
CAP_shloop=$W/shloop.txt
CAP_grep=$W/sysfs-grep.txt
{
	echo "release $(cat "$VM_RUN/uname.txt")"
	cat "$VM_RUN/sections.txt" "$VM_RUN/kallsyms.txt"
} >"$CAP_shloop"
{
	echo "release $(cat "$VM_RUN/uname.txt")"
	cat "$VM_RUN/sysfs-grep.txt" "$VM_RUN/kallsyms.txt"
} >"$CAP_grep"
if [ -z "${MODSECT_STATIC:-}" ]; then
	not_ok "MODSECT_STATIC not set: the guest ran no modsect capture"
elif grep -qx 'rc=0' "$VM_RUN/capture-stderr.txt" && grep -q '^modsect-capture ' "$CAP_static"; then
	ok "static modsect capture in the guest: rc=0, $(grep -c '^section ' "$CAP_static") sections, $(grep -c '^kallsyms ' "$CAP_static") kallsyms lines"
else
	not_ok "static modsect capture in the guest failed"
	detail <"$VM_RUN/capture-stderr.txt"
fi
CAPS="static shloop grep"
cap_file() { eval "echo \$CAP_$1"; }

# --- 1. modsect gdb --all ------------------------------------------------------------
# The script's per-module facts: "<module> <file> <text addr> <verification>"
script_facts() {
	awk '
		/^# [A-Za-z0-9_]+ \(/ { cur = $2 }
		/^# verified: build-id / { ver[cur] = $4 }
		/^# unverified/ { ver[cur] = "unverified" }
		/^add-symbol-file / { n++; file[cur] = $2; text[cur] = $3; order[n] = cur }
		END { for (i = 1; i <= n; i++) { m = order[i]; print m, file[m], text[m], (m in ver ? ver[m] : "-") } }
	' "$1"
}

for c in $CAPS; do
	F=$(cap_file "$c")
	rc=0
	ms "gdb-all-$c" gdb --all --capture "$F" "${VM_MODDIR_ARGS[@]}" --search "$TD" -o "$W/$c.gdb" || rc=$?
	if [ "$rc" != 0 ] || [ ! -s "$W/$c.gdb" ]; then
		not_ok "[$c] modsect gdb --all --capture: rc=$rc"
		detail <"$W/gdb-all-$c.err"
		continue
	fi
	script_facts "$W/$c.gdb" >"$W/$c.facts"
	n=$(grep -c '^add-symbol-file ' "$W/$c.gdb")
	nm=$(wc -l <"$W/modules")
	if [ "$n" = "$nm" ]; then
		ok "[$c] gdb --all: $n add-symbol-file commands for $n loaded modules"
	else
		not_ok "[$c] gdb --all: $n add-symbol-file commands, $nm modules loaded"
	fi
	for m in $MODS; do
		want_file=$(awk -v m="$m" '$1 == m { print $3 }' "$W/modules")
		want_text=$(awk -v m="$m" '$1 == m && $2 == ".text" { print $3 }' "$VM_RUN/sections.txt")
		read -r _ got_file got_text got_ver <<<"$(awk -v m="$m" '$1 == m' "$W/$c.facts")"
		if [ -z "${got_file:-}" ]; then
			not_ok "[$c] gdb --all: no add-symbol-file for $m"
			continue
		fi
		# The module file itself, or where gdb would misread it (6.12's
		# modules: sections not at 0; compressed), modsect's copy of it.
		if vm_dbgfile_ok "$got_file" "$want_file" && [ "$got_text" = "$want_text" ]; then
			case $VM_DBGFILE in
			*" itself") ok "[$c] $m: add-symbol-file ${got_file##*/} $got_text" ;;
			*) ok "[$c] $m: add-symbol-file ${got_file##*/} $got_text: $VM_DBGFILE" ;;
			esac
		else
			not_ok "[$c] $m: add-symbol-file $got_file $got_text, want $want_file (or its debugger copy) $want_text: $VM_DBGFILE"
		fi
		if [ "$c" = static ]; then
			want_id=$(awk -v m="$m" '$1 == m { print $2 }' "$VM_RUN/build-id.txt")
			if [ -n "$want_id" ] && [ "$got_ver" = "$want_id" ]; then
				ok "[$c] $m: verified: build-id $want_id"
			else
				not_ok "[$c] $m: verification '$got_ver', want build-id ${want_id:-?}"
			fi
		elif [ "$got_ver" = unverified ]; then
			ok "[$c] $m: unverified (the capture has no build-ids)"
		else
			not_ok "[$c] $m: verification '$got_ver', want unverified"
		fi
	done
	if [ "$c" != static ] && [ -s "$W/static.gdb" ]; then
		if diff <(grep '^add-symbol-file ' "$W/static.gdb") <(grep '^add-symbol-file ' "$W/$c.gdb") >"$W/$c.diff"; then
			ok "[$c] add-symbol-file commands identical to the static capture's"
		else
			not_ok "[$c] add-symbol-file commands differ from the static capture's"
			detail <"$W/$c.diff"
		fi
	fi
done

# --- expected symbols ----------------------------------------------------------------
# For each module: kallsyms names that are also defined in the file's symtab,
# unique in both, minus compiler/kernel-generated names, init symbols and
# symbols of empty sections (below).
#   $W/sym/M.exp   "<name> <kallsyms addr>"
#   $W/sym/M.kall  "<addr> <name>" every kallsyms line of M (aliases)
#   $W/sym/M.defs  every name defined in M's file
for m in $MODS; do
	f=$(mod_file "$m")
	awk -v m="$m" '$4 == "[" m "]" { print $1, $3 }' "$VM_RUN/kallsyms.txt" >"$W/sym/$m.kall"
	{
		readelf -SW "$f" | awk '/^ *\[ *[0-9]+\]/ { s = $0; sub(/^ *\[ */, "", s); n = s; sub(/\].*/, "", n); sub(/^[0-9]+\] */, "", s); split(s, w, " "); print "S", n, w[1], w[5] }'
		readelf -sW "$f" | awk '$1 ~ /^[0-9]+:$/ && $7 ~ /^[0-9]+$/ && $4 != "SECTION" && $4 != "FILE" && $8 != "" { print "Y", $7, $8 }'
	} >"$W/sym/$m.elf"
	awk '$1 == "Y" { print $3 }' "$W/sym/$m.elf" | sort -u >"$W/sym/$m.defs"
	# A symbol of an empty section (6.12's __start_alloc_tags and
	# __stop_alloc_tags in a module with no .data) has a kallsyms address,
	# but sysfs lists no empty section (the kernel's add_sect_attrs skips
	# them), so no map says where it is: such names go to M.empty.
	awk -v m="$m" -v empty="$W/sym/$m.empty" '
		FILENAME ~ /\.elf$/ && $1 == "S" { sec[$2] = $3; esec[$2] = ($4 ~ /^0+$/); next }
		FILENAME ~ /\.elf$/ && $1 == "Y" { nf[$3]++; fsec[$3] = sec[$2]; fempty[$3] = esec[$2]; next }
		{ nk[$2]++; addr[$2] = $1; order[++n] = $2 }
		END {
			printf "" >empty
			for (i = 1; i <= n; i++) {
				s = order[i]
				# ARM mapping symbols ($x, $d: code and data) are no names.
				if (s ~ /^\.LC/ || s ~ /^__UNIQUE_ID_/ || s ~ /^_note_/ || s ~ /^\$[atdx](\.|$)/) continue
				if (!(s in nf)) continue
				if (nf[s] != 1 || nk[s] != 1) { dup++; continue }
				if (fsec[s] ~ /^\.init\./) continue
				if (fempty[s]) { print s, addr[s], fsec[s] >empty; continue }
				print s, addr[s], fsec[s]
			}
		}' "$W/sym/$m.elf" "$W/sym/$m.kall" >"$W/sym/$m.exp"
	if [ -s "$W/sym/$m.empty" ]; then
		ok "$m: $(wc -l <"$W/sym/$m.empty") symbols of empty sections not checked: $(awk '{ printf "%s%s (%s)", (NR > 1 ? ", " : ""), $1, $3 }' "$W/sym/$m.empty") (skipped on $VM_PROFILE: sysfs lists no section of size 0, so no map has their kallsyms address)"
	fi
done
# Names unique among all modules (one gdb holds all modules at once).
for m in $MODS; do
	others=$(for o in $MODS; do [ "$o" = "$m" ] || echo "$W/sym/$o.defs"; done)
	# shellcheck disable=SC2086
	awk 'FILENAME != ARGV[ARGC-1] { d[$1] = 1; next } !($1 in d)' $others "$W/sym/$m.exp" >"$W/sym/$m.uexp"
done
cat "$W"/sym/*.uexp >"$W/sym/all.uexp"
for m in $MODS; do
	printf 'info: %s: %d kallsyms lines, %d checked (%d unique across modules)\n' "$m" \
		"$(wc -l <"$W/sym/$m.kall")" "$(wc -l <"$W/sym/$m.exp")" "$(wc -l <"$W/sym/$m.uexp")"
done
# The per-cpu variable: its kallsyms value (type a) is its per-cpu offset,
# which modsect takes as .data..percpu's base; kallsyms lists it only with
# CONFIG_KALLSYMS_ALL (Debian's 686-pae and arm64 have none: then no map
# knows that base).  gdb reads CPU 0's copy through x86-64's $gs_base.
PCPU_KALL=$(awk '$1 == "modsect_test_pcpu" { print $2 }' "$W/sym/modsect_test.exp")
PCPU_READ=
if [ -n "$PCPU_KALL" ]; then
	if [ "$VM_ARCH" = x86_64 ]; then
		PCPU_READ='*(int *)($gs_base + (unsigned long)&modsect_test_pcpu)'
	else
		ok "gdb live: per-cpu modsect_test_pcpu of CPU 0 (skipped on $VM_PROFILE: read through x86-64's \$gs_base only)"
	fi
elif ! vm_kconfig KALLSYMS_ALL && ! grep -q ' modsect_test_pcpu$' "$W/sym/modsect_test.kall"; then
	ok "modsect_test_pcpu and CPU 0's copy of it (skipped on $VM_PROFILE: no CONFIG_KALLSYMS_ALL, kallsyms lists no variables, so no per-cpu base); sections must say .data..percpu is not loaded"
else
	not_ok "modsect_test_pcpu not among the symbols to check"
fi
grep -q '^modsect_test_poke ' "$W/sym/modsect_test.exp" || not_ok "modsect_test_poke not among the symbols to check"

# compare_addrs LABEL EXPFILE OUTFILE TAG [RTAG]: every "<name> <addr>" of
# EXPFILE must appear as "<TAG> <name> <hex>" in OUTFILE with the same
# address (on arm64, with RTAG, vm_compare_syms's rule for functions
# behind patchable NOPs).
compare_addrs() {
	local label=$1 exp=$2 out=$3 tag=$4 res
	res=$(vm_compare_syms "$exp" "$out" "$tag" "${5:-}")
	read -r _ nok nbad <<<"$(tail -n1 <<<"$res")"
	if [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then
		ok "$label: $nok/$nok symbol addresses == kallsyms"
	else
		not_ok "$label: $nbad of $((nok + nbad)) symbol addresses differ from kallsyms"
		sed '$d' <<<"$res" | detail
	fi
}

# where_ex FILE: on arm64, the gdb arguments that print ms_where's RSYM
# lines of FILE (for compare_addrs' RTAG); nothing elsewhere.
where_ex() { [ "$VM_ARCH" != aarch64 ] || printf '%s\n' -ex "python ms_where('$1', 'RSYM')"; }

# compare_where LABEL MODULE EXPFILE OUTFILE TAG: "info symbol <addr>" for
# each expected symbol must name that symbol (or an alias at the same
# address in kallsyms), at offset 0.
compare_where() {
	local label=$1 m=$2 exp=$3 out=$4 tag=$5 res
	res=$(awk -v tag="$tag" '
		# gdb shows "f.isra.0.cold" as "f.isra[cold]" and "x.130" as "x",
		# and (arm64) "f.constprop.0.isra.0" as "f.constprop.0.isra".
		function norm(s) { gsub(/\.[0-9]+/, "", s); sub(/\.cold$/, "[cold]", s); return s }
		function last(s) { sub(/\.[0-9]+$/, "", s); return s }
		FILENAME == ARGV[1] { alias[$1 " " $2] = 1; alias[$1 " " norm($2)] = 1; alias[$1 " " last($2)] = 1; next }
		FILENAME == ARGV[2] { want[$2] = $1; order[++n] = $2; next }
		$1 == tag { a = $2; $1 = ""; $2 = ""; sub(/^ +/, ""); got[a] = $0 }
		END {
			for (i = 1; i <= n; i++) {
				a = order[i]
				split(got[a], w, " ")
				if (((a " " w[1]) in alias) && w[2] == "in" && w[3] == "section") { okn++; continue }
				bad++
				if (bad <= 10) printf "  %s at %s: info symbol says \"%s\"\n", want[a], a, got[a]
			}
			printf "RESULT %d %d\n", okn, bad
		}' "$W/sym/$m.kall" "$exp" "$out")
	read -r _ nok nbad <<<"$(tail -n1 <<<"$res")"
	if [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then
		ok "$label: info symbol names all $nok kallsyms addresses"
	else
		not_ok "$label: info symbol wrong for $nbad of $((nok + nbad)) kallsyms addresses"
		sed '$d' <<<"$res" | detail
	fi
}

# --- 2 + 3. gdb attached to the guest ---------------------------------------------
POKE=5
# What modsect_test_data and the per-cpu counter hold before this poke: the
# guest may have been poked before (attach mode).
prev_pokes=$(sed -n 's/^==MODSECT-ACK [0-9]* poke \([0-9-]*\) rc=0==$/\1/p' "$VM_RUN/serial1.log")
WANT_DATA=24263
WANT_PCPU=101
for v in $prev_pokes; do WANT_DATA=$v; WANT_PCPU=$((WANT_PCPU + v)); done
POKE_ADDR=$(awk '$1 == "modsect_test_poke" { print $2 }' "$W/sym/modsect_test.exp")
{
	echo "set pagination off"
	echo "set confirm off"
	echo "set width 0"
	echo "target remote 127.0.0.1:$VM_GDB_PORT"
	echo "source $W/static.gdb"
	echo "source $VM_DIR/symdump.py"
	echo "python ms_addr('$W/sym/all.uexp', 'SYM')"
	[ "$VM_ARCH" != aarch64 ] || echo "python ms_where('$W/sym/all.uexp', 'RSYM')"
	# The per-cpu copy of CPU 0 through the kernel's GS base.
	[ -z "$PCPU_READ" ] || echo "python ms_eval('PCPU', '$PCPU_READ')"
	echo "echo ==INFO-SYMBOL-LOW==\\n"
	echo "info symbol 0x10"
	echo "echo ==END==\\n"
	echo "break modsect_test_poke"
	# The guest is stopped while gdb holds it; the trigger waits in the UART.
	echo "shell printf 'poke $POKE\\n' > $VM_RUN/trigger.in"
	bp_continue
	echo "echo ==BT==\\n"
	echo "bt"
	echo "echo ==END==\\n"
	echo "python ms_eval('VALUE', 'value')"
	echo "python ms_eval('DATA', 'modsect_test_data')"
	echo "python ms_eval('TABLE', 'modsect_test_table[3]')"
	[ -z "$PCPU_READ" ] || echo "python ms_eval('PCPUHIT', '$PCPU_READ')"
	echo "delete"
	echo "detach"
} >"$W/live.gdb"
ack_n=$(($(grep -c '^==MODSECT-ACK ' "$VM_RUN/serial1.log" || true) + 1))
t0=$(date +%s)
rc=0
if [ -s "$W/static.gdb" ]; then
	timeout "$GDB_TIMEOUT" "$GDB" -q -nx -batch -x "$W/live.gdb" >"$W/live.out" 2>&1 </dev/null || rc=$?
else
	rc=none
	not_ok "gdb live: no script from the static capture"
fi
T_GDB_LIVE=$(($(date +%s) - t0))
[ "$rc" = 0 ] || not_ok "gdb live: exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
for m in $MODS; do
	compare_addrs "gdb live: $m" "$W/sym/$m.uexp" "$W/live.out" SYM RSYM
done
pcpu=$(awk '$1 == "PCPU" { print $2 }' "$W/live.out")
if [ -z "$PCPU_READ" ]; then
	: # said above
elif [ "$pcpu" = "$WANT_PCPU" ]; then
	ok "gdb live: per-cpu modsect_test_pcpu of CPU 0 reads $pcpu through \$gs_base + &modsect_test_pcpu"
else
	not_ok "gdb live: per-cpu modsect_test_pcpu reads '${pcpu}', want $WANT_PCPU"
	grep '^PCPU' "$W/live.out" | detail
fi
sed -n '/^==INFO-SYMBOL-LOW==$/,/^==END==$/p' "$W/live.out" | sed '1d;$d' >"$W/live.low"
if grep -qx 'No symbol matches 0x10.' "$W/live.low"; then
	ok "gdb live: info symbol 0x10 names no symbol"
else
	not_ok "gdb live: info symbol 0x10 says: $(cat "$W/live.low")"
fi
sed -n '/^==BT==$/,/^==END==$/p' "$W/live.out" | sed '1d;$d' >"$W/live.bt"
if grep -qE "^$BP_RE, (0x[0-9a-f]+ in )?modsect_test_poke \(value=$POKE\) at .*modsect_test\.c:[0-9]+" "$W/live.out"; then
	ok "gdb live: breakpoint on modsect_test_poke hit with value=$POKE"
else
	not_ok "gdb live: breakpoint on modsect_test_poke not reported"
	tail -n 20 "$W/live.out" | detail
fi
if grep -qE "^#0 +(0x[0-9a-f]+ in )?modsect_test_poke \(value=$POKE\) at .*modsect_test\.c:[0-9]+" "$W/live.bt"; then
	ok "gdb live: bt #0 is $(grep -oE 'modsect_test_poke \(value=[0-9]+\) at [^ ]*modsect_test\.c:[0-9]+' "$W/live.bt" | sed 's|at .*/|at |')"
else
	not_ok "gdb live: bt does not show modsect_test_poke at modsect_test.c:LINE"
	detail <"$W/live.bt"
fi
# The caller is poke_set (a static function: from the module's symtab).
if grep -qE '^#1 +0x[0-9a-f]+ in poke_set ' "$W/live.bt"; then
	ok "gdb live: bt #1 is poke_set"
else
	not_ok "gdb live: bt #1 is not poke_set"
	detail <"$W/live.bt"
fi
for kv in "VALUE $POKE" "DATA $WANT_DATA" "TABLE 68" ${PCPU_READ:+"PCPUHIT $WANT_PCPU"}; do
	set -- $kv
	got=$(awk -v t="$1" '$1 == t { print $2 }' "$W/live.out")
	if [ "$got" = "$2" ]; then
		ok "gdb live: at the breakpoint $(echo "$1" | tr A-Z a-z) = $got"
	else
		not_ok "gdb live: at the breakpoint $1 = '${got}', want $2"
	fi
done
if vm_wait_for "^==MODSECT-ACK $ack_n poke $POKE rc=0==\$" 60; then
	ok "guest completed the poke after gdb detached"
else
	not_ok "guest did not acknowledge the poke"
	vm_resume || true
fi

# --- 2b. fresh offline gdb ---------------------------------------------------------------
# Per module and per capture: `modsect gdb MODULE` alone in a new gdb with no
# target.  modsect's script says to set the architecture first without a
# target (gdb's default is i386, where pointers have 32 bits), so the forward
# check (&sym) sets it; the reverse check (info symbol ADDR) runs in a gdb
# that has only sourced the script.
t0=$(date +%s)
for c in static shloop; do
	F=$(cap_file "$c")
	for m in $MODS; do
		rc=0
		ms "gdb-$c-$m" gdb --capture "$F" "${VM_MODDIR_ARGS[@]}" --search "$TD" "$m" -o "$W/$c-$m.gdb" || rc=$?
		if [ "$rc" != 0 ]; then
			not_ok "[$c] modsect gdb $m: rc=$rc"
			detail <"$W/gdb-$c-$m.err"
			continue
		fi
		if ! diff <(grep '^add-symbol-file ' "$W/$c-$m.gdb") \
			<(grep "^add-symbol-file $(awk -v m="$m" '$1 == m { print $2 }' "$W/$c.facts") " "$W/$c.gdb") >/dev/null; then
			not_ok "[$c] modsect gdb $m differs from its line in gdb --all"
		fi
		mapfile -t wx < <(where_ex "$W/sym/$m.exp")
		timeout "$GDB_TIMEOUT" "$GDB" -nx -batch -ex "set architecture $GDB_ARCH" -x "$W/$c-$m.gdb" \
			-x "$VM_DIR/symdump.py" "${wx[@]}" -ex "python ms_addr('$W/sym/$m.exp', 'SYM')" \
			>"$W/offline-$c-$m.out" 2>&1 </dev/null
		compare_addrs "[$c] gdb offline: $m" "$W/sym/$m.exp" "$W/offline-$c-$m.out" SYM RSYM
		timeout "$GDB_TIMEOUT" "$GDB" -nx -batch -x "$W/$c-$m.gdb" \
			-x "$VM_DIR/symdump.py" -ex "python ms_where('$W/sym/$m.exp', 'RSYM')" \
			-ex "python ms_addr('$W/sym/$m.exp', 'SYM')" \
			>"$W/fresh-$c-$m.out" 2>&1 </dev/null
		# The script sets the architecture itself (a fresh gdb is i386).
		compare_where "[$c] fresh gdb (the script alone): $m" "$m" "$W/sym/$m.exp" "$W/fresh-$c-$m.out" RSYM
		compare_addrs "[$c] fresh gdb (the script alone): $m" "$W/sym/$m.exp" "$W/fresh-$c-$m.out" SYM RSYM
	done
done
# All modules at once, offline, from the --all script.
mapfile -t wx < <(where_ex "$W/sym/all.uexp")
"$GDB" -nx -batch -ex "set architecture $GDB_ARCH" -x "$W/static.gdb" -x "$VM_DIR/symdump.py" \
	"${wx[@]}" -ex "python ms_addr('$W/sym/all.uexp', 'SYM')" -ex 'info symbol 0x10' \
	>"$W/offline-all.out" 2>&1 </dev/null
compare_addrs "[static] gdb offline, --all script" "$W/sym/all.uexp" "$W/offline-all.out" SYM RSYM
if tail -n1 "$W/offline-all.out" | grep -qx 'No symbol matches 0x10.'; then
	ok "[static] gdb offline, --all script: info symbol 0x10 names no symbol"
else
	not_ok "[static] gdb offline, --all script: info symbol 0x10 says: $(tail -n1 "$W/offline-all.out")"
fi
T_GDB_OFFLINE=$(($(date +%s) - t0))

# --- 4. lldb (offline: target create "" + the script + image lookup -a) ---------------
# check_lldb LABEL SCRIPT MODULES...: image lookup -a of every expected
# symbol's kallsyms address must name it (or an alias), at offset 0, in the
# right module file.
check_lldb() {
	local label=$1 script=$2 m res lf
	shift 2
	# An address that resolves to nothing is an error for lldb, and errors
	# end a -s script: the lookups go in a file sourced with -e false.
	{
		for m in "$@"; do
			awk '{ print "image lookup -a 0x" $2 }' "$W/sym/$m.exp"
		done
		echo "image lookup -a 0x10"
	} >"$W/lldb-run-$label.lookups"
	{
		echo "target create --arch $LLDB_ARCH \"\""
		echo "command source $script"
		echo "command source -e false $W/lldb-run-$label.lookups"
	} >"$W/lldb-run-$label.lldb"
	timeout "$GDB_TIMEOUT" lldb -b -s "$W/lldb-run-$label.lldb" >"$W/lldb-run-$label.out" 2>&1 </dev/null
	for m in "$@"; do
		# The file lldb got: the module file, or modsect's copy for lldb.
		lf=$(awk -v m="$m" '/^# [A-Za-z0-9_]+ \(/ { cur = $2 } /^target modules add "/ && cur == m { f = $0; sub(/^target modules add "/, "", f); sub(/"$/, "", f); print f }' "$script")
		if ! vm_dbgfile_ok "$lf" "$(mod_orig "$m")" lldb; then
			not_ok "lldb $label: $m: target modules add '$lf': $VM_DBGFILE"
		fi
		res=$(awk -v f="${lf##*/}" '
			FILENAME == ARGV[1] { alias[$1 " " $2] = 1; next }
			FILENAME == ARGV[2] { want[$2] = $1; sec[$2] = $3; order[++n] = $2; next }
			/^\(lldb\) image lookup -a 0x/ { cur = substr($5, 3); next }
			/^\(lldb\) / { cur = ""; next }
			cur != "" && $1 == "Address:" {
				file[cur] = $2; sub(/\[.*/, "", file[cur])
				where[cur] = $0; sub(/^[^(]*/, "", where[cur])
			}
			cur != "" && $1 == "Summary:" { s = $0; sub(/^ *Summary: /, "", s); sum[cur] = s }
			END {
				for (i = 1; i <= n; i++) {
					a = order[i]
					s = sum[a]; nm = s; sub(/^[^ `]*`/, "", nm); split(nm, w, " ")
					if (file[a] == f && ((a " " w[1]) in alias) && w[2] != "+") { okn++; continue }
					# lldb 14 names the (nameless) section symbol for the
					# first byte of a section in a file without debug info,
					# or (crc_itu_t of 6.12, __this_module) only the section.
					if (file[a] == f && (nm == "" || s == f "." sec[a] " + 0") && where[a] == "(" f "." sec[a] " + 0)") { okn++; sec0++; continue }
					bad++
					if (bad <= 10) printf "  %s at %s: %s: %s\n", want[a], a, file[a], s
				}
				printf "RESULT %d %d %d\n", okn, bad, sec0
			}' "$W/sym/$m.kall" "$W/sym/$m.exp" "$W/lldb-run-$label.out")
		read -r _ nok nbad nsec0 <<<"$(tail -n1 <<<"$res")"
		if [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then
			ok "lldb $label: image lookup -a names all $nok kallsyms addresses of $m$([ "${nsec0:-0}" = 0 ] || echo " ($nsec0 as <section> + 0)")"
		else
			not_ok "lldb $label: image lookup -a wrong for $nbad of $((nok + nbad)) addresses of $m"
			sed '$d' <<<"$res" | detail
		fi
	done
	# Nothing at 0x10: the last command prints no Address/Summary.
	if awk '/^\(lldb\) image lookup -a 0x10$/ { on = 1; next } on && /Summary:|Address:/ { f = 1 } END { exit !(on && !f) }' "$W/lldb-run-$label.out"; then
		ok "lldb $label: image lookup -a 0x10 finds nothing"
	else
		not_ok "lldb $label: image lookup -a 0x10 found something (or lldb did not get there)"
		tail -n 5 "$W/lldb-run-$label.out" | detail
	fi
}
t0=$(date +%s)
if [ "${MODSECT_VM_LLDB:-1}" = 0 ]; then
	echo "skip: lldb (MODSECT_VM_LLDB=0)"
elif ! (vm_need_pkgs lldb:lldb) || ! command -v lldb >/dev/null 2>&1; then
	not_ok "lldb not installed (apt-get install -y lldb, or MODSECT_VM_LLDB=0)"
else
	for c in static shloop; do
		F=$(cap_file "$c")
		rc=0
		ms "lldb-$c-modsect_test" lldb --capture "$F" "${VM_MODDIR_ARGS[@]}" --search "$TD" modsect_test -o "$W/$c-modsect_test.lldb" || rc=$?
		if [ "$rc" = 0 ]; then
			check_lldb "$c-modsect_test" "$W/$c-modsect_test.lldb" modsect_test
		else
			not_ok "[$c] modsect lldb modsect_test: rc=$rc"
			detail <"$W/lldb-$c-modsect_test.err"
		fi
	done
	rc=0
	ms lldb-static-all lldb --all --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$TD" -o "$W/static-all.lldb" || rc=$?
	if [ "$rc" = 0 ]; then
		# shellcheck disable=SC2086
		check_lldb static-all "$W/static-all.lldb" $MODS
	else
		not_ok "[static] modsect lldb --all: rc=$rc"
		detail <"$W/lldb-static-all.err"
	fi
fi
T_LLDB=$(($(date +%s) - t0))

# --- 5. modsect sections / list -------------------------------------------------------
if ms sections-static sections --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$TD" modsect_test; then
	o=$W/sections-static.out
	text=$(awk '$1 == "modsect_test" && $2 == ".text" { print $3 }' "$VM_RUN/sections.txt")
	if awk '$1 == ".init.text" && $NF == "freed" { f = 1 } END { exit !f }' "$o"; then
		ok "sections modsect_test: .init.text freed"
	else
		not_ok "sections modsect_test: .init.text not listed as freed"
		detail <"$o"
	fi
	if awk -v t="$text" '$1 == ".text" && $2 == t && $NF == "loaded" { f = 1 } END { exit !f }' "$o"; then
		ok "sections modsect_test: .text $text loaded"
	else
		not_ok "sections modsect_test: .text not at $text / not loaded"
	fi
	if [ -z "$PCPU_KALL" ]; then
		if awk '$1 == ".data..percpu" && $NF == "not-loaded" { f = 1 } END { exit !f }' "$o"; then
			ok "sections modsect_test: .data..percpu not-loaded (kallsyms gives no per-cpu base on $VM_PROFILE)"
		else
			not_ok "sections modsect_test: .data..percpu not shown as not-loaded (kallsyms has no modsect_test_pcpu)"
			detail <"$o"
		fi
	elif awk '$1 == ".data..percpu" && $NF == "percpu" { f = 1 } END { exit !f }' "$o"; then
		ok "sections modsect_test: .data..percpu is percpu"
	else
		not_ok "sections modsect_test: .data..percpu not shown as percpu"
	fi
	if grep -qE '^verified: +build-id' "$o" && grep -qE '^module: +modsect_test \(live\)' "$o"; then
		ok "sections modsect_test: live, verified: build-id"
	else
		not_ok "sections modsect_test: header lacks 'live' / 'verified: build-id'"
		head -n 3 "$o" | detail
	fi
else
	not_ok "modsect sections --capture static modsect_test failed"
	detail <"$W/sections-static.err"
fi
pcpu_kall=$PCPU_KALL
pcpu_want="percpu 0x$pcpu_kall"
[ -n "$pcpu_kall" ] || pcpu_want="not-loaded "
if ms sections-json sections --json --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$TD" modsect_test &&
	command -v jq >/dev/null 2>&1; then
	got=$(jq -r '[.verified, (.sections[] | select(.name == ".init.text") | .state),
		(.sections[] | select(.name == ".data..percpu") | .state, .address)] | join(" ")' \
		"$W/sections-json.out" 2>&1)
	if [ "$got" = "build-id freed $pcpu_want" ]; then
		ok "sections --json: build-id, .init.text freed, .data..percpu ${pcpu_kall:+at 0x$pcpu_kall}${pcpu_kall:-not-loaded, no address}"
	else
		not_ok "sections --json: '$got', want 'build-id freed $pcpu_want'"
	fi
fi
for c in static shloop; do
	F=$(cap_file "$c")
	if ms "list-$c" list --capture "$F" "${VM_MODDIR_ARGS[@]}" --search "$TD"; then
		want=build-id
		[ "$c" = static ] || want=unverified
		n=0
		for m in $MODS; do
			wf=$(awk -v m="$m" '$1 == m { print $3 }' "$W/modules")
			read -r _ _ _ gv _ gf <<<"$(awk -v m="$m" '$1 == m' "$W/list-$c.out")"
			if [ "${gv:-}" = "$want" ] && [ "$(readlink -f "${gf:-/nonexistent}")" = "$wf" ]; then
				n=$((n + 1))
			else
				not_ok "[$c] list: $m: '${gv:-}' '${gf:-}', want $want $wf"
			fi
		done
		nl=$(awk 'NR > 1' "$W/list-$c.out" | wc -l)
		if [ "$n" = "$(wc -l <"$W/modules")" ] && [ "$nl" = "$n" ]; then
			ok "[$c] list: all $n modules $want, right files"
		else
			not_ok "[$c] list: $n of $nl lines right"
			detail <"$W/list-$c.out"
		fi
	else
		not_ok "[$c] modsect list --capture failed"
		detail <"$W/list-$c.err"
	fi
done
if ms list-json list --json --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$TD" && command -v jq >/dev/null 2>&1; then
	got=$(jq -r '.[] | "\(.name) \(.verified)"' "$W/list-json.out" 2>&1 | sort | tr '\n' ' ')
	want=$(for m in $MODS; do echo "$m build-id"; done | sort | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		ok "list --json: every module verified by build-id"
	else
		not_ok "list --json: '$got', want '$want'"
	fi
fi

# --- more: other files, --init, --moddir ------------------------------------------------
asf() { grep '^add-symbol-file ' "$1" | cut -d' ' -f3-; }
if ms gdb-stripped gdb --capture "$CAP_static" modsect_test "$VM_TESTMOD_KO_STRIPPED" &&
	grep -q '^# verified: build-id' "$W/gdb-stripped.out" &&
	[ "$(asf "$W/gdb-stripped.out")" = "$(asf "$W/static-modsect_test.gdb")" ]; then
	ok "gdb modsect_test FILE with the stripped file (same build-id): verified, same addresses"
else
	not_ok "gdb modsect_test FILE with the stripped file: not verified or other addresses"
	cat "$W/gdb-stripped.err" "$W/gdb-stripped.out" | detail
fi
isofs_file=$(mod_file isofs)
rc=0
ms gdb-wrongfile gdb --capture "$CAP_static" modsect_test "$isofs_file" || rc=$?
if [ "$rc" = 3 ] && [ ! -s "$W/gdb-wrongfile.out" ]; then
	ok "gdb modsect_test with isofs.ko as FILE: refused (exit 3: $(head -n1 "$W/gdb-wrongfile.err"))"
else
	not_ok "gdb modsect_test with isofs.ko as FILE: exit $rc, want 3 and no output"
fi
init_addr=$(awk '$1 == "modsect_test" && $2 == ".init.text" { print $3 }' "$VM_RUN/sections.txt")
if ms gdb-init gdb --init --capture "$CAP_static" --search "$TD" modsect_test &&
	grep -q -- "-s .init.text $init_addr " "$W/gdb-init.out"; then
	ok "gdb --init keeps .init.text at its stale address $init_addr"
else
	not_ok "gdb --init: .init.text is not at $init_addr"
	grep '^add-symbol-file' "$W/gdb-init.out" | tr ' ' '\n' | grep -A1 -x -- .init.text | detail
fi
# The sh loop without its "release" line: stock modules need --moddir.
grep -v '^release ' "$CAP_shloop" >"$W/norelease.txt"
rc=0
ms gdb-norel gdb --capture "$W/norelease.txt" --search "$TD" isofs || rc=$?
if [ "$rc" = 1 ]; then
	ok "gdb isofs from a capture without release, no --moddir: not found (exit 1)"
else
	not_ok "gdb isofs from a capture without release, no --moddir: exit $rc, want 1"
fi
if ms gdb-moddir gdb --all --capture "$W/norelease.txt" --moddir "$VM_MODDIR" --search "$TD" &&
	[ "$(asf "$W/gdb-moddir.out")" = "$(asf "$W/shloop.gdb")" ]; then
	ok "gdb --all --moddir $VM_MODDIR on a capture without release: same commands"
else
	not_ok "gdb --all --moddir on a capture without release: other commands"
	detail <"$W/gdb-moddir.err"
fi

# --- modsect live in the guest, as root on the real kernel -----------------
# Same commands as from the static capture, apart from where the files are.
live_rc() { tail -n 1 "$VM_RUN/live-$1.txt"; }
asf_args() { grep '^add-symbol-file ' "$1" | cut -d' ' -f3- | sort; }
if [ -z "${MODSECT_DYN:-}" ]; then
	ok "live in the guest: list, gdb --all, lldb, sections, debuginfo (skipped on $VM_PROFILE: no modsect runs in the guest, $VM_ARCH; MODSECT is built for $(uname -m))"
else
	if [ "$(live_rc list)" = rc=0 ] &&
		[ "$(grep -c ' build-id ' "$VM_RUN/live-list.txt")" = "$(wc -l <"$W/modules")" ]; then
		ok "live in the guest: modsect list: $(wc -l <"$W/modules") modules, all verified by build-id"
	else
		not_ok "live in the guest: modsect list"
		detail <"$VM_RUN/live-list.txt"
	fi
	if [ "$(live_rc gdb)" = rc=0 ] && [ -s "$W/static.gdb" ] &&
		[ "$(asf_args "$VM_RUN/live-gdb.txt")" = "$(asf_args "$W/static.gdb")" ] &&
		[ "$(grep -c '^# verified: build-id' "$VM_RUN/live-gdb.txt")" = "$(wc -l <"$W/modules")" ]; then
		ok "live in the guest: modsect gdb --all: same addresses as from the capture, $(wc -l <"$W/modules") verified"
	else
		not_ok "live in the guest: modsect gdb --all differs from the capture's"
		diff <(asf_args "$VM_RUN/live-gdb.txt") <(asf_args "$W/static.gdb") | detail
	fi
	# The guest's file is /lib/modules/REL/extra/modsect_test.ko, the stripped
	# module; where lldb would misread it (6.12: sections not at 0) lldb gets
	# modsect's copy in the guest's cache, named by its content, which the
	# host computes from the same file.
	read -r LIVE_COPY _ <<<"$(vm_debugger_copy "$VM_TESTMOD_KO_STRIPPED" lldb)"
	if [ "${LIVE_COPY:--}" = - ]; then
		live_lldb_re='^target modules load --file "/lib/modules/.*/modsect_test.ko" \.text '
	else
		live_lldb_re="^target modules load --file \"/.*/$LIVE_COPY\" \\.text "
	fi
	if [ "$(live_rc lldb)" = rc=0 ] && grep -q "$live_lldb_re" "$VM_RUN/live-lldb.txt" &&
		grep -q '^# modsect_test (live) from /lib/modules/.*/modsect_test.ko$' "$VM_RUN/live-lldb.txt"; then
		ok "live in the guest: modsect lldb modsect_test$([ "${LIVE_COPY:--}" = - ] || echo " (lldb reads its copy $LIVE_COPY: the guest's module with sh_addr 0)")"
	else
		not_ok "live in the guest: modsect lldb modsect_test"
		detail <"$VM_RUN/live-lldb.txt"
	fi
	if [ "$(live_rc sections)" = rc=0 ] &&
		grep -qE '^\.init\.text +0x[0-9a-f]{16} +[0-9]+ AX +yes +freed$' "$VM_RUN/live-sections.txt" &&
		grep -qE '^\.data\.\.percpu +0x[0-9a-f]{16} +[0-9]+ WA +no +percpu$' "$VM_RUN/live-sections.txt" &&
		grep -q '^verified: build-id' "$VM_RUN/live-sections.txt"; then
		ok "live in the guest: modsect sections: .init.text freed, per-cpu base from /proc/kallsyms"
	else
		not_ok "live in the guest: modsect sections"
		detail <"$VM_RUN/live-sections.txt"
	fi
	# The guest has the stripped module only: live modsect finds no DWARF.
	read -r _ _ _ lv ld _ <<<"$(awk '$1 == "modsect_test"' "$VM_RUN/live-list.txt")"
	if [ "${lv:-}" = build-id ] && [ "${ld:-}" = - ] &&
		grep -q '^# debug info: none found' <(awk '/^# modsect_test \(/ { on = 1; next } /^# [A-Za-z0-9_]+ \(/ { on = 0 } on' "$VM_RUN/live-gdb.txt"); then
		ok "live in the guest: modsect_test verified by build-id, DEBUG '-', gdb: '# debug info: none found' (the guest has no DWARF)"
	else
		not_ok "live in the guest: modsect_test should have no debug info in the guest (list: '${lv:-}' '${ld:-}')"
		grep -A4 '^# modsect_test (' "$VM_RUN/live-gdb.txt" | detail
	fi
	read -r _ lid lsrc lver _ <<<"$(awk '$1 == "modsect_test"' "$VM_RUN/live-debuginfo.txt")"
	if [ "$(live_rc debuginfo)" = rc=1 ] && [ "${lid:-}" = "$GUEST_ID" ] && [ "${lsrc:-}" = - ] && [ "${lver:-}" = - ]; then
		ok "live in the guest: modsect debuginfo --offline --all: exit 1, modsect_test $lid source '-'"
	else
		not_ok "live in the guest: modsect debuginfo --offline --all: $(live_rc debuginfo), modsect_test '${lid:-}' '${lsrc:-}' '${lver:-}'"
		detail <"$VM_RUN/live-debuginfo.txt"
	fi
	if [ ! -s "$VM_RUN/live-stderr.txt" ]; then
		ok "live in the guest: nothing on stderr (no sanitizer report)"
	else
		not_ok "live in the guest: stderr"
		detail <"$VM_RUN/live-stderr.txt"
	fi
fi

# --- 6. debug info of the stripped module ---------------------------------------------
# $SD holds ONLY the stripped module, as modsect_test.ko: the module file
# modsect finds has no DWARF, so types and source lines can only come from
# the debug info it finds elsewhere.  Every candidate must match the
# build-id the guest reported in notes/ ($GUEST_ID).
t0=$(date +%s)
DI=$W/debuginfo
SD=$DI/stripped
mkdir -p "$SD"
cp "$VM_TESTMOD_KO_STRIPPED" "$SD/modsect_test.ko"
KREL=$(cat "$VM_RUN/uname.txt")
ID=${GUEST_ID:-nobuildid}

# di_check LABEL NAME WANT_RC WANT_SOURCE WANT_FILE ARGS...: `modsect
# debuginfo ARGS` exits WANT_RC and its modsect_test row has the guest's
# build-id, source WANT_SOURCE, verified build-id (- without debug info)
# and file WANT_FILE.
di_check() {
	local label=$1 name=$2 wrc=$3 wsrc=$4 wfile=$5 rc=0 wver=build-id gid gsrc gver gfile
	shift 5
	[ "$wsrc" = - ] && wver=-
	ms "$name" debuginfo "$@" || rc=$?
	read -r _ gid gsrc gver gfile <<<"$(awk '$1 == "modsect_test"' "$W/$name.out")"
	if [ "$rc" = "$wrc" ] && [ -n "$GUEST_ID" ] && [ "${gid:-}" = "$GUEST_ID" ] &&
		[ "${gsrc:-}" = "$wsrc" ] && [ "${gver:-}" = "$wver" ] && [ "${gfile:-}" = "$wfile" ]; then
		ok "debuginfo $label: exit $rc, build-id $gid (== guest notes/), source $gsrc, verified $gver, ${gfile#"$DI/"}"
	else
		not_ok "debuginfo $label: exit $rc, '${gid:-}' '${gsrc:-}' '${gver:-}' '${gfile:-}'; want exit $wrc, $ID $wsrc $wver $wfile"
		cat "$W/$name.out" "$W/$name.err" | detail
	fi
}

# (a) --debug-dir laid out by build-id.
DD=$DI/dd-build-id
DD_FILE=$DD/.build-id/${ID:0:2}/${ID:2}.debug
mkdir -p "${DD_FILE%/*}"
cp "$VM_TESTMOD_DEBUG" "$DD_FILE"
di_check "--debug-dir DD (.build-id/xx/rest.debug)" di-build-id 0 debug-dir "$DD_FILE" \
	--capture "$CAP_static" --search "$SD" --debug-dir "$DD" modsect_test
if ms di-build-id-json debuginfo --json --capture "$CAP_static" --search "$SD" --debug-dir "$DD" modsect_test &&
	command -v jq >/dev/null 2>&1; then
	got=$(jq -r '.[] | select(.module == "modsect_test") | "\(.build_id) \(.source) \(.verified) \(.file)"' \
		"$W/di-build-id-json.out" 2>&1)
	if [ "$got" = "$ID debug-dir build-id $DD_FILE" ]; then
		ok "debuginfo --json: build_id, source debug-dir, verified build-id, file"
	else
		not_ok "debuginfo --json: '$got', want '$ID debug-dir build-id $DD_FILE'"
	fi
fi

# (b) --debug-dir laid out by module path.  A module found by --search has
# its file name as path; one from a module directory (--moddir, laid out as
# the guest's /lib/modules/REL with extra/) has extra/modsect_test.ko.
DD2=$DI/dd-name
mkdir -p "$DD2"
cp "$VM_TESTMOD_DEBUG" "$DD2/modsect_test.ko.debug"
di_check "--search, --debug-dir DD2 (DD2/modsect_test.ko.debug)" di-name 0 debug-dir "$DD2/modsect_test.ko.debug" \
	--capture "$CAP_static" --search "$SD" --debug-dir "$DD2" modsect_test
MD=$DI/root/lib/modules/$KREL
mkdir -p "$MD/extra"
cp "$VM_TESTMOD_KO_STRIPPED" "$MD/extra/modsect_test.ko"
depmod -b "$DI/root" "$KREL" 2>/dev/null || not_ok "depmod -b $DI/root failed"
DD3=$DI/dd-tree
mkdir -p "$DD3/lib/modules/$KREL/extra"
cp "$VM_TESTMOD_DEBUG" "$DD3/lib/modules/$KREL/extra/modsect_test.ko"
di_check "--moddir, --debug-dir DD3 (DD3/lib/modules/REL/extra/modsect_test.ko, Debian's -dbg layout)" di-tree 0 debug-dir \
	"$DD3/lib/modules/$KREL/extra/modsect_test.ko" \
	--capture "$CAP_static" --moddir "$MD" --debug-dir "$DD3" modsect_test
DD4=$DI/dd-rel
mkdir -p "$DD4/extra"
cp "$VM_TESTMOD_DEBUG" "$DD4/extra/modsect_test.ko.debug"
di_check "--moddir, --debug-dir DD4 (DD4/extra/modsect_test.ko.debug)" di-rel 0 debug-dir "$DD4/extra/modsect_test.ko.debug" \
	--capture "$CAP_static" --moddir "$MD" --debug-dir "$DD4" modsect_test

# A debug file of another build (the build-id note rewritten) where the
# build-id says it should be: skipped with its reason, the next dir wins.
BADD=$DI/dd-other-build
BAD_FILE=$BADD/.build-id/${ID:0:2}/${ID:2}.debug
BAD_ID=0123456789abcdef0123456789abcdef01234567
mkdir -p "${BAD_FILE%/*}"
# shellcheck disable=SC2059
printf "$(sed 's/../\\x&/g' <<<"040000001400000003000000474e5500$BAD_ID")" >"$DI/other-build-id.note"
if "${VM_CROSS}objcopy" --update-section ".note.gnu.build-id=$DI/other-build-id.note" "$VM_TESTMOD_DEBUG" "$BAD_FILE" &&
	[ "$(vm_build_id "$BAD_FILE")" = "$BAD_ID" ]; then
	di_check "--debug-dir BAD (other build) --debug-dir DD" di-skip 0 debug-dir "$DD_FILE" \
		--capture "$CAP_static" --search "$SD" --debug-dir "$BADD" --debug-dir "$DD" modsect_test
	if ms sections-skip sections --capture "$CAP_static" --search "$SD" --debug-dir "$BADD" --debug-dir "$DD" modsect_test &&
		grep -qF "skipped:  $BAD_FILE: " "$W/sections-skip.out" && grep -qF "$BAD_ID" "$W/sections-skip.out" &&
		grep -qE "^debug: +$DD_FILE \(debug-dir, build-id\)" "$W/sections-skip.out"; then
		ok "sections: debug: $(grep -oE '\.build-id/[^ ]+ \(debug-dir, build-id\)' "$W/sections-skip.out"); skipped: the other build ($BAD_ID)"
	else
		not_ok "sections: no 'skipped:' line for $BAD_FILE, or debug: not from $DD"
		sed -n '1,/^SECTION/p' "$W/sections-skip.out" | detail
	fi
	command -v jq >/dev/null 2>&1 || echo "skip: --json checks (no jq)"
	for what in debuginfo sections; do
		command -v jq >/dev/null 2>&1 || break
		ms "$what-skip-json" "$what" --json --capture "$CAP_static" --search "$SD" --debug-dir "$BADD" \
			--debug-dir "$DD" modsect_test || true
		got=$(jq -r '[if type == "array" then .[] else . end | select(.module == "modsect_test")][0] |
			"\(.source // .debug_source) \(if .source then .file else .debug_file end) \([(.skipped // .debug_skipped)[]? | .file] | join(","))"' "$W/$what-skip-json.out" 2>&1)
		if [ "$got" = "debug-dir $DD_FILE $BAD_FILE" ]; then
			ok "$what --json: debug_source debug-dir, debug_file from DD, debug_skipped names the other build"
		else
			not_ok "$what --json: '$got', want 'debug-dir $DD_FILE $BAD_FILE' (README: debug_skipped in JSON)"
		fi
	done
else
	not_ok "could not make a debug file with another build-id (objcopy --update-section)"
fi

# (d) no debug info at all: the stripped file only, --offline.
di_check "stripped only, --offline" di-none 1 - - --capture "$CAP_static" --search "$SD" --offline modsect_test
rc=0
ms gdb-none gdb --capture "$CAP_static" --search "$SD" --offline modsect_test -o "$DI/none.gdb" || rc=$?
if [ "$rc" = 0 ] && grep -q '^# debug info: none found' "$DI/none.gdb" &&
	vm_dbgfile_ok "$(awk '/^add-symbol-file / { print $2 }' "$DI/none.gdb")" "$SD/modsect_test.ko"; then
	ok "gdb, stripped only, --offline: '$(grep '^# debug info:' "$DI/none.gdb")', add-symbol-file the stripped file$(case $VM_DBGFILE in *" itself") ;; *) echo ": $VM_DBGFILE" ;; esac)"
else
	not_ok "gdb, stripped only, --offline: exit $rc, want '# debug info: none found' and the stripped file (or its debugger copy): ${VM_DBGFILE:-}"
	cat "$DI/none.gdb" "$W/gdb-none.err" | detail
fi
# ... and then gdb has symbols but neither lines nor types (the control for
# the source lines below).
timeout "$GDB_TIMEOUT" "$GDB" -nx -batch -x "$DI/none.gdb" -ex 'info line modsect_test_poke' \
	-ex 'ptype modsect_test_table' >"$DI/none-gdb.out" 2>&1 </dev/null
if grep -q '^No line number information available for address 0x[0-9a-f]* <modsect_test_poke>' "$DI/none-gdb.out" &&
	grep -q 'no debug info' "$DI/none-gdb.out"; then
	ok "gdb with the stripped module alone: no line number information, no types"
else
	not_ok "gdb with the stripped module alone shows lines or types (should have none)"
	detail <"$DI/none-gdb.out"
fi

# The gdb script: the debug file for modsect_test, the addresses of the map.
asf_mod() { awk -v m="$2" '/^# [A-Za-z0-9_]+ \(/ { cur = $2 } /^add-symbol-file / && cur == m' "$1"; }
check_dbg_script() {
	local label=$1 script=$2 dfile=$3 src=$4 m fine=1
	if ! grep -qxF "# debug info: $dfile ($src, verified by build-id)" "$script"; then
		not_ok "$label: no '# debug info: $dfile ($src, verified by build-id)'"
		grep '^# debug info' "$script" | detail
		return
	fi
	# The debug file, or gdb's copy of it (sections not at 0 on 6.12).
	if ! vm_dbgfile_ok "$(asf_mod "$script" modsect_test | cut -d' ' -f2)" "$dfile" ||
		[ "$(asf_mod "$script" modsect_test | cut -d' ' -f3-)" != "$(asf_mod "$W/static.gdb" modsect_test | cut -d' ' -f3-)" ]; then
		not_ok "$label: modsect_test's add-symbol-file is not '$dfile' (or its debugger copy) with the addresses of the static capture's script: $VM_DBGFILE"
		diff <(asf_mod "$W/static.gdb" modsect_test | tr ' ' '\n') <(asf_mod "$script" modsect_test | tr ' ' '\n') | detail
		return
	fi
	for m in $MODS; do
		[ "$m" = modsect_test ] && continue
		[ "$(asf_mod "$script" "$m")" = "$(asf_mod "$W/static.gdb" "$m")" ] || fine=
	done
	if [ -n "$fine" ]; then
		ok "$label: add-symbol-file ${dfile#"$DI/"}$(case $VM_DBGFILE in *" itself") ;; *) echo " ($VM_DBGFILE)" ;; esac) + the map's addresses; other modules as before"
	else
		not_ok "$label: the other modules' add-symbol-file lines differ from the static capture's script"
	fi
}
rc=0
ms gdb-dd gdb --all --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$SD" --debug-dir "$DD" -o "$DI/dd.gdb" || rc=$?
if [ "$rc" = 0 ]; then
	check_dbg_script "gdb --all --search STRIPPED --debug-dir DD" "$DI/dd.gdb" "$DD_FILE" debug-dir
else
	not_ok "gdb --all --search STRIPPED --debug-dir DD: exit $rc"
	detail <"$W/gdb-dd.err"
fi

# (c) a real debuginfod on 127.0.0.1 serving the --only-keep-debug file.
DFD=$DI/debuginfod
DFD_URL=
if ! (vm_need_pkgs debuginfod:debuginfod curl:curl) >/dev/null 2>&1; then
	not_ok "debuginfod or curl missing (apt-get install -y debuginfod curl)"
else
	mkdir -p "$DFD/files"
	cp "$VM_TESTMOD_DEBUG" "$DFD/files/modsect_test.ko.debug"
	t1=$(date +%s)
	for try in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 20000))
		[ "$port" != "$VM_GDB_PORT" ] && vm_port_free "$port" || continue
		rm -f "$DFD"/db.sqlite*
		debuginfod -F -p "$port" -d "$DFD/db.sqlite" "$DFD/files" >"$DFD/log.$try" 2>&1 </dev/null &
		DFD_PID=$!
		# Up when it serves the build-id (its first scan is done).
		code=
		for _ in $(seq 1 100); do
			kill -0 "$DFD_PID" 2>/dev/null || break
			code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
				"http://127.0.0.1:$port/buildid/$ID/debuginfo" 2>/dev/null) || true
			[ "$code" = 200 ] && break
			sleep 0.2
		done
		if [ "$code" = 200 ]; then
			DFD_URL=http://127.0.0.1:$port
			break
		fi
		dfd_stop
	done
	if [ -n "$DFD_URL" ]; then
		ok "debuginfod -F on $DFD_URL serves /buildid/$ID/debuginfo after $(($(date +%s) - t1))s"
		DEBUGINFOD_URLS=$DFD_URL DEBUGINFOD_TIMEOUT=20 DEBUGINFOD_CACHE_PATH=$DFD/cache \
			di_check "DEBUGINFOD_URLS=$DFD_URL (no --offline)" di-dfd 0 debuginfod "$DFD/cache/$ID/debuginfo" \
			--capture "$CAP_static" --search "$SD" modsect_test
		if cmp -s "$DFD/cache/$ID/debuginfo" "$VM_TESTMOD_DEBUG" &&
			grep -qE "UA:elfutils.* GET /buildid/$ID/debuginfo 200 " "$DFD/log.$try"; then
			ok "debuginfod: modsect's request is in the server's log; the cached file is the --only-keep-debug file"
		else
			not_ok "debuginfod: no request from libdebuginfod in the server log, or the cached file differs"
			grep 'GET ' "$DFD/log.$try" | detail
		fi
		DEBUGINFOD_URLS=$DFD_URL DEBUGINFOD_TIMEOUT=20 DEBUGINFOD_CACHE_PATH=$DFD/cache-offline \
			di_check "DEBUGINFOD_URLS set, --offline" di-dfd-offline 1 - - \
			--capture "$CAP_static" --search "$SD" --offline modsect_test
		if [ -n "$(ls -A "$DFD/cache-offline" 2>/dev/null)" ]; then
			not_ok "debuginfo --offline wrote to the debuginfod cache"
		fi
		# Every module: only modsect_test is on the server.
		t2=$(date +%s)
		rc=0
		DEBUGINFOD_URLS=$DFD_URL DEBUGINFOD_TIMEOUT=20 DEBUGINFOD_CACHE_PATH=$DFD/cache-all \
			ms di-dfd-all debuginfo --all --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$SD" || rc=$?
		nnone=$(awk 'NR > 1 && $1 != "modsect_test" && $3 == "-"' "$W/di-dfd-all.out" | wc -l)
		if [ "$rc" = 1 ] && [ "$nnone" = $(($(wc -l <"$W/modules") - 1)) ] &&
			awk '$1 == "modsect_test" && $3 == "debuginfod" && $4 == "build-id" { f = 1 } END { exit !f }' "$W/di-dfd-all.out"; then
			ok "debuginfo --all with debuginfod: exit 1, modsect_test from debuginfod, the $nnone stock modules '-' ($(($(date +%s) - t2))s)"
		else
			not_ok "debuginfo --all with debuginfod: exit $rc"
			cat "$W/di-dfd-all.out" "$W/di-dfd-all.err" | detail
		fi
		rc=0
		DEBUGINFOD_URLS=$DFD_URL DEBUGINFOD_TIMEOUT=20 DEBUGINFOD_CACHE_PATH=$DFD/cache \
			ms gdb-dfd gdb --all --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$SD" -o "$DI/dfd.gdb" || rc=$?
		if [ "$rc" = 0 ]; then
			check_dbg_script "gdb --all --search STRIPPED with debuginfod" "$DI/dfd.gdb" "$DFD/cache/$ID/debuginfo" debuginfod
		else
			not_ok "gdb --all --search STRIPPED with debuginfod: exit $rc"
			detail <"$W/gdb-dfd.err"
		fi
	else
		not_ok "debuginfod did not serve /buildid/$ID/debuginfo within 20 s"
		tail -n 20 "$DFD"/log.* | detail
	fi
	dfd_stop
fi

# (3) gdb attached to the guest with a script that names a separate debug
# file: a breakpoint in the module stops with its source file and line.
# live_src LABEL SCRIPT POKE
live_src() {
	local label=$1 script=$2 poke=$3 o want_data=24263 v line path text ack rc=0
	o=$DI/live-$poke
	for v in $(sed -n 's/^==MODSECT-ACK [0-9]* poke \([0-9-]*\) rc=0==$/\1/p' "$VM_RUN/serial1.log"); do
		want_data=$v
	done
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "set width 0"
		echo "target remote 127.0.0.1:$VM_GDB_PORT"
		echo "source $script"
		echo "source $VM_DIR/symdump.py"
		# Names also defined in other modules (__this_module, ...) are
		# ambiguous in a gdb that holds every module: .uexp has the rest.
		echo "python ms_addr('$W/sym/modsect_test.uexp', 'SYM')"
		echo "python ms_where('$W/sym/modsect_test.exp', 'RSYM')"
		echo "echo ==INFO-LINE==\\n"
		echo "info line modsect_test_poke"
		echo "echo ==PTYPE==\\n"
		echo "ptype modsect_test_table"
		echo "echo ==END==\\n"
		echo "break modsect_test_poke"
		echo "shell printf 'poke $poke\\n' > $VM_RUN/trigger.in"
		bp_continue
		echo "echo ==LIST==\\n"
		echo "list"
		echo "echo ==END==\\n"
		echo "python ms_eval('VALUE', 'value')"
		echo "python ms_eval('DATA', 'modsect_test_data')"
		echo "delete"
		echo "detach"
	} >"$o.gdb"
	ack=$(($(grep -c '^==MODSECT-ACK ' "$VM_RUN/serial1.log" || true) + 1))
	timeout "$GDB_TIMEOUT" "$GDB" -q -nx -batch -x "$o.gdb" >"$o.out" 2>&1 </dev/null || rc=$?
	[ "$rc" = 0 ] || not_ok "$label: gdb exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
	compare_addrs "$label: modsect_test" "$W/sym/modsect_test.uexp" "$o.out" SYM RSYM
	compare_where "$label: modsect_test" modsect_test "$W/sym/modsect_test.exp" "$o.out" RSYM
	# "Breakpoint 1, modsect_test_poke (value=N) at PATH:LINE", then "LINE<tab>text".
	read -r path line <<<"$(sed -nE "s/^$BP_RE, modsect_test_poke \(value=$poke\) at (.*\/modsect_test\.c):([0-9]+)$/\1 \2/p" "$o.out" | head -n1)"
	if [ -n "${line:-}" ] && [ -r "$path" ]; then
		text=$(sed -n "${line}p" "$path")
		if grep -qxF "$line	$text" "$o.out" && [ -n "$text" ]; then
			ok "$label: Breakpoint 1, modsect_test_poke (value=$poke) at ${path##*/}:$line, source line shown: '$text'"
		else
			not_ok "$label: breakpoint at ${path##*/}:$line but gdb did not show its source line '$text'"
			grep -A2 -E "^$BP_RE," "$o.out" | detail
		fi
	else
		not_ok "$label: no 'Breakpoint 1, modsect_test_poke (value=$poke) at .../modsect_test.c:LINE' (with a readable source file)"
		tail -n 20 "$o.out" | detail
	fi
	if sed -n '/^==LIST==$/,/^==END==$/p' "$o.out" | grep -qF "noinline int modsect_test_poke(int value)" &&
		[ -n "${line:-}" ] && sed -n '/^==LIST==$/,/^==END==$/p' "$o.out" | grep -qxF "$line	$text"; then
		ok "$label: list shows modsect_test.c around line $line ('noinline int modsect_test_poke(int value)')"
	else
		not_ok "$label: list does not show the source of modsect_test_poke"
		sed -n '/^==LIST==$/,/^==END==$/p' "$o.out" | detail
	fi
	# arm64: the first line starts at the DWARF entry, gdb's &modsect_test_poke,
	# if info symbol of the kallsyms address names the function (patchable NOPs).
	local lpoke=$POKE_ADDR
	if [ "$VM_ARCH" = aarch64 ] && grep -q "^RSYM $POKE_ADDR modsect_test_poke in section " "$o.out"; then
		lpoke=$(awk '$1 == "SYM" && $2 == "modsect_test_poke" { print $3 }' "$o.out")
	fi
	if grep -qE "^Line [0-9]+ of \".*modsect_test\.c\" starts at address 0x0*${lpoke#"${lpoke%%[!0]*}"} <modsect_test_poke>" "$o.out" &&
		sed -n '/^==PTYPE==$/,/^==END==$/p' "$o.out" | grep -qx 'type = const unsigned int \[8\]'; then
		ok "$label: info line modsect_test_poke starts at the kallsyms address 0x$POKE_ADDR$([ "$lpoke" = "$POKE_ADDR" ] || echo " (its DWARF entry 0x$lpoke, after the patchable NOPs)"); ptype modsect_test_table from DWARF"
	else
		not_ok "$label: info line / ptype wrong (want a line of modsect_test.c at 0x$POKE_ADDR, const unsigned int [8])"
		sed -n '/^==INFO-LINE==$/,/^==END==$/p' "$o.out" | detail
	fi
	if [ "$(awk '$1 == "VALUE" { print $2 }' "$o.out")" = "$poke" ] &&
		[ "$(awk '$1 == "DATA" { print $2 }' "$o.out")" = "$want_data" ]; then
		ok "$label: at the breakpoint value = $poke, modsect_test_data = $want_data"
	else
		not_ok "$label: at the breakpoint $(grep -E '^(VALUE|DATA)' "$o.out" | tr '\n' ' '), want value $poke, data $want_data"
	fi
	if vm_wait_for "^==MODSECT-ACK $ack poke $poke rc=0==\$" 60; then
		ok "$label: guest completed poke $poke after gdb detached"
	else
		not_ok "$label: guest did not acknowledge poke $poke"
		vm_resume || true
	fi
}
if [ -s "$DI/dd.gdb" ]; then
	live_src "gdb live, --debug-dir" "$DI/dd.gdb" 7
fi
if [ -s "$DI/dfd.gdb" ]; then
	live_src "gdb live, debuginfod" "$DI/dfd.gdb" 9
fi
T_DEBUG=$(($(date +%s) - t0))

# --- 7. decode a WARN from an inlined helper; resolve core addresses -------------
# The guest writes the warn parameter: warn_set -> modsect_test_warn
# (noinline) -> modsect_test_warn_inline (__always_inline) -> WARN(1, ...).
# Its dmesg goes through `modsect decode`: every [modsect_test] frame must
# be annotated as eu-addr2line says at the frame's section offset (address
# - 1 for call-trace frames), at the lines of the source, with the inlined
# helper on its own line; all other lines pass through unchanged.
t0=$(date +%s)
DC=$W/decode
mkdir -p "$DC"
SRC=$VM_DIR/testmod/modsect_test.c
# The path in the DWARF: the module is built from a copy in $TD.
SRCFILE=$TD/modsect_test.c
cmp -s "$SRC" "$SRCFILE" || not_ok "decode: $SRCFILE (the compiled copy) differs from $SRC"
# The source lines, found in the source itself.
srcline() { grep -nF -- "$1" "$SRC" | head -n 1 | cut -d: -f1; }
L_WARN=$(srcline 'WARN(1, "modsect_test: warn %d\n", value);')
L_INLINE_CALL=$(srcline '	modsect_test_warn_inline(value);')
L_WARN_CALL=$(srcline '	modsect_test_warn(v);')
if [ -z "$L_WARN" ] || [ -z "$L_INLINE_CALL" ] || [ -z "$L_WARN_CALL" ]; then
	not_ok "decode: WARN(1, ...), modsect_test_warn_inline(value); or modsect_test_warn(v); not found in $SRC"
fi
WARN_N=3
rc=0
vm_cmd "warn $WARN_N" || rc=$?
K_WARN=$VM_LAST_ACK
vm_section "dmesg-$K_WARN" >"$DC/warn.log"
# The last report's lines: its WARNING, RIP and warn_set frames.
R_NR=$(grep -n 'WARNING: ' "$DC/warn.log" | tail -n 1 | cut -d: -f1)
R_NR=${R_NR:-0}
lineof() { awk -v r="$R_NR" -v re="$1" 'NR >= r && $0 ~ re { print NR; exit }' "$DC/warn.log"; }
FRAME_RE='\+0x[0-9a-f]+/0x[0-9a-f]+ \[modsect_test\]$'
W_NR=$(lineof "WARNING: .* modsect_test_warn$FRAME_RE")
# Where execution was: x86-64's "RIP: 0010:", i386's "EIP: ", arm64's "pc : ".
case $VM_ARCH in
x86_64) RIP_PFX='RIP: 0010:' ;;
i686) RIP_PFX='EIP: ' ;;
aarch64) RIP_PFX='pc : ' ;;
esac
RIP_NR=$(lineof "$RIP_PFX""modsect_test_warn$FRAME_RE")
WS_NR=$(lineof "^\\[[ 0-9.]+\\]  warn_set$FRAME_RE")
if [ "$rc" = 0 ] && grep -q "^==MODSECT-ACK $K_WARN warn $WARN_N rc=0==\$" "$VM_RUN/serial1.log" &&
	grep -q "modsect_test: warn $WARN_N\$" "$DC/warn.log" && [ -n "$W_NR" ] && [ -n "$RIP_NR" ] && [ -n "$WS_NR" ]; then
	ok "guest: warn $WARN_N -> WARNING in modsect_test_warn, ${RIP_PFX%%:*}: modsect_test_warn, call trace warn_set [modsect_test] (dmesg-$K_WARN)"
else
	not_ok "guest: warn $WARN_N: no WARNING and ${RIP_PFX%%:*} in modsect_test_warn with warn_set in the call trace (vm_cmd rc=$rc)"
	sed -n "$R_NR,\$p" "$DC/warn.log" | head -n 40 | detail
fi
lnr() { sed -n "${1:-0}p" "$DC/warn.log"; }
W_LINE=$(lnr "$W_NR")
RIP_LINE=$(lnr "$RIP_NR")
WS_LINE=$(lnr "$WS_NR")
# The kernel's own "at FILE:LINE" (from its bug table) is the WARN line.
if [[ $W_LINE == *" at $SRCFILE:$L_WARN modsect_test_warn+"* ]]; then
	ok "guest: the kernel's WARNING says at ${SRCFILE##*/}:$L_WARN, the line of WARN(1, ...) in the source"
else
	not_ok "guest: the WARNING line does not say at $SRCFILE:$L_WARN: $W_LINE"
fi

# The module frames of the whole log: "LINENO EXACT PREFIX-LEN SYM 0xOFF 0xSIZE".
# A frame is exact on RIP (EIP, pc) and WARNING lines, a return address
# elsewhere (as kernel.sh takes them).
awk '{
	if (!match($0, /[A-Za-z0-9_.$]+\+0x[0-9a-f]+\/0x[0-9a-f]+ \[modsect_test\]/)) next
	f = substr($0, RSTART, RLENGTH); pre = RSTART - 1
	split(f, a, /[+\/ ]/)
	print NR, (($0 ~ /RIP: / || $0 ~ /EIP: / || $0 ~ / pc : / || $0 ~ /WARNING: /) ? 1 : 0), pre, a[1], a[2], a[3]
}' "$DC/warn.log" >"$DC/frames"
# Section names by index, and a function's "SECTION VALUE" in the full .ko.
KO=$VM_TESTMOD_KO
eu-readelf -S "$KO" | awk 'match($0, /^ *\[ *[0-9]+\] /) { i = $0; sub(/^ *\[ */, "", i); sub(/\].*/, "", i); split(substr($0, RLENGTH + 1), w, " "); print i, w[1] }' >"$DC/secnames"
eu-readelf -s "$KO" | awk '$4 == "FUNC" { print $8, $7, $2 }' >"$DC/funcs"
symsec() {
	local ndx val
	read -r ndx val <<<"$(awk -v s="$1" '$1 == s { print $2, $3; exit }' "$DC/funcs")"
	[ -n "${ndx:-}" ] && echo "$(awk -v i="$ndx" '$1 == i { print $2 }' "$DC/secnames") $val"
}
# The expected decode output: eu-addr2line -f -i at the section offset
# gives (function, location) pairs, innermost first: one "PREFIX FUNC
# (inlined) LOC" line per inlined callee, then the line itself with " LOC"
# of the frame's function after the frame.
: >"$DC/expected.frames"
while read -r nr exact pre sym off size; do
	read -r sec val <<<"$(symsec "$sym")"
	if [ -z "${sec:-}" ]; then
		not_ok "decode: $sym (line $nr of the log) is no function of ${KO##*/}"
		continue
	fi
	eu-addr2line -e "$KO" -j "$sec" -f -i "$(printf '0x%x' $((16#$val + off - (exact ? 0 : 1))))" >"$DC/a2l.$nr"
	line=$(lnr "$nr")
	awk -v nr="$nr" -v pre="${line:0:pre}" -v line="$line" -v frame="$sym+$off/$size [modsect_test]" -v sym="$sym" '
		NR % 2 == 1 { fn[++n] = $1; next } { loc[n] = $0 }
		END {
			if (fn[n] != sym || loc[n] !~ /:[0-9]+:[0-9]+$/) { print "MISMATCH", nr, sym, fn[n], loc[n]; exit }
			for (i = 1; i < n; i++) print nr, pre fn[i] " (inlined) " loc[i]
			i = index(line, frame) + length(frame)
			print nr, substr(line, 1, i - 1) " " loc[n] substr(line, i)
		}' "$DC/a2l.$nr" >>"$DC/expected.frames"
done <"$DC/frames"
NFRAMES=$(wc -l <"$DC/frames")
if grep -q '^MISMATCH ' "$DC/expected.frames"; then
	not_ok "decode: eu-addr2line puts a frame in another function, or has no line: $(grep '^MISMATCH ' "$DC/expected.frames" | head -n 3 | tr '\n' ' ')"
fi
awk 'FILENAME == ARGV[1] { nr = $1; sub(/^[0-9]+ /, ""); x[nr] = x[nr] $0 "\n"; next }
	FNR in x { printf "%s", x[FNR]; next } { print }' "$DC/expected.frames" "$DC/warn.log" >"$DC/expected"
NINL=$(grep -c ' (inlined) ' "$DC/expected" || true)

# annot OUT TEXT LINE: the number of OUT's line "TEXT $SRCFILE:LINE:COL".
annot() {
	awk -v t="$2 $SRCFILE:$3:" 'index($0, t) == 1 && substr($0, length(t) + 1) ~ /^[0-9]+$/ { print FNR; exit }' "$1"
}
# check_decode LABEL NAME ARGS...: `modsect decode ARGS warn.log`.
check_decode() {
	local label=$1 name=$2 rc=0 n1 n2 what text pre l1 l2
	shift 2
	ms "$name" decode "$@" "$DC/warn.log" || rc=$?
	cp "$W/$name.out" "$DC/$name.out"
	if [ "$rc" != 0 ]; then
		not_ok "$label: exit $rc"
		detail <"$W/$name.err"
		return
	fi
	# The three frames of the last report against the source lines.
	for what in WARNING RIP; do
		if [ "$what" = WARNING ]; then text=$W_LINE; else text=$RIP_LINE; fi
		pre=${text%%modsect_test_warn+*}
		n1=$(annot "$DC/$name.out" "${pre}modsect_test_warn_inline (inlined)" "$L_WARN")
		n2=$(annot "$DC/$name.out" "$text" "$L_INLINE_CALL")
		if [ -n "$n1" ] && [ -n "$n2" ] && [ "$n2" = $((n1 + 1)) ]; then
			ok "$label: $what: 'modsect_test_warn_inline (inlined) ${SRCFILE##*/}:$L_WARN:COL' then 'modsect_test_warn+... [modsect_test] ${SRCFILE##*/}:$L_INLINE_CALL:COL'"
		else
			not_ok "$label: $what: want '${pre}modsect_test_warn_inline (inlined) $SRCFILE:$L_WARN:COL' then '$text $SRCFILE:$L_INLINE_CALL:COL'"
			grep -F -- "${pre%% *}" "$DC/$name.out" | grep -E 'modsect_test_warn' | detail
		fi
	done
	n1=$(annot "$DC/$name.out" "$WS_LINE" "$L_WARN_CALL")
	l1=$(sed -n "$((${n1:-1} - 1))p" "$DC/$name.out")
	if [ -n "$n1" ] && [[ $l1 != *"(inlined)"* ]]; then
		ok "$label: call trace: 'warn_set+... [modsect_test] ${SRCFILE##*/}:$L_WARN_CALL:COL' (the call of modsect_test_warn, at the return address - 1), no inlined line"
	else
		not_ok "$label: call trace: want '$WS_LINE $SRCFILE:$L_WARN_CALL:COL' (not preceded by an inlined line)"
		grep -F 'warn_set' "$DC/$name.out" | detail
	fi
	# Everything: the frames as eu-addr2line says, every other line as it was.
	if diff "$DC/expected" "$DC/$name.out" >"$DC/$name.diff"; then
		ok "$label: output == the log with its $NFRAMES [modsect_test] frames annotated as eu-addr2line -f -i says ($NINL inlined lines); the other $(($(wc -l <"$DC/warn.log") - NFRAMES)) lines unchanged"
	else
		not_ok "$label: output differs from the expected (< expected, > modsect)"
		head -n 30 "$DC/$name.diff" | detail
	fi
	# Core frames pass through: the non-annotated lines are the input's.
	l1=$(grep -c -vE ' (\[modsect_test\]|\(inlined\)) [^ ]*:[0-9]+:[0-9]+$' "$DC/$name.out" || true)
	l2=$(grep -c -vE '\[modsect_test\]$' "$DC/warn.log" || true)
	if diff <(grep -vE ' (\[modsect_test\]|\(inlined\)) [^ ]*:[0-9]+:[0-9]+$' "$DC/$name.out") \
		<(grep -vE '\[modsect_test\]$' "$DC/warn.log") >/dev/null; then
		ok "$label: the $l1 lines without a module frame (core frames, registers, Code:, other messages) unchanged"
	else
		not_ok "$label: lines without a module frame changed ($l1 lines out, $l2 in)"
	fi
}
STATIC_ARGS=(--capture "$CAP_static" "${VM_MODDIR_ARGS[@]}")
check_decode "decode --capture --search (full .ko)" decode-cap "${STATIC_ARGS[@]}" --search "$TD" --offline
check_decode "decode --search (full .ko, no map)" decode-nomap --search "$TD" --offline
# The DWARF only in a --debug-dir (section 6's stripped module and debug dir).
check_decode "decode --capture --search STRIPPED --debug-dir DD" decode-dd "${STATIC_ARGS[@]}" --search "$SD" --debug-dir "$DD" --offline
check_decode "decode --search STRIPPED --debug-dir DD (no map)" decode-dd-nomap --search "$SD" --debug-dir "$DD" --offline
check_decode "decode --capture (with core kallsyms) --search" decode-capk --capture "$VM_RUN/capture-kallsyms.txt" --search "$TD" --offline
# The control: the stripped module alone has no lines to give.
rc=0
ms decode-none decode "${STATIC_ARGS[@]}" --search "$SD" --offline "$DC/warn.log" || rc=$?
if [ "$rc" = 0 ] && ! grep -qE ':[0-9]+:[0-9]+$' "$W/decode-none.out" && ! grep -q '(inlined)' "$W/decode-none.out"; then
	ok "decode with the stripped module alone (the control): no locations, no inlined lines$(cmp -s "$W/decode-none.out" "$DC/warn.log" && echo ', output == input')"
else
	not_ok "decode with the stripped module alone: exit $rc, or locations without debug info"
	grep -E ':[0-9]+:[0-9]+$|\(inlined\)' "$W/decode-none.out" | head -n 10 | detail
fi

# Raw addresses need the map: the RIP and warn_set's return address.
kaddr() { awk -v s="$1" '$2 == s { print $1 }' "$W/sym/modsect_test.kall" | head -n 1; }
frame_off() { sed -nE "s/.*$1\\+(0x[0-9a-f]+)\\/0x[0-9a-f]+ \\[modsect_test\\].*/\\1/p" <<<"$2"; }
RIP_OFF=$(frame_off modsect_test_warn "$RIP_LINE")
WS_OFF=$(frame_off warn_set "$WS_LINE")
MW_ADDR=$(kaddr modsect_test_warn)
WS_ADDR=$(kaddr warn_set)
RAW_RIP=$(printf '%016x' $((16#${MW_ADDR:-0} + ${RIP_OFF:-0})))
RAW_WS=$(printf '%016x' $((16#${WS_ADDR:-0} + ${WS_OFF:-0})))
# A 32-bit kernel prints 8 hex digits.
if [ "$VM_ARCH" = i686 ]; then
	RAW_RIP_LOG=${RAW_RIP:8} RAW_WS_LOG=${RAW_WS:8}
else
	RAW_RIP_LOG=$RAW_RIP RAW_WS_LOG=$RAW_WS
fi
{
	echo "[   99.000001] ${RIP_PFX}[<$RAW_RIP_LOG>]"
	echo "[   99.000002]  [<$RAW_WS_LOG>]"
} >"$DC/raw.log"
: >"$DC/raw.diff"
rc=0
ms decode-raw decode "${STATIC_ARGS[@]}" --search "$TD" --offline "$DC/raw.log" || rc=$?
RIP_A2L=$DC/a2l.$RIP_NR WS_A2L=$DC/a2l.$WS_NR
if [ "$rc" = 0 ] && [ -n "$MW_ADDR" ] && [ -n "$WS_ADDR" ] && [ -s "$RIP_A2L" ] && [ -s "$WS_A2L" ] &&
	diff <(printf '%s\n' "[   99.000001] ${RIP_PFX}modsect_test_warn_inline (inlined) $(sed -n 2p "$RIP_A2L")" \
		"[   99.000001] ${RIP_PFX}[<$RAW_RIP_LOG>] $(sed -n 4p "$RIP_A2L")" \
		"[   99.000002]  [<$RAW_WS_LOG>] $(sed -n 2p "$WS_A2L")") "$W/decode-raw.out" >"$DC/raw.diff"; then
	ok "decode --capture of raw [<$RAW_RIP_LOG>] (kallsyms modsect_test_warn + $RIP_OFF) and [<$RAW_WS_LOG>] (warn_set + $WS_OFF): the same inline line and locations"
else
	not_ok "decode --capture of raw addresses: exit $rc (< expected, > modsect)"
	detail <"$DC/raw.diff"
fi

# --- resolve with `modsect capture --kallsyms` (static, in the guest) ---------------
CAPK=$VM_RUN/capture-kallsyms.txt
if grep -qx 'rc=0' "$VM_RUN/capture-kallsyms-stderr.txt" && grep -q '^modsect-capture ' "$CAPK" &&
	grep -q '^core ' "$CAPK"; then
	ok "static modsect capture --kallsyms in the guest: rc=0, $(grep -c '^core ' "$CAPK") core symbols ($(grep '^seconds' "$VM_RUN/capture-kallsyms-stderr.txt"))"
else
	not_ok "static modsect capture --kallsyms in the guest failed"
	detail <"$VM_RUN/capture-kallsyms-stderr.txt"
fi
# Its module part is the plain capture's.
if diff <(grep -vE '^(#|core )' "$CAP_static") <(grep -vE '^(#|core )' "$CAPK") >"$DC/capk.diff"; then
	ok "capture --kallsyms: apart from the core lines, the same as the plain capture"
else
	not_ok "capture --kallsyms: module lines differ from the plain capture"
	head -n 10 "$DC/capk.diff" | detail
fi
# The core frames of the report ("F+0xOFF/0xSIZE", "? " ones too) and their
# names' lines of the guest's /proc/kallsyms, asked by name after the WARN.
sed -n "${R_NR},\$p" "$DC/warn.log" | awk '/---\[ end trace/ { exit }
	match($0, /[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x[0-9a-f]+$/) { print substr($0, RSTART, RLENGTH) }' >"$DC/core-frames"
CORE_NAMES=$(sed 's/+.*//' "$DC/core-frames" | sort -u | tr '\n' ' ')
rc=0
vm_cmd "ksyms $CORE_NAMES" || rc=$?
vm_section "ksyms-$VM_LAST_ACK" >"$DC/ksyms"
KCORE=$(awk '$1 == "core-lines" { print $2 }' "$DC/ksyms")
if [ "$rc" = 0 ] && [ -n "$KCORE" ] && [ "$KCORE" = "$(grep -c '^core ' "$CAPK")" ]; then
	ok "capture --kallsyms: $KCORE core lines, as many as the guest's /proc/kallsyms has"
else
	not_ok "capture --kallsyms: $(grep -c '^core ' "$CAPK") core lines, the guest's /proc/kallsyms has '${KCORE}' (ksyms rc=$rc)"
fi
# Addresses as 16 hex digits (a 32-bit kernel's kallsyms has 8, the capture 16).
if diff <(grep -v '^core-lines ' "$DC/ksyms" | awk '{ a = $1; while (length(a) < 16) a = "0" a; print a, $2, $3 }' | sort) \
	<(awk -v n="$CORE_NAMES" 'BEGIN { k = split(n, a, " "); for (i = 1; i <= k; i++) w[a[i]] = 1 }
		$1 == "core" && ($4 in w) { x = $2; while (length(x) < 16) x = "0" x; print x, $3, $4 }' "$CAPK" | sort) >"$DC/ksyms.diff"; then
	ok "capture --kallsyms: the core lines of $(wc -w <<<"$CORE_NAMES") call-trace functions == the guest's /proc/kallsyms"
else
	not_ok "capture --kallsyms: core lines differ from the guest's /proc/kallsyms (< guest, > capture)"
	head -n 10 "$DC/ksyms.diff" | detail
fi
# resolve kallsyms(F) + OFF for each core frame: "F+OFF/SIZE [kernel]", the
# size the kernel printed.  A name with several addresses: one must fit.
: >"$DC/core-addrs"
while IFS=+/ read -r f off size; do
	awk -v f="$f" -v o="$off" -v s="$size" '$3 == f { print $1, f "+" o "/" s }' "$DC/ksyms" >>"$DC/core-addrs"
done <"$DC/core-frames"
# param_attr_store + 0x10 (the brief's example), size from the report.
PAS=$(grep -m1 '^param_attr_store+' "$DC/core-frames" | sed 's/.*\///')
awk -v s="${PAS:-?}" '$3 == "param_attr_store" { print $1, "param_attr_store+0x10/" s }' "$DC/ksyms" >>"$DC/core-addrs"
while read -r a f; do printf '0x%x %s\n' $((16#$a + $(sed -E 's/^[^+]*\+(0x[0-9a-f]+)\/.*/\1/' <<<"$f"))) "$f"; done \
	<"$DC/core-addrs" >"$DC/core-want.all"
# A frame whose offset equals its size (a return address one past its
# function, seen on interrupt-noise "?" frames) is at the next symbol's
# first byte, which resolve rightly names; the report's text cannot match.
awk '{ split($2, p, "/"); split(p[1], q, "+"); if (q[2] != p[2]) print }' "$DC/core-want.all" >"$DC/core-want"
rc=0
# shellcheck disable=SC2046
ms resolve-core resolve --capture "$CAPK" --search "$TD" --offline $(awk '{ print $1 }' "$DC/core-want") || rc=$?
res=$(awk 'FILENAME == ARGV[1] { a = $1; sub(/^0x/, "", a); while (length(a) < 16) a = "0" a; w[NR] = "0x" a ": " $2 " [kernel]"; f[NR] = $2; n = NR; next }
	{ got[$0] = 1 }
	END {
		for (i = 1; i <= n; i++) { split(f[i], p, "+"); seen[p[1]] += 0; if (w[i] in got) { fit[f[i]] = 1; seen[p[1]]++ } }
		for (i = 1; i <= n; i++) { split(f[i], p, "+"); if (!(f[i] in fit) && !(f[i] in told)) { told[f[i]] = 1; print "  no line \"" f[i] " [kernel]\" for any kallsyms address of " p[1] } }
		printf "RESULT %d %d\n", length(fit), length(told)
	}' "$DC/core-want" "$W/resolve-core.out")
read -r _ nfit nmiss <<<"$(tail -n 1 <<<"$res")"
if [ "$rc" = 0 ] && [ "${nmiss:-1}" = 0 ] && [ "${nfit:-0}" -gt 3 ] && [ -n "$PAS" ] &&
	grep -qE "^0x[0-9a-f]{16}: param_attr_store\+0x10/$PAS \[kernel\]\$" "$W/resolve-core.out"; then
	ok "resolve --capture (capture --kallsyms): $nfit core addresses (kallsyms + the report's offsets) -> the report's 'F+0xOFF/0xSIZE [kernel]', e.g. '$(grep -m1 ' param_attr_store+0x10/' "$W/resolve-core.out")'"
else
	not_ok "resolve of core addresses: exit $rc, $nfit right, $nmiss not"
	sed '$d' <<<"$res" | detail
	head -n 20 "$W/resolve-core.out" "$W/resolve-core.err" | detail
fi
# Without core symbols in the map, the same address is in nothing (exit 1).
a=$(awk '/ param_attr_store\+0x10\// { print $1; exit }' "$DC/core-want")
rc=0
ms resolve-nocore resolve --capture "$CAP_static" --search "$TD" --offline "${a:-0x10}" || rc=$?
if [ "$rc" = 1 ] && grep -q ': in no module and no kernel symbol$' "$W/resolve-nocore.out"; then
	ok "resolve with the plain capture (no --kallsyms): ${a:-?} is in no module and no kernel symbol, exit 1"
else
	not_ok "resolve with the plain capture of core ${a:-?}: exit $rc, want 1 and 'in no module and no kernel symbol'"
	detail <"$W/resolve-nocore.out"
fi
# The raw RIP: modsect_test_warn + the report's offset, with the inline
# chain; once from the full .ko, once from the stripped one + --debug-dir.
want_rip() {
	awk -v a="0x$RAW_RIP" -v o="$RIP_OFF" 'NR == 1 { f1 = $1 } NR == 2 { l1 = $0 } NR == 3 { f2 = $1 } NR == 4 { l2 = $0 }
		END { print a ": modsect_test_warn+" o "/"; print "    " f1 " at " l1; print "    (inlined by) " f2 " at " l2 }' "$RIP_A2L"
}
for how in full dd; do
	rc=0
	if [ "$how" = full ]; then
		ms "resolve-rip-$how" resolve --capture "$CAPK" --search "$TD" --offline "0x$RAW_RIP" || rc=$?
	else
		ms "resolve-rip-$how" resolve --capture "$CAPK" --search "$SD" --debug-dir "$DD" --offline "0x$RAW_RIP" || rc=$?
	fi
	o=$W/resolve-rip-$how.out
	want_rip >"$DC/rip-want"
	if [ "$rc" = 0 ] && [ "$(wc -l <"$o")" = 3 ] &&
		[[ $(sed -n 1p "$o") == "$(sed -n 1p "$DC/rip-want")"*" [modsect_test] .text+0x"* ]] &&
		diff <(sed 1d "$DC/rip-want") <(sed 1d "$o") >/dev/null &&
		grep -qE "^    modsect_test_warn_inline at $SRCFILE:$L_WARN:[0-9]+\$" "$o" &&
		grep -qE "^    \(inlined by\) modsect_test_warn at $SRCFILE:$L_INLINE_CALL:[0-9]+\$" "$o"; then
		ok "resolve 0x$RAW_RIP ($how): $(sed -n 1p "$o" | cut -d' ' -f2-) / modsect_test_warn_inline at :$L_WARN / (inlined by) modsect_test_warn at :$L_INLINE_CALL"
	else
		not_ok "resolve 0x$RAW_RIP ($how): exit $rc (< expected, > modsect)"
		diff "$DC/rip-want" "$o" | detail
	fi
done
T_DECODE=$(($(date +%s) - t0))

# --- 8. the whole kernel: gdb/lldb --all --kernel from capture --kallsyms ------
# No debug vmlinux: the core kernel's symbols come from the guest's
# `modsect capture --kallsyms` as an ELF file (`modsect kallsyms`), loaded
# first by `modsect gdb --all --kernel`.  Checked against the guest's whole
# /proc/kallsyms (kallsyms-all.txt): every symbol at its address, sizes to
# the next symbol; gdb attached to the guest stops in modsect_test_poke and
# `bt` names the core frames of the sysfs write (each pc inside that
# symbol); `info symbol` of 100 addresses inside random text symbols (fixed
# seed) gives the symbol and offset; lldb offline the same for a few.
t0=$(date +%s)
KS=$W/kernel
mkdir -p "$KS"
KALL=$VM_RUN/kallsyms-all.txt
CAPK=$VM_RUN/capture-kallsyms.txt
NKALL=$(awk 'NF == 3' "$KALL" | wc -l)
if [ "$NKALL" -gt 10000 ] && grep -q '\[modsect_test\]$' "$KALL"; then
	ok "guest's whole /proc/kallsyms: $NKALL core lines, $(grep -c '\]$' "$KALL") module lines"
else
	not_ok "guest's whole /proc/kallsyms (kallsyms-all.txt): $NKALL core lines"
fi
# The reference, from kallsyms-all.txt:
#   $KS/ref      "NAME ADDR" of every core symbol that is not absolute (A)
#   $KS/refsize  "NAME ADDR SIZE" sizes to the next higher address (not the last)
#   $KS/ranges   "NAME ADDR SIZE" of the text symbols (t/T/W)
#   $KS/samples  "ADDR NAME OFF BASE": 100 random text symbols (seed 8), an
#                offset below min(size, 256)
#   $KS/aliases  "ADDR NAME" every core name at every address
python3 - "$KALL" "$KS" <<'EOF'
import random, sys
kall, ks = sys.argv[1:3]
core = []
for l in open(kall):
    w = l.split()
    if len(w) == 3:
        core.append((int(w[0], 16), w[1], w[2]))
addrs = sorted(set(a for a, t, n in core if t not in "Aa"))
nxt = dict(zip(addrs, addrs[1:]))
with open(ks + "/ref", "w") as f:
    f.write("".join("%s %016x\n" % (n, a) for a, t, n in core if t not in "Aa"))
with open(ks + "/refsize", "w") as f:
    f.write("".join("%s %016x %d\n" % (n, a, nxt[a] - a) for a, t, n in core if t not in "Aa" and a in nxt))
with open(ks + "/ranges", "w") as f:
    f.write("".join("%s %016x %d\n" % (n, a, nxt[a] - a) for a, t, n in core if t in "tTW" and a in nxt))
with open(ks + "/aliases", "w") as f:
    f.write("".join("%016x %s\n" % (a, n) for a, t, n in core if t not in "Aa"))
rnd = random.Random(8)
text = sorted(set((a, n) for a, t, n in core if t in "tT" and a in nxt and nxt[a] - a > 1))
with open(ks + "/samples", "w") as f:
    for a, n in rnd.sample(text, 100):
        off = rnd.randrange(0, min(nxt[a] - a, 256))
        f.write("%016x %s %d %016x\n" % (a + off, n, off, a))
EOF
# The ELF from the guest's capture, and the gdb script that loads it first.
rc=0
ms kallsyms-elf kallsyms --capture "$CAPK" -o "$KS/kernel.elf" || rc=$?
[ "$rc" = 0 ] || { not_ok "kallsyms --capture capture-kallsyms.txt: exit $rc"; detail <"$W/kallsyms-elf.err"; }
rc=0
ms gdb-kernel gdb --all --kernel --capture "$CAPK" "${VM_MODDIR_ARGS[@]}" --search "$TD" --cache-dir "$KS/cache" -o "$KS/kernel.gdb" || rc=$?
KE=$(grep '^add-symbol-file ' "$KS/kernel.gdb" 2>/dev/null | head -n 1 | sed -n 's/^add-symbol-file \([^ ]*\.kallsyms\.elf\)$/\1/p')
nasf=$(grep -c '^add-symbol-file ' "$KS/kernel.gdb" 2>/dev/null)
if [ "$rc" = 0 ] && [ -n "$KE" ] && [ "${KE%/*}" = "$KS/cache" ] &&
	[ "$(basename "$KE" .kallsyms.elf)" = "$(sha256sum <"$KE" | cut -d' ' -f1)" ] &&
	cmp -s "$KE" "$KS/kernel.elf" && [ "$nasf" = $(($(wc -l <"$W/modules") + 1)) ] &&
	diff <(grep '^add-symbol-file ' "$KS/kernel.gdb" | sed 1d | sed "s|^add-symbol-file $KS/cache/|add-symbol-file CACHE/|") \
		<(grep '^add-symbol-file ' "$W/static.gdb" | sed "s|^add-symbol-file $DEF_CACHE/|add-symbol-file CACHE/|") >/dev/null; then
	ok "gdb --all --kernel --capture capture-kallsyms.txt: add-symbol-file CACHE/<sha256>.kallsyms.elf (== kallsyms -o) first, then the $((nasf - 1)) modules as without --kernel"
else
	not_ok "gdb --all --kernel: exit $rc; want add-symbol-file CACHE/<sha256>.kallsyms.elf first, then the modules"
	cat "$W/gdb-kernel.err" | detail
	grep -v '^#' "$KS/kernel.gdb" | cut -c1-160 | detail
fi
# Every (name, address), and the sizes, against the guest's /proc/kallsyms.
# readelf prints sizes of 100000 and more in hex; absolute symbols (per-cpu
# offsets, st_shndx ABS) are compared apart from the rest.
readelf -sW "$KS/kernel.elf" 2>&1 | awk '
	function dec(h,   i, n, c) { n = 0; h = tolower(substr(h, 3))
		for (i = 1; i <= length(h); i++) { c = index("0123456789abcdef", substr(h, i, 1)) - 1; n = n * 16 + c }
		return n }
	$1 ~ /^[0-9]+:$/ && $7 != "UND" && $7 != "ABS" { sz = $3; if (sz ~ /^0x/) sz = sprintf("%d", dec(sz)); a = $2; while (length(a) < 16) a = "0" a; print $8, a, sz }' >"$KS/got"
NGOT=$(wc -l <"$KS/got")
NABS=$(readelf -sW "$KS/kernel.elf" 2>&1 | awk '$1 ~ /^[0-9]+:$/ && $7 == "ABS"' | wc -l)
if [ "$((NGOT + NABS))" = "$NKALL" ]; then
	ok "kallsyms ELF: $NGOT + $NABS absolute symbols == the guest's $NKALL core kallsyms lines"
else
	not_ok "kallsyms ELF: $NGOT symbols, the guest has $NKALL core kallsyms lines ($(awk 'NF == 3 && $2 ~ /^[Aa]$/' "$KALL" | wc -l) absolute (A) ones)"
fi
if diff <(sort "$KS/ref") <(awk '{ print $1, $2 }' "$KS/got" | sort) >"$KS/ref.diff"; then
	ok "kallsyms ELF: all $(wc -l <"$KS/ref") non-absolute (name, address) pairs == the guest's /proc/kallsyms"
else
	not_ok "kallsyms ELF: (name, address) pairs differ from the guest's /proc/kallsyms (< guest, > ELF)"
	head -n 10 "$KS/ref.diff" | detail
fi
res=$(awk 'FILENAME == ARGV[1] { w[$1 " " $2] = $3; next }
	($1 " " $2) in w { n++; s = $3; if (s != w[$1 " " $2]) { bad++; if (bad <= 8) print "  " $1 " at " $2 ": size " $3 ", next symbol at +" w[$1 " " $2] } }
	END { printf "RESULT %d %d\n", n, bad }' "$KS/refsize" "$KS/got")
read -r _ nsz nbad <<<"$(tail -n 1 <<<"$res")"
if [ "${nbad:-1}" = 0 ] && [ "${nsz:-0}" -gt 10000 ]; then
	ok "kallsyms ELF: all $nsz sizes are the distance to the next symbol"
else
	not_ok "kallsyms ELF: $nbad of $nsz sizes are not the distance to the next symbol"
	sed '$d' <<<"$res" | detail
fi
# What a wrong size costs: gdb's info symbol in the middle of each text
# symbol whose ELF size is not the distance to the next symbol.
awk 'FILENAME == ARGV[1] { w[$1 " " $2] = $3; next } ($1 " " $2) in w && $3 != w[$1 " " $2] { print $1, $2, w[$1 " " $2] }' \
	"$KS/ranges" "$KS/got" >"$KS/badsize"
if [ -s "$KS/badsize" ]; then
	while read -r n a s; do printf 'info symbol 0x%x\n' $((16#$a + s / 2)); done <"$KS/badsize" >"$KS/badsize.gdb"
	timeout "$GDB_TIMEOUT" "$GDB" -nx -batch -ex "add-symbol-file $KS/kernel.elf" -x "$KS/badsize.gdb" >"$KS/badsize.out" 2>&1 </dev/null
	nnomatch=$(grep -c '^No symbol matches' "$KS/badsize.out" || true)
	not_ok "gdb info symbol in the middle of the $(wc -l <"$KS/badsize") text symbols whose ELF size is wrong: $nnomatch say 'No symbol matches'"
	paste -d' ' <(head -n 5 "$KS/badsize") <(grep -E '^No symbol matches| in section ' "$KS/badsize.out" | head -n 5) | detail
else
	ok "every text symbol's ELF size is the distance to the next symbol"
fi

# gdb attached to the guest: the whole kernel from one `source`.
KPOKE=11
{
	echo "set pagination off"
	echo "set confirm off"
	echo "set width 0"
	echo "set height 0"
	echo "target remote 127.0.0.1:$VM_GDB_PORT"
	echo "source $KS/kernel.gdb"
	echo "break modsect_test_poke"
	echo "shell printf 'poke $KPOKE\\n' > $VM_RUN/trigger.in"
	bp_continue
	echo "echo ==BT==\\n"
	echo "bt 40"
	echo "echo ==END==\\n"
	echo "echo ==SYMS==\\n"
	awk '{ print "info symbol 0x" $1 }' "$KS/samples"
	echo "echo ==END==\\n"
	echo "delete"
	echo "detach"
} >"$KS/live.gdb"
ack=$(($(grep -c '^==MODSECT-ACK ' "$VM_RUN/serial1.log" || true) + 1))
rc=0
if [ -n "$KE" ]; then
	timeout "$GDB_TIMEOUT" "$GDB" -q -nx -batch -x "$KS/live.gdb" >"$KS/live.out" 2>&1 </dev/null || rc=$?
else
	rc=noscript
fi
[ "$rc" = 0 ] || not_ok "gdb live --kernel: exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
sed -n '/^==BT==$/,/^==END==$/p' "$KS/live.out" | sed '1d;$d' >"$KS/bt"
# "#N  0xPC in NAME (...)": a core frame's pc - 1 (a return address) must
# lie inside a guest kallsyms text symbol of that NAME.
res=$(awk 'FILENAME == ARGV[1] { lo[$1] = lo[$1] " " $2; sz[$1 " " $2] = $3; next }
	/^#[0-9]+ +0x[0-9a-f]+ in / {
		pc = $2; name = $4
		if (!(name in lo)) next
		n++
		split(lo[name], b, " ")
		fit = 0
		for (i in b) if (inrange(pc, b[i], sz[name " " b[i]])) fit = 1
		if (fit) { okn++; names = names " " name } else { bad++; print "  " $1 " " pc " " name ": not inside kallsyms " name lo[name] }
	}
	# pc - 1 in [base, base + size), hex strings of 16 digits: compare the
	# top and bottom halves separately (no 64-bit integers in awk).
	function h(s, a, b) { return hexv(substr(s, a, b)) }
	function hexv(s,   i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	function inrange(pc, base, size,   p, q) {
		sub(/^0x/, "", pc); while (length(pc) < 16) pc = "0" pc
		if (substr(pc, 1, 8) != substr(base, 1, 8)) return 0
		p = h(pc, 9, 8) - 1; q = h(base, 9, 8)
		return p >= q && p < q + size
	}
	END { printf "RESULT %d %d%s\n", okn, bad, names }' "$KS/ranges" "$KS/bt")
read -r _ _ nbadfr frnames <<<"$(tail -n 1 <<<"$res")"
# The kernel's own call trace of the same write (section 7's WARN report,
# warn_set instead of poke_set): gdb's named core frames must be in it.
TRACE_NAMES=$(sed 's/+.*//' "$W/decode/core-frames" 2>/dev/null | tr '\n' ' ')
notin=
for f in $frnames; do
	case " $TRACE_NAMES " in *" $f "*) ;; *) notin="$notin $f" ;; esac
done
if grep -qE "^#0 +(0x[0-9a-f]+ in )?modsect_test_poke \(value=$KPOKE\)" "$KS/bt" && grep -qE '^#1 +0x[0-9a-f]+ in poke_set ' "$KS/bt" &&
	grep -qE '^#2 +0x[0-9a-f]+ in param_attr_store \(' "$KS/bt" && [ "${nbadfr:-1}" = 0 ] && [ -n "$TRACE_NAMES" ] && [ -z "$notin" ]; then
	ok "gdb live --kernel: bt #0 modsect_test_poke (value=$KPOKE), #1 poke_set, #2 param_attr_store; core frames $frnames: each pc inside that kallsyms symbol, each in the kernel's own call trace of the write"
else
	not_ok "gdb live --kernel: bt: want #0 modsect_test_poke (value=$KPOKE), #1 poke_set, #2 param_attr_store, core frames inside their kallsyms symbol (${nbadfr:-?} not) and in the kernel's call trace ('$TRACE_NAMES'; not in it:${notin:- none})"
	sed '$d' <<<"$res" | detail
	detail <"$KS/bt"
fi
# Without frame pointers (ORC) and with no CFI for the core kernel, gdb
# unwinds the core frames heuristically: say how far it got.
missing=
for f in param_attr_store module_attr_store kernfs_fop_write_iter vfs_write ksys_write; do
	grep -qE "^#[0-9]+ +0x[0-9a-f]+ in $f " "$KS/bt" || missing="$missing $f"
done
nq=$(grep -cE '^#[0-9]+ +0x[0-9a-f]+ in \?\? ' "$KS/bt" || true)
[ -z "$missing" ] || note "gdb live --kernel: bt does not reach$missing ($nq '??' frames): the core kernel has no frame pointers (ORC) and the kallsyms ELF no CFI, so gdb guesses the core frames"
# info symbol of the 100 samples: "NAME + OFF in section S" (an alias at the
# same address, or gdb's shortened name of it, will do).
sed -n '/^==SYMS==$/,/^==END==$/p' "$KS/live.out" | sed '1d;$d' >"$KS/syms"
infosym_check() {
	awk 'function norm(s) { gsub(/\.[0-9]+/, "", s); sub(/\.cold$/, "[cold]", s); return s }
	function last(s) { sub(/\.[0-9]+$/, "", s); return s }
	FILENAME == ARGV[1] { al[$1 " " $2] = 1; al[$1 " " norm($2)] = 1; al[$1 " " last($2)] = 1; next }
	FILENAME == ARGV[2] { a[++n] = $1; nm[n] = $2; off[n] = $3; b[n] = $4; next }
	{ g[++m] = $0 }
	END {
		for (i = 1; i <= n; i++) {
			split(g[i], x, " ")
			good = (b[i] " " x[1]) in al && (off[i] == 0 ? x[2] == "in" : x[2] == "+" && x[3] == off[i] && x[4] == "in")
			if (good) okn++; else { bad++; if (bad <= 10) printf "  0x%s (%s+%d): %s\n", a[i], nm[i], off[i], g[i] }
		}
		printf "RESULT %d %d\n", okn, bad
	}' "$KS/aliases" "$KS/samples" "$1"
}
res=$(infosym_check "$KS/syms")
read -r _ nok nbad <<<"$(tail -n 1 <<<"$res")"
if [ "${nbad:-1}" = 0 ] && [ "${nok:-0}" = 100 ]; then
	ok "gdb live --kernel: info symbol of 100 addresses inside random kallsyms text symbols -> 'NAME + OFF in section'"
else
	not_ok "gdb live --kernel: info symbol wrong for $nbad of 100 addresses inside kallsyms text symbols"
	sed '$d' <<<"$res" | detail
fi
if vm_wait_for "^==MODSECT-ACK $ack poke $KPOKE rc=0==\$" 60; then
	ok "gdb live --kernel: guest completed poke $KPOKE after gdb detached"
else
	not_ok "gdb live --kernel: guest did not acknowledge poke $KPOKE"
	vm_resume || true
fi
# lldb offline: lldb --all --kernel, image lookup -a of 10 of the samples.
if [ "${MODSECT_VM_LLDB:-1}" != 0 ] && command -v lldb >/dev/null 2>&1; then
	rc=0
	ms lldb-kernel lldb --all --kernel --capture "$CAPK" "${VM_MODDIR_ARGS[@]}" --search "$TD" --cache-dir "$KS/cache" -o "$KS/kernel.lldb" || rc=$?
	head -n 10 "$KS/samples" >"$KS/samples10"
	awk '{ print "image lookup -a 0x" $1 }' "$KS/samples10" >"$KS/lookups.lldb"
	timeout "$GDB_TIMEOUT" lldb -b -o "target create --arch $LLDB_ARCH \"\"" -o "command source $KS/kernel.lldb" \
		-o "command source -e false $KS/lookups.lldb" >"$KS/lldb.out" 2>&1 </dev/null
	# "Summary: <sha256>.kallsyms.elf`NAME + OFF", one per lookup.
	res=$(awk 'function norm(s) { gsub(/\.[0-9]+/, "", s); sub(/\.cold$/, "[cold]", s); return s }
		FILENAME == ARGV[1] { al[$1 " " $2] = 1; al[$1 " " norm($2)] = 1; next }
		FILENAME == ARGV[2] { a[++n] = $1; nm[n] = $2; off[n] = $3; b[n] = $4; next }
		/^\(lldb\) image lookup -a 0x/ { k++; on = 1; next }
		/^\(lldb\) / { on = 0 }
		on && $1 == "Summary:" { s = $0; sub(/^ *Summary: /, "", s); g[k] = s }
		END {
			for (i = 1; i <= n; i++) {
				s = g[i]; sub(/^[^`]*`/, "", s); split(s, x, " ")
				good = (b[i] " " x[1]) in al && (off[i] == 0 ? x[2] == "" : x[2] == "+" && x[3] == off[i])
				if (good) okn++; else { bad++; printf "  0x%s (%s+%d): %s\n", a[i], nm[i], off[i], g[i] }
			}
			printf "RESULT %d %d\n", okn, bad
		}' "$KS/aliases" "$KS/samples10" "$KS/lldb.out")
	read -r _ nok nbad <<<"$(tail -n 1 <<<"$res")"
	if [ "$rc" = 0 ] && grep -qxF "target modules load --file \"$KE\" --slide 0" "$KS/kernel.lldb" &&
		[ "${nbad:-1}" = 0 ] && [ "${nok:-0}" = 10 ]; then
		ok "lldb --all --kernel (offline): image lookup -a of 10 of them -> '<sha256>.kallsyms.elf\`NAME + OFF'"
	else
		not_ok "lldb --all --kernel (offline): exit $rc, $nbad of 10 lookups wrong"
		sed '$d' <<<"$res" | detail
		grep -A2 'image lookup -a' "$KS/lldb.out" | head -n 30 | detail
	fi
fi
T_KERNEL=$(($(date +%s) - t0))

# --- 9. races: captures while modules are loaded and unloaded ----------------------
# The guest loads and unloads the race modules (lib.sh's VM_RACE_MODULES, not
# loaded at boot) in a loop while it runs RACE_N `modsect capture`s and, after
# every other one, a single-module `modsect-live sections` (init.sh race_run).
# Each capture must be one consistent snapshot: exit 0 (or "kept changing"),
# the boot modules exactly as in the boot's capture (sections and every
# kallsyms line: /proc/kallsyms lists module symbols by position, so a load
# or unload while it is read makes other modules' lines skipped or read
# twice), and a race module either
# absent or listed whole from ONE load: the same section names as a quiet
# load (ref.txt, checked against the sh loop's ref-sections.txt) and the same
# address deltas (core sections minus .text; .init.*, .symtab and .strtab,
# the init allocation, minus the lowest of them): loads land at two
# alternating addresses, so sections of two loads differ.  Its kallsyms lines
# must be the symbols of that load: for each, some symbol of that name in the
# module file's .symtab at <its section's address in the capture> + value.
# The host reads every capture (gdb --all, sections).  Last, capture --root of
# a tree whose sys/module lists the unloaded first race module (a dangling
# symlink: listed, but gone when read) must say so on stderr.
t0=$(date +%s)
RC=$W/race
G=$RC/guest
RACE_N=${MODSECT_VM_RACE_N:-10}
rm -rf "$RC"
mkdir -p "$RC/ko" "$G"
module_files "${VM_RACE_LIST:-$VM_OUT/race-modules.list}" "$RC/ko" >"$RC/modules"
RACE_MODS=$(awk '{ printf "%s%s", n++ ? " " : "", $1 }' "$RC/modules")

# "M NAME ADDR" from a capture's section lines / a `sections` table / the
# sh loop's lines, ADDR as 0x and 16 hex digits (a capture of a 32-bit
# kernel has 16, its sysfs and gdb 8).
race_a16='function a16(a) { a = tolower(a); sub(/^0x/, "", a); while (length(a) < 16) a = "0" a; return "0x" a }'
race_secs() { awk "$race_a16"' $1 == "section" { print $2, $3, a16($4) }' "$1"; }
race_table() { awk -v m="$1" "$race_a16"' $2 ~ /^0x[0-9a-f]+$/ && $NF != "percpu" { print m, $1, a16($2) }' "$2"; }
race_sh() { awk "$race_a16"' { print $1, $2, a16($3) }' "$1"; }
# "M NAME ADDR" on stdin -> sorted "M NAME core|init DELTA"
race_layout() {
	awk 'function h(s,  i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		{
			a = tolower($3); sub(/^0x/, "", a); n++
			mod[n] = $1; nm[n] = $2; hi[n] = substr(a, 1, length(a) - 8); lo[n] = h(substr(a, length(a) - 7))
			g[n] = ($2 ~ /^\.init\./ || $2 == ".symtab" || $2 == ".strtab") ? "init" : "core"
			k = $1 " " g[n]
			if (g[n] == "core" ? $2 == ".text" : (!(k in bl) || hi[n] < bh[k] || (hi[n] == bh[k] && lo[n] < bl[k]))) {
				bh[k] = hi[n]; bl[k] = lo[n]
			}
		}
		END {
			for (i = 1; i <= n; i++) {
				k = mod[i] " " g[i]
				print mod[i], nm[i], g[i], !(k in bl) ? "no-base" : hi[i] != bh[k] ? "far" : lo[i] - bl[k]
			}
		}' | sort
}
# race_ksyms M ELFSYMS CAPTURE: "<ok> <wrong> <unknown> [NAME@ADDR...]" for
# M's kallsyms lines (not the per-cpu "a" ones) against ELFSYMS ("NAME
# SECTION VALUE") and the capture's sections of M.
race_ksyms() {
	awk -v m="$1" 'function h(s,  i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		FILENAME == ARGV[1] { cand[$1] = cand[$1] " " $2 "=" $3; next }
		$1 == "section" && $2 == m { a = $4; sub(/^0x/, "", a); shi[$3] = substr(a, 1, 8); slo[$3] = h(substr(a, 9)); next }
		$1 == "kallsyms" && $2 == m && $4 != "a" && $4 != "A" { n++; ka[n] = tolower($3); kn[n] = $5 }
		END {
			for (i = 1; i <= n; i++) {
				known = good = 0
				c = split(cand[kn[i]], cs, " ")
				for (x = 1; x <= c; x++) {
					split(cs[x], p, "=")
					if (!(p[1] in slo)) continue
					known = 1
					if (shi[p[1]] == substr(ka[i], 1, 8) && slo[p[1]] + h(p[2]) == h(substr(ka[i], 9))) good = 1
				}
				if (!known) unk++
				else if (good) okn++
				else { bad++; if (bad <= 4) badl = badl " " kn[i] "@" ka[i] }
			}
			printf "%d %d %d%s\n", okn, bad, unk, badl
		}' "$2" "$3"
}
# The module file's symbols: "NAME SECTION VALUE"
race_elfsyms() {
	readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\) .*/\1 \2/p' >"$RC/elfsecs.tmp"
	readelf -sW "$1" | awk 'FILENAME == ARGV[1] { sn[$1] = $2; next }
		$1 ~ /^[0-9]+:$/ && $7 ~ /^[0-9]+$/ && $8 != "" && ($7 in sn) { print $8, sn[$7], $2 }' "$RC/elfsecs.tmp" -
}
# A stderr line that reports a race module gone while it was read.
race_gone_re="(unloaded|vanished|went away|gone|no longer|disappeared|left out)"

ack=0
if [ -z "${MODSECT_STATIC:-}" ]; then
	not_ok "race: MODSECT_STATIC not set: the guest has no modsect capture"
elif [ -z "$RACE_MODS" ]; then
	not_ok "race: no race modules (${VM_RACE_LIST:-$VM_OUT/race-modules.list})"
elif ! vm_cmd "race $RACE_N" 600; then
	not_ok "race: guest did not finish 'race $RACE_N'"
else
	ack=$VM_LAST_ACK
fi
if [ "$ack" != 0 ]; then
	vm_section "race-$ack.gz.b64" | base64 -d | gzip -dc >"$RC/guest.txt" ||
		not_ok "race: could not decode the guest's gzip+base64"
	awk -v d="$G" '/^==MODSECT-BEGIN .*==$/ { f = d "/" substr($0, 17, length($0) - 18); printf "" >f; next }
		/^==MODSECT-END / { close(f); f = ""; next } f != "" { print >f }' "$RC/guest.txt"
	grep -q "^==MODSECT-ACK $ack race $RACE_N rc=0==\$" "$VM_RUN/serial1.log" ||
		not_ok "race: guest's race command failed: $(grep "^==MODSECT-ACK $ack " "$VM_RUN/serial1.log")"
	[ "$(awk '{ printf "%s%s", n++ ? " " : "", $1 }' "$G/mods" 2>/dev/null)" = "$RACE_MODS" ] ||
		not_ok "race: the guest raced '$(awk '{ printf "%s ", $1 }' "$G/mods" 2>/dev/null)', want '$RACE_MODS'"

	# The reference: the race modules loaded, nothing racing.
	race_secs "$G/ref.txt" | awk -v r=" $RACE_MODS " 'index(r, " " $1 " ")' | sort >"$RC/ref.secs"
	race_layout <"$RC/ref.secs" >"$RC/ref.layout"
	race_sh "$G/ref-sections.txt" | sort >"$RC/ref-sh.secs"
	refbad=
	[ "$(cat "$G/ref.rc")" = rc=0 ] && [ ! -s "$G/ref.err" ] || refbad="capture $(cat "$G/ref.rc"): $(head -n 3 "$G/ref.err")"
	cmp -s "$RC/ref.secs" "$RC/ref-sh.secs" || refbad="$refbad; capture and sh loop differ"
	for m in $RACE_MODS; do
		f=$(awk -v m="$m" '$1 == m { print $2 }' "$RC/modules")
		race_elfsyms "$f" >"$RC/$m.elfsyms"
		awk -v m="$m" '$1 == m { print $2 }' "$RC/ref.secs" >"$RC/$m.names"
		[ -s "$RC/$m.names" ] || refbad="$refbad; $m not in ref.txt"
		n=$(readelf -SW "$f" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p' | grep -cxFf "$RC/$m.names")
		[ "$n" = "$(wc -l <"$RC/$m.names")" ] || refbad="$refbad; $m: sysfs names not all in ${f##*/}"
		grep -q "^build-id $m [0-9a-f]*\$" "$G/ref.txt" || refbad="$refbad; no build-id for $m"
		awk -v m="$m" '$1 == "kallsyms" && $2 == m' "$G/ref.txt" >"$RC/$m.ref.kall"
		read -r kok kbad _ <<<"$(race_ksyms "$m" "$RC/$m.elfsyms" "$G/ref.txt")"
		[ "$kbad" = 0 ] && [ "$kok" -gt 0 ] || refbad="$refbad; $m: kallsyms $kok ok, $kbad wrong"
	done
	if [ -z "$refbad" ]; then
		ok "race reference (quiet load): $(for m in $RACE_MODS; do printf '%s %d sections, ' "$m" "$(wc -l <"$RC/$m.names")"; done)capture == sh loop, names in the .ko, kallsyms at section + value"
	else
		not_ok "race reference:$refbad"
	fi

	# The loop: loads, unloads, addresses.
	cat "$G"/loop-*.log >"$RC/loop.log" 2>/dev/null
	cat "$G"/loop-*.err >"$RC/loop.err" 2>/dev/null
	loads=$(awk '$1 == "load" { n[$3]++ } END { for (m in n) printf "%s %d, ", m, n[m] }' "$RC/loop.log")
	addrs=$(awk '$1 == "load" && !a[$3 " " $4]++ { n[$3]++ } END { for (m in n) printf "%s %d, ", m, n[m] }' "$RC/loop.log")
	if [ "$(grep -c '^load ' "$RC/loop.log")" -ge 4 ] && [ ! -s "$RC/loop.err" ]; then
		ok "race loops: loads ${loads%, }; .text addresses ${addrs%, }; $(grep -c '^unload ' "$RC/loop.log") unloads (guest seconds: $(cat "$G/seconds"))"
	else
		not_ok "race loops: loads ${loads%, }, $(grep -c '^unload ' "$RC/loop.log") unloads"
		head -n 5 "$RC/loop.err" | detail
	fi

	# The boot modules must be exactly as in the boot's capture.
	boot_re=${MODS% }
	boot_re=${boot_re// /|}
	grep -E "^(release|machine|kernel-build-id) |^(module|build-id|srcversion|section) ($boot_re) " "$CAP_static" >"$RC/boot.lines"
	grep -E "^kallsyms ($boot_re) " "$CAP_static" | sort >"$RC/boot.kall"

	ncap=0 nrbad=0 ngaveup=0 nsingle=0
	declare -A present absent nokall mixed okk
	for m in $RACE_MODS; do present[$m]=0 absent[$m]=0 nokall[$m]=0 mixed[$m]=0 okk[$m]=0; done
	for j in $(seq 1 "$RACE_N"); do
		F=$G/cap-$j.txt
		[ -f "$G/cap-$j.rc" ] || { not_ok "race capture $j: missing"; continue; }
		ncap=$((ncap + 1))
		probs=
		rc=$(sed -n 's/^rc=//p' "$G/cap-$j.rc")
		if [ "$rc" != 0 ]; then
			if grep -q 'kept changing' "$G/cap-$j.err"; then
				ngaveup=$((ngaveup + 1))
				note "race capture $j: exit $rc, $(head -n 1 "$G/cap-$j.err")"
			else
				not_ok "race capture $j: exit $rc"
				head -n 5 "$G/cap-$j.err" | detail
			fi
			continue
		fi
		gone=
		while IFS= read -r l; do
			g=
			for m in $RACE_MODS; do
				[[ $l == *"$m"* ]] && [[ $l =~ $race_gone_re ]] && g=$m
			done
			if [ -n "$g" ]; then gone="$gone $g"; else probs="$probs; stderr: $l"; fi
		done <"$G/cap-$j.err"
		grep -E "^(release|machine|kernel-build-id) |^(module|build-id|srcversion|section) ($boot_re) " "$F" >"$RC/cap-$j.boot"
		cmp -s "$RC/boot.lines" "$RC/cap-$j.boot" || probs="$probs; boot modules' sections differ from the boot capture"
		# Their kallsyms lines too: /proc/kallsyms lists module symbols by
		# position, so a module loaded or unloaded while it is read shifts
		# the lines of the others (skipped or read twice).
		grep -E "^kallsyms ($boot_re) " "$F" | sort >"$RC/cap-$j.kall"
		if ! cmp -s "$RC/boot.kall" "$RC/cap-$j.kall"; then
			probs="$probs; boot modules' kallsyms lines differ from the boot capture:$(diff "$RC/boot.kall" "$RC/cap-$j.kall" |
				awk '/^[<>] / { k = $3 " " ($1 == "<" ? "missing" : "extra"); if (!(k in c)) o[++n] = k; c[k]++ }
					END { for (i = 1; i <= n; i++) { split(o[i], x, " "); printf " %s %d %s", x[1], c[o[i]], x[2] } }')"
		fi
		nmod=$(grep -c '^module ' "$F")
		[ "$nmod" = $(($(wc -w <<<"$MODS") + $(grep -cE "^module (${RACE_MODS// /|}) " "$F"))) ] ||
			probs="$probs; $nmod modules"
		for m in $RACE_MODS; do
			if ! grep -q "^module $m " "$F"; then
				absent[$m]=$((${absent[$m]} + 1))
				continue
			fi
			present[$m]=$((${present[$m]} + 1))
			[[ " $gone " == *" $m "* ]] && probs="$probs; $m reported gone but listed"
			st=$(awk -v m="$m" '$1 == "module" && $2 == m { print $3 }' "$F")
			case $st in coming | live | going) ;; *) probs="$probs; $m state '$st'" ;; esac
			[ "$(grep "^build-id $m " "$F")" = "$(grep "^build-id $m " "$G/ref.txt")" ] ||
				probs="$probs; $m build-id differs"
			race_secs "$F" | awk -v m="$m" '$1 == m' | race_layout >"$RC/cap-$j.$m.layout"
			if ! diff <(awk -v m="$m" '$1 == m' "$RC/ref.layout") "$RC/cap-$j.$m.layout" >"$RC/cap-$j.$m.diff"; then
				probs="$probs; $m: sections are not those of one load ($(grep -c '^[<>]' "$RC/cap-$j.$m.diff") lines differ from the quiet load's layout)"
			fi
			read -r kok kbad _ kl <<<"$(race_ksyms "$m" "$RC/$m.elfsyms" "$F")"
			if [ "$kbad" != 0 ]; then
				mixed[$m]=$((${mixed[$m]} + 1))
				probs="$probs; $m: $kbad of $((kok + kbad)) kallsyms lines are not at section + value of this load's sections (.text $(awk -v m="$m" '$1 == "section" && $2 == m && $3 == ".text" { print $4 }' "$F")), e.g. $kl: kallsyms of another load"
			elif [ "$kok" = 0 ] && [ -s "$RC/$m.ref.kall" ]; then
				nokall[$m]=$((${nokall[$m]} + 1))
			elif [ "$st" != coming ] && # a coming module has its init symbols too
				[ "$(awk -v m="$m" '$1 == "kallsyms" && $2 == m' "$F" | wc -l)" != "$(wc -l <"$RC/$m.ref.kall")" ]; then
				probs="$probs; $m: $(awk -v m="$m" '$1 == "kallsyms" && $2 == m' "$F" | wc -l) kallsyms lines, a quiet load has $(wc -l <"$RC/$m.ref.kall")"
			else
				okk[$m]=$((${okk[$m]} + 1))
			fi
		done
		# The host reads it: gdb --all and sections of each race module.
		rc=0
		ms "race/gdb-$j" gdb --all --capture "$F" "${VM_MODDIR_ARGS[@]}" --search "$TD" -o "$RC/cap-$j.gdb" || rc=$?
		n=$(grep -c '^add-symbol-file ' "$RC/cap-$j.gdb" 2>/dev/null)
		if [ "$rc" != 0 ] || [ -s "$RC/gdb-$j.err" ] || [ "${n:-0}" != "$nmod" ]; then
			probs="$probs; host gdb --all --capture: exit $rc, ${n:-0} add-symbol-file for $nmod modules: $(head -n 2 "$RC/gdb-$j.err")"
		fi
		for m in $RACE_MODS; do
			grep -q "^module $m " "$F" || continue
			t=$(race_secs "$F" | awk -v m="$m" '$1 == m && $2 == ".text" { print $3 }')
			awk -v m="$m" "$race_a16"' /^# [A-Za-z0-9_]+ \(/ { cur = $2 } /^add-symbol-file / && cur == m { print a16($3) }' "$RC/cap-$j.gdb" |
				grep -qxF "$t" || probs="$probs; host gdb --all: no add-symbol-file for $m at $t"
			rc=0
			ms "race/sections-$j-$m" sections "$m" --capture "$F" "${VM_MODDIR_ARGS[@]}" || rc=$?
			if [ "$rc" != 0 ] || ! diff -q <(race_table "$m" "$RC/sections-$j-$m.out" | race_layout) \
				"$RC/cap-$j.$m.layout" >/dev/null; then
				probs="$probs; host sections $m --capture: exit $rc or other sections"
			fi
		done
		if [ -n "$probs" ]; then
			not_ok "race capture $j (guest probe: $(sed -n "s/^$j \(pre:.*post:[^u]*\) uptime.*/\1/p" "$G/probe")):${probs#;}"
			nrbad=$((nrbad + 1))
		fi
	done
	summ=
	for m in $RACE_MODS; do
		summ="$summ; $m present in ${present[$m]} (kallsyms of that load in ${okk[$m]}, of another load in ${mixed[$m]}, none in ${nokall[$m]}), absent in ${absent[$m]}"
	done
	if [ "$nrbad" = 0 ] && [ "$ncap" = "$RACE_N" ] && [ "$ngaveup" -lt "$ncap" ]; then
		ok "race: $ncap captures while loading/unloading, each one consistent snapshot ($ngaveup gave up 'kept changing')$summ"
	else
		not_ok "race: $nrbad of $ncap captures inconsistent ($ngaveup gave up)$summ"
	fi
	for m in $RACE_MODS; do
		[ "${present[$m]}" -gt 0 ] && [ "${absent[$m]}" -gt 0 ] ||
			note "race: $m was ${present[$m]} times present, ${absent[$m]} times absent (the loop never caught it both ways)"
		[ "${nokall[$m]}" = 0 ] ||
			note "race: $m listed ${nokall[$m]} times with no kallsyms lines: unloaded between modsect's read of sections/ and of /proc/kallsyms"
	done
	# Silently left out?  Present before the capture, gone after, absent from
	# it, and not a word on stderr (ambiguous: may have gone before readdir).
	nsil=0
	while read -r j rest; do
		for m in $RACE_MODS; do
			pre=${rest%%post:*}
			post=${rest#*post:}
			post=${post%%uptime*}
			[[ " $pre " == *" $m "* ]] && [[ " $post " != *" $m "* ]] || continue
			grep -q "^module $m " "$G/cap-$j.txt" && continue
			grep -q "$m" "$G/cap-$j.err" || nsil=$((nsil + 1))
		done
	done <"$G/probe"
	[ "$nsil" = 0 ] || note "race: $nsil times a race module loaded before a capture, gone after it, was absent from it with nothing on stderr (it may have gone before modsect's readdir)"

	# Single-module reads (modsect-live sections M FILE in the guest).
	nso=0 nsnot=0 nsgave=0 nsbad=0
	for rcf in "$G"/one-*.rc; do
		[ -f "$rcf" ] || continue
		b=${rcf%.rc}
		j=${b##*/one-}
		m=${j#*-}
		j=${j%%-*}
		nsingle=$((nsingle + 1))
		rc=$(sed -n 's/^rc=//p' "$rcf")
		if [ "$rc" = 0 ]; then
			if [ ! -s "$b.err" ] && grep -qE "^module: +$m \((coming|live|going)\)" "$b.txt" &&
				diff -q <(awk -v m="$m" '$1 == m' "$RC/ref.layout") <(race_table "$m" "$b.txt" | race_layout) >/dev/null; then
				nso=$((nso + 1))
			else
				nsbad=$((nsbad + 1))
				not_ok "race: modsect-live sections $m (after capture $j): exit 0 but not the sections of one load"
				{ cat "$b.err"; head -n 30 "$b.txt"; } | detail
			fi
		elif grep -qE "^modsect: module $m (is not loaded|was unloaded while it was read)" "$b.err"; then
			nsnot=$((nsnot + 1))
		elif grep -q 'kept changing' "$b.err"; then
			nsgave=$((nsgave + 1))
		else
			nsbad=$((nsbad + 1))
			not_ok "race: modsect-live sections $m (after capture $j): exit $rc"
			detail <"$b.err"
		fi
	done
	if [ -z "${MODSECT_DYN:-}" ]; then
		ok "race: single-module 'sections MODULE' in the guest (skipped on $VM_PROFILE: no modsect-live in the guest, MODSECT_DYN unset)"
	elif [ "$nsbad" = 0 ] && [ "$nsingle" -gt 0 ]; then
		ok "race: $nsingle single-module 'sections MODULE' in the guest: $nso complete from one load, $nsnot 'is not loaded' or 'was unloaded while it was read' (exit 1), $nsgave 'kept changing'"
	elif [ "$nsingle" = 0 ]; then
		not_ok "race: no single-module reads in the guest"
	fi

	# A module listed in sys/module but gone when read (dangling symlink).
	first=${RACE_MODS%% *}
	if [ "$(cat "$G/root.rc")" != rc=0 ] || grep -q "^module $first " "$G/root.txt" ||
		! grep -qE "^module ($boot_re) " "$G/root.txt"; then
		not_ok "race: capture --root with $first listed in sys/module but gone: $(cat "$G/root.rc"), $(grep -c '^module ' "$G/root.txt") modules"
		detail <"$G/root.err"
	elif grep -q "$first" "$G/root.err"; then
		ok "race: capture --root with $first listed in sys/module but gone: left out, reported on stderr: $(grep "$first" "$G/root.err" | head -n 1)"
	else
		not_ok "race: capture --root with $first listed in sys/module but gone: left out without a word on stderr (exit 0, stderr '$(head -c 200 "$G/root.err")')"
	fi
fi
T_RACE=$(($(date +%s) - t0))

echo "timing: gdb live ${T_GDB_LIVE}s, gdb offline ${T_GDB_OFFLINE}s, lldb ${T_LLDB}s, debug info ${T_DEBUG}s, decode/resolve ${T_DECODE}s, kernel ${T_KERNEL}s, race ${T_RACE}s"
if [ -z "${MODSECT_VM_TEST_ATTACH:-}" ]; then
	vm_stop
fi
echo "files: $W"
finish
