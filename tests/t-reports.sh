#!/bin/bash
# Rule 20: each report in a stream on its own (the end of this file).
# decode on real reports (issue #14): excerpts of public kernel reports in
# tests/reports/ (SOURCES.md names each one's source), taken verbatim. For
# each report a generator below parses its module frames and writes, for
# every module named, an assembly file with functions of exactly the
# printed names and sizes, one instruction per source line (1-byte nop on
# x86-64, 4-byte nop on arm64 and 32-bit ARM), assembled with -g and
# linked like a module (.modinfo name=, a build-id: the printed one when
# the report prints build-ids). Where the report prints raw addresses
# beside the symbols, the functions sit where those addresses put them
# and a capture gives the map. decode runs over the verbatim report, and
# each run is checked: exit 0 and nothing on stderr; (a) with modsect's
# annotations taken out, the output is the input byte for byte; (b) every
# module frame carries the location eu-addr2line gives for the address the
# kernel means; (c) the whole output is exactly that (nothing else
# annotated). The address the kernel means: func+off; looked up there for
# a program counter (RIP:, EIP:, pc :, PC is at, the first entry of an
# arm64 "Call trace:" after a register dump, a WARNING that trapped, i.e.
# x86-64 since 4.11 and arm64) and for "func+0x0/"; at - 1 for return
# addresses: call-trace entries, lr :, LR is at, KASAN's "BUG: KASAN: ...
# in func+off" (kasan_report's _RET_IP_), and the WARNING of kernels that
# warn through warn_slowpath_*() (32-bit ARM; x86's "func+off/size
# [mod]()" format), whose address is the caller's return address, the
# same the trace prints right below it.
. "$(dirname "$0")/lib.sh"
need as ld aarch64-linux-gnu-as aarch64-linux-gnu-ld arm-linux-gnueabi-as \
	arm-linux-gnueabi-ld objcopy eu-addr2line eu-readelf python3 || finish

REPORTS=$TESTS_DIR/reports
# The interpreter itself: a version manager's python3 shim costs a third
# of a second a run.
PY=$(python3 -c 'import sys; print(sys.executable)') || bail "python3 does not run"
GEN=$T/gen.py
cat >"$GEN" <<'PY'
#!/usr/bin/env python3
# gen.py layout REPORT ARCH OUT: parses REPORT's module frames, writes
#   OUT/MOD.s (a module whose functions have the printed names and sizes,
#   one instruction per source line), OUT/modules (MOD BUILDID|- BASE|-)
#   and OUT/frames.json.
# gen.py expect REPORT ARCH OUT MODE SRCDIR: with OUT/MOD.ko built, writes
#   OUT/expect.MODE (the report with every frame annotated as the kernel
#   means it, eu-addr2line's location appended after the frame) and
#   OUT/frames.MODE (one "LINE<TAB>FRAME<TAB>LOCATION" per frame).
#   MODE "map": raw addresses resolve through the map; "nomap": frames
#   given only as raw addresses pass through.
# gen.py strip OUTPUT SRCDIR: OUTPUT without modsect's annotations.
import json
import re
import subprocess
import sys

SYM = r'([A-Za-z_.$][\w.$]*)\+0x([0-9a-f]+)/0x([0-9a-f]+) \[([\w-]+)(?: ([0-9a-f]{40}))?\]'
SYM_RE = re.compile(r'(?<![\w.$])' + SYM)
# 32-bit ARM: "[<bf254560>] (func+0x860/0xba0 [mod])", before 3.15 also
# for the "where" half; since then "[<bf254560>] (func [mod])".
ARM_SYM_RE = re.compile(r'\[<([0-9a-f]{8})>\] \(' + SYM + r'\)')
ARM_RAW_RE = re.compile(r'\[<([0-9a-f]{8})>\] \(([\w.$]+) \[([\w-]+)\]\)')
# x86 before 4.x: "[<ffffffffa08eb05a>] ? func+0x40a/0x4c0 [mod]"
X86_RAW_SYM_RE = re.compile(r'\[<([0-9a-f]{16})>\] (?:\? )?' + SYM)


def lines_of(path):
    with open(path, 'rb') as f:
        data = f.read().decode('latin-1')
    return data.split('\n')


