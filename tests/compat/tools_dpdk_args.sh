#!/bin/sh
# vpk acl and vpk fib run command lines written for dpdk-test-acl and dpdk-test-fib:
# EAL arguments before -- are ignored with one note on stderr; vpk acl prints
# dpdk-test-acl's summary line at --verbose=0 and its per-packet lines (numbered
# from 1) at --verbose=2, equal to dpdk-test-acl's own where it is installed;
# vpk fib --dpdk-format prints dpdk-test-fib's AVG FIB lines.
#   tools_dpdk_args.sh VPK
set -u
vpk=$1
d=$(mktemp -d)
trap 'rm -rf "$d" /run/dpdk/vpk-tool-acl-$$ /run/dpdk/vpk-tool-fib-$$' EXIT
fail() { echo "FAIL: $*"; exit 1; }
eal="-l 0 -n 4 --no-huge -m 512 --no-pci --log-level=lib.eal:error"

"$vpk" gen acl --profile acl --rules 200 --seed 5 --rules-out $d/r --trace 300 --trace-out $d/t >/dev/null 2>&1 ||
	fail "vpk gen acl"
args="--rulesf=$d/r --tracef=$d/t --alg=scalar"

# The summary line alone at --verbose=0, one note for the EAL arguments.
"$vpk" acl $eal --file-prefix x -- $args --verbose=0 >$d/o 2>$d/e || fail "vpk acl with EAL arguments"
[ "$(grep -c 'EAL argument' $d/e)" = 1 ] || fail "vpk acl: one note on stderr expected: $(cat $d/e)"
[ "$(wc -l <$d/o)" = 1 ] || fail "vpk acl --verbose=0: one line expected: $(cat $d/o)"
grep -Eq '^search_ip5tuples  @lcore 0: 1 iterations, 300 pkts, 1 categories, [0-9]+ cycles \([0-9.]+ sec\), [0-9.]+ cycles/pkt, [0-9.]+ pkt/sec$' \
	$d/o || fail "vpk acl: not dpdk-test-acl's summary line: $(cat $d/o)"
"$vpk" acl $args --verbose=0 >/dev/null 2>$d/e || fail "vpk acl without EAL arguments"
[ -s $d/e ] && fail "vpk acl without --: no note expected: $(cat $d/e)"

# Per-packet lines: 300 packets x 4 categories, numbered from 1.
"$vpk" acl $args --bldcat=4 --runcat=4 --verbose=2 | grep '5tuple:' >$d/v || fail "vpk acl --verbose=2"
[ "$(wc -l <$d/v)" = 1200 ] || fail "vpk acl --verbose=2: $(wc -l <$d/v) packet lines, 1200 expected"
head -n 1 $d/v | grep -q '^ipv4_5tuple: 1, category: 0, result: [0-9]*$' || fail "first packet line: $(head -n 1 $d/v)"
tail -n 1 $d/v | grep -q '^ipv4_5tuple: 300, category: 3, result: [0-9]*$' || fail "last packet line: $(tail -n 1 $d/v)"
if command -v dpdk-test-acl >/dev/null; then
	dpdk-test-acl $eal --file-prefix vpk-tool-acl-$$ -- $args --bldcat=4 --runcat=4 --verbose=2 2>&1 |
		grep '5tuple:' >$d/dp
	cmp -s $d/v $d/dp || fail "per-packet lines differ from dpdk-test-acl's: $(diff $d/v $d/dp | head -n 3)"
	echo "ok: vpk acl --verbose=2 prints dpdk-test-acl's 1200 lines"
fi

# vpk fib --dpdk-format: 10 add lines, 1 lookup line, 10 delete lines, as dpdk-test-fib.
fargs="-n 5000 -l 64000 -e 4 -g 4096"
"$vpk" fib $eal --file-prefix x -- $fargs --dpdk-format >$d/f 2>$d/e || fail "vpk fib with EAL arguments"
[ "$(grep -c 'EAL argument' $d/e)" = 1 ] || fail "vpk fib: one note on stderr expected: $(cat $d/e)"
sed 's/ [0-9.]*$//' $d/f >$d/fl
[ "$(grep -c '^AVG FIB add$' $d/fl)" = 10 ] && [ "$(grep -c '^AVG FIB lookup$' $d/fl)" = 1 ] &&
	[ "$(grep -c '^AVG FIB delete$' $d/fl)" = 10 ] && [ "$(wc -l <$d/f)" = 21 ] ||
	fail "vpk fib --dpdk-format: $(cat $d/f)"
grep -Eqv '^AVG FIB (add [0-9]+|lookup [0-9]+\.[0-9]|delete [0-9]+)$' $d/f && fail "vpk fib --dpdk-format: bad line"
if command -v dpdk-test-fib >/dev/null; then
	dpdk-test-fib $eal --file-prefix vpk-tool-fib-$$ -- $fargs 2>&1 | grep '^AVG FIB' | sed 's/ [0-9.]*$//' >$d/dl
	cmp -s $d/fl $d/dl || fail "AVG FIB lines differ from dpdk-test-fib's: $(diff $d/fl $d/dl | head -n 3)"
	echo "ok: vpk fib --dpdk-format prints dpdk-test-fib's lines"
fi
echo "ok: EAL arguments ignored, dpdk-test-acl / dpdk-test-fib output formats"
