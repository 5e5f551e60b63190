# shellcheck shell=bash
# tests/vm/parts/race.sh - sourced by tests/vm/test.sh (section 9, last:
# it loads and unloads modules in the guest).
#
# Proves a capture is one consistent snapshot while modules come and go:
# the guest loads and unloads two stock modules that are not loaded at boot
# in a loop while it runs 10 `modsect capture`s (and 5 single-module
# `modsect sections`): each capture exits 0 (or says "kept changing"),
# lists the boot modules exactly as the boot's capture does, and a race
# module either not at all or whole from one load (section names, address
# deltas, kallsyms at section + symbol value, as in a quiet load and the
# .ko); the host reads every capture; a module listed in sys/module but
# gone when read is reported on stderr.
#
# Uses boot.sh's module_files, MODS and CAP_static; test.sh's note.

# --- 9. races: captures while modules are loaded and unloaded ----------------------
# The guest loads and unloads the race modules (lib.sh's VM_RACE_MODULES, not
# loaded at boot) in a loop while it runs RACE_N `modsect capture`s and, after
# every other one, a single-module `modsect-live sections` (init.sh race_run).
# Each capture must be one consistent snapshot: exit 0 (or "kept changing"),
# the boot modules exactly as in the boot's capture (sections and every
# kallsyms line: /proc/kallsyms lists module symbols by position, so a load
# or unload while it is read makes other modules' lines skipped or read
# twice), and a race module either
# absent or listed whole from ONE load: the same section names as a quiet
# load (ref.txt, checked against the sh loop's ref-sections.txt) and the same
# address deltas (core sections minus .text; .init.*, .symtab and .strtab,
# the init allocation, minus the lowest of them): loads land at two
# alternating addresses, so sections of two loads differ.  Its kallsyms lines
# must be the symbols of that load: for each, some symbol of that name in the
# module file's .symtab at <its section's address in the capture> + value.
# The host reads every capture (gdb --all, sections).  Last, capture --root of
# a tree whose sys/module lists the unloaded first race module (a dangling
# symlink: listed, but gone when read) must say so on stderr.
RC=$W/race
G=$RC/guest
RACE_N=${MODSECT_VM_RACE_N:-10}
rm -rf "$RC"
mkdir -p "$RC/ko" "$G"
module_files "${VM_RACE_LIST:-$VM_OUT/race-modules.list}" "$RC/ko" >"$RC/modules"
RACE_MODS=$(awk '{ printf "%s%s", n++ ? " " : "", $1 }' "$RC/modules")

