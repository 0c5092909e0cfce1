#!/usr/bin/env bash
# vpk fwd against DPDK 22.11's l3fwd (built here from Debian's dpdk-doc sources,
# never copied into the tree) on the same packets and rules, one pinned core
# each: ACL per algorithm, LPM and FIB routes. JSON into BUILD/bench/l3fwd.json;
# skipped with a reason where l3fwd cannot be built or run (see
# scripts/bench_l3fwd.py and docs/forwarder.md).
#   bash scripts/bench-l3fwd.sh [BUILD] [bench_l3fwd.py options: --runs 5 --seconds 2 --modes ...]
set -euo pipefail
build=${1:-build}
shift || true
out=$build/bench
mkdir -p "$out"
${PYTHON:-python3} "$(dirname "$0")/bench_l3fwd.py" --vpk "$build/vpk" --work "$out/l3fwd" "$@" > "$out/l3fwd.json"
${PYTHON:-python3} - "$out/l3fwd.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if "skipped" in d:
    print("bench l3fwd: skipped:", d["skipped"])
    sys.exit(0)
print("Mpps per CPU second (%s)" % d["eal"])
print("%-16s %8s %8s %7s  %s" % ("mode", "l3fwd", "vpk", "ratio", "same packets out"))
for m in d["modes"]:
    if "error" in m:
        print("%-16s error: %s" % (m["mode"], m["error"]))
        continue
    print("%-16s %8.2f %8.2f %7.2f  %s" % (m["mode"], m["l3fwd_mpps_median"], m["vpk_mpps_median"],
                                          m["vpk_over_l3fwd"], m["same_packets_out"]))
PY
echo "JSON in $out/l3fwd.json"
