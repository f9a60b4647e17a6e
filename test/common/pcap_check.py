#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a capture of ksocklnd traffic, byte by byte, without Wireshark.

  pcap_check.py [--no-sums] FILE
      -> prints "streams N connreqs N hellos N msgs N" and exits 0 when every
         stream parses to its last byte
  --no-sums: skip IP/TCP checksums (a capture on a veth sees the sender's
         packets before checksum offload fills them in)

Each TCP stream (one direction of a connection) must be: on the connecting
side, from a privileged port, the acceptor request {0xacce7100, 1, the
peer's NID} and a V3 hello; on the accepting side a V3 hello. Each hello
names the stream's own addresses as src and dst NID, pid 12345 and a
non-zero incarnation; the reply's connection type is the inverse of the
request's (ANY stays ANY, BULK_IN <-> BULK_OUT). Then whole ksock messages (NOOP, or LNET
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


def streams(path, sums=True):
    """(src, sport, dst, dport) -> payload bytes in sequence order."""
    out = {}
    nxt = {}
    for frame in read_pcap(path):
        if struct.unpack_from("!H", frame, 12)[0] != 0x0800 or frame[23] != 6:
            raise SystemExit("not IPv4/TCP")
        ihl = (frame[14] & 15) * 4
        total = struct.unpack_from("!H", frame, 16)[0]
        if sums:
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
        behind = (nxt[key] - seq) & 0xFFFFFFFF
        if behind >= len(payload) and behind < 0x80000000:
            continue  # a retransmission of bytes already in the stream
        if behind >= 0x80000000:
            raise SystemExit("sequence gap on %r: %d, expected %d" % (key, seq, nxt[key]))
        payload = payload[behind:]  # keep what is new past a partial retransmission
        nxt[key] = (nxt[key] + len(payload)) & 0xFFFFFFFF
        out[key] += payload
    return out


HELLO = struct.Struct("<IIQQIIQQiI")  # V2/V3: lnet-facts 4.3
INVERSE = {0: 0, 1: 1, 2: 3, 3: 2}      # ANY, CONTROL, BULK_IN, BULK_OUT (4.4)


def ip_of(nid):
    return struct.pack("!I", nid & 0xFFFFFFFF)


def parse_hello(key, b, off):
    """The hello at @off of stream @key, checked against the stream's addresses."""
    (magic, version, src_nid, dst_nid, src_pid, _, src_inc, _, ctype, nips) = \
        HELLO.unpack_from(b, off)
    if magic != PROTO_MAGIC or version != 3 or nips != 0:
        raise SystemExit("bad hello on %r" % (key,))
    if ip_of(src_nid) != bytes(key[0]) or ip_of(dst_nid) != bytes(key[2]):
        raise SystemExit("hello NIDs are not the stream's addresses on %r" % (key,))
    if src_pid != 12345 or src_inc == 0 or ctype not in INVERSE:
        raise SystemExit("bad hello pid, incarnation or type on %r" % (key,))
    return ctype


def parse(key, b, counts, hello_types):
    off = 0
    if key[3] == 988:  # the connecting side
        magic, version, nid = struct.unpack_from("<IIQ", b, 0)
        if magic != ACCEPTOR_MAGIC or version != 1 or ip_of(nid) != bytes(key[2]):
            raise SystemExit("bad acceptor request on %r" % (key,))
        if not 512 <= key[1] <= 1023:
            raise SystemExit("connection from unprivileged port %d" % key[1])
        counts["connreqs"] += 1
        off = 16
    hello_types[key] = parse_hello(key, b, off)
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


def check_types(hello_types):
    """The accepting side answers each request with the inverse type."""
    for (src, sport, dst, dport), ctype in hello_types.items():
        reply = hello_types.get((dst, dport, src, sport))
        if dport == 988 and reply is not None and reply != INVERSE[ctype]:
            raise SystemExit("type %d answered with %d" % (ctype, reply))


def main():
    args = sys.argv[1:]
    sums = "--no-sums" not in args
    args = [a for a in args if a != "--no-sums"]
    counts = {"streams": 0, "connreqs": 0, "hellos": 0, "msgs": 0}
    hello_types = {}
    for key, b in streams(args[0], sums).items():
        counts["streams"] += 1
        parse(key, b, counts, hello_types)
    check_types(hello_types)
    print(" ".join("%s %d" % (k, v) for k, v in counts.items()))


if __name__ == "__main__":
    main()
