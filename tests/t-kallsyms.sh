#!/bin/bash
# modsect kallsyms: the core kernel's kallsyms as an ELF file (ET_EXEC,
# NOBITS sections over runs of text/rodata/data/bss symbols, .symtab with
# every core symbol at its runtime address, FUNC for t/T and weak w/W, OBJECT otherwise,
# size = distance to the next symbol), from ROOT/proc/kallsyms or a
# capture; `capture --kallsyms`; `gdb/lldb --all --kernel`.
#
# The listing is generated (fixed seed): a few thousand lines, t/T text
# (with aliases at one address, static functions sharing a name, weak W
# functions inside the text), R/r, D/d, B/b, A per-cpu offsets at small
# addresses, a run of init text past a gap of more than 16 MB, and the
# test module's "[testmod]" lines, which are no core symbols.
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy readelf eu-readelf gdb lldb python3 sha256sum || finish
std_fixture || bail "fixture"

# ---- the listing ------------------------------------------------------------
# $T/kallsyms       the /proc/kallsyms text
# $T/want.syms      "NAME ADDR(16 hex) FUNC|OBJECT SIZE" for every core
#                   symbol that is not absolute (A), sorted; SIZE is the
#                   distance to the next symbol at a higher address, "-"
#                   for the last one and the one before the > 16 MB gap
# $T/want.abs       "NAME ADDR" of the absolute (A) ones
# $T/samples        "ADDR NAME OFF BASE" 60 addresses inside symbols (offset
#                   below the size), for gdb info symbol and lldb
# $T/edges          the same for the last symbol of each run (the next
#                   symbol is of another kind) and the weak (W) ones
# $T/aliases        "ADDR NAME" every core name at every address
KSYM_SEED=20261203 python3 - "$T" "$A_TEXT" "$(symval "$KO" testmod_func)" "$A_DATA" "$(symval "$KO" testmod_data)" <<'EOF' || bail "generating the listing"
import os, random, sys
t, a_text, off_func, a_data, off_data = sys.argv[1:6]
rnd = random.Random(int(os.environ["KSYM_SEED"]))
syms = []  # (addr, type, name)
def add(a, ty, n): syms.append((a, ty, n))
# per-cpu offsets: absolute, small
add(0, "A", "fixed_percpu_data")
add(0, "A", "__per_cpu_start")
for i in range(1, 25):
    add(i * 0x1000, "A", "percpu_var_%d" % i)
add(25 * 0x1000, "A", "__per_cpu_end")
# text
a = 0xffffffff81000000
add(a, "T", "_stext")
add(a, "T", "_text")
a += 0x40
for i in range(2000):
    ty = rnd.choice("tT")
    name = "kfunc_%04d" % i
    if i % 97 == 5:
        name = "dup_static_fn"; ty = "t"
    if i % 211 == 17:
        ty = "W"; name = "weak_fn_%04d" % i
    add(a, ty, name)
    if i % 37 == 3:
        add(a, "T", name + "_alias")
    a += 16 * rnd.randint(1, 128)
add(a, "T", "_etext")
# rodata: within 16 MB of the text
a = (a + 0x1fffff) & ~0x1fffff
add(a, "R", "__start_rodata")
a += 0x100
for i in range(400):
    add(a, rnd.choice("rR"), "krodata_%03d" % i)
    a += 8 * rnd.randint(1, 64)
add(a, "R", "__end_rodata")
a = (a + 0x1fffff) & ~0x1fffff
add(a, "D", "_sdata")
a += 0x40
for i in range(400):
    ty = rnd.choice("dD")
    add(a, ty, "kdata_%03d" % i)
    if i % 50 == 7:
        add(a, "d", "kdata_%03d_alias" % i)
    a += 8 * rnd.randint(1, 64)
add(a, "D", "_edata")
a = (a + 0xfffff) & ~0xfffff
add(a, "B", "__bss_start")
a += 0x40
for i in range(300):
    add(a, rnd.choice("bB"), "kbss_%03d" % i)
    a += 8 * rnd.randint(1, 64)
add(a, "B", "__bss_stop")
gap_before = a
# init text, far away
a = 0xffffffff85000000
for i in range(100):
    add(a, "t", "kinit_%03d" % i)
    a += 16 * rnd.randint(1, 32)
