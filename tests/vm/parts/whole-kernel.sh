# shellcheck shell=bash
# tests/vm/parts/whole-kernel.sh - sourced by tests/vm/test.sh (section 8).
#
# Proves the whole kernel without a debug vmlinux: `modsect kallsyms` and
# `gdb --all --kernel` of the guest's capture --kallsyms against its whole
# /proc/kallsyms (kallsyms-all.txt): every (name, address), sizes to the
# next symbol; gdb attached to the guest sources the script, stops in
# modsect_test_poke, bt names poke_set, param_attr_store and other core
# frames (pc inside the kallsyms symbol, names in the kernel's own call
# trace); info symbol of 100 addresses inside random text symbols (fixed
# seed); lldb --all --kernel offline image lookup -a of 10.
#
# Uses decode.sh's $W/decode/core-frames (the kernel's call trace), boot.sh's
# $W/modules, capture-gdb.sh's $W/static.gdb, test.sh's DEF_CACHE and note.

# --- 8. the whole kernel: gdb/lldb --all --kernel from capture --kallsyms ------
# No debug vmlinux: the core kernel's symbols come from the guest's
# `modsect capture --kallsyms` as an ELF file (`modsect kallsyms`), loaded
# first by `modsect gdb --all --kernel`.  Checked against the guest's whole
# /proc/kallsyms (kallsyms-all.txt): every symbol at its address, sizes to
# the next symbol; gdb attached to the guest stops in modsect_test_poke and
# `bt` names the core frames of the sysfs write (each pc inside that
# symbol); `info symbol` of 100 addresses inside random text symbols (fixed
# seed) gives the symbol and offset; lldb offline the same for a few.
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