def frames_of(report, arch):
    """Every module frame: where it is, what it names and how the kernel
    means its address (exact, or a return address looked up at - 1)."""
    out = []
    regs = False          # a register dump was printed (pc : / PC is at)
    first_entry = False   # the next trace entry is the regs' pc
    for n, line in enumerate(lines_of(report)):
        if re.search(r'(^|\s)(pc : |PC is at )', line):
            regs = True
        if re.search(r'Call trace:|Backtrace:', line):
            first_entry, regs = regs, False
            continue
        found = []
        taken = []
        for m in ARM_SYM_RE.finditer(line) if arch == 'arm' else ():
            found.append(dict(start=m.start(), sym=m.start(2), end=m.end(),
                              raw=int(m.group(1), 16), func=m.group(2),
                              off=int(m.group(3), 16), size=int(m.group(4), 16),
                              mod=m.group(5), bid=m.group(6)))
            taken.append((m.start(), m.end()))
        for m in ARM_RAW_RE.finditer(line) if arch == 'arm' else ():
            found.append(dict(start=m.start(), sym=m.start(2),
                              end=m.start() + len('[<%s>]' % m.group(1)),
                              raw=int(m.group(1), 16), func=m.group(2), off=None,
                              size=None, mod=m.group(3), bid=None))
            taken.append((m.start(), m.end()))
        for m in X86_RAW_SYM_RE.finditer(line) if arch != 'arm' else ():
            found.append(dict(start=m.start(), sym=m.start(2), end=m.end(),
                              raw=int(m.group(1), 16), func=m.group(2),
                              off=int(m.group(3), 16), size=int(m.group(4), 16),
                              mod=m.group(5), bid=m.group(6)))
            taken.append((m.start(), m.end()))
        for m in SYM_RE.finditer(line):
            if any(a <= m.start() < b for a, b in taken):
                continue
            found.append(dict(start=m.start(), sym=m.start(), end=m.end(),
                              raw=None, func=m.group(1), off=int(m.group(2), 16),
                              size=int(m.group(3), 16), mod=m.group(4),
                              bid=m.group(5)))
        found.sort(key=lambda f: f['start'])
        # the first trace entry, core or module
        e = re.search(r'(?<![\w.$])[A-Za-z_.$][\w.$]*\+0x[0-9a-f]+/0x|\[<[0-9a-f]+>\]', line)
        entry = e.start() if first_entry and e else None
        if e:
            first_entry = False
        for f in found:
            pre = line[:f['start']]
            f['line'] = n
            f['text'] = line[f['start']:f['end']]
            if re.search(r'(RIP: ([0-9a-f]{4}:)?|EIP: |pc : |PC is at )$', pre):
                exact = True
            elif re.search(r'(lr : |LR is at )$', pre):
                exact = False
            elif 'BUG: KASAN: ' in pre or 'BUG: KASan: ' in pre:
                # kasan_report(..., _RET_IP_): the return address of the
                # instrumented function's call into KASAN.
                exact = False
                f['why'] = 'KASAN'
            elif 'WARNING: ' in pre:
                # report_bug() prints the trapping instruction (x86 since
                # 4.11, arm64); warn_slowpath_*() their caller's return
                # address (32-bit ARM, and x86's "func+off/size [mod]()").
                exact = arch != 'arm' and not line.rstrip().endswith('()')
                if not exact:
                    f['why'] = 'WARNING'
            elif f['start'] == entry:
                # arm64's unwinder starts at the regs' pc; on 32-bit ARM
                # the first "where" of a trace after a register dump.
                exact = True
            else:
                exact = False
            if f['off'] == 0:
                exact = True    # "func+0x0/..": func itself (a %pS printer)
            f['exact'] = exact
            out.append(f)
    return out


