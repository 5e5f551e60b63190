#!/bin/bash
# decode passes every byte of its input through (issue #14): NUL bytes,
# invalid UTF-8, a line far longer than any report's, no newline at the
# end, and input larger than the 64 MiB it once refused, read as a stream.
# Frames far into the input (past what is read before decoding starts)
# are annotated as they would be alone, including modules first named
# there while one already loaded moves in the map. resolve refuses a line
# of standard input with a NUL rather than reading half of it.
. "$(dirname "$0")/lib.sh"
need gcc ld python3 || finish

M=$T/m
mkmod "$M" zmod 0 || bail "build zmod"
mkmod "$M" amod 1 || bail "build amod"
DEC=(decode --search "$M" --offline --moddir "$T/nomoddir")

# The frames alone: what each line must come out as, wherever it is.
printf '%s\n' \
	'[    1.000001]  testmod_func+0x4/0x40 [zmod]' \
	'[    1.000002]  testmod_func+0x4/0x40 [amod]' \
	'[    1.000003]  testmod_helper+0x2/0x40 [zmod]' >"$T/frames"
ms "${DEC[@]}" "$T/frames"
cp "$T/out" "$T/frames.out"
check_rc "decode of the frames alone: exit 0" 0
n=$(grep -aEc ' \[[az]mod\] .*[az]mod\.c:[0-9]+(:[0-9]+)?$' "$T/frames.out")
check_eq "each of the 3 frames annotated alone" 3 "$n"

# NULs: the bytes after one are kept, and a frame after one is still read.
printf 'abc\0def\nghi\n' >"$T/nul"
ms "${DEC[@]}" "$T/nul"
check "a NUL in a line: every byte comes out, exit 0" cmp -s "$T/nul" "$T/out"
printf 'x\0y  testmod_func+0x4/0x40 [zmod]\n' >"$T/nulframe"
ms "${DEC[@]}" "$T/nulframe"
check_grep "a frame after a NUL on its line is annotated" 'testmod_func\+0x4/0x40 \[zmod\] .*[az]mod\.c:[0-9]+(:[0-9]+)?$' "$T/out"
check "the NUL before it is kept" python3 -c '
import sys; d = open(sys.argv[1], "rb").read(); sys.exit(0 if d.startswith(b"x\0y  testmod_func") else 1)' "$T/out"

printf 'no newline at the end' >"$T/nonl"
ms "${DEC[@]}" "$T/nonl"
check "no newline at the end: none added" cmp -s "$T/nonl" "$T/out"

# A stream: 2 MiB of lines, then invalid UTF-8, a 300 KB line ending in a
# frame (passed through whole), zmod in the read-ahead, amod first named
# after it (it sorts before zmod, which moves), then zmod again; the
# expected output is the input with each frame line as decoded alone.
python3 - "$T" <<'EOF'
import sys
t = sys.argv[1]
frames = open(t + "/frames", "rb").read().split(b"\n")[:3]
alone = open(t + "/frames.out", "rb").read().split(b"\n")
def dec(i):
    # Frame i's lines in frames.out: inlined ones first, then the frame.
    out, k = [], 0
    for l in alone:
        out.append(l)
        if l.startswith(frames[i][:14]) and b"(inlined)" not in l:
            return b"\n".join(out[len(out) - 1 - sum(1 for x in out[:-1] if x.startswith(frames[i][:14])):])
    raise SystemExit("frame %d not in frames.out" % i)
inp, exp = [], []
def both(a, b=None):
    inp.append(a); exp.append(a if b is None else b)
both(frames[0], dec(0))
filler = b"[    0.500000] filler line of the console log, nothing to decode here"
for i in range(2 * 1024 * 1024 // len(filler) + 1):
    both(filler)
both(b"\xff\xfe invalid UTF-8 \xc3\x28 and a NUL \0 here")
both(b"x" * 300000 + b"  testmod_func+0x4/0x40 [zmod]")
both(frames[1], dec(1))
both(frames[2], dec(2))
both(b"[    9.000000] the end, with no newline")
open(t + "/stream", "wb").write(b"\n".join(inp))
open(t + "/stream.want", "wb").write(b"\n".join(exp))
EOF
ms "${DEC[@]}" "$T/stream"
check_rc "a 2 MiB stream: exit 0" 0
check "a 2 MiB stream: frame lines as decoded alone, every other byte as it came" cmp -s "$T/stream.want" "$T/out"
cat "$T/stream" | "$MODSECT" "${DEC[@]}" >"$T/out" 2>"$T/err"
check "the same from a pipe" cmp -s "$T/stream.want" "$T/out"
ms "${DEC[@]}" -o "$T/stream.o" "$T/stream"
check "the same with -o FILE" cmp -s "$T/stream.want" "$T/stream.o"

# More than the 64 MiB decode once refused, from a pipe.
python3 -c '
import sys
line = b"[    1.000000] console noise \xff " + b"y" * 200 + b"\n"
n = 70 * 1024 * 1024 // len(line) + 1
sys.stdout.buffer.write(line * n)' >"$T/huge"
"$MODSECT" "${DEC[@]}" <"$T/huge" >"$T/huge.out" 2>"$T/err"
RC=$?
check_eq "70 MiB of input: exit 0" 0 "$RC"
check "70 MiB of input: every byte comes out" cmp -s "$T/huge" "$T/huge.out"
rm -f "$T/huge" "$T/huge.out"

# A line of an x86 boot log that contains "pstate: " (amd_pstate, 6.12 in
# QEMU) does not make the report an arm64 one.
{
	echo '[    2.213128] amd_pstate: the _CPC object is not present in SBIOS or ACPI disabled'
	cat "$T/frames"
} >"$T/pstate"
ms "${DEC[@]}" "$T/pstate"
check_rc "amd_pstate's line in an x86 report: exit 0" 0
n=$(grep -aEc ' \[[az]mod\] .*[az]mod\.c:[0-9]+(:[0-9]+)?$' "$T/out")
check_eq "amd_pstate's line in an x86 report: the 3 frames annotated" 3 "$n"

# resolve: a NUL in an address line is refused, naming it.
printf '0xffffffffc0a14000\0junk\n' | "$MODSECT" resolve --offline >"$T/out" 2>"$T/err"
RC=$?
check_refused "resolve: a line with a NUL is not an address: exit 3" 3 'NUL byte'
finish