add(a, "T", "_einittext")
syms.sort(key=lambda s: s[0])  # stable: the order above within an address
lines = ["%016x %s %s" % s for s in syms]
mods = [(int(a_text, 16) + int(off_func, 16), "t", "testmod_func"),
        (int(a_data, 16) + int(off_data, 16), "d", "testmod_data")]
lines += ["%016x %s %s\t[testmod]" % m for m in mods]
open(t + "/kallsyms", "w").write("\n".join(lines) + "\n")

core = [s for s in syms if s[1] not in "Aa"]
addrs = sorted(set(s[0] for s in syms))
nxt = {x: y for x, y in zip(addrs, addrs[1:])}
with open(t + "/want.syms", "w") as f:
    out = []
    for ad, ty, n in core:
        if ad == addrs[-1] or ad == gap_before:
            size = "-"
        else:
            size = str(nxt[ad] - ad)
        out.append("%s %016x %s %s" % (n, ad, "FUNC" if ty in "tTwW" else "OBJECT", size))
    f.write("\n".join(sorted(out)) + "\n")
with open(t + "/want.abs", "w") as f:
    f.write("".join("%s %016x\n" % (n, ad) for ad, ty, n in syms if ty in "Aa"))
with open(t + "/aliases", "w") as f:
    f.write("".join("%016x %s\n" % (ad, n) for ad, ty, n in core))
# The last symbol of each run: the next address has a symbol of another
# kind (text t/T, weak W, rodata, data, bss), and the W ones.
kind = lambda ty: {"t": "T", "r": "R", "d": "D", "b": "B"}.get(ty, ty)
kinds_at = {}
for ad, ty, n in core:
    kinds_at.setdefault(ad, set()).add(kind(ty))
with open(t + "/edges", "w") as f:
    for ad, ty, n in core:
        if ad not in nxt or ad == gap_before:
            continue
        if kinds_at[nxt[ad]] != kinds_at[ad] or "W" in kinds_at[ad]:
            off = (nxt[ad] - ad) // 2
            f.write("%016x %s %d %016x\n" % (ad + off, n, off, ad))
cand = [s for s in core if s[0] in nxt and s[0] != gap_before]
pick = rnd.sample(cand, 60)
with open(t + "/samples", "w") as f:
    for ad, ty, n in pick:
        off = rnd.randrange(0, nxt[ad] - ad)
        f.write("%016x %s %d %016x\n" % (ad + off, n, off, ad))
EOF
mkdir -p "$R/proc"
cp "$T/kallsyms" "$R/proc/kallsyms"
NLINES=$(wc -l <"$T/kallsyms")
NCORE=$(grep -vc '\[' "$T/kallsyms")
NABS=$(wc -l <"$T/want.abs")
NWANT=$(wc -l <"$T/want.syms")
E=$T/kernel.elf

# ---- kallsyms --root -o --------------------------------------------------------
ms kallsyms --root "$R" -o "$E"
if [ "$RC" = 0 ] && [ ! -s "$T/out" ] && [ ! -s "$T/err" ] && [ -s "$E" ]; then
	ok "kallsyms --root -o: exit 0, nothing on stdout or stderr, $(wc -c <"$E") bytes for $NLINES lines"
else
	not_ok "kallsyms --root -o" "$(_last_run)"
fi
[ -s "$E" ] || bail "no ELF file"

for tool in readelf eu-readelf; do
	if [ "$tool" = readelf ]; then a=(-a -W); else a=(-a); fi
	"$tool" "${a[@]}" "$E" >"$T/$tool.out" 2>"$T/$tool.err"
	rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$T/$tool.err" ]; then
		ok "$tool ${a[*]}: exit 0, nothing on stderr"
	else
		not_ok "$tool ${a[*]}: exit $rc" "$(head -n 20 "$T/$tool.err")"
	fi
done
readelf -hW "$E" >"$T/hdr"
check_grep "ELF header: ELF64" '^ +Class: +ELF64$' "$T/hdr"
check_grep "ELF header: EXEC" '^ +Type: +EXEC ' "$T/hdr"
check_grep "ELF header: the map's machine (x86_64)" '^ +Machine: +Advanced Micro Devices X86-64$' "$T/hdr"
# Sections: allocated ones NOBITS, text AX, rodata A, data and bss WA.
readelf -SW "$E" | python3 -c '
import re, sys
bad = []
kinds = {}
for l in sys.stdin:
    m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)", l)
    if not m or m.group(1) == "0":
        continue
    name, typ, addr, size, flags = m.group(2), m.group(3), m.group(4), m.group(5), m.group(6)
    if name in (".symtab", ".strtab", ".shstrtab"):
        continue
    kind = name.split(".")[1]
    want = {"text": "AX", "rodata": "A", "data": "WA", "bss": "WA"}.get(kind)
    if typ != "NOBITS" or flags != want:
        bad.append("%s: %s %s, want NOBITS %s" % (name, typ, flags, want))
    kinds[kind] = kinds.get(kind, 0) + 1