def layout(frames, arch):
    mods = {}
    for f in frames:
        m = mods.setdefault(f['mod'], dict(funcs={}, starts={}, bid=None))
        if f['bid']:
            m['bid'] = f['bid']
        if f['size'] is not None:
            old = m['funcs'].setdefault(f['func'], f['size'])
            if old != f['size']:
                sys.exit('%s: two sizes 0x%x and 0x%x' % (f['func'], old, f['size']))
        if f['raw'] is not None and f['off'] is not None:
            s = f['raw'] - f['off']
            old = m['starts'].setdefault(f['func'], s)
            if old != s:
                sys.exit('%s: two starts 0x%x and 0x%x' % (f['func'], old, s))
    for name in sorted(mods):
        m = mods[name]
        place = {}
        if m['starts']:
            base = min(m['starts'].values()) & ~0xfff
            for fn, s in m['starts'].items():
                place[fn] = s - base
        else:
            base = None
        end = max([place[fn] + m['funcs'][fn] for fn in place] + [0x40])
        for fn in m['funcs']:
            if fn not in place:
                end = (end + 15) & ~15
                place[fn] = end
                end += m['funcs'][fn]
        order = sorted(place, key=place.get)
        for a, b in zip(order, order[1:]):
            if place[a] + m['funcs'][a] > place[b]:
                sys.exit('%s overlaps %s in %s' % (a, b, name))
        m['place'] = place
        m['base'] = base
    # modules without raw addresses get a base of their own in the map
    nxt = max([m['base'] + 0x100000 for m in mods.values() if m['base'] is not None] +
              [{'arm': 0xbf000000, 'aarch64': 0xffff80000a1b0000}.get(arch, 0xffffffffc0a00000)])
    for name in sorted(mods):
        m = mods[name]
        if m['base'] is None:
            m['base'] = nxt
            nxt += (max(m['place'][f] + m['funcs'][f] for f in m['funcs']) + 0x100fff) & ~0xfff
    return mods


