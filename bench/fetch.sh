#!/bin/bash
# Fetch the real inputs of the benchmark into bench/out/ (gitignored):
#   - btrfs.ko and ext4.ko with DWARF, from Debian's linux-image-<release>-dbg
#   - scripts/decode_stacktrace.sh, from Debian's linux-source-<major.minor>
# and install the tools compared against (elfutils, binutils, llvm).
# Idempotent: what is already in bench/out/ is not fetched again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
mkdir -p "$out/deb"

# the installed Debian kernel (not uname -r: a container may run another one)
release=${BENCH_RELEASE:-}
if [ -z "$release" ]; then
	release=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
fi
if [ -z "$release" ]; then
	release=$(dpkg-query -W -f '${Package}\n' 'linux-image-*-amd64' 2>/dev/null |
		sed -n 's/^linux-image-\(.*-amd64\)$/\1/p' | sort -V | tail -1)
fi
[ -n "$release" ] || { echo "fetch.sh: no Debian amd64 kernel found" >&2; exit 1; }
echo "$release" > "$out/release"
series=$(echo "$release" | cut -d. -f1,2)          # 6.1

need_update=0
apt_get() {
	if [ $need_update = 0 ]; then apt-get update -qq; need_update=1; fi
	apt-get "$@"
}

# tools
pkgs=
command -v eu-addr2line >/dev/null || pkgs="$pkgs elfutils"
command -v addr2line >/dev/null || pkgs="$pkgs binutils"
command -v objdump >/dev/null || pkgs="$pkgs binutils"
ls /usr/bin/llvm-symbolizer* >/dev/null 2>&1 || pkgs="$pkgs llvm"
command -v xz >/dev/null || pkgs="$pkgs xz-utils"
command -v python3 >/dev/null || pkgs="$pkgs python3"
command -v perf >/dev/null || pkgs="$pkgs linux-perf"
if [ -n "$pkgs" ]; then
	[ "$(id -u)" = 0 ] || { echo "fetch.sh: run as root, or: apt-get install$pkgs" >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt_get install -y -qq $pkgs
fi

# modules with DWARF
if [ ! -s "$out/btrfs.ko" ] || [ ! -s "$out/ext4.ko" ]; then
	pkg=linux-image-$release-dbg
	deb=$(ls "$out/deb/${pkg}_"*.deb 2>/dev/null | head -1 || true)
	if [ -z "$deb" ]; then
		(cd "$out/deb" && { apt-get download "$pkg" 2>/dev/null || apt_get download "$pkg"; })
		deb=$(ls "$out/deb/${pkg}_"*.deb | head -1)
	fi
	rm -rf "$out/x"; mkdir -p "$out/x"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$out/x" --wildcards '*/btrfs.ko' '*/btrfs.ko.xz' '*/ext4.ko' '*/ext4.ko.xz' 2>/dev/null || true
	for m in btrfs ext4; do
		f=$(find "$out/x" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
		[ -n "$f" ] || { echo "fetch.sh: $m.ko not in $deb" >&2; exit 1; }
		case $f in
		*.xz) xz -dc "$f" > "$out/$m.ko.tmp" ;;
		*) cp "$f" "$out/$m.ko.tmp" ;;
		esac
		mv "$out/$m.ko.tmp" "$out/$m.ko"
	done
	rm -rf "$out/x"
	# the .deb is ~860 MB; keep it only if asked
	[ -n "${BENCH_KEEP_DEB:-}" ] || rm -f "$deb"
fi

# decode_stacktrace.sh: linux-kbuild first if it ships it, else linux-source
if [ ! -s "$out/decode_stacktrace.sh" ]; then
	f=$(dpkg -L "linux-kbuild-$series" 2>/dev/null | grep '/decode_stacktrace.sh$' | head -1 || true)
	if [ -n "$f" ]; then
		cp "$f" "$out/decode_stacktrace.sh"
	else
		pkg=linux-source-$series
		deb=$(ls "$out/deb/${pkg}_"*.deb 2>/dev/null | head -1 || true)
		if [ -z "$deb" ]; then
			(cd "$out/deb" && { apt-get download "$pkg" 2>/dev/null || apt_get download "$pkg"; })
			deb=$(ls "$out/deb/${pkg}_"*.deb | head -1)
		fi
		rm -rf "$out/x"; mkdir -p "$out/x"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$out/x" --wildcards '*.tar.*'
		tb=$(find "$out/x" -name "linux-source-*.tar.*" | head -1)
		tar -x -C "$out/x" -f "$tb" --wildcards '*/scripts/decode_stacktrace.sh'
		cp "$(find "$out/x" -name decode_stacktrace.sh | head -1)" "$out/decode_stacktrace.sh"
		rm -rf "$out/x"
		[ -n "${BENCH_KEEP_DEB:-}" ] || rm -f "$deb"
	fi
	chmod +x "$out/decode_stacktrace.sh"
fi
ls -l "$out/btrfs.ko" "$out/ext4.ko" "$out/decode_stacktrace.sh"
