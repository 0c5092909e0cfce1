#!/usr/bin/env bash
# make package: build the three Debian packages from this build, check their
# control data, unpack them into a scratch root (dpkg -x: the files a dpkg -i
# would put under /usr, without touching the machine's /usr), and build and
# run the README example against the unpacked -dev package through
# pkg-config, shared and static. Where dpkg can lock its database (root), a
# dpkg --dry-run -i checks that every dependency is installable here.
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
for t in cpack dpkg-deb pkg-config cc; do
	command -v $t >/dev/null || { echo "skipped: $t not installed"; exit 77; }
done
work=$(mktemp -d /tmp/vpk-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
debs=$(ls "$work"/out/*.deb)
for p in libvpk0 libvpk-dev vpk; do
	ls "$work"/out/${p}_*.deb >/dev/null || { echo "no ${p} package in: $debs"; exit 1; }
done
dev=$(ls "$work"/out/libvpk-dev_*.deb) lib=$(ls "$work"/out/libvpk0_*.deb) tool=$(ls "$work"/out/vpk_*.deb)
dpkg-deb -f "$dev" Depends | grep 'libvpk0 (= ' >/dev/null || { echo "libvpk-dev does not depend on libvpk0"; exit 1; }
dpkg-deb -f "$lib" Depends | grep 'libc6' >/dev/null || { echo "libvpk0 has no shlibs dependencies"; exit 1; }
# Each package holds its own files: the library no headers, the -dev package the headers and .pc.
dpkg-deb -c "$lib" > "$work/lib.txt"
dpkg-deb -c "$dev" > "$work/dev.txt"
dpkg-deb -c "$tool" > "$work/tool.txt"
grep -q 'libvpk.so.0' "$work/lib.txt" || { echo "libvpk0 lacks libvpk.so.0"; exit 1; }
if grep -q 'include/' "$work/lib.txt"; then echo "libvpk0 ships headers"; exit 1; fi
grep -q 'include/vpk/isa.h' "$work/dev.txt" || { echo "libvpk-dev lacks the headers"; exit 1; }
grep -q 'pkgconfig/vpk.pc' "$work/dev.txt" || { echo "libvpk-dev lacks vpk.pc"; exit 1; }
grep -q 'usr/bin/vpk' "$work/tool.txt" || { echo "vpk package lacks the tool"; exit 1; }
if command -v help2man >/dev/null; then
	grep -q 'man1/vpk.1' "$work/tool.txt" || { echo "vpk package lacks the manual page"; exit 1; }
fi
if [ "$(id -u)" = 0 ]; then
	dpkg --dry-run -i $debs >"$work/dry.log" 2>&1 || { cat "$work/dry.log"; exit 1; }
fi
root=$work/root
for d in $debs; do dpkg -x "$d" "$root"; done
# The tool: no RPATH (it links libvpk statically), --version and --help succeed.
if readelf -d "$root/usr/bin/vpk" | grep 'RPATH\|RUNPATH' >/dev/null; then echo "vpk has an RPATH"; exit 1; fi
"$root/usr/bin/vpk" --version | grep '^vpk [0-9]' >/dev/null
"$root/usr/bin/vpk" --help >/dev/null
pcdir=$(dirname "$(find "$root" -name vpk.pc | head -1)")
export PKG_CONFIG_PATH=$pcdir
libdir=$(pkg-config --variable=libdir vpk)
cc -std=c11 -Wall -Wextra "$src/examples/readme_example.c" -o "$work/ex_shared" $(pkg-config --cflags --libs vpk)
LD_LIBRARY_PATH=$libdir "$work/ex_shared"
# Static: -lvpk resolved to libvpk.a, the rest from Requires.private / Libs.private.
pkg-config --static --libs vpk >/dev/null
cc -std=c11 -Wall -Wextra "$src/examples/readme_example.c" -o "$work/ex_static" $(pkg-config --cflags vpk) \
	-L"$libdir" -Wl,-Bstatic -lvpk -Wl,-Bdynamic $(pkg-config --static --libs-only-l vpk | sed 's/-lvpk\b//')
if ldd "$work/ex_static" | grep libvpk >/dev/null; then echo "static example still loads libvpk.so"; exit 1; fi
"$work/ex_static"
echo "deb test: libvpk0, libvpk-dev and vpk built, unpacked, and the README example ran against them"
