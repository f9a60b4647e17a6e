#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The LNet conversation of a kernel capture, unit by unit, and its decoding.

  ksock_capture.py PCAP[.gz]    -> one line per unit, in capture order

A classic pcap (Ethernet, IPv4, TCP) is read with the standard library only;
every TCP stream to or from port 988 is reassembled by sequence number and
cut into the units ksocklnd sends (lnet-facts §4.1-4.6): the 16-byte acceptor
request, the 56-byte V3 hello (plus 4 bytes per listed IP), then ksock_msg:
a 24-byte ksock header, for an LNet message a 72-byte lnet_hdr and its
payload; a FIN or RST is a CLOSE unit of the side that sent it. Each unit keeps the time of the packet that completed it, so units
of all streams can be put in one order.
"""
import gzip
import socket
import struct
import sys

ACCEPTOR_MAGIC = 0xACCE7100
PROTO_MAGIC = 0x45726963
KSOCK_MSG_NOOP, KSOCK_MSG_LNET = 0xC0, 0xC1
TYPES = {0: "ACK", 1: "PUT", 2: "GET", 3: "REPLY", 4: "HELLO"}
PING_MAGIC = 0x70696E67
PING_BITS = 0x8000000000000000
CONN_TYPES = {1: "CONTROL", 2: "BULK_IN", 3: "BULK_OUT"}


def nid_str(nid):
    """The 64-bit NID of a socklnd NI (type 2) as 'a.b.c.d@tcpN'; others in hex."""
    net = nid >> 32
    if net >> 16 == 2:
        num = net & 0xFFFF
        return "%s@tcp%s" % (socket.inet_ntoa(struct.pack("!I", nid & 0xFFFFFFFF)),
                             num if num else "")
    if net == 0x90000:
        return "0@lo"
    return "0x%x" % nid


def read_pcap(path):
    """Yield (time, payload) of every IPv4 TCP segment with data, port 988 at one end."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack_from("<I", data)
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        raise SystemExit("%s: not a little-endian classic pcap" % path)
    nano = magic == 0xA1B23C4D
    linktype, = struct.unpack_from("<I", data, 20)
    if linktype != 1:
        raise SystemExit("%s: link type %d, not Ethernet" % (path, linktype))
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, off)
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        seg = tcp_segment(pkt)
        if seg:
            yield (sec + frac / (1e9 if nano else 1e6),) + seg


def tcp_segment(pkt):
    """(src ip, sport, dst ip, dport, seq, flags, data) of an Ethernet/IPv4/TCP frame, or None."""
    eth_type, = struct.unpack_from("!H", pkt, 12)
    ip = pkt[14:]
    if eth_type != 0x0800 or ip[9] != 6:
        return None
    ihl = (ip[0] & 15) * 4
    total, = struct.unpack_from("!H", ip, 2)
    src, dst = socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20])
    tcp = ip[ihl:total]
    sport, dport, seq = struct.unpack_from("!HHI", tcp)
    doff = (tcp[12] >> 4) * 4
    if 988 not in (sport, dport):
        return None
    return src, sport, dst, dport, seq, tcp[13], tcp[doff:]


class Stream:
    """One direction of one TCP connection: its bytes in order, cut into units."""

    def __init__(self, key, initiator):
        self.key, self.initiator = key, initiator
        self.next_seq, self.buf, self.pending, self.closed = None, b"", {}, False
        self.stage = "connreq" if initiator else "hello"

    def add(self, seq, flags, data):
        if flags & 0x02:  # SYN: the stream starts after it
            self.next_seq = (seq + 1) & 0xFFFFFFFF
            return
        if self.next_seq is None:  # opened before the capture: past its handshake
            self.next_seq, self.stage = seq, "msg"
        self.pending[seq] = data
        while self.next_seq in self.pending:
            chunk = self.pending.pop(self.next_seq)
            self.buf += chunk
            self.next_seq = (self.next_seq + len(chunk)) & 0xFFFFFFFF

    def units(self):
        """Complete units at the head of the buffer, removed from it."""
        out = []
        while True:
            unit = self.cut()
            if unit is None:
                return out
            out.append(unit)

    def cut(self):
        if self.stage == "connreq":
            if len(self.buf) < 16:
                return None
            raw, self.buf, self.stage = self.buf[:16], self.buf[16:], "hello"
            return decode_connreq(raw)
        if self.stage == "hello":
            if len(self.buf) < 56:
                return None
            nips, = struct.unpack_from("<I", self.buf, 52)
            size = 56 + 4 * nips
            if len(self.buf) < size:
                return None
            raw, self.buf, self.stage = self.buf[:size], self.buf[size:], "msg"
            return decode_hello(raw)
        if len(self.buf) < 24:
            return None
        ktype, = struct.unpack_from("<I", self.buf)
        if ktype == KSOCK_MSG_NOOP:
            self.buf = self.buf[24:]
            return {"kind": "NOOP"}
        if len(self.buf) < 96:
            return None
        plen, = struct.unpack_from("<I", self.buf, 24 + 28)
        if len(self.buf) < 96 + plen:
            return None
        raw, self.buf = self.buf[24:96 + plen], self.buf[96 + plen:]
        return decode_lnet(raw[:72], raw[72:])


