#!/usr/bin/env bash
# make bench: every benchmark of one build, one JSON file per step in
# BUILD/bench/, then docs/benchmarks.md and its charts (docs/img/bench-*.png)
# regenerated from that JSON by scripts/gen-benchmarks.py.
#
#   scripts/run-bench.sh [BUILD]          the full suite (about 30 minutes on 2 cores)
#   VPK_BENCH_QUICK=1 scripts/run-bench.sh BUILD
#                                         every step with tiny sizes (a smoke test; figures are noise)
#   VPK_BENCH_OUT=DIR VPK_BENCH_DOC=FILE  write the JSON and the document elsewhere
#   VPK_BENCH_ONLY="fwd acl-10k"          run only the named steps (the document is still regenerated)
#
# Adding a benchmark is one line below: `step NAME COMMAND...` runs COMMAND
# with its stdout in OUT/NAME.json and its stderr in OUT/NAME.log; a step that
# cannot run here is `skip NAME "reason"`. OUT/steps.tsv records, for every
# step, its status (ok, failed, skipped), seconds and command or reason; the
# generator renders every JSON file it finds (known ones as tables and charts,
# others as a generic table) and lists the skipped and failed steps.
set -uo pipefail
build=${1:-build}
out=${VPK_BENCH_OUT:-$build/bench}
doc=${VPK_BENCH_DOC:-docs/benchmarks.md}
quick=${VPK_BENCH_QUICK:-0}
py=${PYTHON:-python3}
vpk=$build/vpk
data=${VPK_DATA:-$(realpath -m "$(dirname "$0")/../../shared/data")}
routes4=${VPK_ROUTES4:-$data/routeviews-20151101-ipv4.txt}
routes6=${VPK_ROUTES6:-$data/routeviews-20151101-ipv6.txt}

if [ ! -x "$vpk" ]; then
	echo "run-bench: $vpk not found: build first (make build)" >&2
	exit 2
