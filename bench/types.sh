#!/bin/bash
# The kernel's types from BTF against Debian's debug vmlinux, on the host:
# what users loaded before (gdb or lldb with the 860 MB package's vmlinux)
# and what modsect gives with none.
#
#   bench/lxsymbols.sh prepare REL     (fetches the debug vmlinux, once)
#   bench/types.sh REL                 (REL: 6.1.0-57-amd64)
#   BENCH_RUNS=7 BENCH_PTYPES=500 bench/types.sh REL
#
# A capture of the image's own kallsyms (link addresses, as in the debug
# vmlinux) with its BTF (capture format's btf lines) stands for the target.
#   build   modsect kallsyms --capture (types: BTF to DWARF) against the
#           same capture without BTF (symbols only); the difference is the
#           types' cost, the BTF's hex decoding included
#   gdb     gdb -batch: file, ptype struct task_struct, ptype do_init_module
#           on modsect's ELF and on the debug vmlinux
#   lldb    lldb -b: target create, type lookup task_struct, the same two
# Runs alternate between the variants, BENCH_RUNS rounds (default 5); per
# variant the median, min and max wall time, with the command. Then the
# sizes, and `ptype` of BENCH_PTYPES structs and unions (default 300,
# spread over the BTF's uniquely named ones) in gdb with each, compared;
# what differs is listed by kind. Output in bench/out/types/ (gitignored).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
rel=${1:?usage: bench/types.sh REL}
out=$here/out/types
runs=${BENCH_RUNS:-5}
nptype=${BENCH_PTYPES:-300}
img=/boot/vmlinuz-$rel
vmlinux=$here/out/lx/$rel/vmlinux
[ -f "$vmlinux" ] || { echo "no $vmlinux: run bench/lxsymbols.sh prepare $rel" >&2; exit 1; }
mkdir -p "$out"
make -s -C "$top" modsect build/tests/kimage-dump build/tests/btfdwarf
M=$top/modsect
export XDG_CACHE_HOME=$out/cache

"$top/build/tests/kimage-dump" --syms "$img" >"$out/kd.txt"
"$top/build/tests/btfdwarf" --extract "$img" "$out/vmlinux.btf"
{
	echo "modsect-capture 1"
	echo "release $rel"
	echo "machine x86_64"
	grep -E '^[0-9a-f]{16} [A-Za-z] ' "$out/kd.txt" | sed 's/^/core /'
} >"$out/syms.cap"
{
	cat "$out/syms.cap"
	echo "btf-size $(stat -c %s "$out/vmlinux.btf")"
	od -An -v -tx1 -w64 "$out/vmlinux.btf" | tr -d ' ' | sed 's/^/btf /'
} >"$out/types.cap"
"$M" kallsyms --capture "$out/types.cap" -o "$out/types.elf"
"$M" kallsyms --capture "$out/syms.cap" -o "$out/syms.elf"

now() { date +%s.%N; }
declare -A T CMD
# run NAME CMD...: one timed run of CMD, appended to T[NAME]
run() {
	local name=$1 t0 t1
	shift
	CMD[$name]="$*"
	t0=$(now)
	"$@" >/dev/null 2>&1 </dev/null
	t1=$(now)
	T[$name]="${T[$name]:-} $(echo "$t1 - $t0" | bc)"
}
GDB=(gdb -q -nx -batch -ex 'ptype struct task_struct' -ex 'ptype do_init_module')
LLDB=(lldb -b -o 'type lookup task_struct' -o 'image lookup -t module')
for i in $(seq "$runs"); do
	run build-types "$M" kallsyms --capture "$out/types.cap" -o "$out/t.elf"
	run build-symbols "$M" kallsyms --capture "$out/syms.cap" -o "$out/s.elf"
	run gdb-modsect "${GDB[@]}" "$out/types.elf"
	run gdb-vmlinux "${GDB[@]}" "$vmlinux"
	run lldb-modsect "${LLDB[@]}" "$out/types.elf"
	run lldb-vmlinux "${LLDB[@]}" "$vmlinux"
