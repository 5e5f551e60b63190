# shellcheck shell=bash
# tests/vm/checks.sh - what the VM tests check with; lib.sh sources it.
#
# The vocabulary of every test (tests/common.sh: ok, not_ok, detail,
# summary), running modsect and other commands into $W (vm_run, ms), a
# refusal as one check (expect_refused), a gdb command that may fail
# (vm_gdb_try), the module symbols to expect where the guest's kallsyms
# says (vm_expected_syms, vm_compare_syms) and the file a debugger must be
# given for a module (vm_debugger_copy, vm_dbgfile_ok).

# The checks' vocabulary is the unit tests' (tests/common.sh): "ok - DESC",
# "not ok - DESC" with details indented (detail), and `summary` last: "N
# passed, N failed".
# shellcheck source=tests/common.sh
. "$VM_DIR/../common.sh"
# elfread.py, beside this file, for the checks' Python.
VM_CHECKS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The check lines start with the script's name, as the unit tests' do
# (test.sh sets the name of each of its parts instead).
TNAME=${TNAME-$(basename "$0" .sh)}

# vm_run NAME CMD...: CMD's stdout in $W/NAME.out, stderr in $W/NAME.err,
# its time in seconds in $W/NAME.time ($W: the script's work directory).
# Returns CMD's status.  A sanitizer report is a failed check by itself.
vm_run() {
	local name=$1 rc=0 t0 t1
	shift
	t0=$(date +%s.%N)
	"$@" >"$W/$name.out" 2>"$W/$name.err" || rc=$?
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' >"$W/$name.time"
	if sanitizer_report "$W/$name.err"; then
		not_ok "$name: $*: sanitizer report"
		head -n 30 "$W/$name.err" | detail
	fi
	return "$rc"
}

# ms NAME ARGS...: vm_run NAME "$MODSECT" ARGS.  (tests/lib.sh's ms, for
# the unit tests, has one output file and no NAME.)
ms() {
	local name=$1
	shift
	vm_run "$name" "$MODSECT" "$@"
}

# expect_refused NAME DESC ERE... -- CMD...: CMD (vm_run NAME) must fail
# and its stderr match every ERE (grep -E), each a word the user needs
# (the reason, a build-id).  One check: ok "DESC: ..., saying: <stderr's
# first line>".
expect_refused() {
	local name=$1 desc=$2 res=() e rc=0
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		res+=("$1")
		shift
	done
	shift
	vm_run "$name" "$@" || rc=$?
	if [ "$rc" = 0 ]; then
		not_ok "$desc: accepted (exit 0)"
		head -n 5 "$W/$name.out" | detail
		return
	fi
	for e in "${res[@]}"; do
		if ! grep -qE -- "$e" "$W/$name.err"; then
			not_ok "$desc: exit $rc, but stderr does not say /$e/"
			head -n 5 "$W/$name.err" | detail
			return
		fi
	done
	ok "$desc: exit $rc, saying: $(head -n 1 "$W/$name.err" | cut -c 1-300)"
}

# vm_gdb_try CMD: the gdb script lines that run CMD in Python and print
# "GDB ERROR: <message>" if it is a gdb error, else "NO ERROR" (a failing
# gdb command would end a -batch script).
vm_gdb_try() {
	cat <<GDB
python
try:
    gdb.execute("$1")
    print("NO ERROR")
except gdb.error as e:
    print("GDB ERROR: %s" % e)
end
GDB
}