def decode_connreq(raw):
    magic, version, nid = struct.unpack("<IIQ", raw)
    return {"kind": "CONNREQ", "magic": "0x%x" % magic, "version": version, "dst": nid_str(nid)}


def decode_hello(raw):
    (magic, version, src, dst, spid, dpid, sinc, dinc, ctype,
     nips) = struct.unpack_from("<IIQQIIQQII", raw)
    return {"kind": "HELLO", "magic": "0x%x" % magic, "version": version, "src": nid_str(src),
            "dst": nid_str(dst), "src_pid": spid, "dst_pid": dpid, "src_incarnation": sinc,
            "dst_incarnation": dinc, "conn_type": CONN_TYPES.get(ctype, ctype), "nips": nips}


def decode_lnet(hdr, payload):
    """The fields of an LNet message (lnet-facts §4.5); cookies kept apart from the rest."""
    dst, src, dpid, spid, mtype, plen = struct.unpack_from("<QQIIII", hdr)
    m = {"kind": TYPES.get(mtype, "TYPE%d" % mtype), "src": nid_str(src), "dst": nid_str(dst),
         "src_pid": spid, "dst_pid": dpid, "payload_length": plen}
    body = hdr[32:]
    if mtype == 1:  # PUT: ack wmd, match bits, hdr data, portal, offset
        wmd, bits, hdr_data, portal, offset = struct.unpack_from("<16sQQII", body)
        m.update(ack_wmd=wmd.hex(), match_bits="0x%x" % bits, hdr_data="0x%x" % hdr_data,
                 portal=portal, offset=offset)
    elif mtype == 2:  # GET: return wmd, match bits, portal, src offset, sink length
        wmd, bits, portal, offset, sink = struct.unpack_from("<16sQIII", body)
        m.update(return_wmd=wmd.hex(), match_bits="0x%x" % bits, portal=portal,
                 src_offset=offset, sink_length=sink)
    elif mtype == 0:  # ACK: dst wmd, match bits, mlength
        wmd, bits, mlength = struct.unpack_from("<16sQI", body)
        m.update(dst_wmd=wmd.hex(), match_bits="0x%x" % bits, mlength=mlength)
    elif mtype == 3:  # REPLY: dst wmd
        m.update(dst_wmd=body[:16].hex())
    if payload and (looks_like_ping(payload) or
                    (mtype == 1 and m["match_bits"] == "0x%x" % PING_BITS)):
        m["ping"] = decode_ping(payload)
    m["raw"] = hdr + payload
    return m


def looks_like_ping(p):
    """A REPLY carries ping info only if it answers a ping: known by its magic, either order."""
    return len(p) >= 4 and struct.unpack_from("<I", p)[0] in (PING_MAGIC, 0x676E6970)


def decode_ping(p):
    """Ping info (lnet-facts §3): magic, features, pid, NIDs with their status; or why not."""
    if len(p) < 16:
        return {"error": "truncated: %d bytes" % len(p)}
    magic, features, pid, nnis = struct.unpack_from("<IIII", p)
    out = {"magic": "0x%x" % magic, "features": "0x%x" % features, "pid": pid, "nnis": nnis}
    nids = []
    for i in range(nnis):
        at = 16 + 16 * i
        if at + 16 > len(p):
            out["error"] = "%d NIs announced, %d bytes" % (nnis, len(p))
            break
        nid, status, msg_size = struct.unpack_from("<QII", p, at)
        nids.append({"nid": nid_str(nid), "status": "0x%x" % status})
        if i == 0:
            out["seqno"] = status if nid_str(nid) == "0@lo" else None
    out["nids"] = nids
    return out


def conversation(path):
    """Every unit of the capture in time order: dicts with time, stream, from (ip), to (ip)."""
    streams, gens, out = {}, {}, []
    for t, src, sport, dst, dport, seq, flags, data in read_pcap(path):
        key = (src, sport, dst, dport)
        if key not in streams or (flags & 0x02 and streams[key].next_seq is not None):
            # A SYN on a known 4-tuple: the port was reused by a new connection.
            if key in streams and streams[key].buf:
                raise SystemExit("%s: %d bytes left over in %s" % (path, len(streams[key].buf), key))
            streams[key] = Stream(key, initiator=dport == 988)
            gens[key] = gens.get(key, 0) + 1
        st = streams[key]
        st.add(seq, flags, data)
        conn = min(key, (dst, dport, src, sport)) + (max(gens.get(key, 0), gens.get((dst, dport, src, sport), 0)),)
        units = st.units()
        if flags & 0x05 and not st.closed:  # FIN or RST: this side is done
            st.closed = True
            units.append({"kind": "CLOSE"})
        for unit in units:
            unit.update(time=t, conn=conn, frm=src, to=dst)
            out.append(unit)
    left = [k for k, s in streams.items() if s.buf]
    if left:
        raise SystemExit("%s: bytes left over in %s" % (path, left))
    return out


def main():
    for u in conversation(sys.argv[1]):
        if u["kind"] == "NOOP":
            continue
        shown = {k: v for k, v in u.items() if k not in ("raw", "conn", "time")}
        print("%.3f %s" % (u["time"], shown))


if __name__ == "__main__":
    main()