def cmd_layout(report, arch, out):
    frames = frames_of(report, arch)
    mods = layout(frames, arch)
    unit = 1 if arch == 'x86_64' else 4
    with open(out + '/modules', 'w') as mf:
        for name in sorted(mods):
            m = mods[name]
            mf.write('%s %s 0x%x\n' % (name, m['bid'] or '-', m['base']))
            with open('%s/%s.s' % (out, name), 'w') as s:
                s.write('\t.text\n')
                for fn in sorted(m['place'], key=m['place'].get):
                    size = m['funcs'][fn]
                    if size % unit:
                        sys.exit('%s: size 0x%x is no multiple of %d' % (fn, size, unit))
                    s.write('\t.org 0x%x\n\t.globl %s\n\t.type %s, %%function\n%s:\n'
                            % (m['place'][fn], fn, fn, fn))
                    s.write('\tnop\n' * (size // unit))
                    s.write('\t.size %s, .-%s\n' % (fn, fn))
                s.write('\t.section .modinfo,"a"\n\t.asciz "name=%s"\n' % name)
    for f in frames:
        m = mods[f['mod']]
        if f['off'] is None:    # "[<a>] (func [mod])": the map says where
            f['at'] = f['raw'] - m['base']
            s = m['place'].get(f['func'])
            if s is None or not s <= f['at'] < s + m['funcs'][f['func']]:
                sys.exit('%s: 0x%x is not in %s' % (f['text'], f['raw'], f['func']))
        else:
            f['at'] = m['place'][f['func']] + f['off']
        f['lookup'] = f['at'] if f['exact'] else f['at'] - 1
    with open(out + '/frames.json', 'w') as jf:
        json.dump(frames, jf, indent=1)
    # A KASAN or warn_slowpath WARNING frame is a return address: the
    # report's own trace prints the same func+off as a call-trace entry.
    with open(out + '/evidence', 'w') as ev:
        for f in frames:
            if f.get('why'):
                same = [g for g in frames if g['line'] != f['line'] and not g.get('why') and
                        (g['mod'], g['func'], g['off']) == (f['mod'], f['func'], f['off'])]
                ev.write('%s\t%d\t%s\t%s\n' % (f['why'], f['line'] + 1, f['text'],
                                               same[0]['line'] + 1 if same else '-'))


def addr2line(ko, addrs):
    r = subprocess.run(['eu-addr2line', '-f', '-i', '-e', ko, '-j', '.text'] +
                       ['0x%x' % a for a in addrs], capture_output=True, text=True,
                       check=True)
    w = r.stdout.split('\n')
    # No inlining in these modules: two lines (function, location) each.
    assert len(w) == 2 * len(addrs) + 1, r.stdout
    return [w[2 * i + 1] for i in range(len(addrs))]


def cmd_expect(report, arch, out, mode):
    with open(out + '/frames.json') as jf:
        frames = json.load(jf)
    lines = lines_of(report)
    todo = [f for f in frames if mode == 'map' or f['off'] is not None]
    for mod in {f['mod'] for f in todo}:
        fs = [f for f in todo if f['mod'] == mod]
        for f, loc in zip(fs, addr2line('%s/%s.ko' % (out, mod), [f['lookup'] for f in fs])):
            f['loc'] = loc
    with open('%s/frames.%s' % (out, mode), 'w') as ff:
        for f in sorted(todo, key=lambda f: (f['line'], f['start'])):
            ff.write('%d\t%s\t%s\n' % (f['line'] + 1, f['text'], f['loc']))
    for f in sorted(todo, key=lambda f: -f['end']):
        s = lines[f['line']]
        lines[f['line']] = s[:f['end']] + ' ' + f['loc'] + s[f['end']:]
    with open('%s/expect.%s' % (out, mode), 'wb') as ef:
        ef.write('\n'.join(lines).encode('latin-1'))


def cmd_strip(path, srcdir):
    loc = re.compile(' ' + re.escape(srcdir) + r'/[^\s]*?:\d+(?::\d+)?(?![\d:])')
    out = []
    for line in lines_of(path):
        if re.search(r' \(inlined\) ' + re.escape(srcdir) + '/', line):
            continue
        out.append(loc.sub('', line))
    sys.stdout.buffer.write('\n'.join(out).encode('latin-1'))


if __name__ == '__main__':
    a = sys.argv[1:]
    {'layout': lambda: cmd_layout(*a[1:4]),
     'expect': lambda: cmd_expect(*a[1:5]),
     'strip': lambda: cmd_strip(*a[1:3])}[a[0]]()
PY

# The machine the decoding happens on: an x86-64 one (/proc/sys/kernel)
# with a /sys/module in which none of the report's modules is loaded, as
# on a workstation reading a report from elsewhere.
R=$T/root
mkrelease "$R"
mkdir -p "$R/sys/module"
DD=$T/debug

# decode_check DESC EXPECTED REPORT ARGS...: runs decode on REPORT and
# checks the run against EXPECTED and $D/frames.MODE ($MODE).
decode_check() {
	local d=$1 want=$2 rep=$3 bad
	shift 3
	ms decode --offline "$@" "$rep"
	check_rc "$d: exit 0" 0
	check_same "$d: nothing on stderr" /dev/null "$T/err"
	"$PY" "$GEN" strip "$T/out" "$D" >"$T/stripped"
	check_same "$d: (a) every input byte comes out unchanged, annotations aside" "$rep" "$T/stripped"
	bad=$("$PY" - "$D/frames.$MODE" "$T/out" <<'EOF'
import sys
out = open(sys.argv[2], 'rb').read().decode('latin-1').split('\n')
for l in open(sys.argv[1], encoding='latin-1'):
    n, frame, loc = l.rstrip('\n').split('\t')
    got = out[int(n) - 1] if int(n) <= len(out) else '(no such line)'
    if frame + ' ' + loc not in got:
        print('input line %s: %s\n  want: %s %s\n  got:  %s' % (n, frame, frame, loc, got))
EOF
)
	if [ -z "$bad" ]; then
		ok "$d: (b) every module frame annotated as eu-addr2line says ($(wc -l <"$D/frames.$MODE") frames)"
	else
		not_ok "$d: (b) every module frame annotated as eu-addr2line says" "$bad"
	fi
	check_same "$d: (c) the whole output, nothing else annotated" "$want" "$T/out"
}

# report NAME ARCH: the checks of one report.
report() {
	local name=$1 arch=$2 rep=$REPORTS/$1.txt AS LD mach mod bid base b raw=0 bids=0
	case $arch in
	x86_64) AS=as LD=ld mach=x86_64 ;;
	aarch64) AS=aarch64-linux-gnu-as LD=aarch64-linux-gnu-ld mach=aarch64 ;;
	arm) AS=arm-linux-gnueabi-as LD=arm-linux-gnueabi-ld mach=armv7l ;;
	esac
	D=$T/$name
	mkdir -p "$D"
	if ! "$PY" "$GEN" layout "$rep" "$arch" "$D" 2>"$T/gen.err"; then
		not_ok "$name: fixture: the report's module frames" "$(cat "$T/gen.err")"
		return
	fi
	printf 'release %s\nmachine %s\n' "$REL" "$mach" >"$D/capture"
	while read -r mod bid base; do
		b=sha1
		[ "$bid" = - ] || b=0x$bid
		if ! "$AS" -g -o "$D/$mod.o" "$D/$mod.s" 2>"$T/as.err" ||
			! "$LD" -r --build-id="$b" -o "$D/$mod.ko" "$D/$mod.o" 2>>"$T/as.err"; then
			not_ok "$name: fixture: build $mod.ko" "$(cat "$T/as.err")"
			return
		fi
		if [ "$bid" != - ]; then
			bids=1
			check_eq "$name: fixture: $mod.ko has the printed build-id" "$bid" "$(build_id "$D/$mod.ko")"
			mkdir -p "$(dirname "$DD/$(buildid_path "$bid")")"
			objcopy --only-keep-debug "$D/$mod.ko" "$DD/$(buildid_path "$bid")"
		fi
		printf '%s .text %s\n' "$mod" "$base" >>"$D/capture"
	done <"$D/modules"
	grep -q '"raw": [0-9]' "$D/frames.json" && raw=1
	while IFS=$'\t' read -r why n fr same; do
		check "$name: fixture: the $why frame (line $n, $fr) is a return address: the trace prints it at line $same" \
			test "$same" != -
	done <"$D/evidence"

	# No map: the frames that name a symbol need only the module files.
	MODE=nomap
	"$PY" "$GEN" expect "$rep" "$arch" "$D" nomap || { not_ok "$name: eu-addr2line"; return; }
	decode_check "$name (no map, --search)" "$D/expect.nomap" "$rep" --root "$R" --search "$D"
	if [ "$bids" = 1 ]; then
		# Only the build-id's debug file, found under --debug-dir.
		decode_check "$name (no map, only --debug-dir .build-id/)" "$D/expect.nomap" "$rep" \
			--root "$R" --debug-dir "$DD"
	fi
	if [ "$raw" = 1 ]; then
		# With the map, raw addresses too.
		MODE=map
		"$PY" "$GEN" expect "$rep" "$arch" "$D" map || { not_ok "$name: eu-addr2line"; return; }
		decode_check "$name (--capture, machine $mach)" "$D/expect.map" "$rep" \
			--capture "$D/capture" --search "$D"
	fi
}

