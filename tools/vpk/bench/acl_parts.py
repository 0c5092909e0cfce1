#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where each ACL classify variant spends its cycles, by part (docs/acl.md).

Runs `vpk bench acl` under `perf record -e cpu-clock` (a software clock: this VM has no PMU),
attributes every sample of each variant's classify function to the innermost inlined
function of the classify body (src/acl/acl_kern.h, acl_kern*.c) that holds it (addr2line -i
on the debug info), groups those into
parts (keys + body, walk, leaf words + prefetch, leaf scan) and scales the shares by the
cycles per packet the same run measured. One process, so the variants see the same data.

  tools/vpk/bench/acl_parts.py [--bench build/vpk] [--only avx512x32,scalar] [--json] \\
      -- --profile acl --rules 10000 --trace 262144 --bursts 256 --iter 20

Needs perf and binutils; the bench must be built with debug info (the default build is -O2 -g).
"""
import argparse
import collections
import json
import re
import subprocess
import sys
import tempfile

PARTS = {
    'walk': ['walk_scalar', 'walk_start', 'node16', 'key16', 'step16', 'start16', 'walk_x32', 'leaf16',
             'walk_x16', 'walk_avx2', 'acl_walk'],
    'scan': ['match_block', 'scan_block', 'acl_match32', 'acl_match16', 'match32_scalar', 'match16_scalar',
             'accept_block', 'scan_leaves',
             'acl_live_slots', 'match_sparse', 'sub32_ymm', 'first_match'],
    'leaf words + prefetch': ['prefetch_leaf'],
    'keys + body': ['classify_body', 'acl_load_dim', 'classify'],
}
PART_OF = {f: p for p, fs in PARTS.items() for f in fs}
SYMBOL = {'avx512x32': 'acl_classify_x32_avx512', 'avx512x16': 'acl_classify_x16_avx512',
          'avx2': 'acl_classify_avx2', 'sse42': 'acl_classify_sse42', 'scalar': 'acl_classify_scalar'}


def samples(data, sym):
    """(address, percent of the symbol's samples) per sampled instruction."""
    out = subprocess.run(['perf', 'annotate', '-i', data, '--stdio', sym], capture_output=True, text=True,
                         check=True).stdout
    return [(m.group(2), float(m.group(1))) for m in
            (re.match(r'^\s+([0-9]+\.[0-9]+)\s+:\s+([0-9a-f]+):', l) for l in out.split('\n')) if m]


def parts(binary, rows):
    out = subprocess.run(['addr2line', '-a', '-i', '-f', '-e', binary] + ['0x' + a for a, _ in rows],
                         capture_output=True, text=True, check=True).stdout.split('\n')
    frames, cur = collections.defaultdict(list), None
    for l in out:
        if re.match(r'^0x[0-9a-f]+$', l):
            cur = int(l, 16)
        elif cur is not None and l:
            frames[cur].append(l)
    tot = collections.Counter()
    for a, pct in rows:
        names = frames[int(a, 16)][0::2]         # function names, innermost first
        tot[next((PART_OF[n] for n in names if n in PART_OF), 'other')] += pct
    return tot


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--bench', default='build/vpk')
    ap.add_argument('--only', default='avx512x32,scalar')
    ap.add_argument('--json', action='store_true')
    ap.add_argument('args', nargs='*', help='vpk bench acl arguments (after --)')
    o = ap.parse_args()
    variants = o.only.split(',')
    for v in variants:
        if v not in SYMBOL:
            sys.exit(f'acl_parts: unknown variant {v!r} (one of {", ".join(SYMBOL)})')
    with tempfile.NamedTemporaryFile(suffix='.perf') as tf:
        run = subprocess.run(['perf', 'record', '-q', '-e', 'cpu-clock', '-o', tf.name, o.bench, 'bench', 'acl', '--no-dpdk',
                              '--only', o.only] + o.args, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f'acl_parts: {o.bench} failed:\n{run.stderr}')
        cyc = {}
        for l in run.stdout.split('\n'):
            f = l.split()
            if len(f) >= 6 and f[0] == 'vpk' and f[1] in SYMBOL:
                cyc[f[1]] = float(f[3])             # cycles/packet of the last burst listed
        res = {}
        for v in variants:
            share = parts(o.bench, samples(tf.name, SYMBOL[v]))
            total = sum(share.values()) or 1.0
            res[v] = {'cycles_per_pkt': cyc.get(v),
                      'parts': {p: round(cyc.get(v, 0) * share[p] / total, 1) for p in list(PARTS) + ['other']}}
    if o.json:
        print(json.dumps(res, indent=1))
        return
    print(f'{"part":24s}' + ''.join(f'{v:>12s}' for v in variants) +
          (f'{"ratio":>8s}' if len(variants) == 2 else ''))
    for p in list(PARTS) + ['other', 'total']:
        vals = [res[v]['cycles_per_pkt'] if p == 'total' else res[v]['parts'][p] for v in variants]
        line = f'{p:24s}' + ''.join(f'{x:12.1f}' for x in vals)
        if len(vals) == 2 and vals[0]:
            line += f'{vals[1] / vals[0]:8.2f}'
        print(line)


if __name__ == '__main__':
    main()