fi
mkdir -p "$out"
steps=$out/steps.tsv
if [ -z "${VPK_BENCH_ONLY:-}" ] || [ ! -f "$steps" ]; then
	rm -f "$out"/*.json "$out"/*.log "$out"/*.failed-output
	printf 'name\tstatus\tseconds\tcommand\n' > "$steps"
else                    # rerun some steps: keep the others' JSON and lines
	awk -F'\t' -v only=" $VPK_BENCH_ONLY " 'NR == 1 || index(only, " " $1 " ") == 0' "$steps" > "$steps.new"
	mv "$steps.new" "$steps"
fi
cat /proc/loadavg > "$out/loadavg" 2>/dev/null

want() {
	[ -z "${VPK_BENCH_ONLY:-}" ] && return 0
	case " $VPK_BENCH_ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

step() {
	local name=$1; shift
	want "$name" || return 0
	echo "== $name: $*"
	local t0=$SECONDS rc
	rm -f "$out/$name.failed-output"
	"$@" > "$out/$name.json" 2> "$out/$name.log"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "   failed (exit $rc), see $out/$name.log" >&2
		mv "$out/$name.json" "$out/$name.failed-output" 2>/dev/null
		printf '%s\tfailed\t%d\t%s\n' "$name" $((SECONDS - t0)) "$*" >> "$steps"
	else
		printf '%s\tok\t%d\t%s\n' "$name" $((SECONDS - t0)) "$*" >> "$steps"
	fi
}

skip() {
	want "$1" || return 0
	echo "== $1: skipped: $2"
	printf '%s\tskipped\t0\t%s\n' "$1" "$2" >> "$steps"
}

# Sizes: the full run, or VPK_BENCH_QUICK's tiny ones.
if [ "$quick" = 1 ]; then
	runs=3 kpkts=100000 fwdpk=100000 fwdruns=1 trace=16384 accel=1 lk=200000 passes=1 frames=200 rxpass=20
	aclsets="acl:1000" widths=4 l3fwdopts="--runs 1 --seconds 0.5 --packets 2e6"
	churnopts="--routes 20000 --packets 1 --runs 1" lsyncopts="--routes 20000 --seconds 1"
	portsopts="--rounds 1 --seconds 1"
	matrixopts="quick"
else
	runs=7 kpkts=2000000 fwdpk=2000000 fwdruns=5 trace=1048576 accel=3 lk=10000000 passes=5 frames=20000 rxpass=200
	aclsets="acl:1000 acl:10000 fw:10000 ipv6:10000" widths=2,4,8 l3fwdopts= churnopts= lsyncopts= portsopts=
	matrixopts="full --iter 3"
fi

# Is rte_acl / rte_fib compiled in? (Asked only when an ACL or FIB step runs.)
dpdk=no
case " ${VPK_BENCH_ONLY:-acl fib} " in
*" acl"* | *" fib"*)
	probe=$("$vpk" bench acl --profile acl --rules 10 --trace 64 --iter 1 --bursts 32 --vs-dpdk --json 2>/dev/null)
	case $probe in *'"lib":"dpdk"'* | *'"lib": "dpdk"'*) dpdk=yes ;; esac
	;;
esac
vsdpdk=--no-dpdk
[ $dpdk = yes ] && vsdpdk=--vs-dpdk

step info      "$vpk" --json info
step scan      "$vpk" --json scan "$build/src/libvpk.so"
step kernels   "$vpk" --json bench kernels --runs $runs --packets $kpkts
step pool      "$vpk" --json bench pool --runs $runs
step fwd       "$vpk" --json fwd --demo --runs $fwdruns --packets $fwdpk --quiet
step fwd-noacl "$vpk" --json fwd --demo --runs $fwdruns --packets $fwdpk --rules 0 --quiet
for s in $aclsets; do
	prof=${s%%:*} n=${s##*:}
	step "acl-$prof-$((n / 1000))k" "$vpk" bench acl --profile $prof --rules $n --trace $trace \
		--iter $accel --bursts 32,256 $vsdpdk --json
done
# The ClassBench families at 1k, 10k and 100k (about 15 minutes: rte_acl builds each 100k set
# in 10-40 s).
step acl-matrix "$vpk" --json bench acl --matrix $matrixopts $vsdpdk
[ $dpdk = yes ] || skip dpdk "libdpdk not found at build time: rte_acl and rte_fib comparisons left out"
if [ -r "$routes4" ]; then
	step fib "$vpk" --json bench fib -f "$routes4" -l $lk -R $passes -e $widths $vsdpdk
else
	"$vpk" gen routes -n 600000 -o "$out/routes4.txt" > /dev/null 2>&1
	step fib "$vpk" --json bench fib -f "$out/routes4.txt" -l $lk -R $passes -e $widths $vsdpdk
fi
if [ -r "$routes6" ]; then
	step fib6 "$vpk" --json bench fib --ipv6 -f "$routes6" -l $lk -R $passes -e 4,8 $vsdpdk
else
	skip fib6 "no IPv6 route table ($routes6; set VPK_ROUTES6)"
fi
step vxlan     "$vpk" --json bench vxlan --runs $runs --frames $frames
step gtp4d     "$vpk" --json bench gtp4d --runs $runs --frames $frames
step rx        "$vpk" --json bench rx --runs $runs --passes $rxpass
step rx-l2     "$vpk" --json bench rx --runs $runs --passes $((rxpass * 10)) --ring 256
if [ "$(nproc)" -ge 2 ]; then
	step wide  "$vpk" --json bench wide --runs $runs
	step fwd-wide "$vpk" --json fwd --demo --wide-cores 1 --packets $fwdpk --runs 1 --quiet
else
	skip wide "one CPU: a wide core needs a second one"
fi
if pkg-config --exists libdpdk && [ "$(id -u)" = 0 ]; then
	step l3fwd "$py" "$(dirname "$0")/bench_l3fwd.py" --vpk "$vpk" --work "$out/l3fwd" $l3fwdopts
else
	skip l3fwd "needs libdpdk and root (l3fwd is built from dpdk-doc and runs on hugepages)"
fi
if pkg-config --exists libdpdk; then
	step ports-dpdk "$py" "$(dirname "$0")/bench-ports-dpdk.py" --build "$build" $portsopts
else
	skip ports-dpdk "needs libdpdk (vpk iofwd --io dpdk against dpdk-testpmd)"
fi
if [ -e "$build/compat/dpdk/libvpk_rte_acl.so" ] && command -v dpdk-test-acl > /dev/null; then
	# dpdk-test-acl / dpdk-test-fib with and without the drop-in libraries (docs/dpdk-dropin.md)
	step dropin env REPS=3 QUICK=$quick bash "$(dirname "$0")/bench-dropin.sh" "$build"
else
	skip dropin "no drop-in libraries (libdpdk-dev absent at build time) or no dpdk-test-acl"
fi
step fwd-churn "$vpk" --json bench fwd-churn --rate 20000 $churnopts
if [ "$(id -u)" = 0 ]; then
	step linux-sync "$py" "$(dirname "$0")/bench-linux-sync.py" --vpk "$vpk" $lsyncopts
else
	skip linux-sync "needs root (a network namespace)"
fi
step powersim  "$vpk" --json powersim --scenario nginx-openssl-avx512
step tune      "$vpk" --json info --tune --runs $runs

echo "== generate $doc"
"$py" "$(dirname "$0")/gen-benchmarks.py" --bench "$out" --doc "$doc" --img "$(dirname "$doc")/img"
