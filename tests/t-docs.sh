#!/bin/bash
# The man page, `modsect --help` / `modsect CMD --help` and the bash
# completion name the same commands and options.  The help texts come from
# the tables in tools/main.c and tools/options.c (the one source of truth); the man page's
# COMMANDS (`.TP` + `.B name`) and SYNOPSIS (`.B modsect name`) must list
# exactly the commands of `modsect --help`, its OPTIONS (`.TP` tags:
# `.B`/`.BI`/`.BR` with \-\-name and \-x) exactly the options of all
# `CMD --help` plus the global ones of the top-level usage line
# ([--version] [--help]), and an option whose man entry names commands,
# e.g. `.RB ( gdb ", " lldb )` (first such line of its entry), exactly the commands whose --help lists it.
# The completion must offer the same commands and, per command, the same
# options (plus the global ones).  The page renders without warnings.
# Every command answers -h/--help/--version and refuses unknown options.
. "$(dirname "$0")/lib.sh"
need groff man python3 || finish
MAN=$TOP/man/modsect.1
COMP=$TOP/share/bash-completion/modsect.bash

# --- rendering ----------------------------------------------------------------
groff -ww -man -Tutf8 "$MAN" >"$T/groff.out" 2>"$T/groff.err"
if [ $? = 0 ] && [ ! -s "$T/groff.err" ] && [ -s "$T/groff.out" ]; then
	ok "groff -ww -man renders the man page with no warnings"
else
	not_ok "groff -ww -man renders the man page with no warnings" "$(cat "$T/groff.err")"
fi
MANWIDTH=80 man -l "$MAN" >"$T/man.out" 2>"$T/man.err" </dev/null
if [ $? = 0 ] && [ ! -s "$T/man.err" ] && grep -q '^NAME' "$T/man.out"; then
	ok "MANWIDTH=80 man -l renders the man page with no warnings"
else
	not_ok "MANWIDTH=80 man -l renders the man page with no warnings" "$(cat "$T/man.err")"
fi
if [ -z "$(awk 'length > 80' "$T/man.out")" ]; then
	ok "man -l output fits 80 columns"
else
	not_ok "man -l output fits 80 columns" "$(awk 'length > 80' "$T/man.out")"
fi

# --- help texts ----------------------------------------------------------------
"$MODSECT" --help >"$T/help" 2>&1 || not_ok "modsect --help exits 0" "$(cat "$T/help")"
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$T/help")
[ -n "$cmds" ] || bail "no commands in modsect --help"
mkdir -p "$T/h"
for c in $cmds; do
	"$MODSECT" "$c" --help >"$T/h/$c" 2>&1 || not_ok "modsect $c --help exits 0" "$(cat "$T/h/$c")"
done

# Every command of `modsect --help` answers -h, --help and --version (exit
# 0, stdout only) and refuses an unknown option (exit 2, naming it).
for c in $cmds; do
	for a in -h --help --version; do
		ms "$c" $a
		if [ "$RC" = 0 ] && [ -s "$T/out" ] && [ ! -s "$T/err" ]; then
			ok "modsect $c $a: exit 0 to stdout"
		else
			not_ok "modsect $c $a: exit 0 to stdout" "$(_last_run)"
		fi
	done
	ms "$c" --no-such-opt
	check_refused "modsect $c --no-such-opt: exit 2 naming it" 2 "unknown option '--no-such-opt'"
	ms "$c" -Z
	check_refused "modsect $c -Z: exit 2 naming it" 2 "unknown option '-Z'"
done

# --- completion: what it offers -----------------------------------------------
# A scripted bash session: source the completion, set COMP_WORDS and
# COMP_CWORD, call _modsect, print COMPREPLY.
mkdir -p "$T/c"
bash -c '
	. "$1" || exit 1
	ms=$2 out=$3
	shift 3
	comp() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _modsect; printf "%s\n" "${COMPREPLY[@]}"; }
	comp "$ms" "" >"$out/commands"
	for c in "$@"; do comp "$ms" "$c" - >"$out/$c"; done
' sh "$COMP" "$MODSECT" "$T/c" $cmds 2>"$T/comp.err"
if [ $? = 0 ] && [ ! -s "$T/comp.err" ]; then
	ok "the completion runs in a scripted bash session"
