#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a capture of ksocklnd traffic, byte by byte, without Wireshark.

  pcap_check.py [--no-sums] FILE      (classic pcap or pcapng)
      -> prints "streams N connreqs N hellos N msgs N" and exits 0 when every
         stream parses to its last byte
  --no-sums: skip IP/TCP checksums (a capture on a veth sees the sender's
         packets before checksum offload fills them in)

Each TCP stream (one direction of a connection) must be: on the connecting
side, from a privileged port, the acceptor request {0xacce7100, 1, the
peer's NID} (IPv6: version 2, a 20-byte NID) and a V3 hello (IPv6: V4, 80
bytes); on the accepting side a hello of the same version. Each hello
names the stream's own addresses as src and dst NID, pid 12345 and a
non-zero incarnation; the reply's connection type is the inverse of the
request's (ANY stays ANY, BULK_IN <-> BULK_OUT). Then whole ksock messages (NOOP, or LNET
with a 72-byte LNet header, 96 for V4, and its payload). Layouts:
lnet-facts §4.1-4.6. IPv4 or IPv6 frames.
"""
import struct
import sys

ACCEPTOR_MAGIC = 0xACCE7100
PROTO_MAGIC = 0x45726963


def read_pcap(path):
    """The frames of a classic pcap or a pcapng file (Ethernet only)."""
    with open(path, "rb") as f:
        data = f.read()
    if struct.unpack_from("<I", data)[0] == 0x0A0D0D0A:
        yield from read_pcapng(path, data)
        return
    magic, _, _, _, _, _, linktype = struct.unpack_from("<IHHiIII", data)
    if magic != 0xA1B2C3D4 or linktype != 1:
        raise SystemExit("%s: not a little-endian Ethernet pcap" % path)
    off = 24
    while off < len(data):
        _, _, caplen, _ = struct.unpack_from("<IIII", data, off)
        yield data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def read_pcapng(path, data):
    """Section header, interface descriptions, enhanced packet blocks; each block's
    two lengths must agree and the file must end on a block boundary."""
    off = 0
    links = []
    while off < len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if blen < 12 or blen % 4 or off + blen > len(data) or \
                struct.unpack_from("<I", data, off + blen - 4)[0] != blen:
            raise SystemExit("%s: broken pcapng block at %d" % (path, off))
        if btype == 0x0A0D0D0A:
            if struct.unpack_from("<IHH", data, off + 8) != (0x1A2B3C4D, 1, 0):
                raise SystemExit("%s: not a little-endian pcapng 1.0 section" % path)
        elif btype == 1:
            links.append(struct.unpack_from("<H", data, off + 8)[0])
        elif btype == 6:
            ifid, _, _, caplen, _ = struct.unpack_from("<IIIII", data, off + 8)
            if ifid >= len(links) or links[ifid] != 1:
                raise SystemExit("%s: a packet of an unknown or non-Ethernet interface" % path)
            yield data[off + 28:off + 28 + caplen]
        off += blen


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


def check_sums6(frame, plen):
    """TCP checksum over the IPv6 pseudo header."""
    seg = frame[54:54 + plen]
    pseudo = frame[22:54] + struct.pack("!IxxxB", plen, 6)
    if csum(bytes(pseudo + seg)) != 0xFFFF:
        raise SystemExit("bad TCP checksum (IPv6)")


def ip_layer(frame, sums):
    """(src, dst, tcp offset, end of segment) of an IPv4 or IPv6 TCP frame."""
    ethertype = struct.unpack_from("!H", frame, 12)[0]
    if ethertype == 0x0800 and frame[23] == 6:
        ihl = (frame[14] & 15) * 4
        total = struct.unpack_from("!H", frame, 16)[0]
        if sums:
            check_sums(frame, ihl, total)
        return frame[26:30], frame[30:34], 14 + ihl, 14 + total
    if ethertype == 0x86DD and frame[20] == 6:
        plen = struct.unpack_from("!H", frame, 18)[0]
        if sums:
            check_sums6(frame, plen)
        return frame[22:38], frame[38:54], 54, 54 + plen
    raise SystemExit("not IPv4/TCP or IPv6/TCP")


def is_marker(frame):
    """The UDP datagram to port 9 harness.sh's tcpdump_stop writes last (IPv4, 20-byte header)."""
    return (len(frame) >= 38 and struct.unpack_from("!H", frame, 12)[0] == 0x0800 and
            frame[14] == 0x45 and frame[23] == 17 and struct.unpack_from("!H", frame, 36)[0] == 9)


