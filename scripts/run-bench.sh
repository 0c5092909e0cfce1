#!/usr/bin/env bash
# make bench: every benchmark of one build, JSON into BUILD/bench/, the
# forwarder chart into docs/img/. Figures in docs/benchmarks.md come from here.
set -euo pipefail
build=${1:-build}
out=$build/bench
mkdir -p "$out" docs/img
${PYTHON:-python3} -c "import matplotlib" 2>/dev/null || ${PYTHON:-python3} -m pip install -q matplotlib
vpk=$build/vpk
echo "== vpk info";            "$vpk" --json info > "$out/info.json"
echo "== bench kernels";       "$vpk" --json bench kernels --runs 7 > "$out/kernels.json"
echo "== bench pool";          "$vpk" --json bench pool > "$out/pool.json"
echo "== bench fwd";           "$vpk" --json bench fwd > "$out/fwd.json"
${PYTHON:-python3} scripts/plot_bench.py "$out/fwd.json" docs/img/fwd_per_cap.png
echo "== bench fib";           "$vpk" --json bench fib > "$out/fib.json" || echo "bench fib failed (see above)"
echo "== bench acl";           "$vpk" --json bench acl --vs-dpdk > "$out/acl.json" || echo "bench acl failed (see above)"
echo "JSON in $out/"