done
{
	echo "# bench/types.sh $rel, $runs alternating runs, $(nproc) CPUs, $(date -u +%F)"
	for n in build-types build-symbols gdb-modsect gdb-vmlinux lldb-modsect lldb-vmlinux; do
		# shellcheck disable=SC2086
		printf '%-14s %s   # %s\n' "$n" "$(printf '%s\n' ${T[$n]} | sort -n |
			awk '{ a[NR] = $1 } END { printf "median %.3f s (min %.3f, max %.3f)", a[int((NR + 1) / 2)], a[1], a[NR] }')" "${CMD[$n]}"
	done
	echo "sizes: modsect ELF $(stat -c %s "$out/types.elf") bytes (symbols only $(stat -c %s "$out/syms.elf")), BTF $(stat -c %s "$out/vmlinux.btf"), debug vmlinux $(stat -c %s "$vmlinux")"
} | tee "$out/summary.txt"

# ptype, side by side: a spread of the uniquely named structs and unions.
bpftool btf dump file "$out/vmlinux.btf" -j >"$out/btf.json"
python3 "$top/tests/vm/btfexpect.py" "$out/btf.json" >"$out/expect.json"
python3 - "$out/expect.json" "$nptype" >"$out/names.txt" <<'EOF'
import json, sys
e = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
for x in e[::max(1, len(e) // n)][:n]:
    print(x["kind"] + " " + x["name"])
EOF
for f in modsect vmlinux; do
	obj=$out/types.elf
	[ $f = vmlinux ] && obj=$vmlinux
	PTYPE_NAMES=$out/names.txt PTYPE_OUT=$out/ptype-$f.txt gdb -q -nx -batch \
		-ex "file $obj" -ex "source $top/tests/vm/typesgdb.py" -ex "python ms_ptypes()" >/dev/null 2>&1
done
python3 - "$out/ptype-modsect.txt" "$out/ptype-vmlinux.txt" <<'EOF' | tee -a "$out/summary.txt"
import collections, re, sys


def read(p):
    d, cur = {}, None
    for line in open(p):
        if line.startswith("=== "):
            cur = line[4:].strip()
            d[cur] = []
        elif cur:
            d[cur].append(line.rstrip("\n"))
    return d


def flat(line):
    """int x[3][24] as int x[72]."""
    def prod(m):
        n = 1
        for d in re.findall(r"\[(\d+)\]", m.group(0)):
            n *= int(d)
        return "[%d]" % n
    return re.sub(r"(\[\d+\]){2,}", prod, line)


a, b = read(sys.argv[1]), read(sys.argv[2])
same = 0
kinds = collections.Counter()
examples = {}
for name in a:
    x, y = a[name], b.get(name, [])
    if x == y:
        same += 1
        continue
    for l1, l2 in zip(x, y):
        if l1 == l2:
            continue
        if re.sub(r"\[0\]", "[]", l2) == l1:
            k = "flexible array: BTF cannot tell [0] from [], modsect writes []"
        elif flat(l2) == l1:
            k = "multi-dimensional array: pahole's BTF keeps one dimension, the product"
        elif re.sub(r"\b(const |volatile )", "", l1) == re.sub(r"\b(const |volatile )", "", l2):
            k = "qualifier"
        elif l1.replace("unsigned long", "u64") != l1 or "u64" in l2:
            k = "typedef name (pahole's BTF dedup merged two names of one type)"
        else:
            k = "other"
        kinds[k] += 1
        examples.setdefault(k, "%s: %s | %s" % (name, l1.strip(), l2.strip()))
    if len(x) != len(y):
        kinds["member count"] += 1
        examples.setdefault("member count", name)
print("ptype of %d structs and unions: %d identical to the debug vmlinux's" % (len(a), same))
for k, n in kinds.most_common():
    print("  differing lines, %s: %d (e.g. %s)" % (k, n, examples[k]))
EOF