# vm_debugger_copy FILE [lldb]: "COPY BUILD-ID" for the module file FILE.
# COPY is the name (<sha256>.ko) of the copy modsect writes into its
# cache for gdb (with lldb: for lldb) to read instead of FILE
# (lib/module/modcopy.c): FILE decompressed, with sh_addr 0 in every section
# header (Linux 6.10's module.lds gives .data and others an address, which
# gdb 13 misapplies), and for lldb an i386 file's .debug_* and
# .rel.debug_* sections named .Debug_* (lldb 14 misapplies their REL
# relocations).  "-" where the debugger reads FILE as it is: a plain ELF
# whose sections are all at 0 (Debian's 6.1 modules).  BUILD-ID is FILE's
# GNU build-id ("-" if none).
vm_debugger_copy() {
	PYTHONPATH=$VM_CHECKS_DIR python3 - "$@" <<'EOF_PY'
import hashlib, struct, sys
import elfread
path, lldb = sys.argv[1], len(sys.argv) > 2 and sys.argv[2] == "lldb"
data, comp = elfread.load(path)
h = elfread.headers(data)
if h is None:
    sys.exit("vm_debugger_copy: %s is no ELF file" % path)
e, mach, shdrs, stroff = h
bid = "-"
for sh in shdrs:
    if sh.name == ".note.gnu.build-id":
        nsz, dsz, _ = struct.unpack_from(e + "III", data, sh.offset)
        bid = data[sh.offset + 12 + (nsz + 3) // 4 * 4:][:dsz].hex()
buf = bytearray(data)
copy = comp or any(sh.addr for sh in shdrs)
for sh in shdrs:
    buf[sh.addr_at:sh.addr_at + sh.addr_len] = bytes(sh.addr_len)
# SHT_REL (9) .rel.debug_* in an EM_386 (3) file: lldb's copy hides the DWARF.
if lldb and mach == 3 and any(sh.type == 9 and sh.name.startswith(".rel.debug_") for sh in shdrs):
    copy = True
    for sh in shdrs:
        skip = 1 if sh.name.startswith(".debug_") else 5 if sh.name.startswith(".rel.debug_") else 0
        if skip:
            buf[stroff + sh.name_off + skip] = ord("D")
print(hashlib.sha256(buf).hexdigest() + ".ko" if copy else "-", bid)
EOF_PY
}

# vm_dbgfile_ok GOT FILE [lldb]: is GOT the file modsect names for gdb
# (lldb) to read the module file FILE?  FILE itself (its real path) where
# the debugger reads FILE as it is; else the copy vm_debugger_copy names,
# in modsect's cache: GOT is named <sha256>.ko and holds exactly FILE's
# bytes (decompressed) with every sh_addr 0, so it has FILE's build-id,
# which is checked too.  VM_DBGFILE says what GOT is, or why it is wrong.
# shellcheck disable=SC2034 # the scripts read VM_DBGFILE
vm_dbgfile_ok() {
	local got=$1 file=$2 copy bid gbid
	read -r copy bid <<<"$(vm_debugger_copy "$file" ${3:-})"
	if [ -z "${copy:-}" ]; then
		VM_DBGFILE="$file: not an ELF module file"
		return 1
	elif [ "$copy" = - ]; then
		VM_DBGFILE="${file##*/} itself"
		[ "$(readlink -f "$got")" = "$(readlink -f "$file")" ] && return 0
		if [ "${3:-}" = lldb ] && vm_unwind_copy_ok "$got" "$file"; then
			VM_DBGFILE="lldb's copy ${got##*/} of ${file##*/} with its unwind tables: every allocated section's bytes the same"
			return 0
		fi
		VM_DBGFILE="$got, not $file itself"
		return 1
	fi
	gbid=$(vm_build_id "$got")
	if [ "${got##*/}" = "$copy" ] && [ -f "$got" ] &&
		[ "$(sha256sum <"$got" | cut -d' ' -f1).ko" = "$copy" ] && [ "$gbid" = "$bid" ]; then
		VM_DBGFILE="the debugger copy ${copy:0:12}...ko of ${file##*/} (sh_addr 0), build-id $bid == the module's"
		return 0
	fi
	if [ "${3:-}" = lldb ] && vm_unwind_copy_ok "$got" "$file"; then
		VM_DBGFILE="lldb's copy ${got##*/} of ${file##*/} with its unwind tables: every allocated section's bytes the same, build-id $bid == the module's"
		return 0
	fi
	VM_DBGFILE="$got, want the debugger copy $copy of $file (build-id ${gbid:-none}, the module's $bid)"
	return 1
}

# vm_unwind_copy_ok GOT FILE: GOT is modsect's copy of the module FILE
# that lldb reads with the module's unwind tables (lib/module/modcopy.c):
# a .debug_frame and its .rela.debug_frame added, and every SHF_ALLOC
# section of FILE there with the same name, size and bytes (code sections
# may be marked writable: lldb then reads code from the target).
vm_unwind_copy_ok() {
	PYTHONPATH=$VM_CHECKS_DIR python3 - "$@" <<'EOF_PY'
import sys
import elfread
got, _ = elfread.load(sys.argv[1])
org, _ = elfread.load(sys.argv[2])
gh, oh = elfread.headers(got), elfread.headers(org)
if gh is None or oh is None:
    sys.exit(1)
gs = {sh.name: sh for sh in gh[2]}
if ".debug_frame" not in gs or ".rela.debug_frame" not in gs:
    sys.exit(1)
for s in oh[2]:
    if not s.flags & 2:  # SHF_ALLOC
        continue
    g = gs.get(s.name)
    if g is None or g.size != s.size:
        sys.exit(1)
    if s.type != 8 and got[g.offset:g.offset + g.size] != org[s.offset:s.offset + s.size]:  # not NOBITS
        sys.exit(1)
EOF_PY
}

# vm_elf_syms FILE: "Y NDX NAME VALUE" per named symbol of an ELF file
# defined in a section.  ELFv2 (ppc64le) functions with a local entry have
# one more column: "FUNC GLOBAL DEFAULT [<localentry>: 8] NDX NAME".
vm_elf_syms() {
	readelf -sW "$1" | awk '$7 == "[<localentry>:" { $7 = $9; $8 = $10 }
		$1 ~ /^[0-9]+:$/ && $7 ~ /^[0-9]+$/ && $4 != "SECTION" && $4 != "FILE" && $8 != "" { print "Y", $7, $8, $2 }'
}

# vm_init_kept: "1" where a live module's .init.* stay loaded (ppc64le:
# lib/module/layout.c ms_section_is_init), else "".
vm_init_kept() {
	[ "$VM_ARCH" != ppc64le ] || echo 1
}

# vm_expected_syms DIR: the module symbols a gdb holding every module must
# put where the guest's /proc/kallsyms says, as "<name> <hex>" lines in
# DIR/all.uexp: for each module (VM_MODLIST, decompressed into DIR/ko/,
# and the test module), the kallsyms names defined once in its file's
# symtab and once in kallsyms, not generated (.LC*, __UNIQUE_ID_*,
# _note_*) nor in .init.* (but on ppc64le, whose loader frees no init
# section: lib/module/layout.c ms_section_is_init), and defined in no
# other module's file.  Also
# DIR/M.elf per module: "S INDEX NAME" per section and "Y INDEX NAME VALUE"
# per symbol of its file (vm_elf_alias reads them).
vm_expected_syms() {
	local d=$1 p b m f others
	mkdir -p "$d/ko"
	while read -r p; do
		b=${p##*/}
		m=${b%.ko*}
		m=${m//-/_}
		case $p in
		*.ko) f=$p ;;
		*.ko.xz) f=$d/ko/$m.ko; xz -dc "$p" >"$f" ;;
		*.ko.zst) f=$d/ko/$m.ko; zstd -qdc "$p" >"$f" ;;
		*.ko.gz) f=$d/ko/$m.ko; gzip -dc "$p" >"$f" ;;
		esac
		echo "$m $f"
	done <"$VM_MODLIST" >"$d/modules"
	echo "modsect_test $VM_TESTMOD_KO" >>"$d/modules"
	while read -r m f; do
		awk -v m="$m" '$4 == "[" m "]" { print $1, $3 }' "$VM_RUN/kallsyms.txt" >"$d/$m.kall"
		{
			readelf -SW "$f" | awk '/^ *\[ *[0-9]+\]/ { s = $0; sub(/^ *\[ */, "", s); n = s; sub(/\].*/, "", n); sub(/^[0-9]+\] */, "", s); split(s, w, " "); print "S", n, w[1] }'
			vm_elf_syms "$f"
		} >"$d/$m.elf"
		awk '$1 == "Y" { print $3 }' "$d/$m.elf" | sort -u >"$d/$m.defs"
		awk '
			FILENAME ~ /\.elf$/ && $1 == "S" { sec[$2] = $3; next }
			FILENAME ~ /\.elf$/ && $1 == "Y" { nf[$3]++; fsec[$3] = sec[$2]; next }
			{ nk[$2]++; addr[$2] = $1; order[++n] = $2 }
			END {
				for (i = 1; i <= n; i++) {
					s = order[i]
					if (s ~ /^\.LC/ || s ~ /^__UNIQUE_ID_/ || s ~ /^_note_/ || s ~ /^\$[atdx](\.|$)/) continue
					if (!(s in nf) || nf[s] != 1 || nk[s] != 1) continue
					if (fsec[s] ~ /^\.init\./ && !keepinit) continue
					print s, addr[s]
				}
			}' keepinit="$(vm_init_kept)" "$d/$m.elf" "$d/$m.kall" >"$d/$m.exp"
	done <"$d/modules"
	: >"$d/all.uexp"
	while read -r m _; do
		others=$(awk -v m="$m" -v d="$d" '$1 != m { print d "/" $1 ".defs" }' "$d/modules")
		# shellcheck disable=SC2086
		awk 'FILENAME != ARGV[ARGC-1] { d[$1] = 1; next } !($1 in d)' $others "$d/$m.exp" >>"$d/all.uexp"
	done <"$d/modules"
}

