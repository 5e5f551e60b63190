# SPDX-License-Identifier: GPL-2.0-or-later
"""modsect inside gdb: a `modsect` command that runs modsect and loads what
it prints into this session.

    (gdb) source /usr/share/modsect/gdb/modsect.py
    (gdb) target remote :1234
    (gdb) modsect gdb --all --capture layout.txt
    (gdb) modsect resolve 0xffffffffc0a14010      # other commands: printed

`modsect gdb ARGS` runs `modsect gdb ARGS` and sources its output (the
add-symbol-file commands) with confirmation off; any other subcommand's
output is printed.  A non-zero exit of modsect is a gdb error carrying
modsect's message.  The binary is $MODSECT, else the modsect installed
with this script (PREFIX/bin/modsect), else the one in the source tree
this file is in, else `modsect` from PATH.

To have the command in every gdb session, add
`source PREFIX/share/modsect/gdb/modsect.py` to ~/.gdbinit, or link the
file into gdb's system-wide init directory (Debian: /etc/gdb/gdbinit.d/,
see `gdb --configuration`, --with-system-gdbinit-dir).
"""

import ast
import os
import re
import signal
import sys
import subprocess
import tempfile
import time
import resource

import gdb

# This file's own path is its code's: gdb's `source` compiles it under
# that name. __file__ is not: sourced from another Python script
# (gdb.execute("source ...") in a Python gdbinit or a plugin loader), the
# globals are the outer script's, and so is __file__.
_HERE = os.path.dirname(os.path.realpath(sys._getframe().f_code.co_filename))

# The debugger-neutral stub: share/python/ beside share/gdb/, in the
# source tree and installed alike.
sys.path.insert(0, os.path.join(_HERE, "..", "python"))
_wrote = sys.dont_write_bytecode
sys.dont_write_bytecode = True  # no __pycache__ in the installed tree
import modsect_stub  # noqa: E402
sys.dont_write_bytecode = _wrote

# `make install` replaces this with the directory modsect was installed in.
MODSECT_BINDIR = "@BINDIR@"


def modsect_binary():
    """The modsect executable to run (see the module docstring)."""
    found = modsect_stub.find_binary(MODSECT_BINDIR, _HERE)
    if found:
        return found
    raise gdb.GdbError("modsect: no modsect binary (set $MODSECT, or put it in PATH)")


