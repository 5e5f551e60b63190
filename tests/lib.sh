# shellcheck shell=bash
# tests/lib.sh - helpers for the fast unit tests (tests/t-*.sh).
#
# A test script sources this file, builds what it needs with the fixture
# helpers below, makes checks, and ends with `finish`.  Every check prints
# one line, "ok - DESC" or "not ok - DESC" followed by indented details;
# tests/run.sh counts those lines.
#
# Nothing is skipped: a missing tool (gdb, lldb, depmod, gcc...) is a failed
# check, so a run on a machine without them cannot look green.

set -u

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
MODSECT=${MODSECT:-$TOP/modsect}
case $MODSECT in /*) ;; *) MODSECT=$(cd "$TOP" && realpath -- "$MODSECT") ;; esac
# ok, not_ok, detail, test_tools_dir, LSAN_OPTIONS: shared with the VM tests.
# shellcheck source=tests/common.sh
. "$TESTS_DIR/common.sh"
# Test helper programs (tests/tools/*.c), built beside the binary under test.
TEST_TOOLS=$(test_tools_dir "$MODSECT" "$TOP")
TNAME=$(basename "$0" .sh)

# Fixed addresses of the fake module's sections (the "map").
REL=6.1.0-modsect-test
A_TEXT=0xffffffffc0a14000
A_RODATA=0xffffffffc0a15000
A_NOTE=0xffffffffc0a15100
A_DATA=0xffffffffc0a16000
A_BSS=0xffffffffc0a16400
A_INIT=0xffffffffc0a1c000
A_SYMTAB=0xffffffffc0a20000
A_STRTAB=0xffffffffc0a21000
SRCVERSION=ABCDEF0123456789ABCDEF0
# First line of gdb and lldb scripts (normalized: see norm), up to " from".
GDB_INTRO='# gdb commands; load with: source FILE, by modsect @VERSION@'
LLDB_INTRO='# lldb commands; load with: command source FILE, by modsect @VERSION@'
# The architecture lines that follow it, for a map with "machine x86_64"
# (what mkrelease gives): gdb sets it only without a target; lldb makes an
# empty target, then selects target 0 (the user's, if there was one).
GDB_ARCH='# architecture i386:x86-64 (machine x86_64 in the map), set when gdb has no target (a target keeps its own)
if $_thread == 0
  set architecture i386:x86-64
end'
LLDB_ARCH='# architecture x86_64-unknown-linux-gnu (machine x86_64 in the map): an empty target of it for an lldb with none; with one already (vmlinux, gdb-remote), target 0 is selected again and the empty one is left unused
target create --arch x86_64-unknown-linux-gnu ""
target select 0'
VERSION=$(sed -n 's/^#define MODSECT_VERSION "\(.*\)"/\1/p' "$TOP/lib/modsect.h")

# No test asks a debuginfod server unless it starts one itself
# (tests/debuginfod-server.sh): the user's DEBUGINFOD_URLS (Debian's
# /etc/profile.d sets one) is dropped, and libdebuginfod's cache is per test.
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE

mkdir -p "$TESTS_DIR/out"
T=$(mktemp -d "$TESTS_DIR/out/$TNAME.XXXXXX") || {
	echo "not ok - $TNAME: mktemp failed"
	exit 1
}
# The caches (decompressed modules, indexes) of this test, not the user's.
export XDG_CACHE_HOME=$T/xdg-cache
export DEBUGINFOD_CACHE_PATH=$T/debuginfod-cache
_cleanup() {
	local p
	for p in ${_bg_pids-}; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -n "${KEEP-}" ] || rm -rf "$T"
}
trap _cleanup EXIT

# ---- checks ----------------------------------------------------------------

# ok DESC and not_ok DESC [DETAIL...] come from tests/common.sh: "ok - TNAME:
# DESC" and "not ok - TNAME: DESC" with the details indented.

# check DESC COMMAND...: passes if COMMAND succeeds.
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d" "failed: $*"; fi
}

# Runs modsect; stdout in $T/out, stderr in $T/err, status in $RC.
ms() {
	"$MODSECT" "$@" >"$T/out" 2>"$T/err"
	RC=$?
}

_last_run() {
	printf 'exit status %s\n--- stdout:\n' "$RC"
	head -c 3000 "$T/out"
	printf -- '--- stderr:\n'
	head -c 3000 "$T/err"
}

# Replaces the temp dir, the build-id of the default fixture (if set), the
# version in headers and parked addresses (0x0bad...; checked on their own
# by check_parked) with placeholders so expected outputs do not carry them.
norm() {
	sed -E -e "s|$T|@T@|g" ${BUILD_ID:+-e "s|$BUILD_ID|@BUILDID@|g"} \
		-e "s/modsect $VERSION /modsect @VERSION@ /" -e "s/$REL/@REL@/g" \
		-e 's/0xbad[0-9a-f]{12}\b/0xPARKED/g' "$@"
}

# check_same DESC EXPECTED_FILE ACTUAL_FILE: whole-file comparison.
check_same() {
	local d
	if d=$(diff -u "$2" "$3" 2>&1); then
		ok "$1"
	else
		not_ok "$1" "$d"
	fi
}

# check_out DESC EXPECTED_TEXT: $T/out (normalized) must be EXPECTED_TEXT.
check_out() {
	printf '%s\n' "$2" >"$T/expected"
	norm "$T/out" >"$T/actual"
	check_same "$1" "$T/expected" "$T/actual"
}

# check_rc DESC WANT: $RC must be WANT.
check_rc() {
	if [ "$RC" = "$2" ]; then ok "$1"; else not_ok "$1" "want exit $2" "$(_last_run)"; fi
}

# check_refused DESC WANT_RC ERE: exit WANT_RC (itself an ERE, e.g. "[13]"),
# nothing on stdout, stderr matches ERE (grep -E).
check_refused() {
	if [[ $RC =~ ^($2)$ ]] && [ ! -s "$T/out" ] && grep -Eq -- "$3" "$T/err"; then
		ok "$1"
	else
		not_ok "$1" "want exit $2, empty stdout, stderr matching /$3/" "$(_last_run)"
	fi
}

# check_grep DESC ERE FILE: FILE has a line matching ERE.
check_grep() {
	if grep -Eq -- "$2" "$3"; then
		ok "$1"
	else
		if [ "$3" = "$T/out" ]; then
			not_ok "$1" "no line matches /$2/ in the output:" "$(_last_run)"
		else
			not_ok "$1" "no line matches /$2/ in $3:" "$(head -c 3000 "$3")"
		fi
	fi
}

# check_nogrep DESC ERE FILE: no line of FILE matches ERE.
check_nogrep() {
	if ! grep -Eq -- "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "a line matches /$2/ in $3:" "$(grep -E -- "$2" "$3" | head -5)"
	fi
}

# check_eq DESC WANT GOT
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "want: $2" "got:  $3"; fi
}

# jq_py FILE EXPR: prints the python expression EXPR evaluated with j bound
# to the JSON in FILE (and S = {name: section} when j has "sections").
jq_py() {
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
S = {s["name"]: s for s in j["sections"]} if isinstance(j, dict) and "sections" in j else {}
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}

# need TOOL...: one failed check per missing tool; returns 1 if any is
# missing so the test can stop.  Never a skip.
need() {
	local t miss=0
	for t in "$@"; do
		if ! command -v "$t" >/dev/null 2>&1; then
			not_ok "required tool '$t' is missing (install it; tests are never skipped)"
			miss=1
		fi
	done
	if [ ! -x "$MODSECT" ]; then
		not_ok "modsect binary $MODSECT is missing (run make, or set MODSECT)"
		miss=1
	fi
	return $miss
}

# use_helper NAME: HELPER is the test helper NAME (tests/tools/NAME.c),
# built beside the binary under test; without it the test stops.
use_helper() {
	HELPER=$TEST_TOOLS/$1
	[ -x "$HELPER" ] || bail "$HELPER is missing (make test-tools, or make san)"
}

# hrun ARG...: $HELPER, bounded (20 s); stdout in $T/out, stderr in $T/err,
# status in $RC.
hrun() {
	timeout 20 "$HELPER" "$@" >"$T/out" 2>"$T/err"
	RC=$?
}

# hsame DESC WANT_FILE ARG...: hrun ARG... exits 0, says nothing on
# stderr and prints WANT_FILE.
hsame() {
	local d=$1 want=$2
	shift 2
	hrun "$@"
	if [ "$RC" != 0 ] || [ -s "$T/err" ]; then
		not_ok "$d" "want exit 0 and no message" "$(_last_run)"
	else
		check_same "$d" "$want" "$T/out"
	fi
}

# finish: prints the test's summary and exits non-zero on any failure.
finish() {
	printf '# %s: %d passed, %d failed\n' "$TNAME" "$_npass" "$_nfail"
	[ "$_nfail" -eq 0 ]
	exit
}

# Stops a test that cannot go on, as a failure.
bail() {
	not_ok "cannot continue: $*"
	finish
}

# check_parked DESC KO FILE: every "-s NAME 0x0bad..." of the gdb command
# in FILE is aligned as KO's section NAME, inside 0x0bad000000000000 ..
# 0x0badffffffffffff, and no two parked sections overlap.
check_parked() {
	local d=$1 ko=$2 f=$3 bad
	bad=$(readelf -SW "$ko" | python3 -c '
import re, sys
secs = {}
for line in sys.stdin:
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+)\s.*\s(\d+)$", line)
    if m:
        secs[m.group(1)] = (int(m.group(2), 16), int(m.group(3)))
parked = []
for line in open(sys.argv[1]):
    if not line.startswith("add-symbol-file"):
        continue
    w = line.split()
    for i in range(len(w) - 2):
        if w[i] == "-s" and w[i + 2].startswith("0xbad"):
            n, a = w[i + 1], int(w[i + 2], 16)
            if n not in secs:
                print("unknown section", n); continue
            size, align = secs[n]
            if not 0x0bad000000000000 <= a <= 0x0badffffffffffff:
                print(n, "parked outside 0x0bad...:", w[i + 2])
            if align > 1 and a % align:
                print(n, "misaligned:", w[i + 2], "align", align)
            parked.append((a, a + max(size, 1), n))
if not parked:
    print("no parked section")
parked.sort()
for x, y in zip(parked, parked[1:]):
    if y[0] < x[1]:
        print(x[2], "overlaps", y[2])
' "$f" 2>&1)
	if [ -z "$bad" ]; then ok "$d"; else not_ok "$d" "$bad"; fi
}

# ---- fixtures ---------------------------------------------------------------

# mkmod DIR NAME [VARIANT] [SRCVERSION]: builds DIR/NAME.ko, a fake module
# with .text, .data, .bss, .rodata, .init.text, .data..percpu, .modinfo
# (srcversion=, name=) and __versions, and a GNU build-id note.  Each
# section has a pad symbol first so the tested symbols sit at non-zero
# offsets.  VARIANT changes the code, so the build-id differs.
mkmod() {
	local dir=$1 name=$2 variant=${3:-0} srcv=${4:-$SRCVERSION}
	mkdir -p "$dir"
	cat >"$dir/$name.c" <<EOF
int testmod_data_pad = 1;
int testmod_data = 42;
int testmod_bss_pad;
int testmod_bss;
const int testmod_table_pad[4] = { 9, 9, 9, 9 };
const int testmod_table[4] = { 1, 2, 3, $variant };
__attribute__((section(".data..percpu"))) int testmod_pcpu_pad = 5;
__attribute__((section(".data..percpu"))) int testmod_pcpu = 7;
__attribute__((section("__versions"), used)) static const char testmod_versions[64] = "module_layout";
static const char __UNIQUE_ID_srcversion[] __attribute__((section(".modinfo"), used)) = "srcversion=$srcv";
static const char __UNIQUE_ID_name[] __attribute__((section(".modinfo"), used)) = "name=$name";
int testmod_helper(int x) { return x + testmod_data_pad + testmod_bss_pad + testmod_table_pad[x & 3] + testmod_pcpu_pad; }
int testmod_func(int x) { return x * testmod_data + testmod_table[x & 3] + testmod_bss++ + testmod_pcpu; }
__attribute__((section(".init.text"))) int testmod_init(void) { return testmod_func(3) + testmod_helper(1); }
EOF
	gcc -g -O2 -fno-pic -mcmodel=kernel -fno-toplevel-reorder \
		-fno-asynchronous-unwind-tables -fno-unwind-tables -c -o "$dir/$name.o" "$dir/$name.c" &&
		ld -r --build-id=sha1 -o "$dir/$name.ko" "$dir/$name.o"
}

# build_id KO: the GNU build-id of KO, in hex.
build_id() {
	eu-readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'
}

# symval KO SYM: a symbol's value (offset in its section), as 0x hex.
symval() {
	local v
	v=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$v" ] && printf '0x%x\n' "0x$v"
}

# hexadd A B: A + B in 0x%x.
hexadd() {
	printf '0x%x\n' $(($1 + $2))
}

# mksysmod ROOT MOD KO [INITSTATE]: /sys/module/MOD of a loaded KO at the
# fixed addresses above, with notes/.note.gnu.build-id taken from KO.
mksysmod() {
	local root=$1 mod=$2 ko=$3 st=${4:-live} m s
	m=$root/sys/module/$mod
	mkdir -p "$m/sections" "$m/notes"
	echo "$st" >"$m/initstate"
	echo "$SRCVERSION" >"$m/srcversion"
	for s in ".text $A_TEXT" ".rodata $A_RODATA" ".note.gnu.build-id $A_NOTE" \
		".data $A_DATA" ".bss $A_BSS" ".init.text $A_INIT" \
		".symtab $A_SYMTAB" ".strtab $A_STRTAB"; do
		printf '%s\n' "${s#* }" >"$m/sections/${s%% *}"
	done
	objcopy -O binary --only-section=.note.gnu.build-id "$ko" \
		"$m/notes/.note.gnu.build-id"
}

# mkrelease ROOT: /proc/sys/kernel/{osrelease,arch}.
mkrelease() {
	mkdir -p "$1/proc/sys/kernel"
	echo "$REL" >"$1/proc/sys/kernel/osrelease"
	echo x86_64 >"$1/proc/sys/kernel/arch"
}

# install_mod BASE FILE RELPATH: copies FILE to
# BASE/lib/modules/$REL/kernel/RELPATH and runs depmod.
install_mod() {
	local dst=$1/lib/modules/$REL/kernel/$3
	mkdir -p "$(dirname "$dst")"
	cp "$2" "$dst"
	run_depmod "$1"
}

run_depmod() {
	mkdir -p "$1/lib/modules/$REL"
	depmod -b "$1" "$REL" 2>"$T/depmod.err" || {
		cat "$T/depmod.err" >&2
		return 1
	}
}

# std_fixture: $T/mod/testmod.ko and a fake root $R with it loaded (live)
# and installed as kernel/drivers/misc/testmod.ko.  Sets R, KO, BUILD_ID.
std_fixture() {
	KO=$T/mod/testmod.ko
	R=$T/root
	mkmod "$T/mod" testmod || return 1
	mkrelease "$R"
	mksysmod "$R" testmod "$KO" "${1:-live}" || return 1
	install_mod "$R" "$KO" drivers/misc/testmod.ko || return 1
	BUILD_ID=$(build_id "$KO")
	[ -n "$BUILD_ID" ]
}

# orc_fixture: as std_fixture, with ORC tables in the module as objtool
# writes them for 6.1 (the map's release): PC32 relocations against the
# functions, CALL entries (sp_reg 5 = SP, bp_reg 1 = PREV_SP), the last
# one in .init.text, which a live module has freed (t-orc, t-orc-lldb).
# Sets KO and R.
orc_fixture() {
	KO=$T/mod/testmod.ko
	R=$T/root
	mkmod "$T/mod" testmod || return 1
	cat >"$T/mod/orc.s" <<'S'
	.section .orc_unwind_ip,"a"
	.long testmod_func - .
	.long testmod_func + 4 - .
	.long testmod_helper - .
	.long testmod_init - .
	.section .orc_unwind,"a"
	.short 8, 0, 0x0005
	.short 16, -16, 0x0015
	.short 8, 0, 0x0005
	.short 8, 0, 0x0005
	.section .note.GNU-stack,"",@progbits
S
	as -o "$T/mod/orc.o" "$T/mod/orc.s" &&
		ld -r --build-id=sha1 -o "$KO" "$T/mod/testmod.o" "$T/mod/orc.o" &&
		mkrelease "$R" && mksysmod "$R" testmod "$KO" live &&
		install_mod "$R" "$KO" drivers/misc/testmod.ko
}

# image_capture IMAGE OFFSET: a capture (to stdout) of the kernel IMAGE's
# own kallsyms moved by OFFSET (a KASLR slide), with its release and
# build-id and a fake module, as a target running IMAGE would give; sets
# KD (kimage-dump --syms), REL and BID. Fails if IMAGE cannot be read.
image_capture() {
	KD=$T/kd
	"$TEST_TOOLS/kimage-dump" --syms "$1" >"$KD" 2>/dev/null || return 1
	REL=$(sed -n 's/^banner: [^ ]* Linux version \([^ ]*\) .*/\1/p' "$KD")
	BID=$(sed -n 's/^build-id: \([0-9a-f]*\) .*/\1/p' "$KD")
	echo "modsect-capture 1"
	echo "release $REL"
	echo "machine x86_64"
	echo "kernel-build-id $BID"
	echo "module fake live"
	echo "section fake .text 0xffffffffc0000000"
	python3 -c 'import re, sys
