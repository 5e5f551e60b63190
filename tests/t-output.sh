#!/bin/bash
# Rule 10: -o FILE writes the whole output atomically; on an error an
# existing FILE is left untouched and no temp file remains.
# (Rule 10 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy || finish
std_fixture || bail "fixture"
mkdir "$T/o"

ms gdb --root "$R" testmod
cp "$T/out" "$T/stdout.gdb"
ms gdb --root "$R" -o "$T/o/s.gdb" testmod
check_rc "gdb -o FILE: exit 0" 0
check "gdb -o FILE: nothing on stdout" [ ! -s "$T/out" ]
check_same "gdb -o FILE: FILE has what stdout would have" "$T/stdout.gdb" "$T/o/s.gdb"
check_eq "gdb -o FILE: only FILE in the directory" "s.gdb" "$(ls -A "$T/o")"

for c in lldb sections list capture; do
	if [ $c = list ] || [ $c = capture ]; then a=(); else a=(testmod); fi
	ms "$c" --root "$R" "${a[@]}"
	cp "$T/out" "$T/stdout.$c"
	ms "$c" --root "$R" --output "$T/o/$c.out" "${a[@]}"
	if [ "$RC" = 0 ] && cmp -s "$T/stdout.$c" "$T/o/$c.out"; then
		ok "$c --output FILE: same as stdout"
	else
		not_ok "$c --output FILE: same as stdout" "$(_last_run)"
	fi
done

# Existing FILE, then a build-id mismatch.
echo "previous content" >"$T/o/s.gdb"
ino=$(stat -c %i "$T/o/s.gdb")
mkmod "$T/other" testmod 1 || bail "second build"
objcopy -O binary --only-section=.note.gnu.build-id "$T/other/testmod.ko" \
	"$R/sys/module/testmod/notes/.note.gnu.build-id"
ms gdb --root "$R" -o "$T/o/s.gdb" testmod
check_refused "mismatch with -o: exit 3" 3 'not the loaded build'
check_eq "mismatch with -o: existing FILE untouched" "previous content $ino" \
	"$(cat "$T/o/s.gdb") $(stat -c %i "$T/o/s.gdb")"
check_eq "mismatch with -o: no temp file left" "$(ls -A "$T/o" | grep -vx -e s.gdb -e '.*\.out' | tr '\n' ' ')" ""

# Not found with -o.
ms gdb --root "$R" -o "$T/o/s.gdb" nosuchmod
check_refused "not loaded with -o: exit 1" 1 'not loaded'
check_eq "not loaded with -o: FILE untouched" "previous content" "$(cat "$T/o/s.gdb")"

# Unwritable destination.
objcopy -O binary --only-section=.note.gnu.build-id "$KO" \
	"$R/sys/module/testmod/notes/.note.gnu.build-id"
ms gdb --root "$R" -o "$T/no/such/dir/s.gdb" testmod
check_refused "-o in a missing directory: exit 3 naming it" 3 'no/such/dir'
finish
