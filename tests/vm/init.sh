#!/bin/sh
# /init of the modsect test initramfs (busybox sh, runs as PID 1).
#
# ttyS0  kernel console
# ttyS1  output to the host (MODSECT_TTY_OUT names another line): sections between
#        ==MODSECT-BEGIN <name>== / ==MODSECT-END <name>== lines, then
#        ==MODSECT-READY==, then one ==MODSECT-ACK <k> <cmd> rc=<rc>== per
#        trigger command
# ttyS2  trigger commands (MODSECT_TTY_IN) from the host, one per line:
#        poke N | warn [N] | dmesg | ksyms NAME... | race N | quit |
#        param NAME VALUE | cat FILE... | tasks | taskinfo | kcore |
#        sysrq LETTER
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

# The drivers of the lines to the host, where they are modules (s390x's
# virtio consoles); the kernel's command line names those lines there
# (tests/vm/kernels.sh), ttyS1 and ttyS2 elsewhere.
# The device nodes are there before the ports: wait until both open (in
# a subshell: a failed redirection of a special built-in ends the shell).
for m in $(cat /modules/early 2>/dev/null); do insmod "/modules/$m"; done
OUT=/dev/${MODSECT_TTY_OUT:-ttyS1} IN=/dev/${MODSECT_TTY_IN:-ttyS2}
i=0
until (: >"$OUT" && : <"$IN") 2>/dev/null || [ $i -ge 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
exec 3>"$OUT" 4<"$IN"
stty raw -echo <&3
stty raw -echo <&4

begin() { echo "==MODSECT-BEGIN $1==" >&3; }
end() { echo "==MODSECT-END $1==" >&3; }

begin insmod
for m in $(cat /modules/order); do
	if insmod "/modules/$m" 2>/tmp/insmod.err; then
		echo "ok $m" >&3
	else
		echo "FAIL $m $(cat /tmp/insmod.err)" >&3
	fi
done
end insmod

if [ -x /bin/modsect ]; then
	begin capture
	/bin/modsect capture -o - >&3 2>/tmp/capture.err
	rc=$?
	end capture
	begin capture-stderr
	cat /tmp/capture.err >&3
	echo "rc=$rc" >&3
	end capture-stderr
	# The same with the core kernel's symbols (/proc/kallsyms), for
	# `modsect resolve` of core addresses on the host.
	t0=$(date +%s)
	/bin/modsect capture --kallsyms -o /tmp/capture-kallsyms.txt 2>/tmp/capture-kallsyms.err
	rc=$?
	t1=$(date +%s)
	# About 4 MB: gzip + base64 cut the time on the serial line (16 s
	# under TCG as plain text) to a few seconds.
	begin capture-kallsyms.gz.b64
	gzip -1c /tmp/capture-kallsyms.txt | base64 >&3
	end capture-kallsyms.gz.b64
	begin capture-kallsyms-stderr
	cat /tmp/capture-kallsyms.err >&3
	echo "rc=$rc" >&3
	echo "seconds capture=$((t1 - t0)) output=$(($(date +%s) - t1))" >&3
	end capture-kallsyms-stderr
	rm -f /tmp/capture-kallsyms.txt
fi

if [ -x /bin/modsect-live ]; then
	# modsect itself, live, as root on the real kernel.
	L=/bin/modsect-live
	: >/tmp/live.err
	# modsect_test is the stripped module: no DWARF anywhere in the guest,
	# so "debuginfo" finds none for it (exit 1).
	for c in "list" "gdb --all" "lldb modsect_test" "sections modsect_test" \
		"debuginfo --offline --all"; do
		set -- $c
		begin "live-$1"
		HOME=/tmp $L $c >&3 2>/tmp/live1.err
		rc=$?
		if [ "$1" = debuginfo ]; then
			# its "N of M modules have no debug info" warning is expected
			sed 's/^/stderr: /' /tmp/live1.err >&3
		else
			cat /tmp/live1.err >>/tmp/live.err
		fi
		echo "rc=$rc" >&3
		end "live-$1"
	done
	begin live-stderr
	cat /tmp/live.err >&3
	end live-stderr
fi

begin sections
for d in /sys/module/*/sections; do m=${d%/sections}; m=${m#/sys/module/}; for f in $d/.* $d/*; do [ -f "$f" ] && echo "$m ${f##*/} $(cat $f)"; done; done >&3
end sections