for l in open(sys.argv[1]):
    m = re.match(r"([0-9a-f]{16}) ([A-Za-z]) (\S+)$", l)
    if m:
        print("core %016x %s %s" % (int(m[1], 16) + int(sys.argv[2], 0), m[2], m[3]))' "$KD" "$2"
}

# split_debug KO STRIPPED DEBUG: STRIPPED is KO without DWARF (strip
# --strip-debug keeps the build-id note), DEBUG its separate debug file
# (objcopy --only-keep-debug: DWARF and the build-id, .modinfo NOBITS).
split_debug() {
	mkdir -p "$(dirname "$2")" "$(dirname "$3")" &&
		strip --strip-debug -o "$2" "$1" &&
		objcopy --only-keep-debug "$1" "$3"
}

# buildid_path ID: .build-id/xx/rest.debug, the build-id path below a debug
# directory.
buildid_path() {
	printf '.build-id/%s/%s.debug\n' "${1:0:2}" "${1:2}"
}

# put FILE DEST: copies FILE to DEST, making DEST's directory.
put() {
	mkdir -p "$(dirname "$2")" && cp "$1" "$2"
}

# A tiny static executable: lldb needs a target (on a real system vmlinux)
# before `target modules add`.
mkvmlinux() {
	printf 'void _start(void) { for (;;) ; }\n' >"$T/vmlinux.c"
	gcc -nostdlib -static -O2 -o "$T/vmlinux" "$T/vmlinux.c"
}

