#!/bin/sh
# Functions longer than N lines (default 80) in the C files given, from
# the opening brace in column 0 to the closing one (the kernel's style):
# "LINES FILE:LINE NAME", longest first.
n=80
[ "${1:-}" = "-n" ] && { n=$2; shift 2; }
awk -v max="$n" '
FNR == 1 { name = ""; start = 0 }
/^[A-Za-z_].*\(/ { sig = $0; sigline = FNR }
/^\{/ { start = FNR; name = sig; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name) }
/^\}/ && start { len = FNR - start - 1; if (len > max) printf "%d %s:%d %s\n", len, FILENAME, sigline, name; start = 0 }
' "$@" | sort -rn
