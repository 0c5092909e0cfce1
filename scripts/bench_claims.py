# SPDX-License-Identifier: BSD-3-Clause
"""The claims of the reference documents (shared/sources/) and how each is computed from the
JSON of one `make bench` run; used by gen-benchmarks.py. One entry of CLAIMS per claim:
(document, claim, the document's figure, function(data, steps) -> dict(fig, verdict, cmd) or None
when the step that measures it did not run)."""


def cmd_of(steps, name):
    for s in steps:
        if s["name"] == name:
            return s["command"]
    return None


def short_cmd(c):
    if c is None:
        return "-"
    return "`" + c.replace("build/vpk", "vpk").replace("\t", " ") + "`"


# ---------------------------------------------------------------- figures used by the claims


def acl_ratio(d, lib, burst, num="avx512x32", den="scalar"):
    rows = {c["variant"]: c["cycles_per_pkt"] for c in d.get("classify", [])
            if c["lib"] == lib and c["burst"] == burst}
    if num in rows and den in rows and rows[num] > 0:
        return rows[den] / rows[num]
    return None


def acl_sets(data):
    return [(k, v) for k, v in sorted(data.items()) if k.startswith("acl-") and isinstance(v, dict) and "classify" in v]


def fwd_mpps(d):
    return {s["cap"]: s["mpps_median"] for s in d.get("summary", [])}


def lookup_cycles(entries, impl, variant, keys):
    for e in entries:
        if e["impl"] == impl and e["variant"] == variant and e["keys"] == keys:
            return e["cycles_median"]
    return None


def results_map(d, measure, key):
    out = {}
    for r in d.get("results", []):
        if r.get("measure") == measure:
            out[(r["variant"], r.get(key))] = r["cycles_per_pkt"]
    return out


def verdict(ok, measurable=True, why=""):
    if not measurable:
        return "not measurable here" + (f": {why}" if why else "")
    return "**reproduced**" if ok else "not reproduced" + (f": {why}" if why else "")


def claim_acl(data, steps):
    sets = acl_sets(data)
    if not sets:
        return None
    vr = [(k, acl_ratio(d, "vpk", 32)) for k, d in sets]
    dr = [(k, acl_ratio(d, "dpdk", 32)) for k, d in sets]
    vr = [(k, r) for k, r in vr if r]
    dr = [(k, r) for k, r in dr if r]
    best = max(vr, key=lambda x: x[1])
    fig = "vpk avx512x32 / scalar, burst 32: " + ", ".join(f"{k[4:]} {r:.1f}x" for k, r in vr)
    if dr:
        fig += "; rte_acl in the same run: " + ", ".join(f"{k[4:]} {r:.1f}x" for k, r in dr)
    return dict(fig=fig, verdict=verdict(best[1] >= 2.95, why=f"best {best[1]:.1f}x"),
                cmd=short_cmd(cmd_of(steps, best[0])))


def claim_l3fwd(data, steps):
    d = data.get("fwd")
    if not d:
        return None
    m = fwd_mpps(d)
    if 512 not in m or 64 not in m:
        return None
    fig = f"{m[512]:.2f} Mpps at cap 512 = {m[512] / m[64]:.2f}x cap 64"
    if 256 in m:
        fig += f", {m[512] / m[256]:.2f}x cap 256"
    return dict(fig=fig, verdict=verdict(m[512] / m[64] >= 1.35), cmd=short_cmd(cmd_of(steps, "fwd")))


def claim_fib6(data, steps):
    d = data.get("fib6")
    if not d:
        return None
    parts, best = [], 0
    lk = [e for e in d.get("lookup", []) if e.get("nh_size") == 4]
    if lk:
        for keys in ("random", "in-table"):
            s = lookup_cycles(lk, "vpk-bm6", "scalar", keys)
            w = [lookup_cycles(lk, "vpk-bm6", v, keys) for v in ("avx512icl", "avx512")]
            w = [x for x in w if x]
            if s and w:
                g = s / min(w) - 1
                best = max(best, g)
                parts.append(f"bm6 {keys} {100 * g:+.0f}%")
        dr = [e for e in lk if e["impl"].startswith("rte")]
        if dr:
            s = lookup_cycles(dr, dr[0]["impl"], "s-scalar", "random")
            w = [e["cycles_median"] for e in dr if e["keys"] == "random" and "512" in e["variant"]]
            if s and w:
                parts.append(f"rte_fib6 avx512 random {100 * (s / min(w) - 1):+.0f}%")
    if not parts:
        return None
    return dict(fig="AVX-512 over scalar, 4-byte next hops: " + ", ".join(parts),
                verdict=verdict(best >= 0.35), cmd=short_cmd(cmd_of(steps, "fib6")))


def claim_vxlan(data, steps, what):
    d = data.get("vxlan")
    if not d:
        return None
    m = results_map(d, what, "endpoints")
    parts, ok = [], True
    for n in (2, 4, 8):
        s, w = m.get(("scalar", n)), m.get(("avx512", n))
        if s and w:
            less = 100 * (1 - w / s)
            parts.append(f"{n}: {abs(less):.0f}% {'fewer' if less >= 0 else 'more'} cycles ({s / w:.2f}x)")
            ok = ok and (s / w - 1) >= 0.8
    if not parts:
        return None
    return dict(fig=f"{what}, avx512 vs scalar at 2/4/8 endpoints: " + "; ".join(parts),
                verdict=verdict(ok, why="throughput gain under 80% at some endpoint count" if not ok else ""),
                cmd=short_cmd(cmd_of(steps, "vxlan")))