# "M NAME ADDR" from a capture's section lines / a `sections` table / the
# sh loop's lines, ADDR as 0x and 16 hex digits (a capture of a 32-bit
# kernel has 16, its sysfs and gdb 8).
race_a16='function a16(a) { a = tolower(a); sub(/^0x/, "", a); while (length(a) < 16) a = "0" a; return "0x" a }'
race_secs() { awk "$race_a16"' $1 == "section" { print $2, $3, a16($4) }' "$1"; }
race_table() { awk -v m="$1" "$race_a16"' $2 ~ /^0x[0-9a-f]+$/ && $NF != "percpu" { print m, $1, a16($2) }' "$2"; }
race_sh() { awk "$race_a16"' { print $1, $2, a16($3) }' "$1"; }
# "M NAME ADDR" on stdin -> sorted "M NAME core|init DELTA"
race_layout() {
	# .init.* are laid out with the core where the loader frees none
	# (ppc64le, vm_init_kept).
	awk -v keepinit="$(vm_init_kept)" 'function h(s,  i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		{
			a = tolower($3); sub(/^0x/, "", a); n++
			mod[n] = $1; nm[n] = $2; hi[n] = substr(a, 1, length(a) - 8); lo[n] = h(substr(a, length(a) - 7))
			g[n] = (($2 ~ /^\.init\./ && !keepinit) || $2 == ".symtab" || $2 == ".strtab") ? "init" : "core"
			k = $1 " " g[n]
			if (g[n] == "core" ? $2 == ".text" : (!(k in bl) || hi[n] < bh[k] || (hi[n] == bh[k] && lo[n] < bl[k]))) {
				bh[k] = hi[n]; bl[k] = lo[n]
			}
		}
		END {
			for (i = 1; i <= n; i++) {
				k = mod[i] " " g[i]
				print mod[i], nm[i], g[i], !(k in bl) ? "no-base" : hi[i] != bh[k] ? "far" : lo[i] - bl[k]
			}
		}' | sort
}
# race_ksyms M ELFSYMS CAPTURE: "<ok> <wrong> <unknown> [NAME@ADDR...]" for
# M's kallsyms lines (not the per-cpu "a" ones) against ELFSYMS ("NAME
# SECTION VALUE") and the capture's sections of M.
race_ksyms() {
	awk -v m="$1" 'function h(s,  i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		FILENAME == ARGV[1] { cand[$1] = cand[$1] " " $2 "=" $3; next }
		$1 == "section" && $2 == m { a = $4; sub(/^0x/, "", a); shi[$3] = substr(a, 1, 8); slo[$3] = h(substr(a, 9)); next }
		$1 == "kallsyms" && $2 == m && $4 != "a" && $4 != "A" { n++; ka[n] = tolower($3); kn[n] = $5 }
		END {
			for (i = 1; i <= n; i++) {
				known = good = 0
				c = split(cand[kn[i]], cs, " ")
				for (x = 1; x <= c; x++) {
					split(cs[x], p, "=")
					if (!(p[1] in slo)) continue
					known = 1
					if (shi[p[1]] == substr(ka[i], 1, 8) && slo[p[1]] + h(p[2]) == h(substr(ka[i], 9))) good = 1
				}
				if (!known) unk++
				else if (good) okn++
				else { bad++; if (bad <= 4) badl = badl " " kn[i] "@" ka[i] }
			}
			printf "%d %d %d%s\n", okn, bad, unk, badl
		}' "$2" "$3"
}
# The module file's symbols: "NAME SECTION VALUE"
race_elfsyms() {
	readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\) .*/\1 \2/p' >"$RC/elfsecs.tmp"
	vm_elf_syms "$1" | awk 'FILENAME == ARGV[1] { sn[$1] = $2; next }
		($2 in sn) { print $3, sn[$2], $4 }' "$RC/elfsecs.tmp" -
}
# A stderr line that reports a race module gone while it was read.
race_gone_re="(unloaded|vanished|went away|gone|no longer|disappeared|left out)"

ack=0
if [ -z "${MODSECT_STATIC:-}" ]; then
	not_ok "race: MODSECT_STATIC not set: the guest has no modsect capture"
elif [ -z "$RACE_MODS" ]; then
	not_ok "race: no race modules (${VM_RACE_LIST:-$VM_OUT/race-modules.list})"
elif ! vm_cmd "race $RACE_N" 600; then
	not_ok "race: guest did not finish 'race $RACE_N'"
else
	ack=$VM_LAST_ACK
