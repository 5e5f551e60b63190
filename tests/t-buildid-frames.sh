#!/bin/bash
# decode of frames that print their module's build-id
# (CONFIG_STACKTRACE_BUILD_ID: "func+0x1a/0x60 [mod 0123...]"): the file
# is found by that build-id through --search and --moddir, through a
# --debug-dir's .build-id/xx/rest.debug alone (no map, no module
# directory), and through a real debuginfod; a module file or a map of
# another build is refused with one warning line and its frames pass
# through. And "func+0x0/0x.." return frames are looked up at func itself,
# while "prev+0x14/0x14" keeps the - 1.
. "$(dirname "$0")/lib.sh"
need gcc ld objcopy eu-addr2line eu-readelf objdump depmod debuginfod curl python3 || finish

# bf_prev ends with a call to a noreturn function and bf_func follows it
# with no padding (-falign-functions=1), so the return address of that
# call is bf_func's first byte: "bf_prev+0x14/0x14" (%pB) and
# "bf_func+0x0/..." (%pS) name the same address, and mean different lines.
mkbf() { # DIR VARIANT
	mkdir -p "$1"
	cat >"$1/bfmod.c" <<EOF
volatile int bf_sink;

__attribute__((noreturn)) void bf_die(int why);

__attribute__((noinline)) void bf_prev(int x)
{
	if (x > 3)
		bf_sink = x;
	bf_die(x);
}

__attribute__((noinline)) int bf_func(int x)
{
	bf_sink = x + $2;
	if (x == 7)
		bf_prev(x);
	return x * 2;
}

__attribute__((noinline)) int bf_caller(int x)
{
	int r = bf_func(x);

	bf_sink = r;
	return bf_func(r) + 2;
}
EOF
	gcc -g -O2 -fno-pic -mcmodel=kernel -fno-toplevel-reorder -falign-functions=1 \
		-c -o "$1/bfmod.o" "$1/bfmod.c" &&
		ld -r --build-id=sha1 -o "$1/bfmod.ko" "$1/bfmod.o"
}
M=$T/m
KO=$M/bfmod.ko
mkbf "$M" 1 || bail "build bfmod"
mkbf "$T/other" 2 || bail "build another bfmod"
BID=$(build_id "$KO")
BID2=$(build_id "$T/other/bfmod.ko")
check "fixture: two builds, two build-ids ($BID, $BID2)" \
	eval '[ ${#BID} = 40 ] && [ ${#BID2} = 40 ] && [ "$BID" != "$BID2" ]'
DD=$T/dd
DBG=$DD/$(buildid_path "$BID")
mkdir -p "$(dirname "$DBG")"
objcopy --only-keep-debug "$KO" "$DBG" || bail "objcopy --only-keep-debug"
check "fixture: the debug file's .text is NOBITS" \
	eval 'eu-readelf -S "$DBG" | grep -Eq "\] \.text +NOBITS"'

