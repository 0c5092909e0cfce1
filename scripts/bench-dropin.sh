#!/usr/bin/env bash
# The DPDK drop-in libraries against DPDK itself, in DPDK's own tools: dpdk-test-acl and
# dpdk-test-fib run the same input without and with LD_PRELOAD of libvpk_rte_acl.so /
# libvpk_rte_fib.so, alternating (DPDK, vpk, vpk, DPDK, DPDK, vpk, ...: each run's order
# rotated), REPS times each; the figures are
# the ones the tools print (ACL cycles/pkt; FIB "AVG FIB add/lookup/delete" cycles), medians
# over the runs, plus each process's wall time and peak RSS (GNU time). JSON on stdout.
#
#   scripts/bench-dropin.sh [BUILD_DIR]
# Environment:
#   REPS=5                runs of each side per case
#   VPK_DATA=../shared/data   RouteViews tables (routeviews-20151101-ipv{4,6}.txt)
#   VPK_BENCH_EAL         EAL memory options; default: hugepages (as DPDK is deployed) when a
#                         hugetlbfs is mounted and 3 GiB of pages are free, else "--no-huge -m 4096"
#   VPK_BENCH_BITWIDTH    --force-max-simd-bitwidth for both sides (default: the EAL's own)
#   QUICK=1               10k ACL rules only, IPv4 table only, REPS=3 (a smoke run)
#   VPK_BENCH_PREFIX      the EAL's --file-prefix (default vpk-rte-bench-PID)
#   VPK_BENCH_ONLY        acl or fib: only those cases
#   VPK_BENCH_FIB         4 or 6: only that family's FIB cases (dpdk-test-fib and *_perf_autotest)
#   VPK_BENCH_BASE        another build directory (e.g. main's): its libraries run as a third
#                         side "base" in the same alternation (dpdk, vpk, base, ...); the JSON
#                         then also has base / DPDK and vpk / base ratios
#
# dpdk-test-fib also runs as side "floor" (where the build has bench/dropin's library): DPDK's
# librte_fib with a lookup that only reads its keys and stores values. Its lookup cycles are
# what the tool's timed loop costs around any lookup; the JSON gives floor / DPDK ("floor_ratio",
# the lowest ratio any lookup could reach) and (vpk - floor) / (DPDK - floor) ("ratio_above_floor").
#
# ACL: `vpk gen acl --profile acl` sets of 10 000 and 100 000 rules, 100 000 packets,
# --iter=4. "setup" is the wall time of a run (EAL init + reading + rte_acl_build + the
# classify iterations); the classify part is the cycles/pkt figure. FIB: the RouteViews IPv4
# table (606 138 prefixes) with -e 4 -g 65536, the IPv6 table (27 693) with -6 -e 4 -g 200000,
# 4 M lookups each, in-table (the default) and 99 % random (-r 99, the most the tool takes).
# Then dpdk-test's fib_perf_autotest and fib6_perf_autotest (not with QUICK=1).
set -euo pipefail
build=${1:-build}
reps=${REPS:-5}
data=${VPK_DATA:-$(dirname "$0")/../../shared/data}
quick=${QUICK:-0}
only=${VPK_BENCH_ONLY:-}
base=${VPK_BENCH_BASE:-}
case $only in
"" | acl | fib) ;;
*) echo "bench-dropin: VPK_BENCH_ONLY='$only': expected acl or fib" >&2; exit 2 ;;
esac
fam=${VPK_BENCH_FIB:-}
case $fam in
"" | 4 | 6) ;;
*) echo "bench-dropin: VPK_BENCH_FIB='$fam': expected 4 or 6" >&2; exit 2 ;;
esac
if [ -n "$base" ] && [ ! -f "$base/compat/dpdk/libvpk_rte_acl.so" ]; then
	echo "bench-dropin: VPK_BENCH_BASE='$base': no compat/dpdk/libvpk_rte_acl.so in it (a build directory)" >&2
	exit 2
fi
sides="dpdk vpk"
[ -n "$base" ] && sides="dpdk vpk base"
[ "$quick" = 1 ] && reps=${REPS:-3}
acl_lib=$(realpath "$build/compat/dpdk/libvpk_rte_acl.so")
fib_lib=$(realpath "$build/compat/dpdk/libvpk_rte_fib.so")
if [ -n "$base" ]; then
	base_acl=$(realpath "$base/compat/dpdk/libvpk_rte_acl.so")
	base_fib=$(realpath "$base/compat/dpdk/libvpk_rte_fib.so")
fi
vpk=$build/vpk
for t in dpdk-test-acl dpdk-test-fib /usr/bin/time; do
	command -v $t >/dev/null || { echo "bench-dropin: $t not found (dpdk-dev, time)" >&2; exit 2; }