def run_modsect(args):
    """Runs modsect with ARGS; returns its stdout, raises gdb.GdbError with
    its stderr when it fails.  Warnings of a successful run are shown."""
    exe = modsect_binary()
    try:
        p = subprocess.run([exe] + args, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise gdb.GdbError("modsect: cannot run %s: %s" % (exe, e.strerror))
    return finish(exe, p.returncode, p.stdout, p.stderr)


def needs_target_source(args):
    """True when ARGS read a map with no source of their own while gdb is
    connected to a remote target: the map comes from its memory then."""
    if not modsect_stub.wants_source(args):
        return False
    conn = getattr(gdb.selected_inferior(), "connection", None)
    return conn is not None and conn.type in ("remote", "extended-remote")


def _read_memory(addr, n):
    try:
        return bytes(gdb.selected_inferior().read_memory(addr, n))
    except gdb.MemoryError:
        return None


def run_modsect_lent(args):
    """Runs modsect ARGS on gdb's own connection (modsect_stub); returns
    its stdout as run_modsect does."""
    exe = modsect_binary()
    try:
        rc, out, err = modsect_stub.run_lent(
            exe, args, gdb.selected_inferior().architecture().name(),
            _read_memory, lambda: int(gdb.parse_and_eval("$pc")),
            errors=(gdb.error,))
    except OSError as e:
        raise gdb.GdbError("modsect: cannot run %s: %s" % (exe, e.strerror))
    return finish(exe, rc, out, err)


def finish(exe, rc, out, err):
    """modsect's stdout, or a gdb error with its message."""
    err = err.decode("utf-8", "replace")
    if rc != 0:
        msg = err.strip() or "%s exited with status %d" % (exe, rc)
        raise gdb.GdbError(msg)
    if err:
        gdb.write(err, gdb.STDERR)
    return out.decode("utf-8", "surrogateescape")


def source_text(text, quiet=False):
    """Sources gdb commands TEXT, with confirmation off (add-symbol-file
    asks otherwise when gdb is interactive); QUIET drops gdb's output."""
    fd, path = tempfile.mkstemp(prefix="modsect-", suffix=".gdb")
    confirm = gdb.parameter("confirm")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        gdb.execute("set confirm off", to_string=True)
        gdb.execute("source " + path, to_string=quiet)
    finally:
        if confirm:
            gdb.execute("set confirm on", to_string=True)
        os.unlink(path)


# Where `modsect follow` stops (kernel/module/main.c since 5.19,
# kernel/module.c before), both found by name in kallsyms, so no debug
# vmlinux is needed:
# - do_init_module(struct module *mod): load_module() calls it once the
#   module is COMING, with its sections in sysfs (mod_sysfs_setup) and its
#   kallsyms set, and do_init_module() then runs mod->init through
#   do_one_initcall(): the one point where the symbols can be in place
#   before the init function runs, .init.* included.  It is noinline so
#   that its stack frame is not part of load_module's.
# - free_module(struct module *mod): every unload (delete_module) and every
#   load that fails in or after init ends there, while mod is still on the
#   module list with its sect_attrs (free_module itself takes them down).
# lx-symbols stops at the same two; the module notifier chain would need a
# notifier_block in the guest, which a debugger cannot add.
FOLLOW_STOPS = ("do_init_module", "free_module")

# The first argument at a function's entry: x86-64 and arm64 by their ABI,
# i386 because the kernel is built with -mregparm=3.
ARG0 = {"i386:x86-64": "$rdi", "i386": "$eax", "aarch64": "$x0"}


# The line that adds a module's file of unwind tables and/or types
# (lib/emit/unwscript.c), after "# NAME: its unwind tables", "# NAME:
# its types" or "# NAME: its unwind tables and types":
# python gdb.execute('add-symbol-file ' + 'PATH' + ' -o 0', to_string=True)
_UNWIND_LINE = re.compile(r"^python gdb\.execute\('add-symbol-file ' \+ ('(?:[^'\\]|\\.)*') \+ ' -o 0', to_string=True\)$")


_UNWIND_HEAD = re.compile(r"^# (\S+): its (?:unwind tables and types|unwind tables|types)$")


def _unwind_files(text):
    """{module name: its unwind file} of a `modsect gdb --all` script,
    from each "# NAME: its unwind tables" (or types) line and the one
    after it."""
    files, name = {}, None
    for line in text.splitlines():
        m = _UNWIND_LINE.match(line)
        if m and name:
            files[name] = ast.literal_eval(m.group(1))
        h = _UNWIND_HEAD.match(line)
        name = h.group(1) if h else None
    return files


def _script_module(text):
    """(name, .text address, unwind file or None) of the one module of a
    `modsect gdb` script."""
    addr = unwind = None
    for line in text.splitlines():
        if line.startswith("add-symbol-file "):
            addr = int(gdb.string_to_argv(line)[2], 16)
        m = _UNWIND_LINE.match(line)
        if m:
            unwind = ast.literal_eval(m.group(1))
    return modsect_stub.script_module_name(text), addr, unwind


def _child_cpu():
    """CPU seconds of the children that have ended (modsect's runs)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class _Stop(gdb.Breakpoint):
    """An internal, silent breakpoint whose stop never stops."""

    def __init__(self, addr, callback):
        super().__init__("*0x%x" % addr, internal=True)
        self.silent = True
        self.callback = callback

    def stop(self):
        # Ctrl-C while modsect runs would leave gdb half-way; it is
        # taken when the target runs again, as before.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.callback()
        except gdb.GdbError as e:
            gdb.write("modsect follow: %s\n" % e, gdb.STDERR)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        return False


class Follow:
    """modsect follow: module loads and unloads as they happen."""

    def __init__(self):
        self.stops = []
        self.args = []
        self.loaded = {}  # struct module address -> (name, .text address)
        self.arg0 = None  # the first argument register, set by on/follow
        self.unwind_of = {}  # module name -> unwind file, from on()

    def off(self):
        for bp in self.stops:
            if bp.is_valid():
                bp.delete()
        self.stops = []

    def on(self, args):
        self.off()
        self.args = args
        arch = gdb.selected_inferior().architecture().name()
        if arch not in ARG0:
            raise gdb.GdbError("modsect follow: architecture %s is not supported" % arch)
        self.arg0 = ARG0[arch]
        # Every module now, and the core kernel's symbols, which give
        # the addresses of the functions to stop at.
        text = run_modsect_lent(["gdb", "--all", "--kernel"] + args)
        source_text(text)
        self.unwind_of = _unwind_files(text)
        addrs = []
        for fn in FOLLOW_STOPS:
            try:
                addrs.append(int(gdb.parse_and_eval("(unsigned long)&%s" % fn)))
            except gdb.error:
                raise gdb.GdbError("modsect follow: the kernel has no %s in kallsyms" % fn)
        self.stops = [_Stop(addrs[0], self.on_load), _Stop(addrs[1], self.on_free)]
        gdb.write("modsect: following module loads and unloads (modsect follow off to stop)\n")

    def _mod(self):
        return int(gdb.parse_and_eval(self.arg0)) & ((1 << 64) - 1)

    def _one(self, mod):
        text = run_modsect_lent(["gdb", "--all", "--module-at", "0x%x" % mod] + self.args)
        return text, _script_module(text)

    def on_load(self):
        mod = self._mod()
        if mod in self.loaded:
            # The same entry reported again: gdb stepping over this
            # breakpoint after the new symbols re-set every breakpoint
            # (lx-symbols sees it too, and calls it spurious).
            return
        t0, c0 = time.monotonic(), _child_cpu()
        text, (name, addr, unwind) = self._one(mod)
        t1, c1 = time.monotonic(), _child_cpu()
        source_text(text, quiet=True)
        self.loaded[mod] = (name, addr, unwind)
        gdb.write("modsect: %s loaded at 0x%x\n" % (name, addr))
        if os.environ.get("MODSECT_FOLLOW_TIMES"):
            # bench/: modsect's own time (its CPU), the event's whole
            # (gdb reading memory for it, sourcing the symbols).
            gdb.write("modsect: event %.3f s, modsect's cpu %.3f s, gdb's load %.3f s\n"
                      % (t1 - t0, c1 - c0, time.monotonic() - t1))

    def on_free(self):
        mod = self._mod()
        name, addr, unwind = self.loaded.pop(mod, (None, None, None))
        if addr is None:  # loaded before follow began
            _, (name, addr, _) = self._one(mod)
            unwind = self.unwind_of.pop(name, None)
        if addr is None:
            return
        try:
            # Its unwind tables too, by name (they have no section): the
            # next module loaded there must not unwind by them.
            if unwind:
                gdb.execute("remove-symbol-file " + unwind, to_string=True)
            gdb.execute("remove-symbol-file -a 0x%x" % addr, to_string=True)
        except gdb.error:
            return  # its symbols were not loaded
        gdb.write("modsect: %s unloaded\n" % name)


FOLLOW = Follow()


class ModsectCommand(gdb.Command):
    """Run modsect and load its gdb commands into this session.
Usage: modsect gdb [OPTIONS] MODULE [FILE] | --all
       modsect follow [OPTIONS] | off
       modsect COMMAND [OPTIONS] [ARGS]   (output printed)
The gdb subcommand's add-symbol-file commands are loaded; any other
subcommand's output is printed.  Connected to a remote target, with no
--capture, --remote, --vmcore or --root, modsect reads the map from the
target's memory over gdb's own connection.  `modsect follow` loads every
module and the core kernel's symbols, then each module the kernel loads
before its init runs, and drops each one it unloads (OPTIONS as for
`modsect gdb`: --kernel-image, --search, --debug-dir...).  See
`modsect --help` and modsect(1)."""

    def __init__(self):
        super().__init__("modsect", gdb.COMMAND_FILES, gdb.COMPLETE_FILENAME)

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        args = gdb.string_to_argv(arg)
        if args and args[0] == "follow":
            if args[1:] == ["off"]:
                FOLLOW.off()
            else:
                FOLLOW.on(args[1:])
            return
        if needs_target_source(args):
            out = run_modsect_lent(args)
        else:
            out = run_modsect(args)
        helping = any(a in ("-h", "--help", "--version") for a in args)
        if args and args[0] == "gdb" and not helping:
            ofile = modsect_stub.output_file(args[1:])
            if ofile is not None and ofile != "-":
                gdb.execute("source " + ofile)
            else:
                source_text(out)
        elif out:
            gdb.write(out)


ModsectCommand()


# Per-cpu variables.  modsect's types (from the kernel's BTF) place a
# per-cpu variable at CPU 0's copy, &var + __per_cpu_offset[0]; DWARF of
# a module (or a debug vmlinux) places it at its per-cpu pointer, &var
# itself.  CPU's copy is at pointer + __per_cpu_offset[CPU], the
# kernel's per_cpu().

def _selected_cpu():
    """The CPU of the selected thread: QEMU's gdbstub (and its ELF dumps)
    number a thread per CPU from 1."""
    t = gdb.selected_thread()
    if t is None:
        raise gdb.GdbError("no thread selected: give the CPU")
    lwp = t.ptid[1] or t.num
    return lwp - 1


def _address_of(name):
    return int(gdb.parse_and_eval("(unsigned long)&%s" % name))


def _is_pointer(addr):
    """Whether addr is a per-cpu pointer rather than CPU 0's copy: within
    the core kernel's per-cpu section, or, where that starts at 0 (x86-64
    SMP), below 4 GB, where every per-cpu pointer is (modules' too)."""
    start = _address_of("__per_cpu_start")
    if start == 0:
        return addr < (1 << 32)
    return start <= addr < _address_of("__per_cpu_end")


def per_cpu(var, cpu):
    """CPU's copy of per-cpu variable VAR (a gdb.Value)."""
    addr = var.address
    if addr is None:
        raise gdb.GdbError("$modsect_per_cpu: not a variable")
    ncpu = int(gdb.parse_and_eval("*(unsigned int *)&nr_cpu_ids"))
    if not 0 <= cpu < ncpu:
        raise gdb.GdbError("$modsect_per_cpu: CPU %d: the kernel has %d"
                           % (cpu, ncpu))
    offs = gdb.parse_and_eval("(unsigned long *)&__per_cpu_offset")
    ulong = gdb.lookup_type("unsigned long")
    a = int(addr.cast(ulong))
    base = a if _is_pointer(a) else a - int(offs[0])
    moved = (base + int(offs[cpu])) & 0xffffffffffffffff
    return gdb.Value(moved).cast(addr.type).dereference()


class _PerCpu(gdb.Function):
    """$modsect_per_cpu(VAR [, CPU]): CPU's copy of the per-cpu variable
VAR; CPU defaults to the selected thread's (QEMU: thread N is CPU N-1).
With modsect's kernel types `p VAR` alone shows CPU 0's copy; a module's
own per-cpu variable (its DWARF) works the same."""

    def __init__(self):
        super().__init__("modsect_per_cpu")

    def invoke(self, var, cpu=None):
        return per_cpu(var, _selected_cpu() if cpu is None else int(cpu))


class _Current(gdb.Function):
    """$modsect_current([CPU]): the task running on CPU (default: the
selected thread's), as the kernel's `current` (x86-64: the per-cpu
pcpu_hot.current_task from 6.2, current_task before)."""

    def __init__(self):
        super().__init__("modsect_current")

    def invoke(self, cpu=None):
        cpu = _selected_cpu() if cpu is None else int(cpu)
        try:
            return per_cpu(gdb.parse_and_eval("pcpu_hot"),
                           cpu)["current_task"]
        except gdb.error:
            pass
        try:
            return per_cpu(gdb.parse_and_eval("current_task"), cpu)
        except gdb.error:
            raise gdb.GdbError("$modsect_current: no per-cpu pcpu_hot or "
                               "current_task with a type (modsect gdb "
                               "--kernel, x86-64)")


_PerCpu()
_Current()
