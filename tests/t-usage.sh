#!/bin/bash
# Rule 13: command line usage: exit 2 for usage errors (naming the bad
# option), exit 0 on stdout for --version and -h/--help everywhere.
# (Rule 13 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need || finish

ms
check_refused "no arguments: exit 2, usage on stderr" 2 '^Usage: modsect'

ms --bogus-option
check_refused "unknown top-level option: exit 2 naming it" 2 "'--bogus-option'"

ms frobnicate
check_refused "unknown command: exit 2 naming it" 2 "'frobnicate'"

for c in gdb lldb sections list capture; do
	ms "$c" --no-such-opt x
	check_refused "$c: unknown option: exit 2 naming it" 2 "unknown option '--no-such-opt'"
done

ms gdb
check_refused "gdb without MODULE or --all: exit 2" 2 'MODULE, or --all'
ms lldb
check_refused "lldb without MODULE or --all: exit 2" 2 'MODULE, or --all'
ms gdb --all testmod
check_refused "gdb --all with a MODULE: exit 2" 2 "--all takes no module"
ms sections
check_refused "sections without MODULE: exit 2" 2 'missing MODULE'
ms list extra
check_refused "list with an argument: exit 2 naming it" 2 "'extra'"
ms gdb --root
check_refused "option without its argument: exit 2 naming it" 2 "'--root' needs an argument"
ms gdb --root /x --capture /y testmod
check_refused "--root with --capture: exit 2" 2 'exclude each other'
ms gdb --all --module-at 0xffffffffc0000000 --capture /y
check_refused "--module-at without a memory source: exit 2" 2 '--module-at goes with --all and --remote or --vmcore'
ms gdb --module-at 0xffffffffc0000000 --remote :1 testmod
check_refused "--module-at without --all: exit 2" 2 '--module-at goes with --all'
ms gdb --all --module-at 0xzz --remote :1
check_refused "--module-at with no address: exit 2" 2 "--module-at takes an address, not '0xzz'"
ms capture --json
check_refused "option that does not apply: exit 2 naming it" 2 "'--json' does not apply"

# An option is named as typed, never by its value nor by its neighbour in
# argv: "--search DIR", "--search=DIR", "-o FILE", "-oFILE", "-jo FILE".
na() { echo "^modsect: option '$1' does not apply here\$"; }
ms serve --remote 127.0.0.1:1 --search /some/dir/debug
check_refused "--search DIR that does not apply: named, not its DIR" 2 "$(na --search)"
ms serve --search=/some/dir/debug
check_refused "--search=DIR that does not apply: named without =DIR" 2 "$(na --search)"
ms serve --sea /some/dir/debug
check_refused "an abbreviation that does not apply: named as typed" 2 "$(na --sea)"
ms serve --kcore -o /some/file
check_refused "-o FILE that does not apply: named, not its FILE" 2 "$(na -o)"
ms serve --kcore -o/some/file
check_refused "-oFILE that does not apply: named without FILE" 2 "$(na -o)"
ms capture -j
check_refused "a short flag that does not apply: named" 2 "$(na -j)"
ms capture --remote 127.0.0.1:1 -jo /some/file
check_refused "a flag in a cluster (-jo FILE): named, not its neighbour" 2 "$(na -j)"
ms capture --remote 127.0.0.1:1 --kallsyms --all
check_refused "a long flag that does not apply: named" 2 "$(na --all)"
ms list --remote 127.0.0.1:1 -xj
check_refused "an unknown short option in a cluster: named" 2 "^modsect: unknown option '-x'\$"
ms list --remote 127.0.0.1:1 -jo
check_refused "a short option missing its argument in a cluster: named" 2 "^modsect: option '-o' needs an argument\$"
ms list --json=yes
check_refused "a flag given =VALUE: named, and said to take none" 2 "^modsect: option '--json' takes no argument\$"

# Every option every command does not take, in each form: what a command
# takes is in its --help, which lists every option some command takes.
opts_of() {
	"$MODSECT" "$1" --help |
		sed -nE 's/^  (-(.), )? *--([a-z-]+)( ([^ ]+))?  .*/\3|\5|\2/p'
}
cmds=$("$MODSECT" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
for c in $cmds; do opts_of "$c"; done | sort -u >"$T/all"
for c in $cmds; do
	opts_of "$c" >"$T/own"
	bad="" n=0
	while IFS="|" read -r long arg short; do
		grep -q "^$long|" "$T/own" && continue
		forms=("--$long") && [ -z "$short" ] || forms+=("-$short")
		for f in "${forms[@]}"; do
			if [ -z "$arg" ]; then
				runs=("$f")
			elif [ "${f:1:1}" = - ]; then
				runs=("$f /some/$arg" "$f=/some/$arg")
			else
				runs=("$f /some/$arg" "$f/some/$arg")
			fi
			for r in "${runs[@]}"; do
				# shellcheck disable=SC2086 # split the form in its words
				ms "$c" $r
				n=$((n + 1))
				[ "$RC" = 2 ] && [ ! -s "$T/out" ] &&
					head -1 "$T/err" | grep -Eqx -- "$(na "$f")" ||
					bad+="$c $r: $(_last_run)"$'\n'
			done
		done
	done <"$T/all"
	if [ -z "$bad" ] && [ "$n" -gt 0 ]; then
		ok "$c: $n uses of options it does not take: exit 2, named as typed"
	else
		not_ok "$c: $n uses of options it does not take, named as typed" "$bad"
	fi
done

ms --version
check_rc "--version: exit 0" 0
check_out "--version: prints the version on stdout" "modsect $(sed -n 's/^#define MODSECT_VERSION "\(.*\)"/\1/p' "$TOP/lib/modsect.h")"
for a in -h --help; do
	ms $a
	if [ "$RC" = 0 ] && grep -q '^Usage: modsect' "$T/out" && [ ! -s "$T/err" ]; then
		ok "modsect $a: exit 0, usage on stdout"
	else
		not_ok "modsect $a: exit 0, usage on stdout" "$(_last_run)"
	fi
done
for c in gdb lldb sections list capture; do
	for a in -h --help --version; do
		ms "$c" $a
		if [ "$a" = --version ]; then
			want='^modsect [0-9]'
		else
			want="^Usage: modsect $c "
		fi
		if [ "$RC" = 0 ] && grep -Eq "$want" "$T/out" && [ ! -s "$T/err" ]; then
			ok "modsect $c $a: exit 0 to stdout"
		else
			not_ok "modsect $c $a: exit 0 to stdout" "$(_last_run)"
		fi
	done
done
ms gdb --help
check_grep "gdb --help lists its options" '--search DIR' "$T/out"
finish
