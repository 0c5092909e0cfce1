#!/usr/bin/env python3
"""vpk iofwd --io dpdk against dpdk-testpmd --forward-mode=io on the same DPDK
virtual devices (two net_null ports, paired 0<->1), one forwarding core each,
no hugepages, both forwarding on CPU 1, the same burst size (--burst, 32 as
testpmd's default). Runs alternate within each round, the order swapping
every round (vpk, testpmd; testpmd, vpk; ...), so the machine's noise hits
both alike. Prints JSON with every run, each series' median and min-max, and
the vpk / testpmd ratio per round (from the two runs of that round) with its
median and min-max: Mpps (both directions together) over wall-clock time and
per CPU-second of the forwarding thread.

    python3 scripts/bench-ports-dpdk.py [--build build] [--rounds 5] [--seconds 3] [--burst 32]
                                        [--other-vpk PATH]

--other-vpk adds a third series, another vpk binary, in the same alternation
(to compare two builds of vpk side by side).
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
import threading
import time

EAL = ["--no-huge", "-m", "512", "--no-pci", "--no-shconf", "--log-level=lib.eal:error"]


def vpk_run(vpk, seconds, burst, tag):
    # -l 1: the main thread, and the forwarding thread it starts, on CPU 1, where testpmd forwards too.
    eal = " ".join(EAL + ["-l", "1", f"--file-prefix=portsbv{tag}{os.getpid()}"])
    p = subprocess.run([vpk, "--json", "iofwd", "--io", "dpdk", "--eal", eal, "--port", "net_null0",
                        "--port", "net_null1", "--busy", "--burst", str(burst), "--duration", str(seconds)],
                       capture_output=True, text=True, timeout=seconds + 300)
    if p.returncode != 0:
        raise RuntimeError(f"vpk iofwd failed: {p.stderr.strip()}")
    r = json.loads(p.stdout)
    return r["mpps"], r["mpps_per_worker_cpu_s"]


def thread_cpu_s(pid):
    """CPU seconds of testpmd's forwarding lcore: its EAL worker thread ("lcore-worker-N"), else the
    busiest thread (the main thread, which also initialised the EAL, must not be taken for it)."""
    workers, best = [], 0
    for t in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{t}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/task/{t}/comm") as f:
            comm = f.read().strip()
        cpu = int(fields[11]) + int(fields[12])      # utime + stime
        best = max(best, cpu)
        if comm.startswith(("lcore-worker", "rte-worker")):
            workers.append(cpu)
    return (max(workers) if workers else best) / os.sysconf("SC_CLK_TCK")


def testpmd_run(testpmd, seconds, burst, tag):
    cmd = [testpmd, *EAL, f"--file-prefix=portsbt{tag}{os.getpid()}", "--vdev", "net_null0", "--vdev",
           "net_null1", "-l", "0-1", "--", "--forward-mode=io", "--stats-period", "1",
           f"--burst={burst}", "--total-num-mbufs=16384"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(p.stdout.readline, "")), daemon=True)
    reader.start()
    # Forwarding starts after the EAL and the ports (seconds on a loaded machine): from the
    # first non-zero rate on, `seconds` of forwarding.
    t_end = time.monotonic() + 60
    while not any(re.search(r"Tx-pps:\s+[1-9]", x) for x in lines[-40:]) and time.monotonic() < t_end:
        if p.poll() is not None:
            break
        time.sleep(0.1)
    time.sleep(seconds)
    cpu = thread_cpu_s(p.pid)
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=120)             # a loaded machine may take long to stop it
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    reader.join(timeout=30)
    out = "".join(lines)
    total = re.findall(r"TX-packets:\s+(\d+)", out)
    # One "Tx-pps" line per port and second: sum the ports, drop the first (ramp-up) second.
    pps = [int(x) for x in re.findall(r"Tx-pps:\s+(\d+)", out)]
    per_s = [pps[i] + pps[i + 1] for i in range(0, len(pps) - 1, 2)]
    per_s = [x for x in per_s if x > 0]
    per_s = per_s[1:] if len(per_s) > 2 else per_s
    if not per_s:                      # starved: no rate within the wait (loaded machine)
        print(f"bench-ports-dpdk: testpmd gave no rates, run left out:\n{out[-600:]}", file=sys.stderr)
        return None, None
    return statistics.median(per_s) / 1e6, (int(total[-1]) / cpu / 1e6 if total and cpu > 0 else 0)


def summary(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return {"median": round(statistics.median(xs), 3), "min": round(min(xs), 3), "max": round(max(xs), 3)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("VPK_BUILD", "build"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--burst", type=int, default=32)
    ap.add_argument("--other-vpk", help="a second vpk binary, run in the same alternation")
    a = ap.parse_args()
    vpk = os.path.join(a.build, "vpk")
    testpmd = shutil.which("dpdk-testpmd")
    if testpmd is None or not os.path.exists(vpk):
        print(json.dumps({"skipped": "needs dpdk-testpmd (dpdk-dev) and a vpk built with libdpdk-dev"}))
        return 0
    series = [("vpk_iofwd_dpdk", vpk_run, vpk), ("testpmd_io", testpmd_run, testpmd)]
    if a.other_vpk:
        series.append(("other_vpk_iofwd_dpdk", vpk_run, a.other_vpk))
    runs = {name: [] for name, _, _ in series}
    per_cpu = {name: [] for name, _, _ in series}
    for r in range(a.rounds):
        order = series if r % 2 == 0 else series[::-1]
        for name, fn, prog in order:
            wall, cpu = fn(prog, a.seconds, a.burst, r)
            runs[name].append(None if wall is None else round(wall, 3))
            per_cpu[name].append(None if cpu is None else round(cpu, 3))
    for r in range(a.rounds):                # EAL leaves an empty runtime directory per prefix
        for x in ("v", "t"):
            shutil.rmtree(f"/var/run/dpdk/portsb{x}{r}{os.getpid()}", ignore_errors=True)

    def ratios(d, name):
        return [round(v / t, 3) if v and t else None for v, t in zip(d[name], d["testpmd_io"])]

    out = {
        "benchmark": "ports-dpdk",
        "devices": "net_null0 <-> net_null1 (DPDK vdevs), 64-byte frames, one forwarding core (CPU 1) each",
        "eal": " ".join(EAL),
        "seconds": a.seconds,
        "burst": a.burst,
        "rounds": a.rounds,
        "order": "alternating, swapped every round",
        "runs_mpps": runs,
        "mpps": {k: summary(v) for k, v in runs.items()},
        # Packets per second of the forwarding thread's own CPU time: on a shared machine the
        # wall-clock rate follows the share of the core each run got, this much less.
        "runs_mpps_per_cpu_s": per_cpu,
        "mpps_per_cpu_s": {k: summary(v) for k, v in per_cpu.items()},
    }
    for name, _, _ in series:
        if name == "testpmd_io":
            continue
        key = "" if name == "vpk_iofwd_dpdk" else "other_"
        out[f"{key}round_ratios_over_testpmd"] = ratios(runs, name)
        out[f"{key}round_ratios_over_testpmd_per_cpu_s"] = ratios(per_cpu, name)
        out[f"{key}ratio_over_testpmd"] = summary(ratios(runs, name))
        out[f"{key}ratio_over_testpmd_per_cpu_s"] = summary(ratios(per_cpu, name))
    if a.other_vpk:
        r = [round(v / o, 3) if v and o else None
             for v, o in zip(per_cpu["vpk_iofwd_dpdk"], per_cpu["other_vpk_iofwd_dpdk"])]
        out["round_ratios_vpk_over_other_per_cpu_s"] = r
        out["ratio_vpk_over_other_per_cpu_s"] = summary(r)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
