#!/usr/bin/env bash
# Install what vpk needs to build, test and benchmark, on Debian 12 as root.
# Idempotent and non-interactive: installs only what is missing, and runs
# 'apt-get update' only when something is. Components add their packages here.
set -euo pipefail

DEB_PKGS=(
  gcc g++ make cmake ninja-build pkg-config # build (g++: the C++ install test)
  libpcap-dev                               # src/io/pcap.c
  libdpdk-dev                               # tests/benchmarks against rte_acl / rte_fib
  libzydis-dev libelf-dev libdw-dev         # vpk scan
  tcpdump iproute2                          # integration and live tests
  libxdp-dev libbpf-dev                     # src/io/io_xdp.c (AF_XDP backend; optional at build time)
  dpdk-dev                                  # dpdk-testpmd: live io-forward comparison (docs/io.md)
  help2man dpkg-dev                         # the manual page and make package (dpkg-shlibdeps)
  libmnl-dev libreadline-dev                # vpk fwd linux-sync (netlink), vpk ctl's prompt
  bird2                                     # tests: a routing daemon feeding linux-sync
)
PIP_PKGS=(pytest scapy)
# `install-deps.sh fuzz` (make fuzz): clang, and the compiler-rt package with
# libFuzzer and clang's ASan/UBSan runtimes (libclang_rt.fuzzer*.a), which
# Debian ships apart from clang.
# `install-deps.sh bench` (make bench): matplotlib for the charts.
if [ "${1:-}" = bench ]; then
  PIP_PKGS+=(matplotlib)
fi
if [ "${1:-}" = fuzz ]; then
  DEB_PKGS+=(clang libclang-rt-dev)
fi

missing=()
for p in "${DEB_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing Debian packages: ${missing[*]} (run as root to install them)" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
pip_missing=()
for p in "${PIP_PKGS[@]}"; do
  "$PY" -c "import $p" 2>/dev/null || pip_missing+=("$p")
done
if [ ${#pip_missing[@]} -gt 0 ]; then
  echo "install-deps: pip installing ${pip_missing[*]}"
  "$PY" -m pip install -q --disable-pip-version-check "${pip_missing[@]}"
fi
