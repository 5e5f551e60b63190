#!/bin/bash
# make install / uninstall (PREFIX, DESTDIR): every file where the FHS puts
# it; the .deb from `dpkg-buildpackage -us -uc -b` holds the same files; the
# bash completion completes commands, options, module names (live under
# --root, and from each capture format) and files in a scripted bash
# session; the gdb and lldb `modsect` commands load modsect's output into
# the session and turn modsect's failures into debugger errors.
. "$(dirname "$0")/lib.sh"
need make gcc ld depmod objcopy nm gdb lldb man dpkg-buildpackage dh dpkg-deb || finish
std_fixture || bail "fixture"
mkvmlinux || bail "vmlinux for lldb"

# ---- make install / uninstall -------------------------------------------------
# The files `make install` puts below DESTDIR for PREFIX ($1), with modes.
want_files() {
	printf '755 %s\n' "$1/bin/modsect"
	printf '644 %s\n' "$1/share/bash-completion/completions/modsect" \
		"$1/share/man/man1/modsect.1" "$1/share/modsect/gdb/modsect.py" \
		"$1/share/modsect/lldb/modsect.py" "$1/share/modsect/python/modsect_stub.py"
}
got_files() {
	(cd "$1" && find . -type f -printf '%m /%P\n' | LC_ALL=C sort)
}

D=$T/dest
make -s -C "$TOP" install DESTDIR="$D" INSTALL_BIN="$MODSECT" >"$T/make.out" 2>&1
check "make install DESTDIR=D: exit 0" [ $? = 0 ]
want_files /usr/local | LC_ALL=C sort >"$T/want"
got_files "$D" >"$T/got"
check_same "make install: default PREFIX /usr/local, every file in its FHS place, modes 755/644" "$T/want" "$T/got"
check "make install: the binary is INSTALL_BIN" cmp -s "$MODSECT" "$D/usr/local/bin/modsect"
check "make install: the man page is man/modsect.1" cmp -s "$TOP/man/modsect.1" "$D/usr/local/share/man/man1/modsect.1"
check "make install: the completion is share/bash-completion/modsect.bash" \
	cmp -s "$TOP/share/bash-completion/modsect.bash" "$D/usr/local/share/bash-completion/completions/modsect"
for dbg in gdb lldb; do
	check_grep "make install: the $dbg script knows BINDIR (without DESTDIR)" \
		'^MODSECT_BINDIR = "/usr/local/bin"$' "$D/usr/local/share/modsect/$dbg/modsect.py"
done
MANWIDTH=80 man -l "$D/usr/local/share/man/man1/modsect.1" >"$T/man.out" 2>"$T/man.err" </dev/null
if [ $? = 0 ] && [ ! -s "$T/man.err" ] && grep -q '^SYNOPSIS' "$T/man.out"; then
	ok "man -l renders the installed page with no warnings"
else
	not_ok "man -l renders the installed page with no warnings" "$(cat "$T/man.err")"
fi

make -s -C "$TOP" uninstall DESTDIR="$D" >"$T/make.out" 2>&1
check "make uninstall: exit 0" [ $? = 0 ]
if [ -z "$(find "$D" -type f)" ] && [ ! -e "$D/usr/local/share/modsect" ]; then
	ok "make uninstall removes every file and share/modsect"
else
	not_ok "make uninstall removes every file and share/modsect" "$(find "$D")"
fi
make -s -C "$TOP" uninstall DESTDIR="$D" >"$T/make.out" 2>&1
check "make uninstall twice: exit 0" [ $? = 0 ]

U=$T/usr
make -s -C "$TOP" install DESTDIR="$U" PREFIX=/usr INSTALL_BIN="$MODSECT" >"$T/make.out" 2>&1
want_files /usr | LC_ALL=C sort >"$T/want"
got_files "$U" >"$T/got"
check_same "make install PREFIX=/usr: files below /usr" "$T/want" "$T/got"

