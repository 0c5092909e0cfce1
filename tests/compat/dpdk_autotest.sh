#!/bin/sh
# Run one of DPDK's own autotests (dpdk-test) with a drop-in library preloaded,
# and check both that the test passed and that the library answered: its call
# counters (VPK_RTE_STATS=1) must show the calls named in REGEX with a non-zero count.
#   dpdk_autotest.sh DPDK_TEST LIB TEST PREFIX REGEX
set -u
dpdk_test=$1 lib=$2 test=$3 prefix=$4-$$ regex=$5   # per run: other checkouts may run it at once
out=$(mktemp)
# EAL leaves its runtime directory behind: remove it with the output.
trap 'rm -f "$out"; rm -rf "/run/dpdk/$prefix"' EXIT
echo "$test" | VPK_RTE_STATS=1 LD_PRELOAD="$lib" "$dpdk_test" --no-huge -m 512 --no-pci \
	--file-prefix "$prefix" -l 0 --log-level=lib.eal:error >"$out" 2>&1
rc=$?
tail -n 15 "$out"
if [ $rc -ne 0 ] || ! grep -q "Test OK" "$out"; then
	echo "FAIL: $test with $lib preloaded (exit $rc)"
	exit 1
fi
stats=$(grep -o 'vpk-rte-[a-z0-9]*: .*' "$out" | tr '\n' ' ')
for want in $regex; do
	if ! echo "$stats" | grep -Eq "(^| )$want=[1-9]"; then
		echo "FAIL: counter $want is zero or missing: vpk's library did not answer ($stats)"
		exit 1
	fi
done
echo "OK: $test passed, answered by $(basename "$lib"): $stats"
