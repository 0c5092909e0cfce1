#!/bin/sh
# DPDK's own tools give the same answers with a drop-in library preloaded as without.
#   dropin_tools.sh acl VPK LIB   dpdk-test-acl --verbose=3 prints every packet's result per
#                                 category: on generated rule sets of every profile (acl, fw,
#                                 ipv6: every algorithm; the ClassBench families acl1..ipc2 and
#                                 -v6: DPDK's default and avx512x32), the lines must equal DPDK's.
#   dropin_tools.sh fib VPK LIB [DATA_DIR]
#                                 dpdk-test-fib -c checks every looked-up address against
#                                 librte_lpm (which is not preloaded): on the RouteViews tables
#                                 (every 4th IPv4 prefix; generated routes when DATA_DIR is
#                                 missing), every entry size and FIB type, with and without the
#                                 preload, each run must report equal results.
# Each preloaded run must also show vpk's call counters (VPK_RTE_STATS=1) non-zero.
set -u
mode=$1 vpk=$2 lib=$3 data=${4:-}
d=$(mktemp -d)
# EAL leaves its runtime directories behind: removed with the scratch files.
trap 'rm -rf "$d" /run/dpdk/vpk-rte-tacl-$$ /run/dpdk/vpk-rte-tfib-$$' EXIT
eal="--no-huge -m 1024 --no-pci -l 0 --log-level=lib.eal:error"
fail() { echo "FAIL: $*"; exit 1; }

preloaded() {   # LOGFILE CMD...: run with the library preloaded, check vpk answered
	log=$1; shift
	VPK_RTE_STATS=1 LD_PRELOAD="$lib" "$@" >"$log" 2>"$log.err" || { tail -n 5 "$log" "$log.err"; fail "$* (preloaded)"; }
	grep -Eq 'vpk-rte-[a-z]+: .*(classify_packets|lookup_ips)=[1-9]' "$log.err" || fail "vpk did not answer: $*"
}

if [ "$mode" = acl ]; then
	for prof in acl fw ipv6; do
		v6=""; tag=ipv4_5tuple
		[ $prof = ipv6 ] && { v6="--ipv6"; tag=ipv6_5tuple; }
		"$vpk" gen acl --profile $prof --rules 3000 --seed 7 --rules-out $d/r --trace 4000 --trace-out $d/t \
			>/dev/null || fail "vpk gen acl --profile $prof"
		args="--rulesf=$d/r --tracef=$d/t --tracenum=4000 --iter=1 --verbose=3 $v6"
		for cat in 1 4; do
			dpdk-test-acl $eal --file-prefix vpk-rte-tacl-$$ -- $args --bldcat=$cat --runcat=$cat >$d/dpdk 2>&1 ||
				fail "dpdk-test-acl $prof"
			grep "^$tag:" $d/dpdk | sort >$d/want
			[ "$(wc -l <$d/want)" -eq $((4000 * cat)) ] || fail "dpdk-test-acl printed $(wc -l <$d/want) results"
			for alg in scalar sse avx2 avx512x16 avx512x32 avx512x32@512; do
				bw=""
				case $alg in *@512) alg=${alg%@512}; bw="--force-max-simd-bitwidth=512" ;; esac
				if ! dpdk-test-acl $eal $bw --file-prefix vpk-rte-tacl-$$ -- $args --bldcat=$cat \
					--runcat=$cat --alg=$alg >$d/dalg 2>&1; then
					# DPDK refuses the algorithm here (CPU or max SIMD bitwidth): so must vpk.
					LD_PRELOAD="$lib" dpdk-test-acl $eal $bw --file-prefix vpk-rte-tacl-$$ -- $args \
						--bldcat=$cat --runcat=$cat --alg=$alg >$d/vpk 2>&1 &&
						fail "$prof alg=$alg $bw: DPDK refuses it, vpk ran"
					echo "ok: $prof, alg=$alg $bw refused by both"
					continue
				fi
				preloaded $d/vpk dpdk-test-acl $eal $bw --file-prefix vpk-rte-tacl-$$ -- $args \
					--bldcat=$cat --runcat=$cat --alg=$alg
				grep "^$tag:" $d/vpk | sort >$d/got
				cmp -s $d/want $d/got || { diff $d/want $d/got | head -5; fail "$prof cat=$cat alg=$alg differs"; }
			done
			echo "ok: $prof, $cat categories: $(wc -l <$d/want) results equal for every algorithm DPDK runs here"
		done
	done
	# The ClassBench families: 500 rules each (rte_acl takes seconds to build some of them),
	# DPDK's default algorithm and avx512x32 at 512 bits.
	for prof in acl1 acl2 acl3 acl4 acl5 fw1 fw2 fw3 fw4 fw5 ipc1 ipc2 acl1-v6 fw1-v6 ipc1-v6; do
		v6=""; tag=ipv4_5tuple
		case $prof in *-v6) v6="--ipv6"; tag=ipv6_5tuple ;; esac
		"$vpk" gen acl --profile $prof --rules 500 --seed 3 --rules-out $d/r --trace 2000 --trace-out $d/t \
			>/dev/null || fail "vpk gen acl --profile $prof"
		args="--rulesf=$d/r --tracef=$d/t --tracenum=2000 --iter=1 --verbose=3 $v6"
		for bw in "" --force-max-simd-bitwidth=512; do
			alg=""
			[ -n "$bw" ] && alg=--alg=avx512x32
			dpdk-test-acl $eal $bw --file-prefix vpk-rte-tacl-$$ -- $args $alg >$d/dpdk 2>&1 ||
				fail "dpdk-test-acl $prof $bw $alg"
			grep "^$tag:" $d/dpdk | sort >$d/want
			[ "$(wc -l <$d/want)" -eq 2000 ] || fail "dpdk-test-acl $prof printed $(wc -l <$d/want) results"
			preloaded $d/vpk dpdk-test-acl $eal $bw --file-prefix vpk-rte-tacl-$$ -- $args $alg
			grep "^$tag:" $d/vpk | sort >$d/got
			cmp -s $d/want $d/got || { diff $d/want $d/got | head -5; fail "$prof $bw $alg differs"; }
		done
		echo "ok: $prof: 2000 results equal (default algorithm, avx512x32 at 512 bits)"
	done
	exit 0
