#!/bin/bash
# Rule 14: consistency while the map changes under modsect.  A background
# loop flips the module's sections/ between two complete address sets
# (atomically: a symlink renamed into place) while `modsect gdb --root` runs
# 50 times (thousands of flips meanwhile): every output must be one of the
# two consistent commands, or a
# clear "kept changing" error, never a mix.  Then a loop removes and
# recreates the module directory (atomically, by rename, as kernfs removes a
# whole directory at once): every output must be the consistent command or
# exit 1 "not loaded" or "was unloaded while it was read".  (Removing the files one by one with rm -rf is not
# tested: both passes can then agree on a partial set, which a kernel does
# not show.)  Last, an empty sections/ must not become a command.
# (Rule 14 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy || finish
std_fixture || bail "fixture"
M=$R/sys/module/testmod
RUNS=50

# Set A: the usual addresses; set B: everything 1 MiB higher.
mkdir -p "$T/sets"
mv "$M/sections" "$T/sets/A"
mkdir "$T/sets/B"
for f in "$T/sets/A"/.[!.]* "$T/sets/A"/*; do
	[ -f "$f" ] || continue
	printf '0x%x\n' $(($(cat "$f") + 0x100000)) >"$T/sets/B/${f##*/}"
done
for s in A B; do
	ln -sfn "$T/sets/$s" "$M/sections"
	ms gdb --root "$R" testmod
	[ "$RC" = 0 ] || bail "set $s: $(_last_run)"
	cp "$T/out" "$T/want.$s"
done
differ() { ! cmp -s "$1" "$2"; }
check "the two sets give different commands" differ "$T/want.A" "$T/want.B"

# The loops are in python so that they flip fast (thousands of times per
# second, far more than `ln`+`mv` processes would); each flip is one
# rename(2) of a symlink (`mv -T`), so each set appears whole.
flipper() {
	python3 - "$T" "$M" <<'PY'
import os, sys
t, m = sys.argv[1:]
i = 0
# The count by rename too: read while "w" has just truncated it, it was empty.
def put(n):
    open(t + "/flips.new", "w").write(str(n))
    os.rename(t + "/flips.new", t + "/flips")
while not os.path.exists(t + "/stop"):
    for s in "BA":
        os.symlink(t + "/sets/" + s, m + "/sections.new")
        os.rename(m + "/sections.new", m + "/sections")
    i += 1
    if i % 100 == 0:
        put(i)
put(i)
PY
}

# run_many TAG: $RUNS runs of modsect gdb; results in $T/TAG.N.{out,err,rc}.
run_many() {
	local i
	for ((i = 1; i <= RUNS; i++)); do
		"$MODSECT" gdb --root "$R" testmod >"$T/$1.$i.out" 2>"$T/$1.$i.err"
		echo $? >"$T/$1.$i.rc"
	done
}

echo 0 >"$T/flips"
flipper &
_bg_pids=$!
sleep 0.05
f0=$(cat "$T/flips")
run_many flip
f1=$(cat "$T/flips")
touch "$T/stop"
wait "$_bg_pids"
_bg_pids=
check "flips happened while modsect ran ($f0 -> $f1)" [ "$f1" -gt "$f0" ]

bad= na=0 nb=0 nchg=0
for ((i = 1; i <= RUNS; i++)); do
	rc=$(cat "$T/flip.$i.rc")
	if [ "$rc" = 0 ] && cmp -s "$T/flip.$i.out" "$T/want.A"; then
		na=$((na + 1))
	elif [ "$rc" = 0 ] && cmp -s "$T/flip.$i.out" "$T/want.B"; then
		nb=$((nb + 1))
	elif [ "$rc" = 3 ] && [ ! -s "$T/flip.$i.out" ] && grep -q 'kept changing' "$T/flip.$i.err"; then
		nchg=$((nchg + 1))
	else
		bad="$bad
run $i: exit $rc
$(diff "$T/want.A" "$T/flip.$i.out" | head -5)
$(head -3 "$T/flip.$i.err")"
	fi
done
if [ -z "$bad" ]; then
	ok "flipping sections: $RUNS outputs all consistent (A $na, B $nb, kept changing $nchg)"
else
	not_ok "flipping sections: $RUNS outputs all consistent (A $na, B $nb, kept changing $nchg)" "$bad"
fi

# ---- the module goes away and comes back
rm "$M/sections"
cp -r "$T/sets/A" "$M/sections"
cp -a "$M" "$T/template"
rm -f "$T/stop"
unloader() { # $1: "atomic" or "inplace" removal
	python3 - "$T" "$M" "$1" <<'PY'
import os, shutil, sys
t, m, how = sys.argv[1:]
i = 0
def put(n):
    open(t + "/flips.new", "w").write(str(n))
    os.rename(t + "/flips.new", t + "/flips")
while not os.path.exists(t + "/stop"):
    if how == "atomic":
        os.rename(m, t + "/gone")
        shutil.rmtree(t + "/gone")
    else:
        shutil.rmtree(m)
    shutil.copytree(t + "/template", t + "/new", symlinks=True)
    os.rename(t + "/new", m)
    i += 1
    if i % 10 == 0:
        put(i)
put(i)
PY
}
for how in atomic; do
rm -f "$T/stop"
echo 0 >"$T/flips"
unloader $how &
_bg_pids=$!
sleep 0.05
f0=$(cat "$T/flips")
run_many $how
f1=$(cat "$T/flips")
touch "$T/stop"
wait "$_bg_pids"
_bg_pids=
check "$how unload/reload happened while modsect ran ($f0 -> $f1)" [ "$f1" -gt "$f0" ]

