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
echo "install test: shared, static and C++ examples ran"