fi

if [ -f "$data/routeviews-20151101-ipv4.txt" ]; then
	awk 'BEGIN{srand(1)} NR%4==1 && $1 !~ /\/0$/ {print $1, 1+int(rand()*120)}' \
		"$data/routeviews-20151101-ipv4.txt" >$d/r4
	awk 'BEGIN{srand(1)} $1 !~ /\/0$/ {print $1, 1+int(rand()*120)}' "$data/routeviews-20151101-ipv6.txt" >$d/r6
	src="RouteViews"
else
	"$vpk" gen routes -n 100000 --seed 3 -o $d/r4 >/dev/null || fail "vpk gen routes"
	src="generated"
fi
fibrun() {      # NAME ARGS...: DPDK alone, then preloaded; both must match librte_lpm
	name=$1; shift
	if ! dpdk-test-fib $eal --file-prefix vpk-rte-tfib-$$ -- "$@" >$d/dpdk 2>&1; then
		# DPDK cannot hold this table (e.g. 1-byte entries allow 127 tbl8 groups): vpk must
		# refuse it with the same error.
		why=$(grep -m1 "Can not" $d/dpdk) || { tail -n 3 $d/dpdk; fail "dpdk-test-fib $name"; }
		if LD_PRELOAD="$lib" dpdk-test-fib $eal --file-prefix vpk-rte-tfib-$$ -- "$@" >$d/vpk 2>&1; then
			# The one allowed difference: rte_fib6's trie reserves tbl8 groups for the worst
			# case, vpk counts them exactly, so vpk may hold an IPv6 table DPDK refuses.
			case "$name" in ipv6*) ;; *) fail "$name: DPDK fails ($why), vpk ran" ;; esac
			echo "$why" | grep -q "err -28" || fail "$name: DPDK fails ($why), vpk ran"
			grep -q "FIB and LPM lookup returns same values" $d/vpk || fail "$name differs"
			echo "ok: $name: DPDK runs out of tbl8 groups, vpk holds the table: same next hop as LPM"
			return
		fi
		grep -qF "$why" $d/vpk || fail "$name: DPDK says '$why', vpk says '$(grep -m1 "Can not" $d/vpk)'"
		echo "ok: $name: refused by both: $why"
		return
	fi
	grep -q "FIB and LPM lookup returns same values" $d/dpdk || fail "DPDK's own FIB differs from LPM ($name)"
	preloaded $d/vpk dpdk-test-fib $eal --file-prefix vpk-rte-tfib-$$ -- "$@"
	grep -q "FIB and LPM lookup returns same values" $d/vpk || { grep -m3 "FAIL\|Can not" $d/vpk; fail "$name differs"; }
	echo "ok: $name ($src, $(wc -l <"$2") routes): same next hop as LPM for every address, with and without vpk"
}
for e in 1 2 4 8; do  # 1B: DPDK allows 127 tbl8 groups, too few for this table
	fibrun "ipv4 dir24_8 ${e}B" -f $d/r4 -c -e $e -g 65536 -l 300000
done
fibrun "ipv4 rib" -f $d/r4 -c -b rib -l 100000
if [ -f $d/r6 ]; then
	for e in 2 4 8; do
		fibrun "ipv6 trie ${e}B" -f $d/r6 -6 -c -e $e -g 200000 -l 300000
	done
fi