begin sysfs-grep
grep -r . /sys/module/*/sections/ >&3
end sysfs-grep

# The README's two capture forms, as a user with no modsect on the target
# types them (release and machine lines first).
begin readme-loop
{ echo "release $(uname -r)"; echo "machine $(uname -m)"
  for d in /sys/module/*/sections; do m=${d%/sections}; m=${m#/sys/module/}; for f in $d/.* $d/*; do [ -f "$f" ] && echo "$m ${f##*/} $(cat $f)"; done; done
} >&3
end readme-loop
begin readme-grep
{ echo "release $(uname -r)"; echo "machine $(uname -m)"; grep -r . /sys/module/*/sections/; } >&3
end readme-grep

begin kallsyms
grep '\[' /proc/kallsyms >&3
end kallsyms

# All of /proc/kallsyms (core and modules), the reference for the host's
# checks of `modsect kallsyms` / `gdb --kernel`; gzip + base64 like the
# capture above (about 4 MB of text).
begin kallsyms-all.gz.b64
cat /proc/kallsyms >/tmp/kallsyms-all.txt
gzip -1c /tmp/kallsyms-all.txt | base64 >&3
rm -f /tmp/kallsyms-all.txt
end kallsyms-all.gz.b64

begin proc-modules
cat /proc/modules >&3
end proc-modules

begin uname
uname -r >&3
end uname

# "<module> <build-id hex> <whole note hex>"
begin build-id
for f in /sys/module/*/notes/.note.gnu.build-id; do
	[ -f "$f" ] || continue
	m=${f%/notes/*}; m=${m#/sys/module/}
	echo "$m $(od -An -tx1 -v -j16 "$f" | tr -d ' \n') $(od -An -tx1 -v "$f" | tr -d ' \n')" >&3
done
end build-id

begin initstate
for f in /sys/module/*/initstate; do
	m=${f%/initstate}; m=${m#/sys/module/}
	echo "$m $(cat "$f")" >&3
done
end initstate

begin dmesg-0
dmesg >&3
end dmesg-0

# race N (k): the modules of /modules/race/ (loaded by nothing else) are
# loaded and unloaded in a background loop while N `modsect capture`s run
# one after the other; after every other capture, a single-module
# `modsect-live sections MODULE FILE` of one race module (in turn).
# Files in /tmp/race, sent to the host as one gzip + base64 stream
# (section race-<k>.gz.b64) of inner ==MODSECT-BEGIN FILE== /
# ==MODSECT-END FILE== sections:
#   mods           "<sysfs name> <file>" per race module
#   ref.txt, ref.err, ref.rc   capture with the race modules loaded, quiet
#   ref-sections.txt   the same from a sh loop over sections/
#   loop-<m>.log   "load <i> <m> <.text>" / "unload <i> <m>"; .err
#   probe          "<j> pre: <modules with sections/> post: <...> uptime
#                  <before> <after the capture> <after the sections run>"
#   cap-<j>.txt, .err, .rc     capture j (stdout, stderr, rc=N)
#   one-<j>-<m>.txt, .err, .rc modsect-live sections <m> <file>
#   root.txt, root.err, root.rc   capture --root /tmp/race-root, whose
#                  sys/module/<m> is a dangling symlink to the unloaded
#                  first race module (a module gone after readdir)
#   seconds        "ref=S race=S"
race_run() {
	n=$1
	R=/tmp/race
	rm -rf $R /tmp/race-root
	mkdir -p $R
	mods="" files=""
	for f in /modules/race/*.ko; do
		[ -f "$f" ] || continue
		m=${f##*/}
		m=$(echo "${m%.ko}" | tr - _)
		mods="$mods $m"
		files="$files $f"
		echo "$m $f" >>$R/mods
	done
	[ -n "$mods" ] || return 1
	t0=$(date +%s)
	for f in $files; do insmod "$f" 2>>$R/ref.err; done
	/bin/modsect capture -o $R/ref.txt 2>>$R/ref.err
	echo "rc=$?" >$R/ref.rc
	for m in $mods; do
		d=/sys/module/$m/sections
		for f in $d/.* $d/*; do [ -f "$f" ] && echo "$m ${f##*/} $(cat "$f")"; done
	done >$R/ref-sections.txt
	for m in $mods; do rmmod "$m" 2>>$R/ref.err; done
	t1=$(date +%s)
	# One loop per race module.  The first is loaded and unloaded as fast
	# as it goes: the module list changes all the time.  The
	# others are kept 0.2 s and 1 s (longer than a capture) in turn, so
	# they are whole in some captures.  Where a load lands depends on the
	# others: each module's loads are at more than one address.
	lpids=
	hold=0
	for f in $files; do
		m=${f##*/}
		m=$(echo "${m%.ko}" | tr - _)
		(
			i=0
			while [ ! -e $R/stop ]; do
				i=$((i + 1))
				insmod "$f" && echo "load $i $m $(cat /sys/module/$m/sections/.text)"
				if [ "$hold" = 0 ]; then
					:
				elif [ $((i % 2)) = 0 ]; then
					sleep 1
				else
					sleep 0.2
				fi
				rmmod "$m" && echo "unload $i $m"
				[ "$hold" = 0 ] || sleep 0.05
			done
		) >$R/loop-$m.log 2>$R/loop-$m.err &
		lpids="$lpids $!"
		hold=var
	done
	j=0
	while [ $j -lt "$n" ]; do
		j=$((j + 1))
		pre="" post=""
		read -r u0 _ </proc/uptime
		for m in $mods; do [ -d /sys/module/$m/sections ] && pre="$pre $m"; done
		/bin/modsect capture -o $R/cap-$j.txt 2>$R/cap-$j.err
		echo "rc=$?" >$R/cap-$j.rc
		for m in $mods; do [ -d /sys/module/$m/sections ] && post="$post $m"; done
		read -r u1 _ </proc/uptime
		if [ -x /bin/modsect-live ] && [ $((j % 2)) = 0 ]; then
			set -- $files
			shift $(((j / 2 - 1) % $#))
			f=$1
			m=${f##*/}
			m=$(echo "${m%.ko}" | tr - _)
			HOME=/tmp /bin/modsect-live sections "$m" "$f" >$R/one-$j-$m.txt 2>$R/one-$j-$m.err
			echo "rc=$?" >$R/one-$j-$m.rc
		fi
		read -r u2 _ </proc/uptime
		echo "$j pre:$pre post:$post uptime $u0 $u1 $u2" >>$R/probe
	done
	: >$R/stop
	for p in $lpids; do wait "$p"; done
	for m in $mods; do [ -d /sys/module/$m ] && rmmod "$m"; done
	# A module listed in /sys/module that is gone when it is read: a
	# dangling symlink in a --root tree; the rest links to the real one.
	set -- $mods
	mkdir -p /tmp/race-root/sys/module /tmp/race-root/proc
	ln -s /sys/kernel /tmp/race-root/sys/kernel
	ln -s /proc/kallsyms /tmp/race-root/proc/kallsyms
	ln -s /proc/sys /tmp/race-root/proc/sys
	for d in /sys/module/*; do
		[ -d "$d/sections" ] && ln -s "$d" "/tmp/race-root/sys/module/${d##*/}"
	done
	ln -s "/sys/module/$1" "/tmp/race-root/sys/module/$1"
	/bin/modsect capture --root /tmp/race-root -o $R/root.txt 2>$R/root.err
	echo "rc=$?" >$R/root.rc
	echo "ref=$((t1 - t0)) race=$(($(date +%s) - t1))" >$R/seconds
	for f in $R/*; do
		[ "${f##*/}" = stop ] && continue
		echo "==MODSECT-BEGIN ${f##*/}=="
		awk 1 "$f"
		echo "==MODSECT-END ${f##*/}=="
	done | gzip -1c | base64 >$R.b64
}

echo "==MODSECT-READY==" >&3

k=0
while :; do
	if ! read -r cmd arg <&4; then
		sleep 1
		continue
	fi
	[ -n "$cmd" ] || continue
	k=$((k + 1))
	rc=0
	case $cmd in
	poke)
		echo "$arg" >/sys/module/modsect_test/parameters/poke || rc=$?
		;;
	warn)
		echo "${arg:-1}" >/sys/module/modsect_test/parameters/warn || rc=$?
		begin "dmesg-$k"
		dmesg >&3
		end "dmesg-$k"
		;;
	unload)
		# rmmod NAME (modsect follow: symbols dropped in free_module)
		rmmod "$arg" || rc=$?
		;;
	load)
		# insmod the boot file of the module called NAME (dashes as
		# they are in the file name)
		insmod "$(ls /modules/[0-9][0-9]-"$arg".ko)" || rc=$?
		;;
	cycle)
		# cycle N: unload and load the test module N times, then poke 13
		for _ in $(seq "${arg:-3}"); do
			rmmod modsect_test && insmod /modules/99-modsect_test.ko || rc=$?
		done
		echo 13 >/sys/module/modsect_test/parameters/poke || rc=$?
		;;
	param)
		# param NAME VALUE: write VALUE to the test module's parameter
		# NAME (tests/vm/unwind.sh: stack, timer, hrtimer, work)
		set -- $arg
		echo "$2" >"/sys/module/modsect_test/parameters/$1" || rc=$?
		;;
	dmesg)
		begin "dmesg-$k"
		dmesg >&3
		end "dmesg-$k"
		;;
	cat)
		# cat FILE...: what the kernel says in /proc and /sys
		begin "cat-$k"
		cat $arg >&3 || rc=$?
		end "cat-$k"
		;;
	ksyms)
		# The core kernel's /proc/kallsyms lines of these names, and
		# the number of core (module-less) lines.
		begin "ksyms-$k"
		awk -v names="$arg" 'BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
			NF == 3 { core++; if ($3 in want) print }
			END { print "core-lines", core + 0 }' /proc/kallsyms >&3 || rc=$?
		end "ksyms-$k"
		;;
	race)
		race_run "${arg:-10}" || rc=$?
		begin "race-$k.gz.b64"
		cat /tmp/race.b64 >&3
		end "race-$k.gz.b64"
		rm -rf /tmp/race /tmp/race.b64 /tmp/race-root
		;;
	tasks)
		# Tasks blocked in known places (tests/vm/serve.sh): sleep in
		# hrtimer_nanosleep, cat reading an empty pipe (pipe_read), a
		# shell waiting for its child (do_wait), and the test module's
		# kernel threads (a wait queue, a mutex held, one waiting).
		sleep 100000 </dev/null >/dev/null 2>&1 &
		sleep 100000 </dev/null 2>/dev/null | cat >/dev/null 2>&1 &
		sh -c 'sleep 100001; exit 0' </dev/null >/dev/null 2>&1 &
		echo 1 >/sys/module/modsect_test/parameters/tasks || rc=$?
		sleep 1
		;;
	taskinfo)
		# Every task: "T tid tgid state comm", then its stack as the
		# kernel's own unwinder gives it ("S tid frame").
		begin "taskinfo-$k"
		for d in /proc/[0-9]*/task/[0-9]*; do
			tid=${d##*/} p=${d#/proc/}
			read -r st <"$d/stat" 2>/dev/null || continue
			st=${st##*) }
			read -r comm <"$d/comm"
			echo "T $tid ${p%%/*} ${st%% *} $comm"
			sed "s/^/S $tid /" "$d/stack" 2>/dev/null
		done >&3
		end "taskinfo-$k"
		;;
	kcore)
		# modsect serve --kcore on ttyS3 (tests/vm/serve.sh: QEMU's
		# MODSECT_VM_SERIAL3, the host's gdb at its other end)
		stty raw -echo </dev/ttyS3 || rc=$?
		# (no sleep here: a task of its own would be in the list
		# serve reads, and gone from the next)
		/bin/modsect-live serve --kcore </dev/ttyS3 >/dev/ttyS3 2>/tmp/kcore.err &
		;;
	sysrq)
		# sysrq LETTER (t: every task's stack on the console; c: panic)
		echo "$arg" >/proc/sysrq-trigger || rc=$?
		;;
	quit)
		echo "==MODSECT-ACK $k quit rc=0==" >&3
		sync
		poweroff -f
		sleep 10
		;;
	*)
		rc=unknown-command
		;;
	esac
	echo "==MODSECT-ACK $k $cmd${arg:+ $arg} rc=$rc==" >&3
done