# ---- frame rules made from code (t-a64.sh, t-i386.sh) ----------------------

# code_cases TOOL EXPECTED: TOOL (tests/tools/a64cfi, i386cfi) on the
# linked $T/cases: its rows checked against EXPECTED (a file under tests/),
# the .debug_frame it writes read by binutils into $T/frames.
code_cases() {
	"$1" "$T/cases" "$T/cases.elf" >"$T/rows" 2>"$T/err"
	check_same "every function's rows are the frame its code has at each instruction (tests/${2#"$TESTS_DIR"/})" \
		"$2" "$T/rows"
	readelf -wF "$T/cases.elf" >"$T/frames" 2>&1
}

# code_fde ADDR: readelf's table in $T/frames of the FDE that starts at ADDR.
code_fde() {
	awk -v a="pc=$1" '$0 ~ a {on=1; next} on && /^$/ {exit} on' "$T/frames"
}

# code_addr DIGITS NAME: the address of symbol NAME of $T/cases, in DIGITS
# hex digits (readelf's width: 16 for ELF64, 8 for ELF32).
code_addr() {
	printf '%0*x' "$1" "$(awk -v n="$2" '$NF == n {print "0x" $2}' <(readelf -s "$T/cases"))"
}

# ---- debuggers ------------------------------------------------------------------

