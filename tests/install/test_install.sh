#!/usr/bin/env bash
# Install libvpk into a scratch prefix, then build the README example against
# the installed copy through pkg-config, shared and static, and run both.
set -euo pipefail
build=$1 src=$2 sanitized=${3:-0}
# A sanitizer build of libvpk needs the sanitizer runtimes in whatever links it.
san=""
[ "$sanitized" = 1 ] && san="-fsanitize=address,undefined"
prefix=$(mktemp -d /tmp/vpk-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
pcdir=$(dirname "$(find "$prefix" -name vpk.pc | head -1)")
export PKG_CONFIG_PATH=$pcdir
test -f "$prefix/include/vpk/isa.h"
ls "$prefix"/lib*/libvpk.so* "$prefix"/lib*/libvpk.a >/dev/null
cc -std=c11 -Wall -Wextra -Werror $san "$src/examples/readme_example.c" -o "$prefix/ex_shared" $(pkg-config --cflags --libs vpk)
LD_LIBRARY_PATH=$(pkg-config --variable=libdir vpk) "$prefix/ex_shared"
cc -std=c11 -Wall -Wextra -Werror $san "$src/examples/readme_example.c" -o "$prefix/ex_static" \
   $(pkg-config --cflags vpk) "$(pkg-config --variable=libdir vpk)/libvpk.a" $(pkg-config --static --libs-only-l vpk | sed 's/-lvpk//')
"$prefix/ex_static"
# C++: every header and the umbrella <vpk/vpk.h> compile as C++17, and a C++ program links.
for h in "$prefix"/include/vpk/*.h; do
  printf '#include <vpk/%s>\n' "$(basename "$h")" | c++ -std=c++17 -Wall -Wextra -Werror -x c++ -fsyntax-only \
    $(pkg-config --cflags vpk) -
done
c++ -std=c++17 -Wall -Wextra -Werror $san "$src/examples/cxx_example.cpp" -o "$prefix/ex_cxx" $(pkg-config --cflags --libs vpk)
LD_LIBRARY_PATH=$(pkg-config --variable=libdir vpk) "$prefix/ex_cxx"
# The shared library exports exactly the public API: every exported symbol starts with vpk_.
bad=$(nm -D --defined-only "$(pkg-config --variable=libdir vpk)/libvpk.so" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -v '^vpk_' || true)
if [ -n "$bad" ]; then echo "exported symbols outside the vpk_ namespace:"; echo "$bad"; exit 1; fi
# libvpk loads neither the scanner's libraries (libvpk-scan has them) nor anything of the tool.
needed=$(readelf -d "$(pkg-config --variable=libdir vpk)/libvpk.so" | grep NEEDED || true)
if echo "$needed" | grep -qi 'zydis\|libelf'; then echo "libvpk.so needs the scanner's libraries:"; echo "$needed"; exit 1; fi
if nm -D --defined-only "$(pkg-config --variable=libdir vpk)/libvpk.so" | grep -q 'vpk_\(fwd\|psim\|scan\|acl_gen\|acl5_oracle\)'; then
  echo "libvpk.so exports application symbols"; exit 1; fi
# libvpk-scan: its own library and pkg-config file; a program that scans links it alone.
test -f "$pcdir/vpk-scan.pc"
ls "$prefix"/lib*/libvpk-scan.so* "$prefix"/lib*/libvpk-scan.a >/dev/null
printf '#include <vpk/scan.h>\nint main(void) { return vpk_scan_name_allowed("f_avx512", (const char *const[]){ "_avx512" }, 1) ? 0 : 1; }\n' |
  cc -std=c11 -Wall -Wextra -Werror $san -x c - -o "$prefix/ex_scan" $(pkg-config --cflags --libs vpk-scan)
LD_LIBRARY_PATH=$(pkg-config --variable=libdir vpk-scan) "$prefix/ex_scan"
echo "install test: shared, static, C++ and scanner examples ran"