def claim_gtp4d(data, steps):
    d = data.get("gtp4d")
    if not d:
        return None
    node = results_map(d, "srv6-gtp4-d-node", "segments")
    build = results_map(d, "header-build", "segments")
    simd = ("sse42", "avx2", "avx512")
    s = node.get(("scalar", 0))
    w = min([x for x in (node.get((v, 0)) for v in simd) if x] or [0])
    bw = build.get(("scalar-words", 0))
    bv = min([x for x in (build.get((v, 0)) for v in simd) if x] or [0])
    if not s or not w:
        return None
    fig = f"srv6-gtp4-d node, best SIMD variant vs VPP-like byte stores: {100 * (s / w - 1):+.0f}% packets/cycle"
    if bw and bv:
        fig += f"; header build, SIMD vs 64-bit word stores: {100 * (bw / bv - 1):+.0f}%"
    return dict(fig=fig, verdict=verdict(s / w - 1 >= 0.052, why="under the slides' +1.0% +4.2%"),
                cmd=short_cmd(cmd_of(steps, "gtp4d")))


def claim_rx(data, steps):
    d = data.get("rx-l2") or data.get("rx")
    if not d:
        return None
    parts = []
    for k in d.get("kernels", []):
        v = {x["variant"]: x["cycles_per_packet"] for x in k["variants"]}
        if "scalar" in v and "avx512" in v:
            parts.append(f"{k['kernel']} {v['scalar'] / v['avx512']:.1f}x")
    return dict(fig="descriptor kernels, avx512 / scalar (ring in L2): " + ", ".join(parts),
                verdict=verdict(False, False, "no E810 and no DPDK PMD; these are vpk's AF_XDP/TPACKET "
                                "descriptor kernels, not a NIC's Rx path"),
                cmd=short_cmd(cmd_of(steps, "rx-l2")))


def claim_kit(data, steps):
    d = data.get("powersim")
    if not d:
        return None
    fig = (f"model (Xeon Gold 6130 licence table): loss {100 * d['loss_without']:.1f}% -> "
           f"{100 * d['loss_with']:.1f}%, {100 * d['loss_reduction']:.0f}% less")
    return dict(fig=fig, verdict=verdict(False, False, "this CPU has no AVX frequency licences; the figure "
                                         "is vpk powersim's model"), cmd=short_cmd(cmd_of(steps, "powersim")))


def claim_migrate(data, steps):
    d = data.get("wide")
    if not d:
        return None
    r = {x["name"]: x for x in d.get("results", [])}
    if "migrate-pair" not in r:
        return None
    fig = f"user-space migration pair {r['migrate-pair']['ns_median'] / 1000:.1f} us"
    if "call-hot" in r:
        fig += f"; vpk_wide_call round trip {r['call-hot']['ns_median']:.0f} ns"
    ok = r["migrate-pair"]["ns_median"] <= 500
    return dict(fig=fig, verdict=verdict(ok, why="sched_setaffinity from user space, not an in-kernel "
                                         "scheduler hook"), cmd=short_cmd(cmd_of(steps, "wide")))


def claim_light(data, steps):
    d = data.get("scan")
    if not d or not d.get("files"):
        return None
    fns = d["files"][0].get("functions", [])
    l2 = [f["name"] for f in fns if f.get("level") == 2]
    l1 = [f for f in fns if f.get("level") == 1]
    fig = f"libvpk.so: {len(l1)} functions at level 1, {len(l2)} at level 2"
    return dict(fig=fig, verdict=verdict(len(l2) == 0, why="level-2 (heavy) instructions in " +
                                         ", ".join(l2[:6]) + (" ..." if len(l2) > 6 else "")),
                cmd=short_cmd(cmd_of(steps, "scan")))


INS = "intel-avx512-instruction-set-for-packet-processing"
WRI = "intel-avx512-writing-packet-processing-software"
E810 = "intel-e810-dpdk-performance-evolution"
KIT = "kit-mitigating-avx-induced-frequency-reduction"
SRV6 = "srv6-mobile-vpp-plugin-optimization-slides"

CLAIMS = [
    (INS, "DPDK ACL: AVX-512 classification up to 300% of scalar (ACL microbenchmark, Fig. 15)", "3x",
     claim_acl),
    (INS, "l3fwd-acl: AVX-512 improves packet processing by up to 1.35x", "1.35x", claim_l3fwd),
    (INS, "l3fwd-acl stays at AVX-512 Light (power level 1), never level 2", "level 1 only", claim_light),
    (WRI, "FIB: AVX-512 IPv6 lookup over scalar", "> +35%", claim_fib6),
    (WRI, "VxLAN decap graph node: AVX-512 (8-entry endpoint cache) over scalar, 2-8 endpoints",
     "> +80%", lambda d, s: claim_vxlan(d, s, "vxlan4-input-node")),
    (WRI, "(the same claim, endpoint check alone)", "> +80%",
     lambda d, s: claim_vxlan(d, s, "endpoint-check")),
    (SRV6, "T.M.GTP4.D in VPP: 32-bit stores, then 128-bit SIMD stores of the IPv6/SRH header",
     "+1.0% then +4.2% (whole VPP, 6.82 -> 7.10 Mpps)", claim_gtp4d),
    (E810, "single-core testpmd iofwd, AVX-512 data path vs scalar", "~3.5x", claim_rx),
    (KIT, "core specialization removes most of the AVX-512 throughput loss of nginx+OpenSSL",
     "11.2% -> 3.2% (over 70% less)", claim_kit),
    (KIT, "one AVX->scalar->AVX switch pair (thread migration)", "400-500 ns", claim_migrate),
]
