# shellcheck shell=bash
# tests/vm/parts/lldb.sh - sourced by tests/vm/test.sh (section 4).
#
# Proves `modsect lldb` scripts, offline (target create "" + the script):
# `image lookup -a` of every expected symbol's kallsyms address names that
# symbol (or an alias) at offset 0 in the right module file, for the test
# module from the static and sh-loop captures and for every module from
# `lldb --all`; 0x10 finds nothing.  MODSECT_VM_LLDB=0 skips it.
#
# Uses boot.sh's captures, lists, mod_orig; test.sh's LLDB_ARCH.

# --- 4. lldb (offline: target create "" + the script + image lookup -a) ---------------
# check_lldb LABEL SCRIPT MODULES...: image lookup -a of every expected
# symbol's kallsyms address must name it (or an alias), at offset 0, in the
# right module file.
check_lldb() {
	local label=$1 script=$2 m res lf
	shift 2
	# An address that resolves to nothing is an error for lldb, and errors
	# end a -s script: the lookups go in a file sourced with -e false.
	{
		for m in "$@"; do
			awk '{ print "image lookup -a 0x" $2 }' "$W/sym/$m.exp"
		done
		echo "image lookup -a 0x10"
	} >"$W/lldb-run-$label.lookups"
	{
		echo "target create --arch $LLDB_ARCH \"\""
		echo "command source $script"
		echo "command source -e false $W/lldb-run-$label.lookups"
	} >"$W/lldb-run-$label.lldb"
	timeout "$GDB_TIMEOUT" lldb -b -s "$W/lldb-run-$label.lldb" >"$W/lldb-run-$label.out" 2>&1 </dev/null
	for m in "$@"; do
		# The file lldb got: the module file, or modsect's copy for lldb.
		lf=$(awk -v m="$m" '/^# [A-Za-z0-9_]+ \(/ { cur = $2 } /^target modules add "/ && cur == m { f = $0; sub(/^target modules add "/, "", f); sub(/"$/, "", f); print f }' "$script")
		if ! vm_dbgfile_ok "$lf" "$(mod_orig "$m")" lldb; then
			not_ok "lldb $label: $m: target modules add '$lf': $VM_DBGFILE"
		fi
		res=$(awk -v f="${lf##*/}" '
			FILENAME == ARGV[1] { alias[$1 " " $2] = 1; next }
			FILENAME == ARGV[2] { want[$2] = $1; sec[$2] = $3; order[++n] = $2; next }
			/^\(lldb\) image lookup -a 0x/ { cur = substr($5, 3); next }
			/^\(lldb\) / { cur = ""; next }
			cur != "" && $1 == "Address:" {
				file[cur] = $2; sub(/\[.*/, "", file[cur])
				where[cur] = $0; sub(/^[^(]*/, "", where[cur])
			}
			cur != "" && $1 == "Summary:" { s = $0; sub(/^ *Summary: /, "", s); sum[cur] = s }
			END {
				for (i = 1; i <= n; i++) {
					a = order[i]
					s = sum[a]; nm = s; sub(/^[^ `]*`/, "", nm); split(nm, w, " ")
					if (file[a] == f && ((a " " w[1]) in alias) && w[2] != "+") { okn++; continue }
					# lldb 14 names the (nameless) section symbol for the
					# first byte of a section in a file without debug info,
					# or (crc_itu_t of 6.12, __this_module) only the section.
					if (file[a] == f && (nm == "" || s == f "." sec[a] " + 0") && where[a] == "(" f "." sec[a] " + 0)") { okn++; sec0++; continue }
					# The cold part of a function gcc split (X.cold in
					# .text.unlikely): lldb names the DWARF function X it
					# belongs to (its DW_AT_ranges), at an offset from the
					# entry of X, which it prints unsigned.
					if (file[a] == f && want[a] ~ /\.cold$/ && w[1] == substr(want[a], 1, length(want[a]) - 5) && w[2] == "+") { okn++; cold++; continue }
					bad++
					if (bad <= 10) printf "  %s at %s: %s: %s\n", want[a], a, file[a], s
				}
				printf "RESULT %d %d %d %d\n", okn, bad, sec0, cold
			}' "$W/sym/$m.kall" "$W/sym/$m.exp" "$W/lldb-run-$label.out")
		read -r _ nok nbad nsec0 ncold <<<"$(tail -n1 <<<"$res")"
		if [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then
			ok "lldb $label: image lookup -a names all $nok kallsyms addresses of $m$([ "${nsec0:-0}" = 0 ] || echo " ($nsec0 as <section> + 0)")$([ "${ncold:-0}" = 0 ] || echo " ($ncold .cold parts as their DWARF function)")"
		else
			not_ok "lldb $label: image lookup -a wrong for $nbad of $((nok + nbad)) addresses of $m"
			sed '$d' <<<"$res" | detail
		fi
	done
	# Nothing at 0x10: the last command prints no Address/Summary.
	if awk '/^\(lldb\) image lookup -a 0x10$/ { on = 1; next } on && /Summary:|Address:/ { f = 1 } END { exit !(on && !f) }' "$W/lldb-run-$label.out"; then
		ok "lldb $label: image lookup -a 0x10 finds nothing"
	else
		not_ok "lldb $label: image lookup -a 0x10 found something (or lldb did not get there)"
		tail -n 5 "$W/lldb-run-$label.out" | detail
	fi
}
if [ "${MODSECT_VM_LLDB:-1}" = 0 ]; then
	echo "skip: lldb (MODSECT_VM_LLDB=0)"
elif ! (vm_need_pkgs lldb:lldb) || ! command -v lldb >/dev/null 2>&1; then
	not_ok "lldb not installed (apt-get install -y lldb, or MODSECT_VM_LLDB=0)"
else
	for c in static shloop; do
		F=$(cap_file "$c")
		rc=0
		ms "lldb-$c-modsect_test" lldb --capture "$F" "${VM_MODDIR_ARGS[@]}" --search "$TD" modsect_test -o "$W/$c-modsect_test.lldb" || rc=$?
		if [ "$rc" = 0 ]; then
			check_lldb "$c-modsect_test" "$W/$c-modsect_test.lldb" modsect_test
		else
			not_ok "[$c] modsect lldb modsect_test: rc=$rc"
			detail <"$W/lldb-$c-modsect_test.err"
		fi
	done
	rc=0
	ms lldb-static-all lldb --all --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$TD" -o "$W/static-all.lldb" || rc=$?
	if [ "$rc" = 0 ]; then
		# shellcheck disable=SC2086
		check_lldb static-all "$W/static-all.lldb" $MODS
	else
		not_ok "[static] modsect lldb --all: rc=$rc"
		detail <"$W/lldb-static-all.err"
	fi
fi