sym() { # NAME FIELD: value (hex, no 0x) or size (decimal) of a symbol
	eu-readelf -s "$KO" | awk -v n="$1" -v f="$2" '$8 == n { print $f; exit }'
}
PREV_SZ=$(sym bf_prev 3)
FUNC_OFF=$((16#$(sym bf_func 2)))
FUNC_SZ=$(sym bf_func 3)
CALLER_OFF=$((16#$(sym bf_caller 2)))
CALLER_SZ=$(sym bf_caller 3)
check "fixture: bf_func starts where bf_prev ends" [ "$FUNC_OFF" = "$PREV_SZ" ]
# The return address after bf_caller's first call.
RET=$(objdump -d --no-show-raw-insn "$KO" | awk '
	/<bf_caller>:/ { on = 1; next } /^$/ { on = 0 }
	on && /call/ { getline nxt; split(nxt, a, ":"); gsub(/ /, "", a[1]); print a[1]; exit }')
check "fixture: a call in bf_caller" test -n "$RET"
RET=$((16#$RET))
loc() { eu-addr2line -e "$KO" -j .text "$(printf '0x%x' "$1")"; }
LOC_CALLER=$(loc $((RET - 1)))
LOC_FUNC=$(loc "$FUNC_OFF")
LOC_PREV=$(loc $((FUNC_OFF - 1)))
check "fixture: bf_func's first line ($LOC_FUNC) is not bf_prev's last call's ($LOC_PREV)" \
	eval '[[ $LOC_FUNC == "$M"/bfmod.c:* ]] && [[ $LOC_PREV == "$M"/bfmod.c:* ]] && [ "$LOC_FUNC" != "$LOC_PREV" ]'

hx() { printf '0x%x' "$1"; }
F_CALLER="bf_caller+$(hx $((RET - CALLER_OFF)))/$(hx "$CALLER_SZ")"
F_FUNC="bf_func+0x0/$(hx "$FUNC_SZ")"
F_PREV="bf_prev+$(hx "$PREV_SZ")/$(hx "$PREV_SZ")"
cat >"$T/oops" <<EOF
[   20.000001] Call Trace:
[   20.000002]  <TASK>
[   20.000003]  $F_CALLER [bfmod $BID]
[   20.000004]  $F_FUNC [bfmod $BID]
[   20.000005]  $F_PREV [bfmod $BID]
[   20.000006]  ? schedule+0x10/0x100
[   20.000007]  </TASK>
EOF
cat >"$T/want" <<EOF
[   20.000001] Call Trace:
[   20.000002]  <TASK>
[   20.000003]  $F_CALLER [bfmod $BID] $LOC_CALLER
[   20.000004]  $F_FUNC [bfmod $BID] $LOC_FUNC
[   20.000005]  $F_PREV [bfmod $BID] $LOC_PREV
[   20.000006]  ? schedule+0x10/0x100
[   20.000007]  </TASK>
EOF

# check_decoded DESC: exit 0, every frame annotated, nothing on stderr.
check_decoded() {
	check_rc "$1: exit 0" 0
	check_same "$1: every [bfmod BUILDID] frame annotated" "$T/want" "$T/out"
	check_same "$1: nothing on stderr" /dev/null "$T/err"
}
# check_refused_once DESC WARNING: exit 1 (frames left unannotated, for a
# reason the warning gives), the report unchanged, and stderr exactly the
# one warning line.
check_refused_once() {
	check_rc "$1: exit 1 (a warning)" 1
	check_same "$1: the report passes through unchanged" "$T/oops" "$T/out"
	printf 'modsect: warning: %s\n' "$2" >"$T/want.err"
	check_same "$1: one warning line for the module, not one per frame" "$T/want.err" "$T/err"
}

# ---- (i) the module file, by name, has the printed build-id -----------------
ms decode --search "$M" --offline "$T/oops"
check_decoded "--search"
mkdir -p "$T/root/lib/modules/$REL/kernel/drivers"
cp "$KO" "$T/root/lib/modules/$REL/kernel/drivers/bfmod.ko"
run_depmod "$T/root" || bail "depmod"
ms decode --moddir "$T/root/lib/modules/$REL" --offline "$T/oops"
check_decoded "--moddir (modules.dep)"

# ---- (ii) no map, no module directory: .build-id under --debug-dir ----------
ms decode --offline "$T/oops"
check_rc "no file anywhere: exit 1" 1
check_same "no file anywhere: the report passes through" "$T/oops" "$T/out"
check_eq "no file anywhere: one warning, naming the module" 1 \
	"$(grep -c '^modsect: warning: .*bfmod.*; its frames are left unannotated$' "$T/err")"
ms decode --offline --debug-dir "$DD" "$T/oops"
check_decoded "only --debug-dir DIR/$(buildid_path "$BID") (objcopy --only-keep-debug)"
ms decode --offline --debug-dir "$DD" - <"$T/oops"
check_decoded "only --debug-dir, report on standard input"

# ---- (iii) through a real debuginfod ----------------------------------------
mkdir -p "$T/srv"
objcopy --only-keep-debug "$KO" "$T/srv/bfmod.ko.debug"
"$TESTS_DIR/debuginfod-server.sh" -b "$BID" -l 90 "$T/srv" "$T/dstate" \
	>"$T/url" 2>"$T/server.err" </dev/null &
_bg_pids="${_bg_pids-} $!"
for _ in $(seq 150); do
	[ -s "$T/url" ] && break
	sleep 0.2
done
URL=$(head -1 "$T/url")
if [[ $URL =~ ^http://127\.0\.0\.1:[0-9]+$ ]]; then
	ok "debuginfod-server.sh: serving $BID at $URL"
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$T/dcache ms decode "$T/oops"
	check_decoded "debuginfod (DEBUGINFOD_URLS, no flags)"
	check "debuginfod: the debug file is in DEBUGINFOD_CACHE_PATH" \
		cmp -s "$T/srv/bfmod.ko.debug" "$T/dcache/$BID/debuginfo"
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$T/dcache2 ms decode --offline "$T/oops"
	check_same "debuginfod with --offline: not asked, the report passes through" "$T/oops" "$T/out"
	check "debuginfod with --offline: nothing cached" [ ! -e "$T/dcache2/$BID" ]
else
	not_ok "debuginfod-server.sh: serving $BID" "url: '$URL'" "$(cat "$T/server.err")"
fi

# ---- (iv) a module file of another build is refused -------------------------
ms decode --search "$T/other" --offline "$T/oops"
check_refused_once "--search with another build" \
	"module bfmod: no file has build-id $BID ($T/other/bfmod.ko has $BID2); its frames are left unannotated"
ms decode --search "$T/other" --offline --debug-dir "$DD" "$T/oops"
check_decoded "another build by name, the printed one in --debug-dir: the debug file"

# ---- (d) a map whose module is of another build ------------------------------
TEXT=0xffffffffc0b00000
printf 'release %s\nbfmod .text %s\nbuild-id bfmod %s\n' "$REL" "$TEXT" "$BID2" >"$T/cap2"
printf '[   20.000008]  [<%016x>] %s [bfmod %s]\n' $((TEXT + RET)) "$F_CALLER" "$BID" >>"$T/oops"
ms decode --capture "$T/cap2" --search "$M" --offline "$T/oops"
check_refused_once "--capture with the module's build-id another" \
	"module bfmod: the report prints build-id $BID, but the map ($T/cap2) has $BID2; its frames are left unannotated"
printf '[   20.000008]  [<%016x>] %s [bfmod %s] %s\n' $((TEXT + RET)) "$F_CALLER" "$BID" "$LOC_CALLER" >>"$T/want"
printf 'release %s\nbfmod .text %s\nbuild-id bfmod %s\n' "$REL" "$TEXT" "$BID" >"$T/cap"
ms decode --capture "$T/cap" --search "$M" --offline "$T/oops"
check_decoded "--capture with the printed build-id"
# A map without build-ids (the README's sh forms): the file must have it.
printf 'release %s\nbfmod .text %s\n' "$REL" "$TEXT" >"$T/cap0"
ms decode --capture "$T/cap0" --search "$M" --offline "$T/oops"
check_decoded "--capture without build-ids, file of the printed build"
ms decode --capture "$T/cap0" --search "$T/other" --offline "$T/oops"
check_refused_once "--capture without build-ids, file of another build" \
	"module bfmod: no file has build-id $BID ($T/other/bfmod.ko has $BID2); its frames are left unannotated"

# ---- (v) "func+0x0" is func's first byte; "prev+size/size" keeps the - 1 ----
cat >"$T/oops0" <<EOF
[   21.000001] Call Trace:
[   21.000002]  $F_FUNC [bfmod]
[   21.000003]  $F_PREV [bfmod]
EOF
ms decode --search "$M" --offline "$T/oops0"
check_rc "+0x0: exit 0" 0
check_grep "$F_FUNC [bfmod] is bf_func's first line, not bf_prev's" \
	"^\[   21\.000002\]  $(sed 's/[+.]/\\&/g' <<<"$F_FUNC") \[bfmod\] ${LOC_FUNC}\$" "$T/out"
check_grep "$F_PREV [bfmod] is looked up at - 1: bf_prev's noreturn call" \
	"^\[   21\.000003\]  $(sed 's/[+.]/\\&/g' <<<"$F_PREV") \[bfmod\] ${LOC_PREV}\$" "$T/out"

finish