report x86_64-6.2-btrfs-warning x86_64
report x86_64-6.12-amdgpu-kasan-buildid x86_64
report x86_64-old-btrfs-warning x86_64
report arm64-5.10-btrfs-oops aarch64
report arm64-6.12-pwm-pio-oops aarch64
report arm-5.3-wlcore-warning arm

# ---- one stream of reports of several machines (issue #24) ----------------
# Each report in a stream is decoded on its own: its machine, its modules,
# its map. The stream's output is each report's own output (checked above
# against eu-addr2line), in order; a module file of another machine or
# build costs that report's frames and one warning, never another's.
STREAM=(x86_64-6.2-btrfs-warning arm64-5.10-btrfs-oops
	x86_64-6.12-amdgpu-kasan-buildid arm-5.3-wlcore-warning
	arm64-6.12-pwm-pio-oops)
# concat OUT NAME:FILE...: the files, each "report" or "expect" of NAME.
concat() {
	local out=$1 x
	shift
	: >"$out"
	for x in "$@"; do
		case ${x#*:} in
		report) cat "$REPORTS/${x%%:*}.txt" ;;
		expect) cat "$T/${x%%:*}/expect.nomap" ;;
		esac >>"$out"
	done
}
# The 6.12 report again, of a build no file has (its build-ids changed).
sed 's/13b1bc364ec578808f676eba412c20eaab792779/0123456789abcdef0123456789abcdef01234567/g' \
	"$REPORTS/x86_64-6.12-amdgpu-kasan-buildid.txt" >"$T/other-build.txt"
mkdir -p "$T/x86" "$T/all"
cp "$T"/x86_64-6.2-btrfs-warning/*.ko "$T"/x86_64-6.12-amdgpu-kasan-buildid/*.ko "$T/x86/"
for n in "${STREAM[@]}"; do
	mkdir -p "$T/all/$n" && cp "$T/$n"/*.ko "$T/all/$n/"
done

# (i) x86-64 module files only: the x86-64 reports decoded as alone; the
# arm64 report's btrfs.ko (x86-64's) refused, its frames as they are.
S=()
for n in "${STREAM[@]}"; do S+=("$REPORTS/$n.txt"); done
cat "${S[@]}" "$T/other-build.txt" >"$T/stream"
concat "$T/want" x86_64-6.2-btrfs-warning:expect arm64-5.10-btrfs-oops:report \
	x86_64-6.12-amdgpu-kasan-buildid:expect arm-5.3-wlcore-warning:report \
	arm64-6.12-pwm-pio-oops:report
cat "$T/other-build.txt" >>"$T/want"
ms decode --offline --root "$R" --search "$T/x86" "$T/stream"
check_rc "stream, x86-64 files only: exit 1 (frames left unannotated, warnings say why)" 1
check_same "stream, x86-64 files only: each report as decoded alone, nothing lost" "$T/want" "$T/out"
check_grep "stream, x86-64 files only: the arm64 report's btrfs.ko refused as x86-64's" \
	'^modsect: warning: .*/btrfs\.ko is for x86_64 .* but the kernel is aarch64.*its frames are left unannotated$' "$T/err"