# ---- the .deb ----------------------------------------------------------------------
# Built in a copy of the tree (dpkg-buildpackage writes to the parent
# directory and cleans the tree).
V=$(sed -n '1s/^modsect (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")
check_eq "debian/changelog version is modsect's version" "$VERSION" "$V"
mkdir -p "$T/deb/src"
(cd "$TOP" && cp -a Makefile README.md lib tools man share scripts debian "$T/deb/src/")
(cd "$T/deb/src" && dpkg-buildpackage -us -uc -b) >"$T/deb/build.log" 2>&1
rc=$?
DEB=$T/deb/modsect_${V}_$(dpkg --print-architecture).deb
if [ $rc = 0 ] && [ -f "$DEB" ]; then
	ok "dpkg-buildpackage -us -uc -b builds $(basename "$DEB")"
	dpkg-deb -x "$DEB" "$T/deb/root"
	# dh compresses the man page and adds the package's doc directory.
	{
		sed 's|/man1/modsect\.1$|/man1/modsect.1.gz|' "$T/want"
		printf '644 /usr/share/doc/modsect/%s\n' changelog.gz copyright
	} | LC_ALL=C sort >"$T/want.deb"
	got_files "$T/deb/root" >"$T/got.deb"
	check_same "the .deb holds the files of make install PREFIX=/usr (man page gzipped, doc dir)" \
		"$T/want.deb" "$T/got.deb"
	for f in share/bash-completion/completions/modsect share/modsect/gdb/modsect.py share/modsect/lldb/modsect.py \
		share/modsect/python/modsect_stub.py; do
		check "the .deb's /usr/$f is make install's" cmp -s "$U/usr/$f" "$T/deb/root/usr/$f"
	done
	if gzip -dc "$T/deb/root/usr/share/man/man1/modsect.1.gz" | cmp -s - "$U/usr/share/man/man1/modsect.1"; then
		ok "the .deb's man page is man/modsect.1"
	else
		not_ok "the .deb's man page is man/modsect.1"
	fi
	check_eq "the .deb's /usr/bin/modsect runs" "modsect $VERSION" \
		"$("$T/deb/root/usr/bin/modsect" --version 2>&1)"
	dpkg-deb -f "$DEB" Depends >"$T/deb/depends"
	check_grep "the .deb depends on the libraries it links (shlibs)" 'libelf1' "$T/deb/depends"
	# Opened with dlopen, so shlibs cannot see them: debian/control names them.
	check_grep "the .deb depends on libkmod2 (dlopen)" 'libkmod2' "$T/deb/depends"
	check_grep "the .deb depends on libkdumpfile10 (dlopen)" 'libkdumpfile10' "$T/deb/depends"
else
	not_ok "dpkg-buildpackage -us -uc -b builds $(basename "$DEB")" "$(tail -30 "$T/deb/build.log")"
fi

# ---- bash completion ---------------------------------------------------------------
# comp WORD...: COMPREPLY for the command line WORD... (cursor on the last
# word, or on word $CWORD), one per line, sorted, in $T/comp.
COMPFILE=$D/usr/local/share/bash-completion/completions/modsect
make -s -C "$TOP" install DESTDIR="$D" INSTALL_BIN="$MODSECT" >"$T/make.out" 2>&1
comp() {
	bash ${COMP_TRACE:+-x} -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@"); COMP_CWORD=${CWORD:-$((${#COMP_WORDS[@]} - 1))}; COMPREPLY=()
		_modsect
		printf "%s\n" "${COMPREPLY[@]}"
	' sh "$COMPFILE" "$@" 2>"$T/comp.err" | grep -v '^$' | LC_ALL=C sort >"$T/comp"
}
# check_comp DESC EXPECTED WORD...
check_comp() {
	local d=$1 want=$2
	shift 2
	comp "$@"
	printf '%s\n' "$want" | grep -v '^$' | LC_ALL=C sort >"$T/comp.want"
	if diff -u "$T/comp.want" "$T/comp" >"$T/comp.diff" && [ ! -s "$T/comp.err" ]; then
		ok "$d"
	else
		not_ok "$d" "completing: $*" "$(cat "$T/comp.diff" "$T/comp.err")"
	fi
}
check_comp "completion: a subcommand ('modsect sec' -> sections)" sections "$MODSECT" sec
check_comp "completion: subcommands ('modsect d')" $'debuginfo\ndecode' "$MODSECT" d
check_comp "completion: a command's options ('modsect capture --k')" $'--kallsyms\n--kernel-image' "$MODSECT" capture --k
check_comp "completion: options that apply ('modsect kallsyms --ca')" --capture "$MODSECT" kallsyms --ca
mkdir -p "$T/files/subdir"
: >"$T/files/layout.txt"
# Module names: live (under --root) and from each capture format.
check_comp "completion: module names of a live tree (--root R)" testmod "$MODSECT" gdb --root "$R" ""
mkdir -p "$R/sys/module/other_mod/sections" "$R/sys/module/nosections_mod"
check_comp "completion: live module names are those with sections/" $'other_mod\ntestmod' "$MODSECT" gdb --root "$R" ""
ms capture --root "$R" -o "$T/cap1.txt"
{
	echo "release $REL"
	echo "shloop_mod .text 0xffffffffc0000000"
	echo "shloop_mod .data 0xffffffffc0001000"
} >"$T/cap2.txt"
echo "/sys/module/grep_mod/sections/.text:0xffffffffc0002000" >"$T/cap3.txt"
printf '%s\n' "ffffffffc0000010 t some_fn [kallsyms_only]" "srcversion not_a_mod ABC" >>"$T/cap3.txt"
check_comp "completion: module names from a capture (section MOD SEC 0x...)" testmod \
	"$MODSECT" gdb --capture "$T/cap1.txt" ""
check_comp "completion: module names from a capture (MOD SEC 0x...)" shloop_mod \
	"$MODSECT" sections --capture "$T/cap2.txt" sh
check_comp "completion: module names from a capture (/sys/module/MOD/sections/...)" grep_mod \
	"$MODSECT" lldb --capture "$T/cap3.txt" ""
check_comp "completion: --capture=FILE" testmod "$MODSECT" debuginfo --capture = "$T/cap1.txt" te
CWORD=2 check_comp "completion: --capture after the cursor" testmod "$MODSECT" gdb te --capture "$T/cap1.txt"
check_comp "completion: debuginfo takes several modules" shloop_mod \
	"$MODSECT" debuginfo --capture "$T/cap2.txt" shloop_mod ""
check_comp "completion: sections takes one MODULE, then a FILE" "$T/files/layout.txt" \
	"$MODSECT" sections --capture "$T/cap2.txt" shloop_mod "$T/files/l"
# Files.
check_comp "completion: --capture FILE completes files" "$T/files/layout.txt" "$MODSECT" gdb --capture "$T/files/la"
check_comp "completion: -o FILE completes files" "$T/files/layout.txt"$'\n'"$T/files/subdir" "$MODSECT" gdb -o "$T/files/"
check_comp "completion: --moddir DIR completes directories only" "$T/files/subdir" "$MODSECT" gdb --moddir "$T/files/"
check_comp "completion: gdb MODULE FILE completes files" "$T/files/layout.txt" \
	"$MODSECT" gdb --root "$R" testmod "$T/files/l"
check_comp "completion: decode FILE completes files" "$T/files/layout.txt" "$MODSECT" decode "$T/files/l"
check_comp "completion: resolve ADDR completes nothing" "" "$MODSECT" resolve "$T/files/l"
# `modsect` found in PATH (COMP_WORDS[0] is the bare name).
PATH=$D/usr/local/bin:$PATH check_comp "completion: bare 'modsect' from PATH" capture modsect cap

# ---- gdb ---------------------------------------------------------------------------
off=$(symval "$KO" testmod_data)
want=$(hexadd "$A_DATA" "$off")
(cd "$TOP" && MODSECT=$MODSECT gdb -nx -batch -ex 'source share/gdb/modsect.py' \
	-ex "modsect gdb --root $R testmod" -ex 'info address testmod_data') >"$T/gdb.out" 2>&1
check_eq "gdb: 'modsect gdb --root R testmod' loads it: &testmod_data = .data + $off" "$want" "$(gdb_addr_of testmod_data)"
# The failure must be a gdb error (gdb.error in Python) with modsect's message.
cat >"$T/fail.gdb" <<GDB
source $TOP/share/gdb/modsect.py
python
try:
    gdb.execute("modsect gdb --root $R nosuchmod")
    print("NO ERROR")
except gdb.error as e:
    print("GDB ERROR: %s" % e)
end
info address testmod_data
GDB
MODSECT=$MODSECT gdb -nx -batch -x "$T/fail.gdb" >"$T/gdb.out" 2>&1
check_grep "gdb: a failing modsect is a gdb error with modsect's message" \
	'^GDB ERROR: modsect: module nosuchmod is not loaded' "$T/gdb.out"
check_grep "gdb: nothing is loaded after the error" 'No symbol "testmod_data" in current context' "$T/gdb.out"
MODSECT=$MODSECT gdb -nx -batch -ex "source $TOP/share/gdb/modsect.py" \
	-ex "modsect list --root $R" >"$T/gdb.out" 2>&1
check_grep "gdb: another command's output is printed ('modsect list')" '^testmod +live +0xffffffffc0a14000' "$T/gdb.out"
# The installed script, without $MODSECT, runs the modsect installed next to it.
(unset MODSECT; cd "$T" && gdb -nx -batch -ex "source $D/usr/local/share/modsect/gdb/modsect.py" \
	-ex "modsect gdb --root $R testmod" -ex 'info address testmod_data') >"$T/gdb.out" 2>&1
check_eq "gdb: the installed script finds the installed modsect (no \$MODSECT)" "$want" "$(gdb_addr_of testmod_data)"
# Sourced by another Python script in another directory (a Python gdbinit,
# a plugin loader), whose __file__ the globals keep: it still finds its
# stub and the modsect installed next to it.
mkdir -p "$T/loader"
cat >"$T/loader/load.py" <<PY
import gdb
gdb.execute("source $D/usr/local/share/modsect/gdb/modsect.py")
PY
(unset MODSECT; cd "$T" && gdb -nx -batch -ex "source $T/loader/load.py" \
	-ex "modsect gdb --root $R testmod" -ex 'info address testmod_data') >"$T/gdb.out" 2>&1
check_eq "gdb: sourced from another Python script, the installed script still loads the module" "$want" "$(gdb_addr_of testmod_data)"

# ---- lldb ----------------------------------------------------------------------------
# Debian's lldb 14 looks for its python module in the wrong place.
LLDB_PY=$(ls -d /usr/lib/llvm-*/lib/python3*/dist-packages/lldb/__init__.py 2>/dev/null | head -1)
LLDB_PY=${LLDB_PY%/lldb/__init__.py}
PYTHONPATH=$LLDB_PY${PYTHONPATH:+:$PYTHONPATH} MODSECT=$MODSECT lldb -b \
	-o "target create $T/vmlinux" -o "command script import $TOP/share/lldb/modsect.py" \
	-o "modsect lldb --root $R testmod" -o "image lookup -a $want" -o "target list" \
	>"$T/lldb.out" 2>"$T/lldb.err" </dev/null
check_grep "lldb: 'modsect lldb --root R testmod' loads it: $want is testmod_data" \
	'Summary: testmod_data$' "$T/lldb.out"
# With a target selected, the script's architecture lines (an empty target,
# target select 0) are not run: the vmlinux stays the only target.
check_eq "lldb: with a target, 'modsect lldb' makes no other target" "* target #0: $T/vmlinux" \
	"$(grep 'target #' "$T/lldb.out" | cut -d' ' -f1-4)"
# Without one, they are: an x86_64 target gets the module.
PYTHONPATH=$LLDB_PY${PYTHONPATH:+:$PYTHONPATH} MODSECT=$MODSECT lldb -b \
	-o "command script import $TOP/share/lldb/modsect.py" \
	-o "modsect lldb --root $R testmod" -o "image lookup -a $want" -o "target list" \
	>"$T/lldb.out" 2>"$T/lldb.err" </dev/null
if grep -q 'Summary: testmod_data$' "$T/lldb.out" &&
	[ "$(grep -c 'target #' "$T/lldb.out")" = 1 ] && grep -q '^\* target #0: .* ( arch=x86_64-' "$T/lldb.out"; then
	ok "lldb with no target: 'modsect lldb' makes the x86_64 target and loads the module into it"
else
	not_ok "lldb with no target: 'modsect lldb' makes the x86_64 target and loads the module into it" "$(cat "$T/lldb.out")"
fi
PYTHONPATH=$LLDB_PY${PYTHONPATH:+:$PYTHONPATH} MODSECT=$MODSECT lldb -b \
	-o "target create $T/vmlinux" -o "command script import $TOP/share/lldb/modsect.py" \
	-o "modsect lldb --root $R nosuchmod" -o "image lookup -a $want" \
	>"$T/lldb.out" 2>"$T/lldb.err" </dev/null
RC=$?
check_grep "lldb: a failing modsect is an lldb error with modsect's message" \
	'^error: modsect: module nosuchmod is not loaded' "$T/lldb.err"
check "lldb -b stops at that error (exit non-zero)" [ "$RC" != 0 ]
finish
