#!/bin/bash
# scripts/vm-suite.sh KERNEL - the whole VM suite (tests/vm/test.sh,
# gdbcmd.sh, memsrc.sh, ingdb.sh, kernel.sh) on one kernel of
# tests/vm/kernels.sh: host, 6.12-amd64, 686-pae, arm64, armhf, s390x or ppc64el.  `make check-vm
# KERNEL=...` runs it after building build/san/modsect and modsect-static.
# The guest runs modsect itself in test.sh, gdbcmd.sh and memsrc.sh: for
# a guest of another architecture, a static modsect is cross-built for it
# (modsect-static-i686 with i686-linux-gnu-gcc, modsect-static-aarch64 with
# aarch64-linux-gnu-gcc, modsect-static-ppc64le with powerpc64le-linux-gnu-gcc).  Every script runs; the exit status is 1 if any
# failed.  VM_SUITE names a subset of the scripts ("memsrc ingdb").
# MODSECT (default build/san/modsect) and, for host and 6.12-amd64,
# MODSECT_STATIC (default modsect-static) may name other binaries, e.g.
# copies that a rebuild cannot replace during the run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
k=${1:-host}
cd "$top" || exit 1
export MODSECT=${MODSECT:-$top/build/san/modsect}
export MODSECT_VM_KERNEL=$k
export MODSECT_VM_OUT=$top/tests/vm/out/suite-$k
static=${MODSECT_STATIC:-$top/modsect-static}
srcs=$(make -s -f - print-static <<'EOF'
include Makefile
print-static:
	@echo $(STATIC_SRCS)
EOF
)
case $k in
686-pae)
	# The cross compiler, not gcc -m32: Debian's libc6-dev-i386 (multilib)
	# conflicts with its cross toolchains (gcc-aarch64-linux-gnu).
	dpkg -s gcc-i686-linux-gnu libc6-dev-i386-cross >/dev/null 2>&1 ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-i686-linux-gnu libc6-dev-i386-cross >&2
	static=$top/modsect-static-i686
	# shellcheck disable=SC2086
	i686-linux-gnu-gcc -Wall -Wextra -Werror -std=gnu11 -Os -D_GNU_SOURCE -Ilib -DMODSECT_STATIC \
		-static -s -o "$static" $srcs || exit 1 ;;
arm64)
	dpkg -s gcc-aarch64-linux-gnu libc6-dev-arm64-cross >/dev/null 2>&1 ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross >&2
	static=$top/modsect-static-aarch64
	# shellcheck disable=SC2086
	aarch64-linux-gnu-gcc -Wall -Wextra -Werror -std=gnu11 -Os -D_GNU_SOURCE -Ilib \
		-DMODSECT_STATIC -static -s -o "$static" $srcs || exit 1 ;;
ppc64el)
	dpkg -s gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross >/dev/null 2>&1 ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross >&2
	static=$top/modsect-static-ppc64le
	# shellcheck disable=SC2086
	powerpc64le-linux-gnu-gcc -Wall -Wextra -Werror -Wno-missing-field-initializers -std=gnu11 -Os -D_GNU_SOURCE -Ilib \
		-DMODSECT_STATIC -static -s -o "$static" $srcs || exit 1 ;;
armhf | s390x)
	# No static modsect is cross-built for these yet (test.sh, gdbcmd.sh
	# and memsrc.sh run it in the guest): kernel.sh's proofs.
	VM_SUITE=${VM_SUITE:-kernel} ;;
esac
export MODSECT_STATIC=$static
rc=0
# Each script in its own run directory, kept for a look after the suite.
# VM_SUITE="memsrc ingdb" runs only those scripts.
for t in ${VM_SUITE:-test gdbcmd memsrc ingdb kernel}; do
	echo "== $k: tests/vm/$t.sh"
	MODSECT_VM_RUN=$MODSECT_VM_OUT/run-$t tests/vm/$t.sh ||
		{ rc=1; echo "== $k: tests/vm/$t.sh FAILED"; }
done
exit $rc
