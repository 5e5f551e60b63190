"""gdb side of tests/vm/types.sh: prints result lines the script and
typescheck.py read ("OBJFILE", "STRUCTS", "SPLIT", "STOP ..."). Not
named types.py: that would hide Python's own module from the scripts
beside it (elfread.py's import of subprocess)."""
import json
import os

import gdb


def ms_objfiles():
    for o in gdb.objfiles():
        print("OBJFILE %s" % o.filename)


def _fields_differ(t, e, where, out):
    """Appends to out how gdb's type t differs from expectation e."""
    try:
        t = t.strip_typedefs()
        size = t.sizeof
        fields = t.fields()
    except gdb.error as x:
        out.append("%s: %s" % (where, x))
        return
    if size != e["size"]:
        out.append("%s: sizeof %d, BTF %d" % (where, size, e["size"]))
    if len(fields) != len(e["members"]):
        out.append("%s: %d members, BTF %d" % (where, len(fields),
                                                len(e["members"])))
        return
    for f, (name, bits, bsize, nested) in zip(fields, e["members"]):
        got = (f.name or "", f.bitpos, f.bitsize)
        if got != (name, bits, bsize):
            out.append("%s.%s: %r, BTF %r" % (where, name, got,
                                              (name, bits, bsize)))
        elif nested:
            _fields_differ(f.type, nested, "%s.%s" % (where, name or "<anon>"),
                           out)


def ms_check_structs(path):
    exp = json.load(open(path))
    bad = []
    for e in exp:
        where = "%s %s" % (e["kind"], e["name"])
        try:
            t = gdb.lookup_type(where)
        except gdb.error as x:
            bad.append("%s: %s" % (where, x))
            continue
        _fields_differ(t, e, where, bad)
    print("STRUCTS %d %d" % (len(exp), len(bad)))
    for b in bad[:20]:
        print("STRUCTS-BAD %s" % b)


def ms_check_split(path, name):
    """A module's own struct, from its split BTF (bpftool's JSON)."""
    try:
        types = json.load(open(path))["types"]
    except (OSError, ValueError) as x:
        print("SPLIT none: %s" % x)
        return
    e = [t for t in types if t["kind"] == "STRUCT" and t["name"] == name]
    if len(e) != 1:
        print("SPLIT none: %d structs %s in the module's BTF" % (len(e), name))
        return
    want = {"size": e[0]["size"],
            "members": [[m["name"], m["bits_offset"],
                         m.get("bitfield_size", 0), None]
                        for m in e[0]["members"]]}
    bad = []
    try:
        _fields_differ(gdb.lookup_type("struct " + name), want,
                       "struct " + name, bad)
    except gdb.error as x:
        bad.append(str(x))
    print("SPLIT %s %d %d" % (name, len(want["members"]), len(bad)))
    for b in bad[:10]:
        print("SPLIT-BAD %s" % b)


def _try(expr):
    try:
        return gdb.parse_and_eval(expr)
    except gdb.error as x:
        print("STOP-ERROR %s: %s" % (expr, x))
        return None


def ms_at_stop(this_module):
    mod = _try("(*(struct module *)%s)" % this_module)
    if mod is not None:
        print("STOP module name %s" % mod["name"].string())
        print("STOP module state %s" % mod["state"])
    cur = _try("$modsect_current()")
    if cur is not None:
        print("STOP current pid %d" % int(cur["pid"]))
        print("STOP current comm %s" % cur["comm"].string())
    irq = _try("$modsect_per_cpu(irq_stat, 0)")
    if irq is not None:
        print("STOP percpu irq_stat.apic_timer_irqs %d"
              % int(irq["apic_timer_irqs"]))
    try:
        print("STOP ptype %s" % gdb.execute("ptype do_init_module",
                                            to_string=True).strip())
    except gdb.error as x:
        print("STOP-ERROR ptype do_init_module: %s" % x)
    try:
        for line in gdb.execute("bt 40", to_string=True).splitlines():
            print("STOP bt %s" % line)
    except gdb.error as x:
        print("STOP-ERROR bt: %s" % x)


def ms_ptypes():
    names = open(os.environ["PTYPE_NAMES"]).read().split("\n")
    with open(os.environ["PTYPE_OUT"], "w") as out:
        for n in names:
            if not n:
                continue
            try:
                s = gdb.execute("ptype " + n, to_string=True)
            except gdb.error as e:
                s = "error: %s\n" % e
            out.write("=== %s\n%s" % (n, s))