done
# Hugepages as DPDK is deployed: a mounted hugetlbfs with 3 GiB free, else plain memory.
huge_dir=$(awk '$3 == "hugetlbfs" {print $2; exit}' /proc/mounts)
free_huge=$(awk '/HugePages_Free/ {f=$2} /Hugepagesize/ {s=$2} END {print int(f*s/1024)}' /proc/meminfo)
eal_for() {     # MiB the tool needs
	if [ -n "${VPK_BENCH_EAL:-}" ]; then
		echo "$VPK_BENCH_EAL"
	elif [ -n "$huge_dir" ] && [ "$free_huge" -ge 3072 ]; then
		echo "-m $1 --huge-dir $huge_dir --huge-unlink"
	else
		echo "--no-huge -m 4096"
	fi
}
bw=${VPK_BENCH_BITWIDTH:+--force-max-simd-bitwidth=$VPK_BENCH_BITWIDTH}
prefix=${VPK_BENCH_PREFIX:-vpk-rte-bench-$$}
common="$bw --no-pci -l 0 --file-prefix $prefix --log-level=lib.eal:error"
w=$(mktemp -d)
trap 'rm -rf "$w" "/run/dpdk/$prefix"' EXIT     # EAL leaves its runtime directory behind

# The sides of run R, rotated by R: the run right after a DPDK run pays more for first-touch
# memory (vpk's tables fault in during the adds: 1.6-1.9k instead of 0.5-0.6k cycles per IPv4
# route), so no side may always follow DPDK.
order() {       # R [SIDES]
	local -a s=(${2:-$sides})
	local r=$1 i
	for ((i = 0; i < ${#s[@]}; i++)); do echo -n "${s[(i + r) % ${#s[@]}]} "; done
}

run() {         # OUT LIB CMD...: one run, stdout+stderr to OUT, "wall rss" appended
	local out=$1 lib=$2
	shift 2
	LD_PRELOAD=$lib /usr/bin/time -f "bench-time: %e %M" "$@" >"$out" 2>&1 ||
		{ tail -n 5 "$out" >&2; echo "bench-dropin: failed: $*" >&2; exit 1; }
}

cases=()
acl_sets="10000 100000"
[ "$quick" = 1 ] && acl_sets=10000
[ "$only" = fib ] && acl_sets=""
for n in $acl_sets; do
	"$vpk" gen acl --profile acl --rules $n --seed 11 --rules-out "$w/acl$n.rules" --trace 100000 \
		--trace-out "$w/acl$n.trace" >/dev/null 2>&1
	for r in $(seq "$reps"); do
		for side in $(order "$r"); do
			lib=""; [ $side = vpk ] && lib=$acl_lib; [ $side = base ] && lib=$base_acl
			run "$w/acl$n.$side.$r" "$lib" dpdk-test-acl $(eal_for 3072) $common -- --rulesf="$w/acl$n.rules" \
				--rulenum=$n --tracef="$w/acl$n.trace" --tracenum=100000 --iter=4 --verbose=1
		done
	done
	cases+=("acl:$n:acl$n")
done

if [ -f "$data/routeviews-20151101-ipv4.txt" ]; then
	awk 'BEGIN{srand(1)} $1 !~ /\/0$/ {print $1, 1+int(rand()*32000)}' "$data/routeviews-20151101-ipv4.txt" >"$w/r4"
	awk 'BEGIN{srand(1)} $1 !~ /\/0$/ {print $1, 1+int(rand()*32000)}' "$data/routeviews-20151101-ipv6.txt" >"$w/r6"
else
	echo "bench-dropin: no RouteViews tables in $data: generated routes instead" >&2
	"$vpk" gen routes -n 600000 --seed 3 -o "$w/r4" >/dev/null
fi
fibsets="fib4-intable:-f $w/r4 -e 4 -g 65536 -l 4000000|fib4-random:-f $w/r4 -e 4 -g 65536 -l 4000000 -r 99"
[ -s "$w/r6" ] && [ "$quick" != 1 ] &&
	fibsets="$fibsets|fib6-intable:-6 -f $w/r6 -e 4 -g 200000 -l 4000000|fib6-random:-6 -f $w/r6 -e 4 -g 200000 -l 4000000 -r 99"
IFS='|' read -r -a fibarr <<<"$fibsets"
[ "$only" = acl ] && fibarr=()
if [ -n "$fam" ]; then
	keep=()
	for fs in ${fibarr[@]+"${fibarr[@]}"}; do
		case $fs in fib$fam-*) keep+=("$fs") ;; esac
	done
	fibarr=(${keep[@]+"${keep[@]}"})
fi
# dpdk-test-fib also runs with a lookup that does no lookup (bench/dropin/fib_floor.c) in
# DPDK's library: the side "floor", what the tool's loop costs around any lookup.
floor_lib=$build/bench/dropin/libvpk_bench_fib_floor.so
fib_sides=$sides
[ -f "$floor_lib" ] && fib_sides="$sides floor" && floor_lib=$(realpath "$floor_lib")
for fs in ${fibarr[@]+"${fibarr[@]}"}; do
	name=${fs%%:*} args=${fs#*:}
	for r in $(seq "$reps"); do
		for side in $(order "$r" "$fib_sides"); do
			lib=""; [ $side = vpk ] && lib=$fib_lib; [ $side = base ] && lib=$base_fib
			[ $side = floor ] && lib=$floor_lib
			# shellcheck disable=SC2086
			run "$w/$name.$side.$r" "$lib" dpdk-test-fib $(eal_for 1024) $common -- $args
		done
	done
	cases+=("fib:$name:$name:$fib_sides")
done

# dpdk-test's own FIB benchmarks (random routes as test_lpm's; 32-address bulk lookups).
perf_tests="fib_perf_autotest fib6_perf_autotest"
[ "$fam" = 4 ] && perf_tests=fib_perf_autotest
[ "$fam" = 6 ] && perf_tests=fib6_perf_autotest
{ command -v dpdk-test >/dev/null && [ "$quick" != 1 ] && [ "$only" != acl ]; } || perf_tests=""
for t in $perf_tests; do
	for r in $(seq "$reps"); do
		for side in $(order "$r"); do
			lib=""; [ $side = vpk ] && lib=$fib_lib; [ $side = base ] && lib=$base_fib
			echo $t | run "$w/$t.$side.$r" "$lib" dpdk-test $(eal_for 1024) $common
			grep -q "Test OK" "$w/$t.$side.$r" || { tail -n 5 "$w/$t.$side.$r" >&2; exit 1; }
		done
	done
	cases+=("perf:$t:$t")
done

python3 - "$w" "$reps" "$(eal_for 3072 | sed s/3072/N/) $common" "$sides" "${cases[@]}" <<'EOF'
import json, re, statistics, sys, os
w, reps, eal, side_names, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(), sys.argv[5:]

def parse(path, kind):
    """One run's figures, or None (with the reason on stderr) when the tool printed none."""
    t = open(path, errors="replace").read()
    m = re.findall(r"bench-time: ([\d.]+) (\d+)", t)
    try:
        d = {"wall_s": float(m[-1][0]), "max_rss_mib": int(m[-1][1]) / 1024}
        if kind == "acl":
            d["cycles_per_pkt"] = float(re.search(r"([\d.]+) cycles/pkt", t).group(1))
        elif kind == "perf":
            for key, pat in (("fib_add_cycles", "Average FIB Add"), ("fib_lookup_cycles", "BULK FIB Lookup"),
                             ("fib_delete_cycles", "Average FIB Delete")):
                d[key] = float(re.search(pat + r": ([\d.eE+]+) cycles", t).group(1))  # %g: 1.2e+06
        else:
            for phase in ("add", "lookup", "delete"):
                v = [float(x) for x in re.findall(r"AVG FIB %s ([\d.]+)" % phase, t)]
                d["fib_%s_cycles" % phase] = sum(v) / len(v)
    except (AttributeError, IndexError, ZeroDivisionError):
        print("bench-dropin: %s: no figures; it ends with:\n%s" % (os.path.basename(path), t[-400:]),
              file=sys.stderr)
        return None
    return d

out = {"tool": "scripts/bench-dropin.sh", "reps": reps, "eal": eal, "load_avg": os.getloadavg()[0],
       "note": "medians over alternating runs; ratio = vpk / DPDK (lower is better for vpk)"}
for c in cases:
    kind, name, stem, *own = c.split(":")
    sides = {}
    for side in (own[0].split() if own else side_names):
        runs = [parse(os.path.join(w, "%s.%s.%d" % (stem, side, r)), kind) for r in range(1, reps + 1)]
        good = [r for r in runs if r is not None]
        if not good:
            sys.exit("bench-dropin: %s %s: no run printed figures" % (name, side))
        sides[side] = {k: round(statistics.median(r[k] for r in good), 2) for k in good[0]}
        sides[side]["runs"] = good
        sides[side]["failed_runs"] = len(runs) - len(good)
    floor = sides.pop("floor", None)
    ratio = {k: round(sides["vpk"][k] / sides["dpdk"][k], 3) for k in sides["dpdk"]
             if k not in ("runs", "failed_runs") and sides["dpdk"][k]}
    key = ("acl-%dk" % (int(name) // 1000)) if kind == "acl" else name
    out[key] = dict(sides, ratio=ratio)
    if floor is not None:
        # Only the lookup is replaced (adds and deletes are DPDK's): its cycles are the floor.
        f, d, v = floor["fib_lookup_cycles"], sides["dpdk"]["fib_lookup_cycles"], sides["vpk"]["fib_lookup_cycles"]
        out[key]["floor"] = {"fib_lookup_cycles": f, "runs": [r["fib_lookup_cycles"] for r in floor["runs"]],
                             "failed_runs": floor["failed_runs"]}
        out[key]["floor_ratio"] = round(f / d, 3) if d else None
        out[key]["ratio_above_floor"] = round((v - f) / (d - f), 3) if d > f else None
    if "base" in sides:
        out[key]["ratio_base"] = {k: round(sides["base"][k] / sides["dpdk"][k], 3) for k in ratio}
        out[key]["vpk_vs_base"] = {k: round(sides["vpk"][k] / sides["base"][k], 3) for k in ratio
                                   if sides["base"][k]}
print(json.dumps(out, indent=1))
EOF