# gdb_eval SCRIPT CMD...: sources SCRIPT in an offline gdb and runs CMDs;
# output (stdout+stderr) in $T/gdb.out.
gdb_eval() {
	local script=$1 a=()
	shift
	local c
	for c in "$@"; do a+=(-ex "$c"); done
	gdb -nx -batch -ex "source $script" "${a[@]}" >"$T/gdb.out" 2>&1
}

# gdb_addr EXPR: the address gdb printed for `p &EXPR` / `info address`
# in $T/gdb.out, looked up by symbol name; lower-case 0x hex.
gdb_addr_of() {
	local sym=$1
	grep -E "<$sym>|Symbol \"$sym\" is" "$T/gdb.out" | head -1 |
		grep -oE '0x[0-9a-f]+' | tail -1
}

# lldb_eval SCRIPT CMD...: target create $T/vmlinux, command source SCRIPT,
# then CMDs; stdout in $T/lldb.out (stderr noise, e.g. lldb 14's python
# traceback, in $T/lldb.err).
lldb_eval() {
	local script=$1 a=()
	shift
	local c
	for c in "$@"; do a+=(-o "$c"); done
	lldb -b -o "target create $T/vmlinux" -o "command source $script" "${a[@]}" \
		>"$T/lldb.out" 2>"$T/lldb.err" </dev/null
}
