#!/usr/bin/env bash
# The Debian packages on a clean Debian 12: install libvpk0, libvpk-dev and vpk
# with apt into a bookworm root made by debootstrap (their dependencies come
# from the Debian archive), then build the README example there against the
# installed -dev package, shared and static, and run it and `vpk --version`.
#
#   tests/install/test_deb_chroot.sh BUILD [ROOT]
#
# Not part of ctest: it needs root, debootstrap and the Debian archive, and
# takes minutes. ROOT (default: a new directory under /tmp) is made with
# `debootstrap --variant=minbase bookworm ROOT` when it does not exist.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
root=${2:-$(mktemp -d /tmp/vpk-bookworm.XXXXXX)}
[ "$(id -u)" = 0 ] || { echo "test_deb_chroot: needs root (chroot, apt)"; exit 77; }
if [ ! -x "$root/usr/bin/apt-get" ]; then
	command -v debootstrap >/dev/null || { echo "test_deb_chroot: debootstrap not installed"; exit 77; }
	debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian
fi
(cd "$build" && cpack -G DEB -B "$root/tmp/vpk-debs" >/dev/null)
cp "$src/examples/readme_example.c" "$root/tmp/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
chroot "$root" /bin/bash -euo pipefail -c '
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends gcc libc6-dev /tmp/vpk-debs/*.deb >/dev/null
	vpk --version
	vpk --help >/dev/null
	man -w vpk >/dev/null 2>&1 || test -f /usr/share/man/man1/vpk.1
	cd /tmp
	cc -std=c11 -Wall -Wextra readme_example.c -o ex_shared $(pkg-config --cflags --libs vpk)
	./ex_shared
	cc -std=c11 -Wall -Wextra readme_example.c -o ex_static $(pkg-config --cflags vpk) \
		-Wl,-Bstatic -lvpk -Wl,-Bdynamic $(pkg-config --static --libs-only-l vpk | sed "s/-lvpk\b//")
	./ex_static
'
echo "deb chroot test: the packages installed with apt on Debian 12 and the README example ran"
