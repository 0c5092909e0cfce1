#!/usr/bin/env bash
# Live io-forward rate on veth: vpk iofwd (af_packet, af_xdp) next to DPDK testpmd (net_af_packet,
# net_af_xdp vdevs) on the same veth pair, in one run. Needs root; everything happens in namespaces
# with per-run names and is deleted at exit. Kernel-bound: veth costs ~0.6 us per packet per stage.
#
#   ns G: g0 <-> f0 :ns F: f1 <-> s0 :ns S
#   generator (vpk iofwd --txonly, af_xdp tx, CPU 0) -> forwarder under test (CPU 1) -> sink counter
#
# usage: scripts/bench-live.sh [BUILD_DIR] [SECONDS] [REPEATS]   (prints one JSON object per run)
set -u
BUILD=${1:-build}; SECS=${2:-5}; REP=${3:-3}
VPK=$(realpath "$BUILD/vpk")
SFX=$(( $$ % 100000 )); G=vpkb_g$SFX F=vpkb_f$SFX S=vpkb_s$SFX
G0=bg0_$SFX F0=bf0_$SFX F1=bf1_$SFX S0=bs0_$SFX
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  for n in $G $F $S; do ip netns del $n 2>/dev/null; done
}
trap 'cleanup; rm -f /tmp/vpkb_fwd_$SFX.out' EXIT
trap 'exit 1' INT TERM
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 0; }
for n in $G $F $S; do
  ip netns add $n || { echo "SKIP: cannot create network namespaces"; exit 0; }
  ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n $n link set lo up
done
ip link add $G0 netns $G type veth peer name $F0 netns $F
ip link add $F1 netns $F type veth peer name $S0 netns $S
ip -n $G link set $G0 up; ip -n $F link set $F0 up; ip -n $F link set $F1 up; ip -n $S link set $S0 up
sink() { ip netns exec $S cat /sys/class/net/$S0/statistics/rx_packets; }
EAL="--no-huge --no-pci -m 1024 -l 0,1 --log-level=lib.eal:error --file-prefix=vpkb$SFX"

run_one() {  # name, forwarder command...
  local name=$1; shift
  # vpk on CPU 1 (taskset); testpmd pins its forwarding lcore 1 to CPU 1 itself (EAL -l 0,1)
  local pin="taskset -c 1"; case $name in testpmd*) pin="";; esac
  ip netns exec $F timeout -s INT $((SECS + 8)) $pin "$@" >/tmp/vpkb_fwd_$SFX.out 2>&1 &
  local fpid=$!; PIDS+=($fpid)
  # ready: vpk has opened its ports / testpmd says it started forwarding
  for i in $(seq 100); do
    grep -q "start packet forwarding\|Press enter" /tmp/vpkb_fwd_$SFX.out 2>/dev/null && break
    case $name in vpk*) [ $i -ge 10 ] && break;; esac
    sleep 0.1
  done
  sleep 1
  local a; a=$(sink)
  local c0; c0=$(awk '{print $14+$15+$16+$17}' /proc/$fpid/stat 2>/dev/null || echo 0)
  local gen
  gen=$(ip netns exec $G taskset -c 0 "$VPK" iofwd --txonly --port $G0 --io af_xdp --duration $SECS --json 2>/dev/null \
        | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["tx"])')
  sleep 0.5
  local b; b=$(sink)
  kill -INT $fpid 2>/dev/null; wait $fpid 2>/dev/null
  [ -n "${VERBOSE:-}" ] && grep -E "RX-packets|TX-packets|RX-dropped|rx |tx " /tmp/vpkb_fwd_$SFX.out | tail -6 >&2
  /usr/bin/python3 -c "import json; print(json.dumps({'forwarder': '$name', 'seconds': $SECS, 'generated': int('${gen:-0}'), 'forwarded': $b - $a, 'mpps': round(($b - $a) / $SECS / 1e6, 3), 'loss_pct': round(100 * (1 - ($b - $a) / max(1, int('${gen:-0}'))), 1)}))"
}

for r in $(seq "$REP"); do
  run_one vpk-iofwd-af_packet "$VPK" iofwd --port $F0 --port $F1 --io af_packet --busy --burst 64
  run_one vpk-iofwd-af_xdp "$VPK" iofwd --port $F0 --port $F1 --io af_xdp --busy --burst 64
  run_one testpmd-af_packet dpdk-testpmd $EAL --vdev=net_af_packet0,iface=$F0,blocksz=65536,framesz=2048,framecnt=32768,qdisc_bypass=1 \
    --vdev=net_af_packet1,iface=$F1,blocksz=65536,framesz=2048,framecnt=32768,qdisc_bypass=1 -- --forward-mode=io --no-flush-rx --stats-period=1
  run_one testpmd-af_xdp dpdk-testpmd $EAL --vdev=net_af_xdp0,iface=$F0 --vdev=net_af_xdp1,iface=$F1 -- --forward-mode=io --no-flush-rx --stats-period=1
done