print(" ".join("%s=%d" % kv for kv in sorted(kinds.items())))
print("\n".join(bad))
' >"$T/secs"
if [ "$(sed -n 1p "$T/secs")" != "" ] && [ "$(sed 1d "$T/secs" | grep -c .)" = 0 ] &&
	grep -q 'text=2' "$T/secs" && grep -q 'bss=1' "$T/secs" && grep -q 'data=1' "$T/secs" && grep -q 'rodata=1' "$T/secs"; then
	ok "sections: NOBITS, text AX / rodata A / data, bss WA ($(sed -n 1p "$T/secs"))"
else
	not_ok "sections: want NOBITS text AX x2 (the init text is past a 16 MB gap), rodata A, data WA, bss WA" "$(cat "$T/secs")" "$(readelf -SW "$E" | head -n 30)"
fi

# The symbols as readelf says: "NAME ADDR TYPE SIZE NDX".
readelf -sW "$E" | python3 -c '
import sys
for l in sys.stdin:
    w = l.split()
    if len(w) < 8 or not w[0][:-1].isdigit() or w[6] == "UND":
        continue
    print(w[7], w[1], w[3], int(w[2], 0), w[6])
' | sort >"$T/got.all"
NGOT=$(wc -l <"$T/got.all")
check_eq "symbol count == the listing's $NCORE core symbols (the $NABS absolute ones included; the $((NLINES - NCORE)) [testmod] lines not)" "$NCORE" "$NGOT"
check_nogrep "no [testmod] symbol in the core ELF" '^testmod_' "$T/got.all"
# Every non-absolute (name, address) exactly.
cut -d' ' -f1,2 "$T/want.syms" | sort >"$T/want.na"
awk '$5 != "ABS"' "$T/got.all" | cut -d' ' -f1,2 | sort >"$T/got.na"
if d=$(diff "$T/want.na" "$T/got.na"); then
	ok "all $NWANT (name, address) pairs of the t/T/r/R/d/D/b/B/W lines round-trip exactly"
else
	not_ok "(name, address) pairs differ (< listing, > readelf -sW)" "$(head -n 20 <<<"$d")"
fi
# Absolute ones: in .symtab as ABS, at their value.
awk '$5 == "ABS" { print $1, $2 }' "$T/got.all" | sort >"$T/got.abs"
if d=$(diff <(sort "$T/want.abs") "$T/got.abs"); then
	ok "the $NABS absolute (A) symbols are in .symtab as SHN_ABS at their values"
else
	not_ok "absolute (A) symbols: not in .symtab as ABS with their values (< listing, > readelf -sW)" "$(head -n 10 <<<"$d")"
fi
# Types.
if d=$(diff <(awk '{ print $1, $2, $3 }' "$T/want.syms") <(awk '$5 != "ABS" { print $1, $2, $3 }' "$T/got.all")); then
	ok "types: FUNC for every t/T/w/W symbol, OBJECT for the others"
else
	not_ok "types differ (< want, > readelf)" "$(head -n 20 <<<"$d")"
