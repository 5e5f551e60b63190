# SPDX-License-Identifier: GPL-2.0-or-later
"""modsect inside lldb: a `modsect` command that runs modsect and loads what
it prints into this session.

    (lldb) command script import /usr/share/modsect/lldb/modsect.py
    (lldb) target create vmlinux          # or gdb-remote :1234
    (lldb) modsect lldb --all --capture layout.txt
    (lldb) modsect resolve 0xffffffffc0a14010     # other commands: printed

`modsect lldb ARGS` runs `modsect lldb ARGS` and runs each command it
prints (target modules add / load); any other subcommand's output is
printed.  Connected to a remote target (gdb-remote) and given no
--capture, --remote, --vmcore or --root, modsect reads the map from the
target's memory over lldb's own connection (share/python/modsect_stub.py).
`modsect follow [OPTIONS]` loads every module and the core kernel's
symbols, then follows loads (at do_init_module) and unloads (at
free_module) as share/gdb/modsect.py does; `modsect follow off` stops.
A non-zero exit of modsect, or a command lldb refuses, is an
lldb error carrying the message.  The binary is $MODSECT, else the modsect
installed with this script (PREFIX/bin/modsect), else the one in the
source tree this file is in, else `modsect` from PATH.

To have the command in every lldb session, add the `command script import`
line to ~/.lldbinit.  (Debian's lldb 14 cannot find its own python module,
printing a traceback at startup; PYTHONPATH=/usr/lib/llvm-14/lib/python3.11/
dist-packages, the directory holding its lldb/ package, works around it.)
"""

import os
import re
import shlex
import subprocess
import sys

import lldb

_HERE = os.path.dirname(os.path.realpath(__file__))

# The debugger-neutral stub: share/python/ beside share/lldb/.
sys.path.insert(0, os.path.join(_HERE, "..", "python"))
_wrote = sys.dont_write_bytecode
sys.dont_write_bytecode = True  # no __pycache__ in the installed tree
import modsect_stub  # noqa: E402
sys.dont_write_bytecode = _wrote

# lldb's triples' architectures as modsect_stub (gdb) names them.
TRIPLE_ARCH = {"x86_64": "i386:x86-64", "i386": "i386", "i486": "i386",
               "i586": "i386", "i686": "i386", "aarch64": "aarch64",
               "arm64": "aarch64"}

# `make install` replaces this with the directory modsect was installed in.
MODSECT_BINDIR = "@BINDIR@"


def modsect_binary():
    return modsect_stub.find_binary(MODSECT_BINDIR, _HERE)


def run_lent(exe, args, process):
    """modsect ARGS on lldb's own gdb-remote connection (modsect_stub):
    memory through SBProcess.ReadMemory, the pc of the selected thread."""
    triple = process.GetTarget().GetTriple() or ""
    arch = TRIPLE_ARCH.get(triple.split("-", 1)[0])

    def read_memory(addr, n):
        e = lldb.SBError()
        data = process.ReadMemory(addr, n, e)
        return bytes(data) if e.Success() and data is not None and len(data) == n else None

    def read_pc():
        return process.GetSelectedThread().GetFrameAtIndex(0).GetPC()

    return modsect_stub.run_lent(exe, args, arch, read_memory, read_pc)


# The script's architecture lines, `target create --arch TRIPLE ""` and
# `target select 0`, give an lldb with no target an empty one. Here the
# selected target is known: with one they are not run; without, the target
# is made here and the commands run on it (the commands a command runs see
# the target of when it started, none).
ARCH_CREATE = re.compile(r'^target create --arch (\S+) ""$')


def run_commands(debugger, text):
    """Runs the lldb commands of a `modsect lldb` script; returns
    (output, None) or (output, error message)."""
    interp = debugger.GetCommandInterpreter()
    made = None
    outs = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = ARCH_CREATE.match(line)
        if m and not debugger.GetSelectedTarget().IsValid():
            e = lldb.SBError()
            made = debugger.CreateTarget("", m.group(1), None, False, e)
            if not made.IsValid():
                return outs, "cannot make a %s target: %s" % (m.group(1), e.GetCString())
            debugger.SetSelectedTarget(made)
        if m or line == "target select 0":
            continue
        r = lldb.SBCommandReturnObject()
        if made is not None:
            interp.HandleCommand(line, lldb.SBExecutionContext(made), r)
        else:
            interp.HandleCommand(line, r)
        if r.GetOutput():
            outs.append(r.GetOutput().rstrip("\n"))
        if not r.Succeeded():
            return outs, "%s\n(in: %s)" % ((r.GetError() or "failed").strip(), line)
    return outs, None


# modsect follow: where it stops and why, see share/gdb/modsect.py.
FOLLOW_STOPS = ("do_init_module", "free_module")
ARG0 = {"i386:x86-64": "rdi", "i386": "eax", "aarch64": "x0"}