else
	not_ok "the completion runs in a scripted bash session" "$(cat "$T/comp.err")"
fi

# --- compare ------------------------------------------------------------------
python3 - "$MAN" "$T/help" "$T/h" "$T/c" $cmds >"$T/cmp" 2>&1 <<'PY'
import re, sys
man, tophelp, hdir, cdir, cmds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]

def help_opts(text):
    """Options of a `CMD --help` text: every spelling (-o and --output)."""
    opts, on = set(), False
    for line in text.splitlines():
        if line.startswith("Options:"):
            on = True
        elif on and line.startswith(" "):
            tag = re.split(r"\s{2,}", line.strip())[0]
            opts |= set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", tag))
    return opts

top = open(tophelp).read()
glob = set(re.findall(r"\[(--?[A-Za-z][\w-]*)\]", top.splitlines()[0]))
per = {c: help_opts(open("%s/%s" % (hdir, c)).read()) for c in cmds}
allhelp = set().union(*per.values()) | glob

# The man page: sections, .TP tags.
sec, secs = None, {}
lines = open(man).read().splitlines()
for l in lines:
    if l.startswith(".SH "):
        sec = l[4:].strip().strip('"')
        secs[sec] = []
    elif sec:
        secs[sec].append(l)

def tp_tags(body):
    """(tag line, following lines up to the next .TP) per .TP."""
    out = []
    for i, l in enumerate(body):
        if l == ".TP" and i + 1 < len(body):
            j = i + 2
            while j < len(body) and body[j] != ".TP":
                j += 1
            out.append((body[i + 1], body[i + 2:j]))
    return out

def unesc(s):
    return s.replace("\\-", "-").replace('"', " ")

man_cmds = [re.match(r"\.B\s+(\S+)$", t).group(1) for t, _ in tp_tags(secs.get("COMMANDS", []))
            if re.match(r"\.B\s+(\S+)$", t)]
syn_cmds = [m.group(1) for l in secs.get("SYNOPSIS", []) for m in [re.match(r"\.B modsect (\S+)$", l)] if m]

man_opts, man_for = set(), {}
for tag, body in tp_tags(secs.get("OPTIONS", [])):
    if not re.match(r"\.(B|BI|BR)\s", tag):
        continue
    names = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", unesc(tag)))
    man_opts |= names
    # ".RB ( gdb ", " lldb )" right after the tag: the commands it is for
    for b in body:
        if b.startswith(".RB ("):
            words = set(re.findall(r"[a-z][\w-]*", unesc(b[len(".RB ("):])))
            if words and words <= set(cmds):
                for n in names:
                    man_for[n] = words
                break

bad = []
def same(what, want, got):
    want, got = set(want), set(got)
    if want != got:
        bad.append("%s: missing %s, extra %s" % (what, sorted(want - got) or "-", sorted(got - want) or "-"))
    else:
        print("same: %s (%d)" % (what, len(want)))

same("man COMMANDS vs modsect --help commands", cmds, man_cmds)
same("man SYNOPSIS vs modsect --help commands", cmds, syn_cmds)
same("man OPTIONS vs the options of every CMD --help and the global ones", allhelp, man_opts)
for o, words in sorted(man_for.items()):
    same("man: the commands %s is for vs those whose --help lists it" % o,
         [c for c in cmds if o in per[c]], words)
comp_cmds = open("%s/commands" % cdir).read().split()
same("completion commands vs modsect --help commands", cmds, comp_cmds)
for c in cmds:
    same("completion of 'modsect %s -' vs %s --help options and the global ones" % (c, c),
         per[c] | glob, open("%s/%s" % (cdir, c)).read().split())
for b in bad:
    print("DIFF: " + b)
PY
while IFS= read -r line; do
	case $line in
	same:*) ok "${line#same: }" ;;
	DIFF:*) not_ok "${line#DIFF: }" ;;
	*) not_ok "comparison script: $line" ;;
	esac
done <"$T/cmp"
grep -q '^same: man OPTIONS' "$T/cmp" || grep -q '^DIFF: man OPTIONS' "$T/cmp" ||
	not_ok "the comparison ran"
finish
