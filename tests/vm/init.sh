#!/bin/sh
# /init of the modsect test initramfs (busybox sh, runs as PID 1).
#
# ttyS0  kernel console
# ttyS1  output to the host: sections between
#        ==MODSECT-BEGIN <name>== / ==MODSECT-END <name>== lines, then
#        ==MODSECT-READY==, then one ==MODSECT-ACK <k> <cmd> rc=<rc>== per
#        trigger command
# ttyS2  trigger commands from the host, one per line:
#        poke N | warn [N] | dmesg | ksyms NAME... | quit
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

exec 3>/dev/ttyS1 4</dev/ttyS2
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
	dmesg)
		begin "dmesg-$k"
		dmesg >&3
		end "dmesg-$k"
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