class Follow:
    def __init__(self):
        self.bps = []
        self.args = []
        self.loaded = {}  # struct module address -> (name, .text address)
        self.arg0 = None  # the first argument register, set by on/follow

    def off(self, target):
        for bp in self.bps:
            target.BreakpointDelete(bp.GetID())
        self.bps = []

    def _one(self, process, mod):
        """The lldb commands and (name, .text address) of one module."""
        rc, out, err = run_lent(modsect_binary(),
                                ["lldb", "--all", "--module-at", "0x%x" % mod] + self.args,
                                process)
        if rc != 0:
            raise RuntimeError(err.decode("utf-8", "replace").strip())
        text = out.decode("utf-8", "surrogateescape")
        name, addr = modsect_stub.script_module_name(text), None
        for line in text.splitlines():
            w = line.split()
            if line.startswith("target modules load ") and ".text" in w:
                addr = int(w[w.index(".text") + 1], 16)
        return text, name, addr

    def on_load(self, frame):
        process = frame.GetThread().GetProcess()
        mod = frame.FindRegister(self.arg0).GetValueAsUnsigned()
        if mod in self.loaded:
            return
        text, name, addr = self._one(process, mod)
        _, e = run_commands(process.GetTarget().GetDebugger(), text)
        if e:
            raise RuntimeError(e)
        self.loaded[mod] = (name, addr)
        print("modsect: %s loaded at 0x%x" % (name, addr))

    def on_free(self, frame):
        process = frame.GetThread().GetProcess()
        target = process.GetTarget()
        mod = frame.FindRegister(self.arg0).GetValueAsUnsigned()
        name, addr = self.loaded.pop(mod, (None, None))
        if addr is None:  # loaded before follow began
            _, name, addr = self._one(process, mod)
        m = target.ResolveLoadAddress(addr).GetModule() if addr else None
        if m is None or not m.IsValid():
            return
        target.RemoveModule(m)
        print("modsect: %s unloaded" % name)


FOLLOW = Follow()


def _follow_cb(method):
    def cb(frame, bp_loc, internal_dict):
        try:
            method(frame)
        except Exception as e:  # never stop the target for our own failure
            print("modsect follow: %s" % e)
        return False
    return cb


follow_load = _follow_cb(FOLLOW.on_load)
follow_free = _follow_cb(FOLLOW.on_free)


def follow_command(debugger, args, result):
    target = debugger.GetSelectedTarget()
    FOLLOW.off(target)
    if args == ["off"]:
        result.SetStatus(lldb.eReturnStatusSuccessFinishNoResult)
        return
    process = target.GetProcess()
    if not process.IsValid() or process.GetPluginName() != "gdb-remote":
        result.SetError("modsect follow: not connected to a remote target (gdb-remote)")
        return
    arch = TRIPLE_ARCH.get((target.GetTriple() or "").split("-", 1)[0])
    if arch not in ARG0:
        result.SetError("modsect follow: architecture %s is not supported" % target.GetTriple())
        return
    FOLLOW.arg0 = ARG0[arch]
    FOLLOW.args = args
    rc, out, err = run_lent(modsect_binary(), ["lldb", "--all", "--kernel"] + args, process)
    if rc != 0:
        result.SetError(err.decode("utf-8", "replace").strip())
        return
    _, e = run_commands(debugger, out.decode("utf-8", "surrogateescape"))
    if e:
        result.SetError(e)
        return
    for fn, cb in zip(FOLLOW_STOPS, ("follow_load", "follow_free")):
        syms = target.FindSymbols(fn)
        if syms.GetSize() < 1:
            result.SetError("modsect follow: the kernel has no %s in kallsyms" % fn)
            FOLLOW.off(target)
            return
        addr = syms.GetContextAtIndex(0).GetSymbol().GetStartAddress().GetLoadAddress(target)
        bp = target.BreakpointCreateByAddress(addr)
        bp.SetScriptCallbackFunction("%s.%s" % (__name__, cb))
        FOLLOW.bps.append(bp)
    result.AppendMessage("modsect: following module loads and unloads (modsect follow off to stop)")
    result.SetStatus(lldb.eReturnStatusSuccessFinishNoResult)


def modsect_command(debugger, command, result, internal_dict):
    """Run modsect; `modsect lldb ...` loads its commands (see modsect(1))."""
    try:
        args = shlex.split(command)
    except ValueError as e:
        result.SetError("modsect: %s" % e)
        return
    exe = modsect_binary()
    if not exe:
        result.SetError("modsect: no modsect binary (set $MODSECT, or put it in PATH)")
        return
    if args and args[0] == "follow":
        follow_command(debugger, args[1:], result)
        return
    process = debugger.GetSelectedTarget().GetProcess()
    try:
        if (modsect_stub.wants_source(args) and process.IsValid() and
                process.GetPluginName() == "gdb-remote"):
            rc, out, err = run_lent(exe, args, process)
        else:
            p = subprocess.run([exe] + args, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            rc, out, err = p.returncode, p.stdout, p.stderr
    except OSError as e:
        result.SetError("modsect: cannot run %s: %s" % (exe, e.strerror))
        return
    out = out.decode("utf-8", "surrogateescape")
    err = err.decode("utf-8", "replace")
    if rc != 0:
        result.SetError(err.strip() or "%s exited with status %d" % (exe, rc))
        return
    if err:
        result.AppendWarning(err.strip())
    helping = any(a in ("-h", "--help", "--version") for a in args)
    if not args or args[0] != "lldb" or helping:
        result.AppendMessage(out.rstrip("\n"))
        result.SetStatus(lldb.eReturnStatusSuccessFinishResult)
        return
    ofile = modsect_stub.output_file(args[1:])
    if ofile is not None and ofile != "-":
        with open(ofile, encoding="utf-8", errors="surrogateescape") as f:
            out = f.read()
    outs, e = run_commands(debugger, out)
    for o in outs:
        result.AppendMessage(o)
    if e:
        result.SetError(e)
        return
    result.SetStatus(lldb.eReturnStatusSuccessFinishNoResult)


def __lldb_init_module(debugger, internal_dict):
    debugger.HandleCommand(
        "command script add -f %s.modsect_command modsect" % __name__)
