#!/bin/sh
# Installs the Debian packages a make target needs, when they are missing.
# Usage: scripts/deps.sh build|check|demo
# As root it runs apt-get; otherwise it prints the exact apt-get line and fails.
set -eu

build="gcc make pkg-config libelf-dev libdw-dev libdebuginfod-dev libkmod-dev libjson-c-dev zlib1g-dev liblzma-dev libzstd-dev libmd-dev libbpf-dev libkdumpfile-dev liblz4-dev libcapstone-dev"
tests="cppcheck clang-tidy valgrind clang lld llvm libclang-rt-14-dev gdb gdb-multiarch gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu gcc-s390x-linux-gnu gcc-arm-linux-gnueabihf binutils-arm-linux-gnueabi lldb python3-lldb-14 python3 jq elfutils debuginfod curl binutils kmod gzip xz-utils zstd groff-base man-db lz4 dpkg-dev debhelper socat bpftool"
vm="qemu-system-x86 busybox-static linux-image-amd64 linux-headers-amd64 cpio"

case "${1:-build}" in
build) want=$build ;;
check) want="$build $tests $vm" ;;
demo) want="$build gdb $vm" ;;
*) echo "usage: $0 build|check|demo" >&2; exit 2 ;;
esac

missing=
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "modsect needs these Debian packages; run as root:" >&2
	echo "  apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A mirror in the middle of a sync fails one index ("File has unexpected
# size"); once more, then the install from the lists as they are.
apt-get update -qq >&2 || { sleep 10 && apt-get update -qq >&2; } ||
	echo "apt-get update failed; installing from the package lists as they are" >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
