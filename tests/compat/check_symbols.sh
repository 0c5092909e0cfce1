#!/bin/sh
# The drop-in library must export exactly the symbols, with the same symbol
# versions, as the DPDK library it stands in for (nm -D --defined-only, and the
# version definitions of readelf -V except the BASE one, which is the file name).
#   check_symbols.sh DPDK_LIB OUR_LIB
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
nm -D --defined-only "$1" | awk '{print $2, $3}' | sort >"$d/want"
nm -D --defined-only "$2" | awk '{print $2, $3}' | sort >"$d/got"
readelf -V "$1" | sed -n '/version_d/,/version_r/p' | grep 'Name:' | grep -v BASE | sed 's/.*Name: //' >"$d/vwant"
readelf -V "$2" | sed -n '/version_d/,/version_r/p' | grep 'Name:' | grep -v BASE | sed 's/.*Name: //' >"$d/vgot"
[ -s "$d/want" ] || { echo "FAIL: no symbols read from $1"; exit 1; }
if ! diff -u "$d/want" "$d/got" || ! diff -u "$d/vwant" "$d/vgot"; then
	echo "FAIL: $2 does not export what $1 exports"
	exit 1
fi
echo "OK: $(wc -l <"$d/want") symbols, versions $(tr '\n' ' ' <"$d/vwant")match $(basename "$1")"
