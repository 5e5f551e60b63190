#!/usr/bin/env python3
"""btfexpect.py BTF.json: what bpftool (libbpf) says of each struct and
union whose name no other struct, union or enum of a BTF has, as JSON for typesgdb.py: [{"kind",
"name", "size", "members": [[name, bit offset, bit size, nested]]}],
nested being the same for an anonymous struct or union member (through
typedefs and qualifiers), else null."""
import collections
import json
import sys

types = json.load(open(sys.argv[1]))["types"]
by_id = {t["id"]: t for t in types}
SKIP = ("TYPEDEF", "CONST", "VOLATILE", "RESTRICT", "TYPE_TAG")


def resolve(tid):
    for _ in range(64):
        t = by_id.get(tid)
        if t is None or t["kind"] not in SKIP:
            return t
        tid = t["type_id"]
    return None


def expect(t, depth=0):
    members = []
    for m in t.get("members", []):
        sub = resolve(m["type_id"])
        nested = None
        if (sub is not None and sub["kind"] in ("STRUCT", "UNION")
                and sub["name"] == "(anon)" and depth < 8):
            nested = expect(sub, depth + 1)
        name = m["name"] if m["name"] != "(anon)" else ""
        members.append([name, m["bits_offset"], m.get("bitfield_size", 0),
                        nested])
    return {"kind": "struct" if t["kind"] == "STRUCT" else "union",
            "name": t["name"], "size": t["size"], "members": members}


# C's tags share one name space: a struct whose name another file gives
# a union or an enum is not one gdb can look up by "struct NAME" alone.
count = collections.Counter(t["name"] for t in types
                            if t["kind"] in ("STRUCT", "UNION", "ENUM",
                                             "ENUM64"))
out = [expect(t) for t in types if t["kind"] in ("STRUCT", "UNION")
       and t["name"] != "(anon)" and count[t["name"]] == 1]
json.dump(out, sys.stdout)
