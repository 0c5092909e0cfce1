#!/bin/sh
# The "floor" side of scripts/bench-dropin.sh: bench/dropin's library really replaces
# DPDK's lookup (dpdk-test-fib -c, which checks every address against librte_lpm, passes
# without it and fails with it), and one quick IPv4 run of the bench reports the floor
# with its two ratios computed from the medians it prints.
#   bench_floor.sh FLOOR_LIB BUILD_DIR SOURCE_DIR DATA_DIR
set -u
floor=$1 build=$2 src=$3 data=$4
d=$(mktemp -d)
trap 'rm -rf "$d" /run/dpdk/vpk-rte-floor-$$ /run/dpdk/vpk-rte-floorb-$$' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$build/vpk" gen routes -n 20000 --seed 5 -o "$d/r" >/dev/null || fail "vpk gen routes"
run() {         # LIB: dpdk-test-fib -c on the routes, its output in $d/out
	LD_PRELOAD="$1" dpdk-test-fib --no-huge -m 512 --no-pci -l 0 --file-prefix vpk-rte-floor-$$ \
		--log-level=lib.eal:error -- -f "$d/r" -e 4 -l 100000 -c >"$d/out" 2>&1
}
run "" || { cat "$d/out"; fail "dpdk-test-fib -c without a preload"; }
grep -q "FIB and LPM lookup returns same values" "$d/out" || { cat "$d/out"; fail "no comparison"; }
run "$floor"
grep -q "^FAIL" "$d/out" || { cat "$d/out"; fail "the floor library did not replace rte_fib_lookup_bulk"; }

VPK_BENCH_ONLY=fib VPK_BENCH_FIB=4 QUICK=1 REPS=1 VPK_DATA="$data" VPK_BENCH_EAL="--no-huge -m 1024" \
	VPK_BENCH_PREFIX=vpk-rte-floorb-$$ bash "$src/scripts/bench-dropin.sh" "$build" >"$d/json" 2>"$d/err" ||
	{ cat "$d/err"; fail "bench-dropin.sh"; }
python3 - "$d/json" <<'PY' || fail "bench-dropin.sh JSON"
import json, sys
d = json.load(open(sys.argv[1]))
for case in ("fib4-intable", "fib4-random"):
    c = d[case]
    f, p, v = c["floor"]["fib_lookup_cycles"], c["dpdk"]["fib_lookup_cycles"], c["vpk"]["fib_lookup_cycles"]
    assert f > 0 and len(c["floor"]["runs"]) == 1, c["floor"]
    assert c["floor_ratio"] == round(f / p, 3), (case, c["floor_ratio"], f, p)
    want = round((v - f) / (p - f), 3) if p > f else None
    assert c["ratio_above_floor"] == want, (case, c["ratio_above_floor"], want)
    assert "floor" not in c["ratio"], c["ratio"]
print("bench-dropin floor: ok")
PY
echo "PASS"