check_grep "stream, x86-64 files only: the build no file has, said" \
	'^modsect: warning: module amdgpu: no file .*0123456789abcdef0123456789abcdef01234567.*its frames are left unannotated$' "$T/err"
check_eq "stream, x86-64 files only: each warning once" "$(sort -u "$T/err" | wc -l)" "$(wc -l <"$T/err")"
check "stream, x86-64 files only: nothing but warnings on stderr" \
	test "$(grep -vc '^modsect: warning: ' "$T/err")" = 0

# (ii) every machine's files in one --search tree, same names for two
# machines (btrfs): each report finds its own machine's; exit 0.
concat "$T/want" x86_64-6.2-btrfs-warning:expect arm64-5.10-btrfs-oops:expect \
	x86_64-6.12-amdgpu-kasan-buildid:expect arm-5.3-wlcore-warning:expect \
	arm64-6.12-pwm-pio-oops:expect
cat "${S[@]}" >"$T/stream"
ms decode --offline --root "$R" --search "$T/all" "$T/stream"
check_rc "stream of 3 machines, all files: exit 0" 0
check_same "stream of 3 machines, all files: every report as decoded alone" "$T/want" "$T/out"
check_same "stream of 3 machines, all files: nothing on stderr" /dev/null "$T/err"

# (iii) the same reports in the other order: nothing a later report holds
# changes an earlier one.
R5=()
for ((i = ${#STREAM[@]} - 1; i >= 0; i--)); do R5+=("${STREAM[i]}:expect"); done
concat "$T/want" "${R5[@]}"
for ((i = ${#S[@]} - 1; i >= 0; i--)); do cat "${S[i]}"; done >"$T/stream"
ms decode --offline --root "$R" --search "$T/all" "$T/stream"
check_same "stream in reverse order: every report as decoded alone" "$T/want" "$T/out"

# (iv) one line of a report that shows no machine: the live map of this
# x86-64 root, which has btrfs loaded, decides, and the arm64 btrfs.ko is
# refused: the line as it is, exit 1, one warning. (v) A live map without
# btrfs is not the report's: the file (arm64's) decides.
grep -E '^\[[ 0-9.]+\]  [a-z_]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[btrfs\]$' \
	"$REPORTS/arm64-5.10-btrfs-oops.txt" | sed -n 3p >"$T/line"
R2=$T/root2
mkrelease "$R2"
mkdir -p "$R2/sys/module/btrfs/sections"
echo live >"$R2/sys/module/btrfs/initstate"
echo 0xffffffffc0800000 >"$R2/sys/module/btrfs/sections/.text"
ms decode --offline --root "$R2" --search "$T/arm64-5.10-btrfs-oops" "$T/line"
check_rc "one arm64 line, the live x86-64 map with btrfs: exit 1" 1
check_same "one arm64 line, the live x86-64 map with btrfs: the line as it is" "$T/line" "$T/out"
check_eq "one arm64 line, the live x86-64 map with btrfs: one warning, the file refused" 1 \
	"$(grep -c 'btrfs\.ko is for aarch64.*its frames are left unannotated$' "$T/err")"
ms decode --offline --root "$R" --search "$T/arm64-5.10-btrfs-oops" "$T/line"
check_rc "one arm64 line, a live map without btrfs: exit 0" 0
check_grep "one arm64 line, a live map without btrfs: annotated from the arm64 file" \
	'\[btrfs\] .*/btrfs\.s:[0-9]+$' "$T/out"
check_same "one arm64 line, a live map without btrfs: nothing on stderr" /dev/null "$T/err"

finish