fi
if [ "$ack" != 0 ]; then
	vm_section "race-$ack.gz.b64" | base64 -d | gzip -dc >"$RC/guest.txt" ||
		not_ok "race: could not decode the guest's gzip+base64"
	awk -v d="$G" '/^==MODSECT-BEGIN .*==$/ { f = d "/" substr($0, 17, length($0) - 18); printf "" >f; next }
		/^==MODSECT-END / { close(f); f = ""; next } f != "" { print >f }' "$RC/guest.txt"
	grep -q "^==MODSECT-ACK $ack race $RACE_N rc=0==\$" "$VM_RUN/serial1.log" ||
		not_ok "race: guest's race command failed: $(grep "^==MODSECT-ACK $ack " "$VM_RUN/serial1.log")"
	[ "$(awk '{ printf "%s%s", n++ ? " " : "", $1 }' "$G/mods" 2>/dev/null)" = "$RACE_MODS" ] ||
		not_ok "race: the guest raced '$(awk '{ printf "%s ", $1 }' "$G/mods" 2>/dev/null)', want '$RACE_MODS'"

	# The reference: the race modules loaded, nothing racing.
	race_secs "$G/ref.txt" | awk -v r=" $RACE_MODS " 'index(r, " " $1 " ")' | sort >"$RC/ref.secs"
	race_layout <"$RC/ref.secs" >"$RC/ref.layout"
	race_sh "$G/ref-sections.txt" | sort >"$RC/ref-sh.secs"
	refbad=
	[ "$(cat "$G/ref.rc")" = rc=0 ] && [ ! -s "$G/ref.err" ] || refbad="capture $(cat "$G/ref.rc"): $(head -n 3 "$G/ref.err")"
	cmp -s "$RC/ref.secs" "$RC/ref-sh.secs" || refbad="$refbad; capture and sh loop differ"
	for m in $RACE_MODS; do
		f=$(awk -v m="$m" '$1 == m { print $2 }' "$RC/modules")
		race_elfsyms "$f" >"$RC/$m.elfsyms"
		awk -v m="$m" '$1 == m { print $2 }' "$RC/ref.secs" >"$RC/$m.names"
		[ -s "$RC/$m.names" ] || refbad="$refbad; $m not in ref.txt"
		n=$(readelf -SW "$f" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p' | grep -cxFf "$RC/$m.names")
		[ "$n" = "$(wc -l <"$RC/$m.names")" ] || refbad="$refbad; $m: sysfs names not all in ${f##*/}"
		grep -q "^build-id $m [0-9a-f]*\$" "$G/ref.txt" || refbad="$refbad; no build-id for $m"
		awk -v m="$m" '$1 == "kallsyms" && $2 == m' "$G/ref.txt" >"$RC/$m.ref.kall"
		read -r kok kbad _ <<<"$(race_ksyms "$m" "$RC/$m.elfsyms" "$G/ref.txt")"
		[ "$kbad" = 0 ] && [ "$kok" -gt 0 ] || refbad="$refbad; $m: kallsyms $kok ok, $kbad wrong"
	done
	if [ -z "$refbad" ]; then
		ok "race reference (quiet load): $(for m in $RACE_MODS; do printf '%s %d sections, ' "$m" "$(wc -l <"$RC/$m.names")"; done)capture == sh loop, names in the .ko, kallsyms at section + value"
	else
		not_ok "race reference:$refbad"
	fi

	# The loop: loads, unloads, addresses.
	cat "$G"/loop-*.log >"$RC/loop.log" 2>/dev/null
	cat "$G"/loop-*.err >"$RC/loop.err" 2>/dev/null
	loads=$(awk '$1 == "load" { n[$3]++ } END { for (m in n) printf "%s %d, ", m, n[m] }' "$RC/loop.log")
	addrs=$(awk '$1 == "load" && !a[$3 " " $4]++ { n[$3]++ } END { for (m in n) printf "%s %d, ", m, n[m] }' "$RC/loop.log")
	if [ "$(grep -c '^load ' "$RC/loop.log")" -ge 4 ] && [ ! -s "$RC/loop.err" ]; then
		ok "race loops: loads ${loads%, }; .text addresses ${addrs%, }; $(grep -c '^unload ' "$RC/loop.log") unloads (guest seconds: $(cat "$G/seconds"))"
	else
		not_ok "race loops: loads ${loads%, }, $(grep -c '^unload ' "$RC/loop.log") unloads"
		head -n 5 "$RC/loop.err" | detail
	fi

	# The boot modules must be exactly as in the boot's capture.
	boot_re=${MODS% }
	boot_re=${boot_re// /|}
	grep -E "^(release|machine|kernel-build-id) |^(module|build-id|srcversion|section) ($boot_re) " "$CAP_static" >"$RC/boot.lines"
	grep -E "^kallsyms ($boot_re) " "$CAP_static" | sort >"$RC/boot.kall"

	ncap=0 nrbad=0 ngaveup=0 nsingle=0
	declare -A present absent nokall mixed okk
	for m in $RACE_MODS; do present[$m]=0 absent[$m]=0 nokall[$m]=0 mixed[$m]=0 okk[$m]=0; done
	for j in $(seq 1 "$RACE_N"); do
		F=$G/cap-$j.txt
		[ -f "$G/cap-$j.rc" ] || { not_ok "race capture $j: missing"; continue; }
		ncap=$((ncap + 1))
		probs=
		rc=$(sed -n 's/^rc=//p' "$G/cap-$j.rc")
		if [ "$rc" != 0 ]; then
			if grep -q 'kept changing' "$G/cap-$j.err"; then
				ngaveup=$((ngaveup + 1))
				note "race capture $j: exit $rc, $(head -n 1 "$G/cap-$j.err")"
			else
				not_ok "race capture $j: exit $rc"
				head -n 5 "$G/cap-$j.err" | detail
			fi
			continue
		fi
		gone=
		while IFS= read -r l; do
			g=
			for m in $RACE_MODS; do
				[[ $l == *"$m"* ]] && [[ $l =~ $race_gone_re ]] && g=$m
			done
			if [ -n "$g" ]; then gone="$gone $g"; else probs="$probs; stderr: $l"; fi
		done <"$G/cap-$j.err"
		grep -E "^(release|machine|kernel-build-id) |^(module|build-id|srcversion|section) ($boot_re) " "$F" >"$RC/cap-$j.boot"
		cmp -s "$RC/boot.lines" "$RC/cap-$j.boot" || probs="$probs; boot modules' sections differ from the boot capture"
		# Their kallsyms lines too: /proc/kallsyms lists module symbols by
		# position, so a module loaded or unloaded while it is read shifts
		# the lines of the others (skipped or read twice).
		grep -E "^kallsyms ($boot_re) " "$F" | sort >"$RC/cap-$j.kall"
		if ! cmp -s "$RC/boot.kall" "$RC/cap-$j.kall"; then
			probs="$probs; boot modules' kallsyms lines differ from the boot capture:$(diff "$RC/boot.kall" "$RC/cap-$j.kall" |
				awk '/^[<>] / { k = $3 " " ($1 == "<" ? "missing" : "extra"); if (!(k in c)) o[++n] = k; c[k]++ }
					END { for (i = 1; i <= n; i++) { split(o[i], x, " "); printf " %s %d %s", x[1], c[o[i]], x[2] } }')"
		fi
		nmod=$(grep -c '^module ' "$F")
		[ "$nmod" = $(($(wc -w <<<"$MODS") + $(grep -cE "^module (${RACE_MODS// /|}) " "$F"))) ] ||
			probs="$probs; $nmod modules"
		for m in $RACE_MODS; do
			if ! grep -q "^module $m " "$F"; then
				absent[$m]=$((${absent[$m]} + 1))
				continue
			fi
			present[$m]=$((${present[$m]} + 1))
			[[ " $gone " == *" $m "* ]] && probs="$probs; $m reported gone but listed"
			st=$(awk -v m="$m" '$1 == "module" && $2 == m { print $3 }' "$F")
			case $st in coming | live | going) ;; *) probs="$probs; $m state '$st'" ;; esac
			[ "$(grep "^build-id $m " "$F")" = "$(grep "^build-id $m " "$G/ref.txt")" ] ||
				probs="$probs; $m build-id differs"
			race_secs "$F" | awk -v m="$m" '$1 == m' | race_layout >"$RC/cap-$j.$m.layout"
			if ! diff <(awk -v m="$m" '$1 == m' "$RC/ref.layout") "$RC/cap-$j.$m.layout" >"$RC/cap-$j.$m.diff"; then
				probs="$probs; $m: sections are not those of one load ($(grep -c '^[<>]' "$RC/cap-$j.$m.diff") lines differ from the quiet load's layout)"
			fi
			read -r kok kbad _ kl <<<"$(race_ksyms "$m" "$RC/$m.elfsyms" "$F")"
			if [ "$kbad" != 0 ]; then
				mixed[$m]=$((${mixed[$m]} + 1))
				probs="$probs; $m: $kbad of $((kok + kbad)) kallsyms lines are not at section + value of this load's sections (.text $(awk -v m="$m" '$1 == "section" && $2 == m && $3 == ".text" { print $4 }' "$F")), e.g. $kl: kallsyms of another load"
			elif [ "$kok" = 0 ] && [ -s "$RC/$m.ref.kall" ]; then
				nokall[$m]=$((${nokall[$m]} + 1))
			elif [ "$st" != coming ] && # a coming module has its init symbols too
				[ "$(awk -v m="$m" '$1 == "kallsyms" && $2 == m' "$F" | wc -l)" != "$(wc -l <"$RC/$m.ref.kall")" ]; then
				probs="$probs; $m: $(awk -v m="$m" '$1 == "kallsyms" && $2 == m' "$F" | wc -l) kallsyms lines, a quiet load has $(wc -l <"$RC/$m.ref.kall")"
			else
				okk[$m]=$((${okk[$m]} + 1))
			fi
		done
		# The host reads it: gdb --all and sections of each race module.
		rc=0
		ms "race/gdb-$j" gdb --all --capture "$F" "${VM_MODDIR_ARGS[@]}" --search "$TD" -o "$RC/cap-$j.gdb" || rc=$?
		n=$(grep -c '^add-symbol-file ' "$RC/cap-$j.gdb" 2>/dev/null)
		if [ "$rc" != 0 ] || [ -s "$RC/gdb-$j.err" ] || [ "${n:-0}" != "$nmod" ]; then
			probs="$probs; host gdb --all --capture: exit $rc, ${n:-0} add-symbol-file for $nmod modules: $(head -n 2 "$RC/gdb-$j.err")"
		fi
		for m in $RACE_MODS; do
			grep -q "^module $m " "$F" || continue
			t=$(race_secs "$F" | awk -v m="$m" '$1 == m && $2 == ".text" { print $3 }')
			awk -v m="$m" "$race_a16"' /^# [A-Za-z0-9_]+ \(/ { cur = $2 } /^add-symbol-file / && cur == m { print a16($3) }' "$RC/cap-$j.gdb" |
				grep -qxF "$t" || probs="$probs; host gdb --all: no add-symbol-file for $m at $t"
			rc=0
			ms "race/sections-$j-$m" sections "$m" --capture "$F" "${VM_MODDIR_ARGS[@]}" || rc=$?
			if [ "$rc" != 0 ] || ! diff -q <(race_table "$m" "$RC/sections-$j-$m.out" | race_layout) \
				"$RC/cap-$j.$m.layout" >/dev/null; then
				probs="$probs; host sections $m --capture: exit $rc or other sections"
			fi
		done
		if [ -n "$probs" ]; then
			not_ok "race capture $j (guest probe: $(sed -n "s/^$j \(pre:.*post:[^u]*\) uptime.*/\1/p" "$G/probe")):${probs#;}"
			nrbad=$((nrbad + 1))
		fi
	done
	summ=
	for m in $RACE_MODS; do
		summ="$summ; $m present in ${present[$m]} (kallsyms of that load in ${okk[$m]}, of another load in ${mixed[$m]}, none in ${nokall[$m]}), absent in ${absent[$m]}"
	done
	if [ "$nrbad" = 0 ] && [ "$ncap" = "$RACE_N" ] && [ "$ngaveup" -lt "$ncap" ]; then
		ok "race: $ncap captures while loading/unloading, each one consistent snapshot ($ngaveup gave up 'kept changing')$summ"
	else
		not_ok "race: $nrbad of $ncap captures inconsistent ($ngaveup gave up)$summ"
	fi
	for m in $RACE_MODS; do
		[ "${present[$m]}" -gt 0 ] && [ "${absent[$m]}" -gt 0 ] ||
			note "race: $m was ${present[$m]} times present, ${absent[$m]} times absent (the loop never caught it both ways)"
		[ "${nokall[$m]}" = 0 ] ||
			note "race: $m listed ${nokall[$m]} times with no kallsyms lines: unloaded between modsect's read of sections/ and of /proc/kallsyms"
	done
	# Silently left out?  Present before the capture, gone after, absent from
	# it, and not a word on stderr (ambiguous: may have gone before readdir).
	nsil=0
	while read -r j rest; do
		for m in $RACE_MODS; do
			pre=${rest%%post:*}
			post=${rest#*post:}
			post=${post%%uptime*}
			[[ " $pre " == *" $m "* ]] && [[ " $post " != *" $m "* ]] || continue
			grep -q "^module $m " "$G/cap-$j.txt" && continue
			grep -q "$m" "$G/cap-$j.err" || nsil=$((nsil + 1))
		done
	done <"$G/probe"
	[ "$nsil" = 0 ] || note "race: $nsil times a race module loaded before a capture, gone after it, was absent from it with nothing on stderr (it may have gone before modsect's readdir)"

	# Single-module reads (modsect-live sections M FILE in the guest).
	nso=0 nsnot=0 nsgave=0 nsbad=0
	for rcf in "$G"/one-*.rc; do
		[ -f "$rcf" ] || continue
		b=${rcf%.rc}
		j=${b##*/one-}
		m=${j#*-}
		j=${j%%-*}
		nsingle=$((nsingle + 1))
		rc=$(sed -n 's/^rc=//p' "$rcf")
		if [ "$rc" = 0 ]; then
			if [ ! -s "$b.err" ] && grep -qE "^module: +$m \((coming|live|going)\)" "$b.txt" &&
				diff -q <(awk -v m="$m" '$1 == m' "$RC/ref.layout") <(race_table "$m" "$b.txt" | race_layout) >/dev/null; then
				nso=$((nso + 1))
			else
				nsbad=$((nsbad + 1))
				not_ok "race: modsect-live sections $m (after capture $j): exit 0 but not the sections of one load"
				{ cat "$b.err"; head -n 30 "$b.txt"; } | detail
			fi
		elif grep -qE "^modsect: module $m (is not loaded|was unloaded while it was read)" "$b.err"; then
			nsnot=$((nsnot + 1))
		elif grep -q 'kept changing' "$b.err"; then
			nsgave=$((nsgave + 1))
		else
			nsbad=$((nsbad + 1))
			not_ok "race: modsect-live sections $m (after capture $j): exit $rc"
			detail <"$b.err"
		fi
	done
	if [ -z "${MODSECT_DYN:-}" ]; then
		ok "race: single-module 'sections MODULE' in the guest (skipped on $VM_PROFILE: no modsect-live in the guest, MODSECT_DYN unset)"
	elif [ "$nsbad" = 0 ] && [ "$nsingle" -gt 0 ]; then
		ok "race: $nsingle single-module 'sections MODULE' in the guest: $nso complete from one load, $nsnot 'is not loaded' or 'was unloaded while it was read' (exit 1), $nsgave 'kept changing'"
	elif [ "$nsingle" = 0 ]; then
		not_ok "race: no single-module reads in the guest"
	fi

	# A module listed in sys/module but gone when read (dangling symlink).
	first=${RACE_MODS%% *}
	if [ "$(cat "$G/root.rc")" != rc=0 ] || grep -q "^module $first " "$G/root.txt" ||
		! grep -qE "^module ($boot_re) " "$G/root.txt"; then
		not_ok "race: capture --root with $first listed in sys/module but gone: $(cat "$G/root.rc"), $(grep -c '^module ' "$G/root.txt") modules"
		detail <"$G/root.err"
	elif grep -q "$first" "$G/root.err"; then
		ok "race: capture --root with $first listed in sys/module but gone: left out, reported on stderr: $(grep "$first" "$G/root.err" | head -n 1)"
	else
		not_ok "race: capture --root with $first listed in sys/module but gone: left out without a word on stderr (exit 0, stderr '$(head -c 200 "$G/root.err")')"
	fi
fi
