#!/bin/bash
# The shape of the code (docs/architecture.md), checked on the objects the
# tests run:
#   - no cycle among the library's files, as the linker sees them (a file
#     uses another when it needs a symbol the other defines: nm);
#   - each folder of lib/ uses only itself and those below it in
#     lib/LAYERS, by symbol and by #include;
#   - tools/ only parses options, calls the library and prints: no tools/
#     object calls what finds module files, builds layouts or reads debug
#     info;
#   - no file of lib/ or tools/ over 600 lines, no function over 80.
. "$(dirname "$0")/lib.sh"
need nm python3 || finish
# The objects of the binary under test (build/san for make check's).
OBJ=
for d in "$(dirname "$MODSECT")" "$TOP/build"; do
	if ls "$d"/lib/*/*.o >/dev/null 2>&1; then OBJ=$d; break; fi
done
[ -n "$OBJ" ] || bail "no objects of the library (run make)"

python3 "$TOP/scripts/depgraph.py" --layers "$TOP/lib/LAYERS" "$OBJ" "$TOP" >"$T/graph" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/graph" ]; then
	ok "no cycles between library files, no folder uses one above it"
else
	not_ok "no cycles between library files, no folder uses one above it" "$(cat "$T/graph")"
fi

# What only the library does: finding files, layouts, debug info, DWARF.
deep='ms_finder_open ms_finder_open_build_id ms_modfile_open ms_layout_build ms_debuginfo_find ms_map_read_live ms_map_read_capture ms_map_read_memory ms_remote_open ms_vmcore_open ms_symbolizer_add ms_symbolizer_new'
bad=
for o in "$OBJ"/tools/*.o; do
	src=$TOP/tools/$(basename "${o%.o}").c
	[ -f "$src" ] || continue # an object of a file since removed
	for s in $(nm -u "$o" | awk '{ print $2 }'); do
		case " $deep " in *" $s "*) bad="$bad$(basename "$src") calls $s
" ;; esac
	done
done
if [ -z "$bad" ]; then ok "tools/ calls none of the library's file, layout and debug info steps"
else not_ok "tools/ calls none of the library's file, layout and debug info steps" "$bad"; fi

long=$(cd "$TOP" && wc -l lib/*.h lib/*/*.[ch] tools/*.[ch] | awk '$2 != "total" && $1 > 600')
if [ -z "$long" ]; then ok "no file of lib/ or tools/ over 600 lines"
else not_ok "no file of lib/ or tools/ over 600 lines" "$long"; fi

long=$(cd "$TOP" && scripts/funclen.sh -n 80 lib/*/*.c tools/*.c)
if [ -z "$long" ]; then ok "no function of lib/ or tools/ over 80 lines"
else not_ok "no function of lib/ or tools/ over 80 lines" "$long"; fi

# The folders LAYERS names are lib/'s folders, and the umbrella header
# includes each folder's header.
want=$(grep -v '^#' "$TOP/lib/LAYERS" | sed '/^$/d' | sort | tr '\n' ' ')
have=$(cd "$TOP/lib" && ls -d */ | tr -d / | sort | tr '\n' ' ')
check_eq "lib/LAYERS names every folder of lib/" "$want" "$have"
missing=
for d in $want; do
	grep -q "#include \"$d/$d.h\"" "$TOP/lib/modsect.h" || missing="$missing $d"
done
check_eq "lib/modsect.h includes each folder's header" "" "$missing"
finish
