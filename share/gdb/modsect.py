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

import os
import shutil
import sys
import subprocess
import tempfile

import gdb

# gdb's `source` defines __file__ only while the script runs.
_HERE = os.path.dirname(os.path.realpath(globals().get("__file__") or sys._getframe().f_code.co_filename))

# `make install` replaces this with the directory modsect was installed in.
MODSECT_BINDIR = "@BINDIR@"


def modsect_binary():
    """The modsect executable to run (see the module docstring)."""
    env = os.environ.get("MODSECT")
    if env:
        return env
    here = _HERE
    cands = []
    if not MODSECT_BINDIR.startswith("@"):
        cands.append(os.path.join(MODSECT_BINDIR, "modsect"))
    # PREFIX/share/modsect/gdb/modsect.py -> PREFIX/bin/modsect
    cands.append(os.path.join(here, "..", "..", "..", "bin", "modsect"))
    # the source tree: share/gdb/modsect.py -> ./modsect
    cands.append(os.path.join(here, "..", "..", "modsect"))
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.normpath(c)
    found = shutil.which("modsect")
    if found:
        return found
    raise gdb.GdbError("modsect: no modsect binary (set $MODSECT, or put it in PATH)")


def output_file(args):
    """The -o/--output FILE among ARGS, if any."""
    for i, a in enumerate(args):
        if a == "--":
            break
        if a in ("-o", "--output") and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--output="):
            return a[len("--output="):]
        if a.startswith("-o") and len(a) > 2 and not a.startswith("--"):
            return a[2:]
    return None


def run_modsect(args):
    """Runs modsect with ARGS; returns its stdout, raises gdb.GdbError with
    its stderr when it fails.  Warnings of a successful run are shown."""
    exe = modsect_binary()
    try:
        p = subprocess.run([exe] + args, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise gdb.GdbError("modsect: cannot run %s: %s" % (exe, e.strerror))
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode != 0:
        msg = err.strip() or "%s exited with status %d" % (exe, p.returncode)
        raise gdb.GdbError(msg)
    if err:
        gdb.write(err, gdb.STDERR)
    return p.stdout.decode("utf-8", "surrogateescape")


def source_text(text):
    """Sources gdb commands TEXT, with confirmation off (add-symbol-file
    asks otherwise when gdb is interactive)."""
    fd, path = tempfile.mkstemp(prefix="modsect-", suffix=".gdb")
    confirm = gdb.parameter("confirm")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        gdb.execute("set confirm off", to_string=True)
        gdb.execute("source " + path)
    finally:
        if confirm:
            gdb.execute("set confirm on", to_string=True)
        os.unlink(path)


class ModsectCommand(gdb.Command):
    """Run modsect and load its gdb commands into this session.
Usage: modsect gdb [OPTIONS] MODULE [FILE] | --all
       modsect COMMAND [OPTIONS] [ARGS]   (output printed)
The gdb subcommand's add-symbol-file commands are loaded; any other
subcommand's output is printed.  See `modsect --help` and modsect(1)."""

    def __init__(self):
        super().__init__("modsect", gdb.COMMAND_FILES, gdb.COMPLETE_FILENAME)

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        args = gdb.string_to_argv(arg)
        out = run_modsect(args)
        helping = any(a in ("-h", "--help", "--version") for a in args)
        if args and args[0] == "gdb" and not helping:
            ofile = output_file(args[1:])
            if ofile is not None and ofile != "-":
                gdb.execute("source " + ofile)
            else:
                source_text(out)
        elif out:
            gdb.write(out)


ModsectCommand()
