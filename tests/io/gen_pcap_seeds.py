#!/usr/bin/env python3
# Writes the seed corpus of fuzz/pcap_read.c: a few tiny pcap files (written
# byte by byte, no libraries) into tests/data/fuzz/pcap_read/.
# Run from the repository root: python3 tests/io/gen_pcap_seeds.py
import os
import struct

out = "tests/data/fuzz/pcap_read"
os.makedirs(out, exist_ok=True)


def pcap(magic, linktype, records, endian="<", snaplen=65535):
    b = struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for sec, frac, data, wire in records:
        b += struct.pack(endian + "IIII", sec, frac, len(data), wire) + data
    return b


eth = bytes.fromhex("020000000001020000000002" "0800") + bytes(range(46))
udp = (bytes.fromhex("02000000000102000000000208004500001c000140004011"
                     "0000c0a80001c0a80002") + bytes(8))
seeds = {
    "usec.pcap": pcap(0xA1B2C3D4, 1, [(1, 2, eth, 60), (3, 4, udp, len(udp))]),
    "nsec.pcap": pcap(0xA1B23C4D, 1, [(1, 999999999, eth, 60)]),
    "big_endian.pcap": pcap(0xA1B2C3D4, 1, [(1, 2, udp, len(udp))], endian=">"),
    "snapped.pcap": pcap(0xA1B2C3D4, 1, [(1, 2, eth[:20], 1514)], snaplen=20),
    "oversize.pcap": pcap(0xA1B2C3D4, 1, [(1, 0, bytes(600), 600), (1, 1, eth, 60)]),
    "empty_records.pcap": pcap(0xA1B2C3D4, 1, [(1, 0, b"", 0)] * 3),
    "sll.pcap": pcap(0xA1B2C3D4, 113, [(1, 0, eth, 60)]),
    "header_only.pcap": pcap(0xA1B2C3D4, 1, []),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"wrote {len(seeds)} seeds to {out}")
