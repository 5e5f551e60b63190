# tests/vm/symdump.py - gdb Python helpers for tests/vm/test.sh.
#
# A plain gdb command script stops at its first error, so one unknown
# symbol would hide every later result.  These helpers catch errors per
# symbol and print one line each, for awk to compare with /proc/kallsyms.
#
#   source tests/vm/symdump.py
#   python ms_addr("names.txt", "SYM")    # "SYM <name> <hex>" or "SYMERR <name> <error>"
#   python ms_where("addrs.txt", "RSYM")  # "RSYM <hex> <info symbol output>"
#   python ms_eval("PCPU", "<expr>")      # "PCPU <value>" or "PCPUERR <error>"
import gdb


def _line(s):
    return " ".join(str(s).split())


def ms_addr(path, tag):
    """Lines "<name> ..." -> "<tag> <name> <hex of (unsigned long)&'name'>"."""
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            name = w[0]
            try:
                v = gdb.parse_and_eval("(unsigned long)&'%s'" % name)
                gdb.write("%s %s %x\n" % (tag, name, int(v) & 0xFFFFFFFFFFFFFFFF))
            except Exception as e:  # gdb.error, gdb.MemoryError, ...
                gdb.write("%sERR %s %s\n" % (tag, name, _line(e)))


def ms_where(path, tag):
    """Lines "<name> <hex>" -> "<tag> <hex> <output of info symbol 0x<hex>>"."""
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 2:
                continue
            try:
                out = gdb.execute("info symbol 0x%s" % w[1], to_string=True)
            except Exception as e:
                out = "ERROR " + str(e)
            gdb.write("%s %s %s\n" % (tag, w[1], _line(out)))


def ms_eval(tag, expr):
    try:
        gdb.write("%s %s\n" % (tag, _line(gdb.parse_and_eval(expr))))
    except Exception as e:
        gdb.write("%sERR %s\n" % (tag, _line(e)))
