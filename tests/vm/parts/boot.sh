# shellcheck shell=bash
# tests/vm/parts/boot.sh - sourced by tests/vm/test.sh after the boot.
#
# Proves the boot is what the other parts assume: every module loaded and
# has a .text in the guest's sysfs; the guest loaded the STRIPPED
# modsect_test.ko (no .debug_*) whose build-id (the guest's notes/) is the
# full .ko's and the --only-keep-debug file's; the static `modsect capture`
# in the guest exited 0.
#
# Gives the other parts (test.sh's $W, $TD, $VM_RUN, ms from lib.sh):
#   $W/modules         "<module> <host file> <realpath of the original>"
#   MODS, mod_file, mod_orig, module_files, GUEST_ID
#   CAP_static CAP_shloop CAP_grep (CAPS, cap_file): the capture forms
#   $W/sym/M.exp       "<name> <kallsyms addr> <section>": the names to check
#                      (.uexp: unique across modules; all.uexp: every module)
#   PCPU_KALL, PCPU_READ, POKE_ADDR
#   compare_addrs, compare_where, where_ex: the address checks
#   $SD (only the stripped module), $DD and $DD_FILE (its debug file by
#   build-id), ID, KREL: the debug info fixtures of debuginfo and decode

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
		vm_elf_syms "$f"
	} >"$W/sym/$m.elf"
	awk '$1 == "Y" { print $3 }' "$W/sym/$m.elf" | sort -u >"$W/sym/$m.defs"
	# A symbol of an empty section (6.12's __start_alloc_tags and
	# __stop_alloc_tags in a module with no .data) has a kallsyms address,
	# but sysfs lists no empty section (the kernel's add_sect_attrs skips
	# them), so no map says where it is: such names go to M.empty.
	awk -v m="$m" -v empty="$W/sym/$m.empty" -v keepinit="$(vm_init_kept)" '
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
				if (fsec[s] ~ /^\.init\./ && !keepinit) continue
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

POKE_ADDR=$(awk '$1 == "modsect_test_poke" { print $2 }' "$W/sym/modsect_test.exp")

# --- the debug info fixtures --------------------------------------------------
# $SD holds ONLY the stripped module, as modsect_test.ko: the module file
# modsect finds has no DWARF, so types and source lines can only come from
# the debug info it finds elsewhere, e.g. $DD: a --debug-dir laid out by
# build-id.  Every candidate must match the build-id the guest reported in
# notes/ ($GUEST_ID).
DI=$W/debuginfo
SD=$DI/stripped
mkdir -p "$SD"
cp "$VM_TESTMOD_KO_STRIPPED" "$SD/modsect_test.ko"
KREL=$(cat "$VM_RUN/uname.txt")
ID=${GUEST_ID:-nobuildid}
DD=$DI/dd-build-id
DD_FILE=$DD/.build-id/${ID:0:2}/${ID:2}.debug
mkdir -p "${DD_FILE%/*}"
cp "$VM_TESTMOD_DEBUG" "$DD_FILE"