fi
# Sizes: the distance to the next symbol, where there is one.
res=$(awk 'FILENAME == ARGV[1] { if ($4 != "-") want[$1 " " $2] = $4; next }
	($1 " " $2) in want { n++; if (want[$1 " " $2] != $4) { bad++; if (bad <= 10) print "  " $1 " at " $2 ": size " $4 ", next symbol at +" want[$1 " " $2] } }
	END { printf "RESULT %d %d\n", n, bad }' "$T/want.syms" "$T/got.all")
read -r _ nsz nbad <<<"$(tail -n 1 <<<"$res")"
if [ "${nbad:-1}" = 0 ] && [ "${nsz:-0}" -gt 3000 ]; then
	ok "sizes: all $nsz are the distance to the next symbol at a higher address"
else
	not_ok "sizes: $nbad of $nsz are not the distance to the next symbol" "$(sed '$d' <<<"$res")"
fi

# ---- gdb ---------------------------------------------------------------------------
awk '{ print "info symbol 0x" $1 }' "$T/samples" "$T/edges" >"$T/samples.gdb"
NEDGE=$(wc -l <"$T/edges")
gdb -nx -batch -ex "add-symbol-file $E" -x "$T/samples.gdb" \
	-ex 'whatis kfunc_0010' -ex 'whatis krodata_010' -ex 'whatis kdata_010' -ex 'whatis kbss_010' \
	>"$T/gdb.out" 2>"$T/gdb.err"
rc=$?
if [ "$rc" = 0 ] && grep -q "^add symbol table from file \"$E\"" "$T/gdb.out" &&
	! grep -vE '^warning: (Can.t read|No executable)' "$T/gdb.err" | grep -q .; then
	ok "gdb add-symbol-file FILE: accepted, exit 0, no error"
else
	not_ok "gdb add-symbol-file FILE: exit $rc" "$(head -n 20 "$T/gdb.err" "$T/gdb.out")"
fi
# "NAME + OFF in section S" (NAME in section S at offset 0); an alias at
# the same address will do.  gdb_symcheck FIRST COUNT: the info symbol
# answers FIRST..FIRST+COUNT-1 against $T/samples + $T/edges.
gdb_symcheck() {
	awk -v first="$1" -v cnt="$2" 'FILENAME == ARGV[1] { al[$1 " " $2] = 1; next }
	FILENAME != ARGV[4] { k++; if (k >= first && k < first + cnt) { a[++n] = $1; nm[n] = $2; off[n] = $3; b[n] = $4 } next }
	/ in section / || /^No symbol matches/ { m++; if (m >= first && m < first + cnt) g[m - first + 1] = $0 }
	END {
		for (i = 1; i <= n; i++) {
			w = g[i]; split(w, x, " ")
			good = (b[i] " " x[1]) in al && (off[i] == 0 ? x[2] == "in" : x[2] == "+" && x[3] == off[i] && x[4] == "in")
			if (good) okn++; else { bad++; if (bad <= 10) printf "  0x%s (%s+%d): %s\n", a[i], nm[i], off[i], w }
		}
		printf "RESULT %d %d\n", okn, bad
	}' "$T/aliases" "$T/samples" "$T/edges" "$T/gdb.out" 2>&1
}
res=$(gdb_symcheck 1 60)
read -r _ nok nbad <<<"$(tail -n 1 <<<"$res")"
if [ "${nbad:-1}" = 0 ] && [ "${nok:-0}" = 60 ]; then
	ok "gdb info symbol: 60 random addresses inside symbols -> 'NAME + OFF in section'"
else
	not_ok "gdb info symbol: $nbad of 60 wrong" "$(sed '$d' <<<"$res")"
fi
res=$(gdb_symcheck 61 "$NEDGE")
read -r _ nok nbad <<<"$(tail -n 1 <<<"$res")"
if [ "${nbad:-1}" = 0 ] && [ "${nok:-0}" = "$NEDGE" ]; then
	ok "gdb info symbol: the middle of the last symbol of each run and of each weak (W) symbol, $NEDGE addresses -> 'NAME + OFF in section'"
else
	not_ok "gdb info symbol: $nbad of $NEDGE addresses in the last symbol of a run or in a weak (W) symbol wrong" "$(sed '$d' <<<"$res")"
fi
check_eq "gdb whatis: text is code, rodata/data/bss are data" \
	"type = <text variable, no debug info>|type = <data variable, no debug info>|type = <data variable, no debug info>|type = <data variable, no debug info>" \
	"$(grep '^type = ' "$T/gdb.out" | tr '\n' '|' | sed 's/|$//')"

# ---- lldb ----------------------------------------------------------------------------
head -n 8 "$T/samples" | awk '{ print "image lookup -a 0x" $1 }' >"$T/samples.lldb"
lldb -b -o "target create $E" -o "command source -e false $T/samples.lldb" >"$T/lldb.out" 2>"$T/lldb.err" </dev/null
rc=$?
res=$(awk 'FILENAME == ARGV[1] { al[$1 " " $2] = 1; next }
	FILENAME == ARGV[2] { if (FNR <= 8) { a[++n] = $1; off[n] = $3; b[n] = $4 } next }
	/^\(lldb\) image lookup -a / { cur++; next }
	$1 == "Summary:" { s = $0; sub(/^ *Summary: /, "", s); sum[cur] = s }
	END {
		for (i = 1; i <= n; i++) {
			s = sum[i]; nm = s; sub(/^[^`]*`/, "", nm); split(nm, w, " ")
			good = (b[i] " " w[1]) in al && (off[i] == 0 ? w[2] == "" : w[2] == "+" && w[3] == off[i])
			if (good) okn++; else { bad++; printf "  0x%s (+%d): %s\n", a[i], off[i], s }
		}
		printf "RESULT %d %d\n", okn, bad
	}' "$T/aliases" "$T/samples" "$T/lldb.out" 2>&1)
read -r _ nok nbad <<<"$(tail -n 1 <<<"$res")"
if [ "$rc" = 0 ] && [ "${nbad:-1}" = 0 ] && [ "${nok:-0}" = 8 ]; then
	ok "lldb target create FILE + image lookup -a: 8 addresses -> 'FILE\`NAME + OFF'"
else
	not_ok "lldb image lookup -a: exit $rc, $nbad of 8 wrong" "$(sed '$d' <<<"$res")" "$(head -n 30 "$T/lldb.out")"
fi

# ---- captures ------------------------------------------------------------------------
ms capture --kallsyms --root "$R" -o "$T/capk.txt"
n=$(grep -c '^core ' "$T/capk.txt")
if [ "$RC" = 0 ] && [ "$n" = "$NCORE" ]; then
	ok "capture --kallsyms --root: $n 'core ADDR TYPE NAME' lines, one per core line of /proc/kallsyms"
else
	not_ok "capture --kallsyms --root: exit $RC, $n core lines, want $NCORE" "$(_last_run)"
fi
if d=$(diff <(grep -v '\[' "$T/kallsyms" | sort) <(awk '$1 == "core" { print $2, $3, $4 }' "$T/capk.txt" | sort)); then
	ok "capture --kallsyms: the core lines are the listing's core lines"
else
	not_ok "capture --kallsyms: core lines differ (< listing, > capture)" "$(head -n 10 <<<"$d")"
fi
check_nogrep "capture --kallsyms: no core line of a [testmod] symbol" '^core .* testmod_' "$T/capk.txt"
ms kallsyms --capture "$T/capk.txt" -o "$T/capk.elf"
if [ "$RC" = 0 ] && cmp -s "$E" "$T/capk.elf"; then
	ok "kallsyms --capture (capture --kallsyms) writes the same bytes as kallsyms --root"
else
	not_ok "kallsyms --capture of capture --kallsyms: exit $RC, other bytes than kallsyms --root" "$(_last_run)" "$(cmp "$E" "$T/capk.elf" 2>&1)"
fi
# Raw /proc/kallsyms lines (with the module's lines) in a capture.
{
	echo "release $REL"
	echo "machine x86_64"
	grep -r . "$R/sys/module/testmod/sections/" | sed "s|^$R||"
	cat "$T/kallsyms"
} >"$T/raw.cap"
ms kallsyms --capture "$T/raw.cap" -o "$T/raw.elf"
if [ "$RC" = 0 ] && cmp -s "$E" "$T/raw.elf"; then
	ok "kallsyms --capture of raw 'cat /proc/kallsyms' lines (+ grep -r sections): the same bytes"
else
	not_ok "kallsyms --capture of raw /proc/kallsyms lines: exit $RC, other bytes" "$(_last_run)" "$(cmp "$E" "$T/raw.elf" 2>&1)"
fi
# A machine with no module loaded: `capture --kallsyms` writes core lines
# and no section; `cat /proc/kallsyms` has no "[mod]" line.  kallsyms needs
# no module, and live (--root with an empty /sys/module) it works.
R0=$T/root-nomods
mkdir -p "$R0/sys/module" "$R0/proc"
cp -r "$R/proc/sys" "$R0/proc/"
cp "$T/kallsyms" "$R0/proc/kallsyms"
ms kallsyms --root "$R0" -o "$T/nomods-live.elf"
if [ "$RC" = 0 ] && cmp -s "$E" "$T/nomods-live.elf"; then
	ok "kallsyms --root with no module loaded: the same bytes"
else
	not_ok "kallsyms --root with no module loaded: exit $RC, other bytes" "$(_last_run)"
fi
ms capture --kallsyms --root "$R0" -o "$T/nomods.cap"
ms kallsyms --capture "$T/nomods.cap" -o "$T/nomods.elf"
if [ "$RC" = 0 ] && cmp -s "$E" "$T/nomods.elf"; then
	ok "kallsyms --capture of 'capture --kallsyms' with no module loaded (core lines only): the same bytes"
else
	not_ok "kallsyms --capture of 'capture --kallsyms' with no module loaded: exit $RC (capture --kallsyms wrote it with exit 0)" "$(_last_run)"
fi
grep -v '\[' "$T/kallsyms" >"$T/rawcore.txt"
ms kallsyms --capture "$T/rawcore.txt" -o "$T/rawcore.elf"
if [ "$RC" = 0 ] && cmp -s "$E" "$T/rawcore.elf"; then
	ok "kallsyms --capture of raw core /proc/kallsyms lines alone: the same bytes"
else
	not_ok "kallsyms --capture of raw core /proc/kallsyms lines alone: exit $RC" "$(_last_run)"
fi
# The machine comes from the map.
sed 's/^machine x86_64$/machine aarch64/' "$T/raw.cap" >"$T/arm.cap"
ms kallsyms --capture "$T/arm.cap" -o "$T/arm.elf"
if [ "$RC" = 0 ] && readelf -hW "$T/arm.elf" | grep -qE '^ +Machine: +AArch64$'; then
	ok "kallsyms of a capture with 'machine aarch64': EM_AARCH64"
else
	not_ok "kallsyms of an aarch64 capture: exit $RC, not AArch64" "$(_last_run)" "$(readelf -hW "$T/arm.elf" 2>&1 | grep Machine)"
fi

# ---- errors ----------------------------------------------------------------------------
ms kallsyms --root "$R"
check_refused "no -o: usage error, exit 2, names -o" 2 '-o FILE'
# A capture without core symbols.
ms capture --root "$R" -o "$T/nocore.txt"
ms kallsyms --capture "$T/nocore.txt" -o "$T/nocore.elf"
check_refused "capture without core symbols: exit 1, says capture --kallsyms" 1 'no core kernel symbols.*capture with --kallsyms'
check "capture without core symbols: no file written" [ ! -e "$T/nocore.elf" ]
# Hidden: every address zero (kptr_restrict), live and in a capture.
RH=$T/root-hidden
mkdir -p "$RH/proc"
cp -r "$R/sys" "$R/proc/sys" "$RH/" 2>/dev/null
mkdir -p "$RH/proc" && cp -r "$R/proc/sys" "$RH/proc/"
sed -E 's/^[0-9a-f]{16}/0000000000000000/' "$T/kallsyms" >"$RH/proc/kallsyms"
mkdir -p "$T/hid"
ms kallsyms --root "$RH" -o "$T/hid/k.elf"
check_refused "hidden addresses (all zero) live: exit 3, says kptr_restrict" 3 'zero.*kptr_restrict'
check "hidden addresses live: no file written, no temp file left" [ -z "$(ls -A "$T/hid")" ]
{
	echo "release $REL"
	echo "section testmod .text $A_TEXT"
	sed -E 's/^[0-9a-f]{16}/0000000000000000/' "$T/kallsyms" | grep -v '\['
} >"$T/hidden.cap"
ms kallsyms --capture "$T/hidden.cap" -o "$T/hid/k.elf"
check_refused "hidden addresses in a capture: exit 3, says kptr_restrict" 3 'zero.*kptr_restrict'
check "hidden addresses in a capture: no file written" [ -z "$(ls -A "$T/hid")" ]
ms kallsyms --root "$R" --capture "$T/capk.txt" -o "$T/hid/k.elf"
check_refused "--root and --capture: usage error, exit 2" 2 'exclude'

# ---- gdb / lldb --all --kernel -------------------------------------------------------
C=$T/cache
ms gdb --all --kernel --root "$R" --cache-dir "$C"
cp "$T/out" "$T/kernel.gdb"
SHA=$(sha256sum "$E" | cut -d' ' -f1)
KE=$C/$SHA.kallsyms.elf
# The architecture lines (tests/lib.sh GDB_ARCH) come first, then the
# core kernel, then the module.
cmds=$(grep -v '^#' "$T/kernel.gdb" | sed 1,3d | cut -d' ' -f1-2)
if [ "$RC" = 0 ] && [ "$(grep -v '^#' "$T/kernel.gdb" | head -n 3)" = "$(grep -v '^#' <<<"$GDB_ARCH")" ] &&
	[ "$(sed -n 1p <<<"$cmds")" = "add-symbol-file $KE" ] &&
	[ "$(sed -n 2p <<<"$cmds")" = "add-symbol-file $R/lib/modules/$REL/kernel/drivers/misc/testmod.ko" ] &&
	[ "$(wc -l <<<"$cmds")" = 2 ]; then
	ok "gdb --all --kernel: set architecture, 'add-symbol-file CACHE/<sha256>.kallsyms.elf', then the module"
else
	not_ok "gdb --all --kernel: want the architecture lines, add-symbol-file $KE, then testmod.ko" "$(_last_run)"
fi
check "gdb --all --kernel: the cached ELF is kallsyms -o's bytes" cmp -s "$E" "$KE"
check_grep "gdb --all --kernel: a comment says how many core symbols" "^# core kernel: $NCORE symbols" "$T/kernel.gdb"
# Real gdb: one source gives a core symbol and a module symbol.
S1=$(awk 'NR == 1 { print $1, $2, $3 }' "$T/samples")
read -r s1a s1n s1o <<<"$S1"
MF=$(hexadd "$A_TEXT" "$(symval "$KO" testmod_func)")
gdb -nx -batch -ex "source $T/kernel.gdb" -ex "info symbol 0x$s1a" -ex "info symbol $(hexadd "$MF" 2)" \
	-ex 'p &kfunc_0100' -ex 'p &testmod_func' >"$T/gdbk.out" 2>&1
KF100=$(awk '$3 == "kfunc_0100" { print $1 }' "$T/kallsyms")
if grep -qE "^$s1n (\+ $s1o )?in section " "$T/gdbk.out" && grep -qE '^testmod_func \+ 2 in section \.text of ' "$T/gdbk.out" &&
	grep -qE "^\\\$1 = .* 0x$KF100 <kfunc_0100>" "$T/gdbk.out" && grep -qE "^\\\$2 = .* $MF <testmod_func>" "$T/gdbk.out"; then
	ok "gdb sourcing it: info symbol names $s1n + $s1o (core) and testmod_func + 2 (module); &kfunc_0100, &testmod_func right"
else
	not_ok "gdb sourcing the --kernel script: core or module symbol not resolved" "$(cat "$T/gdbk.out")"
fi
ms lldb --all --kernel --root "$R" --cache-dir "$C"
cp "$T/out" "$T/kernel.lldb"
cmds=$(grep -v '^#' "$T/kernel.lldb" | sed 1,2d | head -n 3)
if [ "$RC" = 0 ] && [ "$(grep -v '^#' "$T/kernel.lldb" | head -n 2)" = "$(grep -v '^#' <<<"$LLDB_ARCH")" ] &&
	[ "$(sed -n 1p <<<"$cmds")" = "target modules add \"$KE\"" ] &&
	[ "$(sed -n 2p <<<"$cmds")" = "target modules load --file \"$KE\" --slide 0" ] &&
	grep -q '^target modules add .*testmod.ko' <<<"$(grep -v '^#' "$T/kernel.lldb" | sed 1,4d)"; then
	ok "lldb --all --kernel: the architecture lines, target modules add + load --slide 0 of the cached ELF, then the module"
else
	not_ok "lldb --all --kernel: want the cached ELF first" "$(_last_run)"
fi
mkvmlinux
lldb_eval "$T/kernel.lldb" "image lookup -a 0x$s1a" "image lookup -a $(hexadd "$MF" 2)"
if grep -qE "Summary: $SHA\.kallsyms\.elf\`$s1n( \+ $s1o)?\$" "$T/lldb.out" && grep -qE 'Summary: testmod.ko`testmod_func \+ 2( at testmod\.c:[0-9:]+)?$' "$T/lldb.out"; then
	ok "lldb sourcing it: image lookup -a names $s1n (core) and testmod_func + 2 (module)"
else
	not_ok "lldb sourcing the --kernel script: core or module symbol not resolved" "$(cat "$T/lldb.out")"
fi
finish
