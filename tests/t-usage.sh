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
