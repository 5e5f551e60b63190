"""lldb -b -o "script ms_args = [ELF, EXPECT.json, N]; exec(open('typeslldb.py').read())":
lldb's reading of the types in ELF
(modsect's kallsyms ELF) for the first N structs and unions of EXPECT
(btfexpect.py), every Nth-spread: byte size, and each member's name, bit
offset and bit size, as BTF says. Prints mismatches, then a summary
line "LLDB-RESULT: ..."; "LLDB-BAD N" if any differ."""
import json
import lldb

elf, path, n = ms_args[0], ms_args[1], int(ms_args[2])
exp = json.load(open(path))
step = max(1, len(exp) // n)
sample = exp[::step][:n]
dbg = lldb.SBDebugger.Create()
dbg.SetAsync(False)
target = dbg.CreateTarget(elf)
bad = 0
for e in sample:
    t = None
    for cand in target.FindTypes(e["name"]):
        if cand.GetByteSize() == e["size"] or t is None:
            t = cand
    if t is None or not t.IsValid():
        print("%s %s: lldb has no such type" % (e["kind"], e["name"]))
        bad += 1
        continue
    # lldb fills a gap between bitfields with an unnamed one of its own
    # (DWARFASTParserClang); BTF, like the source, has none there.
    want_unnamed = {m[1] for m in e["members"] if not m[0] and m[2]}
    got = [(f.GetName() or "", f.GetOffsetInBits(),
            f.GetBitfieldSizeInBits() if f.IsBitfield() else 0)
           for f in t.get_fields_array()
           if f.GetName() or not f.IsBitfield()
           or f.GetOffsetInBits() in want_unnamed]
    want = [(m[0], m[1], m[2]) for m in e["members"]]
    if t.GetByteSize() != e["size"] or got != want:
        bad += 1
        print("%s %s: lldb size %d %s, BTF %d %s" % (
            e["kind"], e["name"], t.GetByteSize(), got[:4], e["size"],
            want[:4]))
print("LLDB-RESULT: sizes and member offsets of %d structs and unions (a sample of %d) == BTF's: %d differ"
      % (len(sample), len(exp), bad))
if bad:
    print("LLDB-BAD %d" % bad)
