#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a capture of ksocklnd traffic, byte by byte, without Wireshark.

  pcap_check.py FILE  -> prints "streams N connreqs N hellos N msgs N" and exits 0
                         when every stream parses to its last byte

Each TCP stream (one direction of a connection) must be: on the connecting
side the acceptor request {0xacce7100, 1, the peer's NID} and a V3 hello;
on the accepting side a V3 hello; then whole ksock messages (NOOP, or LNET
with a 72-byte LNet header and its payload). Layouts: lnet-facts §4.1-4.6.
"""
import struct
import sys

ACCEPTOR_MAGIC = 0xACCE7100
PROTO_MAGIC = 0x45726963


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, _, _, _, _, _, linktype = struct.unpack_from("<IHHiIII", data)
    if magic != 0xA1B2C3D4 or linktype != 1:
        raise SystemExit("%s: not a little-endian Ethernet pcap" % path)
    off = 24
    while off < len(data):
        _, _, caplen, _ = struct.unpack_from("<IIII", data, off)
        yield data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def csum(b):
    if len(b) % 2:
        b += b"\0"
    total = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def check_sums(frame, ihl, total):
    """IPv4 header and TCP checksums, as a receiver would verify them."""
    ip = frame[14:14 + ihl]
    seg = frame[14 + ihl:14 + total]
    pseudo = ip[12:20] + struct.pack("!BBH", 0, 6, len(seg))
    if csum(bytes(ip)) != 0xFFFF or csum(bytes(pseudo + seg)) != 0xFFFF:
        raise SystemExit("bad IPv4 or TCP checksum")


def streams(path):
    """(src, sport, dst, dport) -> payload bytes in sequence order."""
    out = {}
    nxt = {}
    for frame in read_pcap(path):
        if struct.unpack_from("!H", frame, 12)[0] != 0x0800 or frame[23] != 6:
            raise SystemExit("not IPv4/TCP")
        ihl = (frame[14] & 15) * 4
        total = struct.unpack_from("!H", frame, 16)[0]
        check_sums(frame, ihl, total)
        src, dst = frame[26:30], frame[30:34]
        tcp = 14 + ihl
        sport, dport, seq = struct.unpack_from("!HHI", frame, tcp)
        flags = frame[tcp + 13]
        doff = (frame[tcp + 12] >> 4) * 4
        payload = frame[tcp + doff:14 + total]
        key = (src, sport, dst, dport)
        if flags & 0x02:  # SYN: the stream starts after it
            nxt[key] = (seq + 1) & 0xFFFFFFFF
            out.setdefault(key, bytearray())
            continue
        if not payload:
            continue
        if key not in nxt:
            raise SystemExit("data before a SYN on %r" % (key,))
        if seq != nxt[key]:
            raise SystemExit("sequence gap on %r: %d, expected %d" % (key, seq, nxt[key]))
        nxt[key] = (seq + len(payload)) & 0xFFFFFFFF
        out[key] += payload
    return out


def parse(key, b, counts):
    off = 0
    if key[3] == 988:  # the connecting side
        magic, version, nid = struct.unpack_from("<IIQ", b, 0)
        if magic != ACCEPTOR_MAGIC or version != 1 or (nid & 0xFFFFFFFF) != \
                struct.unpack("!I", bytes(key[2]))[0]:
            raise SystemExit("bad acceptor request on %r" % (key,))
        counts["connreqs"] += 1
        off = 16
    magic, version = struct.unpack_from("<II", b, off)
    nips = struct.unpack_from("<I", b, off + 52)[0]
    if magic != PROTO_MAGIC or version != 3 or nips != 0:
        raise SystemExit("bad hello on %r" % (key,))
    counts["hellos"] += 1
    off += 56
    while off < len(b):
        ktype = struct.unpack_from("<I", b, off)[0]
        if ktype == 0xC0:
            off += 24
        elif ktype == 0xC1:
            payload = struct.unpack_from("<I", b, off + 24 + 28)[0]
            off += 24 + 72 + payload
        else:
            raise SystemExit("bad ksock message type %#x on %r at %d" % (ktype, key, off))
        counts["msgs"] += 1
    if off != len(b):
        raise SystemExit("a message runs past the end of %r" % (key,))


def main():
    counts = {"streams": 0, "connreqs": 0, "hellos": 0, "msgs": 0}
    for key, b in streams(sys.argv[1]).items():
        counts["streams"] += 1
        parse(key, b, counts)
    print(" ".join("%s %d" % (k, v) for k, v in counts.items()))


if __name__ == "__main__":
    main()