bad= nok=0 ngone=0
for ((i = 1; i <= RUNS; i++)); do
	rc=$(cat "$T/$how.$i.rc")
	if [ "$rc" = 0 ] && cmp -s "$T/$how.$i.out" "$T/want.A"; then
		nok=$((nok + 1))
	elif [ "$rc" = 1 ] && [ ! -s "$T/$how.$i.out" ] && grep -Eq 'not loaded|was unloaded while it was read' "$T/$how.$i.err"; then
		ngone=$((ngone + 1))
	else
		bad="$bad
run $i: exit $rc
$(diff "$T/want.A" "$T/$how.$i.out" | head -5)
$(head -3 "$T/$how.$i.err")"
	fi
done
if [ -z "$bad" ]; then
	ok "$how unload/reload: $RUNS outputs consistent or 'not loaded' (ok $nok, not loaded $ngone)"
else
	not_ok "$how unload/reload: $RUNS outputs consistent or 'not loaded' (ok $nok, not loaded $ngone)" "$bad"
fi
done

# The whole map (capture of all modules) while testmod comes and goes next
# to a module that stays: every capture is complete (exit 0, staymod whole)
# and has testmod whole or not at all; when it went away during the read,
# stderr says so.
mkdir -p "$R/sys/module/staymod"
cp -r "$T/sets/B" "$R/sys/module/staymod/sections"
echo live >"$R/sys/module/staymod/initstate"
ms capture --root "$R" -o "$T/all.want"
[ "$RC" = 0 ] || bail "capture of two modules: $(_last_run)"
grep ' testmod ' "$T/all.want" >"$T/all.testmod"
grep ' staymod ' "$T/all.want" >"$T/all.staymod"
rm -f "$T/stop"
unloader atomic &
_bg_pids=$!
sleep 0.05
for ((i = 1; i <= RUNS; i++)); do
	"$MODSECT" capture --root "$R" -o - >"$T/all.$i.out" 2>"$T/all.$i.err"
	echo $? >"$T/all.$i.rc"
done
touch "$T/stop"
wait "$_bg_pids"
_bg_pids=
bad= nwhole=0 nabsent=0 nsaid=0
for ((i = 1; i <= RUNS; i++)); do
	rc=$(cat "$T/all.$i.rc")
	grep ' testmod ' "$T/all.$i.out" >"$T/all.$i.t"
	grep ' staymod ' "$T/all.$i.out" >"$T/all.$i.s"
	said=$(grep -c '^modsect: .*module testmod was unloaded while it was read; left out$' "$T/all.$i.err")
	if [ "$rc" != 0 ] || ! cmp -s "$T/all.$i.s" "$T/all.staymod"; then
		bad="$bad
run $i: exit $rc, staymod not whole: $(head -3 "$T/all.$i.err")"
	elif cmp -s "$T/all.$i.t" "$T/all.testmod" && [ "$said" = 0 ]; then
		nwhole=$((nwhole + 1))
	elif [ ! -s "$T/all.$i.t" ]; then
		nabsent=$((nabsent + 1))
		nsaid=$((nsaid + said))
	else
		bad="$bad
run $i: testmod half-listed or reported and listed:
$(diff "$T/all.testmod" "$T/all.$i.t" | head -5)
$(head -3 "$T/all.$i.err")"
	fi
done
d="capture of all modules while one comes and goes: $RUNS captures whole (testmod whole $nwhole, absent $nabsent, of which reported as unloaded while read $nsaid)"
if [ -z "$bad" ]; then ok "$d"; else not_ok "$d" "$bad"; fi
rm -rf "$R/sys/module/staymod"

# What an emptied sections/ directory (an unload caught half-way) must not
# become: a command with no .text and every section parked.
mkdir -p "$T/r2/sys/module/testmod/sections" "$T/r2/proc/sys/kernel"
cp "$R/proc/sys/kernel/"* "$T/r2/proc/sys/kernel/"
cp -r "$R/lib" "$T/r2/"
echo live >"$T/r2/sys/module/testmod/initstate"
ms gdb --root "$T/r2" testmod
if [ "$RC" != 0 ] && [ ! -s "$T/out" ]; then
	ok "empty sections/ directory: no command printed (exit $RC)"
else
	not_ok "empty sections/ directory: no command printed" "$(_last_run)"
fi
finish