# vm_compare_syms EXPECTED GDB_OUTPUT [TAG [RTAG]]: EXPECTED's "<name>
# <hex>" against symdump.py's "TAG <name> <hex>" / "TAGERR <name> <error>"
# lines (TAG: SYM); prints up to 10 differences, then "RESULT <matching>
# <differing>".  On arm64, with RTAG (ms_where's lines of the same
# addresses), a function whose DWARF entry gdb gives is right if `info
# symbol` of its kallsyms address names the function itself:
# -fpatchable-function-entry puts NOPs between the ELF symbol and the
# DWARF function (kernel.sh's rule).
vm_compare_syms() {
	awk -v tag="${3:-SYM}" -v rtag="$([ "$VM_ARCH" = aarch64 ] && echo "${4:-}")" '
		FILENAME == ARGV[1] { w = $2; while (length(w) < 16) w = "0" w; want[$1] = w; kall[$1] = $2; order[++n] = $1; next }
		$1 == tag { g = $3; while (length(g) < 16) g = "0" g; got[$2] = g; next }
		$1 == tag "ERR" { e = $0; sub(/^[^ ]+ [^ ]+ /, "", e); err[$2] = e; next }
		rtag != "" && $1 == rtag { r = $0; sub(/^[^ ]+ [^ ]+ /, "", r); rsym[$2] = r }
		END {
			for (i = 1; i <= n; i++) {
				s = order[i]
				if (s in got && got[s] == want[s]) { okn++; continue }
				if (rtag != "" && s in got && index(rsym[kall[s]], s " in section ") == 1) { okn++; continue }
				bad++
				if (bad <= 10) printf "  %s: want %s, got %s\n", s, want[s], (s in got ? got[s] : (s in err ? "error: " err[s] : "nothing"))
			}
			printf "RESULT %d %d\n", okn + 0, bad + 0
		}' "$1" "$2"
}
