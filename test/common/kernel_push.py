#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A kernel node's push, replayed to lnetd-pmd over a ksocklnd connection.

  kernel_push.py HOST PORT DST_NID SRC_NID [TARGET]  -> exit 0 if every check passed

TARGET: the node's push target size now (default 272, LNET_PING_INFO_MIN_SIZE).

Frame 7 of shared/captures/kernel-vs-pmd/30-test3-discover.pcap is the PUT a
Lustre 2.17.0 node (192.0.2.11@tcp, discovery on) sends when it discovers
lnetd-pmd (192.0.2.21@tcp): its ping info pushed to portal 0 with the ping
match bits, ACK requested. Here its bytes are sent again, only the two NIDs
of the LNet header replaced by the test's, from SRC_NID's address (HOST's
side: DST_NID) over one connection (acceptor request and V3 hello first,
as bad_peer.py does), and:

  1. the push is ACKed: ACK to the cookie the PUT carried, ping match bits,
     mlength 48;
  2. the connection keeps serving: a ping (GET) on it gets its REPLY, the
     node's ping info;
  3. a push of 20 NIs (352 bytes), more than the kernel's first push target
     (LNET_PING_INFO_MIN_SIZE, 272 bytes), is ACKed with mlength 272 (or
     TARGET), and the same push sent again, once the target grew, with
     mlength 352.
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bad_peer import handshake, nid4  # noqa: E402

# Frame 7 without its 24-byte ksock header: the 72-byte LNet header, then 48 bytes.
FRAME7 = bytes.fromhex(
    "150200c000000200" "0b0200c000000200" "39300000" "39300000" "01000000" "30000000"
    "3aa730e8f10ceb18" "1500000000000000" "0000000000000080" "0000000000000000"
    "00000000" "00000000"
    "676e6970" "1e000000" "39300000" "02000000"
    "0000000000000900" "02000000" "00000000"
    "0b0200c000000200" "dec0aa15" "00000000")
PING_BITS = 0x8000000000000000
KSOCK_MSG_NOOP, KSOCK_MSG_LNET = 0xC0, 0xC1
ACK, PUT, GET, REPLY = 0, 1, 2, 3


def ksock(lnet):
    return struct.pack("<IIQQ", KSOCK_MSG_LNET, 0, 0, 0) + lnet


def with_nids(hdr, dst, src):
    return struct.pack("<QQ", nid4(dst), nid4(src)) + hdr[16:]


def recv_exact(s, n):
    got = b""
    while len(got) < n:
        chunk = s.recv(n - len(got))
        if not chunk:
            raise SystemExit("the node closed the connection")
        got += chunk
    return got


DISCOVERY_SEEN = []


def next_lnet(s):
    """The next LNet message (NOOPs skipped): (header fields, payload).
    The node's own discovery of this stand-in (its ping, its push back, as a
    kernel node does after a push) is noted and left unanswered: what is
    checked here is the push target."""
    while True:
        ktype, = struct.unpack("<I", recv_exact(s, 24)[:4])
        if ktype == KSOCK_MSG_NOOP:
            continue
        if ktype != KSOCK_MSG_LNET:
            raise SystemExit("unexpected ksock message type 0x%x" % ktype)
        hdr = recv_exact(s, 72)
        dst, src, dpid, spid, mtype, plen = struct.unpack_from("<QQIIII", hdr)
        payload = recv_exact(s, plen)
        bits, = struct.unpack_from("<Q", hdr, 32 + 16)
        if mtype in (PUT, GET) and bits == PING_BITS:
            DISCOVERY_SEEN.append(mtype)
            continue
        return {"type": mtype, "dst": dst, "src": src, "msg": hdr[32:]}, payload


def ping_info(nnis, seqno):
    """Ping info of 0@lo and @nnis NIs 10.1.0.1@tcp...: 16 + 16 * (nnis + 1) bytes."""
    out = struct.pack("<IIII", 0x70696E67, 0x1E, 12345, nnis + 1)
    out += struct.pack("<QII", 0x0009000000000000, seqno, 0)
    for i in range(nnis):
        out += struct.pack("<QII", (2 << 48) | (0x0A010001 + i), 0x15AAC0DE, 0)
    return out