def streams(path, sums=True):
    """(src, sport, dst, dport) -> payload bytes in sequence order."""
    out = {}
    nxt = {}
    for frame in read_pcap(path):
        if is_marker(frame):
            continue
        src, dst, tcp, end = ip_layer(frame, sums)
        sport, dport, seq = struct.unpack_from("!HHI", frame, tcp)
        flags = frame[tcp + 13]
        doff = (frame[tcp + 12] >> 4) * 4
        payload = frame[tcp + doff:end]
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


HELLO4 = struct.Struct("<II20s20sIIQQiI")  # V4, 80 bytes: lnet-facts 4.3


def large_nid_ip(nid):
    """The address of a 20-byte NID: 4 bytes (nid_size 0) or 16 (nid_size 12)."""
    return nid[4:4 + 4 + nid[0]]


def parse_hello(key, b, off):
    """The hello at @off of stream @key, checked against the stream's addresses.
    Returns (ctype, its length, the LNet header size that follows)."""
    magic, version = struct.unpack_from("<II", b, off)
    if magic == PROTO_MAGIC and version == 4:
        (_, _, src_nid, dst_nid, src_pid, _, src_inc, _, ctype, nips) = HELLO4.unpack_from(b, off)
        src_ip, dst_ip, size, hdr = large_nid_ip(src_nid), large_nid_ip(dst_nid), 80, 96
    else:
        (magic, version, src_nid, dst_nid, src_pid, _, src_inc, _, ctype, nips) = \
            HELLO.unpack_from(b, off)
        if magic != PROTO_MAGIC or version != 3:
            raise SystemExit("bad hello on %r" % (key,))
        src_ip, dst_ip, size, hdr = ip_of(src_nid), ip_of(dst_nid), 56, 72
    if nips != 0:
        raise SystemExit("hello with IPs on %r" % (key,))
    if src_ip != bytes(key[0]) or dst_ip != bytes(key[2]):
        raise SystemExit("hello NIDs are not the stream's addresses on %r" % (key,))
    if src_pid != 12345 or src_inc == 0 or ctype not in INVERSE:
        raise SystemExit("bad hello pid, incarnation or type on %r" % (key,))
    if (size == 80) != (len(key[0]) == 16):
        raise SystemExit("hello version %d on the wrong address family on %r" % (version, key))
    return ctype, size, hdr


def parse_connreq(key, b):
    """The acceptor request: v1 (nid4) for IPv4, v2 (20-byte NID) for IPv6. Returns its length."""
    magic, version = struct.unpack_from("<II", b, 0)
    if magic == ACCEPTOR_MAGIC and version == 1:
        ip, size = ip_of(struct.unpack_from("<Q", b, 8)[0]), 16
    elif magic == ACCEPTOR_MAGIC and version == 2:
        ip, size = large_nid_ip(bytes(b[8:28])), 28
    else:
        raise SystemExit("bad acceptor request on %r" % (key,))
    if ip != bytes(key[2]):
        raise SystemExit("acceptor request for another address on %r" % (key,))
    if not 512 <= key[1] <= 1023:
        raise SystemExit("connection from unprivileged port %d" % key[1])
    return size


def parse(key, b, counts, hello_types):
    off = 0
    if key[3] == 988:  # the connecting side
        off = parse_connreq(key, b)
        counts["connreqs"] += 1
    hello_types[key], size, hdr = parse_hello(key, b, off)
    counts["hellos"] += 1
    off += size
    while off < len(b):
        ktype = struct.unpack_from("<I", b, off)[0]
        if ktype == 0xC0:
            off += 24
        elif ktype == 0xC1:
            payload = struct.unpack_from("<I", b, off + 24 + 52 if hdr == 96 else off + 24 + 28)[0]
            off += 24 + hdr + payload
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
