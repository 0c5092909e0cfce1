#!/usr/bin/env python3
"""vpk iofwd --io dpdk against dpdk-testpmd --forward-mode=io on the same DPDK
virtual devices (two net_null ports, paired 0<->1), one forwarding core each,
no hugepages, both forwarding on CPU 1. Runs alternate (vpk, testpmd, vpk,
...) so the machine's noise hits both alike; prints JSON with every run and
the medians: Mpps (both directions together) over wall-clock time and per
CPU-second of the forwarding thread.

    python3 scripts/bench-ports-dpdk.py [--build build] [--rounds 5] [--seconds 3]
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

EAL = ["--no-huge", "-m", "512", "--no-pci", "--no-shconf", "--log-level=lib.eal:error"]


def vpk_run(vpk, seconds, tag):
    # -l 1: the main thread, and the forwarding thread it starts, on CPU 1, where testpmd forwards too.
    eal = " ".join(EAL + ["-l", "1", f"--file-prefix=portsbv{tag}{os.getpid()}"])
    p = subprocess.run([vpk, "--json", "iofwd", "--io", "dpdk", "--eal", eal, "--port", "net_null0",
                        "--port", "net_null1", "--busy", "--duration", str(seconds)],
                       capture_output=True, text=True, timeout=seconds + 60)
    if p.returncode != 0:
        raise RuntimeError(f"vpk iofwd failed: {p.stderr.strip()}")
    r = json.loads(p.stdout)
    return r["mpps"], r["mpps_per_worker_cpu_s"]


def thread_cpu_s(pid):
    """CPU seconds of the busiest thread of @pid (testpmd's forwarding lcore)."""
    best = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{t}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        best = max(best, int(fields[11]) + int(fields[12]))      # utime + stime
    return best / os.sysconf("SC_CLK_TCK")


def testpmd_run(testpmd, seconds, tag):
    cmd = [testpmd, *EAL, f"--file-prefix=portsbt{tag}{os.getpid()}", "--vdev", "net_null0", "--vdev",
           "net_null1", "-l", "0-1", "--", "--forward-mode=io", "--stats-period", "1",
           "--total-num-mbufs=16384"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(seconds + 3)            # EAL start-up, then `seconds` of forwarding
    cpu = thread_cpu_s(p.pid)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    total = re.findall(r"TX-packets:\s+(\d+)", out)
    # One "Tx-pps" line per port and second: sum the ports, drop the first (ramp-up) second.
    pps = [int(x) for x in re.findall(r"Tx-pps:\s+(\d+)", out)]
    per_s = [pps[i] + pps[i + 1] for i in range(0, len(pps) - 1, 2)]
    per_s = [x for x in per_s if x > 0]
    per_s = per_s[1:] if len(per_s) > 2 else per_s
    if not per_s:
        raise RuntimeError(f"testpmd gave no rates:\n{out[-2000:]}")
    return statistics.median(per_s) / 1e6, (int(total[-1]) / cpu / 1e6 if total and cpu > 0 else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("VPK_BUILD", "build"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3)
    a = ap.parse_args()
    vpk = os.path.join(a.build, "vpk")
    testpmd = shutil.which("dpdk-testpmd")
    if testpmd is None or not os.path.exists(vpk):
        print(json.dumps({"skipped": "needs dpdk-testpmd (dpdk-dev) and a vpk built with libdpdk-dev"}))
        return 0
    runs = {"vpk_iofwd_dpdk": [], "testpmd_io": []}
    per_cpu = {"vpk_iofwd_dpdk": [], "testpmd_io": []}
    for r in range(a.rounds):
        for name, fn, prog in (("vpk_iofwd_dpdk", vpk_run, vpk), ("testpmd_io", testpmd_run, testpmd)):
            wall, cpu = fn(prog, a.seconds, r)
            runs[name].append(wall)
            per_cpu[name].append(cpu)
    for r in range(a.rounds):                # EAL leaves an empty runtime directory per prefix
        for x in ("v", "t"):
            shutil.rmtree(f"/var/run/dpdk/portsb{x}{r}{os.getpid()}", ignore_errors=True)
    med = {k: statistics.median(v) for k, v in runs.items()}
    med_cpu = {k: statistics.median(v) for k, v in per_cpu.items()}
    print(json.dumps({
        "benchmark": "ports-dpdk",
        "devices": "net_null0 <-> net_null1 (DPDK vdevs), 64-byte frames, one forwarding core (CPU 1) each",
        "eal": " ".join(EAL),
        "seconds": a.seconds,
        "runs_mpps": runs,
        "median_mpps": med,
        "ratio_vpk_over_testpmd": med["vpk_iofwd_dpdk"] / med["testpmd_io"] if med["testpmd_io"] else None,
        # Packets per second of the forwarding thread's own CPU time: on a shared machine the
        # wall-clock rate follows the share of the core each run got, this does not.
        "runs_mpps_per_cpu_s": per_cpu,
        "median_mpps_per_cpu_s": med_cpu,
        "ratio_per_cpu_s": (med_cpu["vpk_iofwd_dpdk"] / med_cpu["testpmd_io"] if med_cpu["testpmd_io"]
                            else None),
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
