# shellcheck shell=bash
# tests/vm/parts/decode.sh - sourced by tests/vm/test.sh (section 7).
#
# Proves `modsect decode` and `resolve` on a real report: the guest writes
# the warn parameter: warn_set -> modsect_test_warn (noinline) ->
# modsect_test_warn_inline (__always_inline) -> WARN(1, ...).  Its dmesg
# through `modsect decode` with and without the capture, and with the DWARF
# only in a --debug-dir: each [modsect_test] frame (WARNING, RIP, call
# trace) annotated with the function, file:line:col and inlined helper that
# eu-addr2line and the source give, every other line unchanged; raw
# [<addr>] frames need the map.  resolve with the guest's `modsect capture
# --kallsyms`: core addresses from the guest's /proc/kallsyms name the call
# trace's "F+0xOFF/0xSIZE [kernel]"; the raw RIP gives modsect_test_warn
# with the inline chain.
#
# Leaves $W/decode/core-frames (the report's core frames) for
# whole-kernel.sh.  Uses boot.sh's $SD/$DD, CAP_static and symbol lists.

# --- 7. decode a WARN from an inlined helper; resolve core addresses -------------
# The guest writes the warn parameter: warn_set -> modsect_test_warn
# (noinline) -> modsect_test_warn_inline (__always_inline) -> WARN(1, ...).
# Its dmesg goes through `modsect decode`: every [modsect_test] frame must
# be annotated as eu-addr2line says at the frame's section offset (address
# - 1 for call-trace frames), at the lines of the source, with the inlined
# helper on its own line; all other lines pass through unchanged.
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
# Where execution was: x86-64's "RIP: 0010:", i386's "EIP: ", arm64's "pc : ",
# ppc64le's "NIP [ADDRESS] ".  A call-trace entry: "  func", on ppc64le
# "[SP] [ADDRESS] func" (arch/powerpc/kernel/process.c show_stack).
TRACE_PFX='  '
case $VM_ARCH in
x86_64) RIP_PFX='RIP: 0010:' ;;
i686) RIP_PFX='EIP: ' ;;
aarch64) RIP_PFX='pc : ' ;;
ppc64le) RIP_PFX='NIP \[[0-9a-f]+\] ' TRACE_PFX=' \[[0-9a-f]+\] \[[0-9a-f]+\] ' ;;
esac
RIP_NR=$(lineof "$RIP_PFX""modsect_test_warn$FRAME_RE")
WS_NR=$(lineof "^\\[[ 0-9.]+\\]$TRACE_PFX""warn_set$FRAME_RE")
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
# A frame is exact on RIP (EIP, pc, NIP) and WARNING lines, a return address
# elsewhere (as kernel.sh takes them).
awk '{
	if (!match($0, /[A-Za-z0-9_.$]+\+0x[0-9a-f]+\/0x[0-9a-f]+ \[modsect_test\]/)) next
	f = substr($0, RSTART, RLENGTH); pre = RSTART - 1
	split(f, a, /[+\/ ]/)
	print NR, (($0 ~ /RIP: / || $0 ~ /EIP: / || $0 ~ / pc : / || $0 ~ /WARNING: / || $0 ~ / NIP \[/) ? 1 : 0), pre, a[1], a[2], a[3]
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
	# (powerpc's first call-trace entry ends in " (unreliable)".)
	l1=$(grep -c -vE ' (\[modsect_test\]|\(inlined\)) [^ ]*:[0-9]+:[0-9]+( \(unreliable\))?$' "$DC/$name.out" || true)
	l2=$(grep -c -vE '\[modsect_test\]( \(unreliable\))?$' "$DC/warn.log" || true)
	if diff <(grep -vE ' (\[modsect_test\]|\(inlined\)) [^ ]*:[0-9]+:[0-9]+( \(unreliable\))?$' "$DC/$name.out") \
		<(grep -vE '\[modsect_test\]( \(unreliable\))?$' "$DC/warn.log") >/dev/null; then
		ok "$label: the $l1 lines without a module frame (core frames, registers, Code:, other messages) unchanged"
	else
		not_ok "$label: lines without a module frame changed ($l1 lines out, $l2 in)"
	fi
}
STATIC_ARGS=(--capture "$CAP_static" "${VM_MODDIR_ARGS[@]}")
check_decode "decode --capture --search (full .ko)" decode-cap "${STATIC_ARGS[@]}" --search "$TD" --offline
check_decode "decode --search (full .ko, no map)" decode-nomap --search "$TD" --offline
# The DWARF only in a --debug-dir (boot.sh's stripped module and debug dir).
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