def expect_ack(s, cookie, mlength, what):
    h, _ = next_lnet(s)
    expect_ack_fields(h, cookie, mlength, what)


def expect_ack_fields(h, cookie, mlength, what):
    if h["type"] != ACK:
        raise SystemExit("%s: got message type %d, not an ACK" % (what, h["type"]))
    wmd, bits, mlen = struct.unpack_from("<16sQI", h["msg"])
    if wmd != cookie or bits != PING_BITS or mlen != mlength:
        raise SystemExit("%s: ACK cookie %s bits %x mlength %d, want %s %x %d" %
                         (what, wmd.hex(), bits, mlen, cookie.hex(), PING_BITS, mlength))
    print("ok: %s: ACKed, cookie %s, match bits %x, mlength %d" % (what, wmd.hex(), bits, mlen))


def push(s, dst, src, payload, object_cookie):
    hdr = bytearray(with_nids(FRAME7[:72], dst, src))
    struct.pack_into("<I", hdr, 28, len(payload))
    struct.pack_into("<Q", hdr, 40, object_cookie)
    s.sendall(ksock(bytes(hdr) + payload))
    return bytes(hdr[32:48])


def connect_from(src_ip, host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    for p in range(1023, 511, -1):  # a privileged port, as a kernel node connects from
        try:
            s.bind((src_ip, p))
            break
        except OSError:
            continue
    s.settimeout(30)
    s.connect((host, port))
    return s


def main():
    host, port, dst, src = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    target = int(sys.argv[5]) if len(sys.argv) > 5 else 272
    s = connect_from(src.split("@")[0], host, port)
    handshake(s, src, dst)

    # 1. Frame 7, byte for byte but for its NIDs.
    s.sendall(ksock(with_nids(FRAME7[:72], dst, src) + FRAME7[72:]))
    expect_ack(s, FRAME7[32:48], 48, "the kernel's push (frame 7)")

    # 2. A ping on the same connection.
    get = struct.pack("<QQIIII", nid4(dst), nid4(src), 12345, 12345, GET, 0)
    get += struct.pack("<QQQIII", 0x1122334455667788, 0x99, PING_BITS, 0, 0, 4096) + bytes(4)
    s.sendall(ksock(get))
    h, payload = next_lnet(s)
    if h["type"] != REPLY or struct.unpack_from("<QQ", h["msg"]) != (0x1122334455667788, 0x99):
        raise SystemExit("ping after the push: no REPLY to our GET (type %d)" % h["type"])
    magic, _, _, nnis = struct.unpack_from("<IIII", payload)
    nids = [struct.unpack_from("<Q", payload, 16 + 16 * i)[0] for i in range(nnis)]
    if magic != 0x70696E67 or nid4(dst) not in nids:
        raise SystemExit("ping after the push: the REPLY does not list %s" % dst)
    print("ok: a ping on the same connection is answered (%d bytes, %s listed)" %
          (len(payload), dst))

    # 3. Bigger than the first push target: truncated and ACKed, then it fits.
    big = ping_info(20, 7)
    assert len(big) == 352
    cookie = push(s, dst, src, big, 0x21)
    expect_ack(s, cookie, min(352, target), "a 352-byte push to a %d-byte target" % target)
    # The target grows on its owner's next loop round, after that ACK went out:
    # while a push still lands in the old one it is ACKed truncated; send it again,
    # for 30 s at most (a loaded, sanitized build's rounds can be slow).
    deadline = time.monotonic() + 30
    attempt = 0
    while True:
        cookie = push(s, dst, src, big, 0x22 + attempt)
        h, _ = next_lnet(s)
        if h["type"] != ACK:
            raise SystemExit("the same push once the target grew: no ACK (type %d)" % h["type"])
        if struct.unpack_from("<16sQI", h["msg"])[2] == 352 or time.monotonic() > deadline:
            break
        attempt += 1
        time.sleep(0.01)
    expect_ack_fields(h, cookie, 352, "the same push once the target grew")
    print("   (%d push(es) still truncated before it)" % attempt)
    s.close()


if __name__ == "__main__":
    try:
        main()
    except socket.timeout:
        raise SystemExit("no answer from the node within 30 s: the connection is wedged")
