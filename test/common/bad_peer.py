#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A misbehaving ksocklnd peer for the bad-input tests, and a telemetry reader.

  bad_peer.py attack CASE HOST PORT DST_NID SRC_NID [WAIT [OPEN]]
      -> exit 0 if the node closed us within WAIT s (default 3), and not in the first OPEN s
  bad_peer.py telemetry NAME COMMAND                 -> the reply's value as JSON

Wire layouts: lnet-facts §4.1-4.6 (acceptor request, V3 hello, ksock_msg).
"""
import json
import os
import socket
import struct
import sys
import time
import zlib

ACCEPTOR_MAGIC = 0xACCE7100
PROTO_MAGIC = 0x45726963
KSOCK_MSG_LNET = 0xC1
CONN_CONTROL = 1
LNET_MSG_PUT = 1


def nid4(s):
    """'a.b.c.d@tcpN' -> the 64-bit NID (socklnd type 2)."""
    addr, net = s.split("@")
    num = int(net[3:] or 0)
    ip = struct.unpack("!I", socket.inet_aton(addr))[0]
    return (((2 << 16) | num) << 32) | ip


def connreq(dst):
    return struct.pack("<IIQ", ACCEPTOR_MAGIC, 1, nid4(dst))


def hello_v3(src, dst):
    return struct.pack("<IIQQIIQQii", PROTO_MAGIC, 3, nid4(src), nid4(dst), 12345, 0,
                       time.time_ns(), 0, CONN_CONTROL, 0)


def lnet_put(src, dst, payload_length, portal=0):
    msg = struct.pack("<QQQQII", 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0, 0, portal, 0)
    hdr = struct.pack("<QQIIII", nid4(dst), nid4(src), 12345, 12345, LNET_MSG_PUT,
                      payload_length) + msg
    assert len(hdr) == 72
    return struct.pack("<IIQQ", KSOCK_MSG_LNET, 0, 0, 0) + hdr


def with_csum(frame, corrupt):
    """ksm_csum filled in (crc32_le, lnet-facts 4.6); @corrupt changes a payload byte after."""
    csum = ~zlib.crc32(frame) & 0xFFFFFFFF
    frame = frame[:4] + struct.pack("<I", csum) + frame[8:]
    if corrupt:
        frame = frame[:-1] + bytes([frame[-1] ^ 1])
    return frame


def connect(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if os.geteuid() == 0:  # privileged source port, as a kernel peer uses
        for p in range(1023, 511, -1):
            try:
                s.bind(("0.0.0.0", p))
                break
            except OSError:
                continue
    s.settimeout(10)
    s.connect((host, port))
    return s


def closed_by_peer(s, within):
    """True once the node closes the connection (EOF or reset) within @within s."""
    deadline = time.time() + within
    while time.time() < deadline:
        s.settimeout(max(0.1, deadline - time.time()))
        try:
            data = s.recv(4096)
        except socket.timeout:
            return False
        except ConnectionResetError:
            return True
        if not data:
            return True
    return False


def handshake(s, src, dst):
    s.sendall(connreq(dst) + hello_v3(src, dst))
    want = 56
    got = b""
    s.settimeout(5)
    while len(got) < want:
        chunk = s.recv(want - len(got))
        if not chunk:
            raise SystemExit("the node refused a valid hello")
        got += chunk
    magic, version = struct.unpack_from("<II", got)
    if magic != PROTO_MAGIC or version != 3:
        raise SystemExit("unexpected hello reply %x v%d" % (magic, version))


def attack(case, host, port, dst, src, wait, stay_open=0.0):
    s = connect(host, port)
    if case == "silent":
        pass  # connect, then nothing
    elif case == "half-connreq":
        s.sendall(connreq(dst)[:8])  # the acceptor magic and version, then stall
    elif case == "garbage":
        s.sendall(os.urandom(64))
    elif case == "wrong-magic":
        s.sendall(struct.pack("<IIQ", 0x12345678, 1, nid4(dst)))
    elif case == "truncated-hello":
        s.sendall(connreq(dst) + hello_v3(src, dst)[:20])  # then stall
    elif case == "other-nid":
        # The acceptor serves only its own NIs' NIDs (lnet-facts §4.1).
        other = dst.split("@")[0].rsplit(".", 1)[0] + ".254@" + dst.split("@")[1]
        s.sendall(connreq(other) + hello_v3(src, other))
    elif case == "huge-payload":
        handshake(s, src, dst)
        s.sendall(lnet_put(src, dst, 0x7FFFFFFF))
    elif case in ("bad-checksum", "good-checksum"):
        handshake(s, src, dst)
        # Portal 5: nothing there, so LNet drops it and its payload is read
        # (and summed) at once.
        s.sendall(with_csum(lnet_put(src, dst, 16, 5) + b"0123456789abcdef",
                            case == "bad-checksum"))
    elif case == "half-message":
        handshake(s, src, dst)
        s.sendall(lnet_put(src, dst, 0)[:40])  # then stall
    else:
        raise SystemExit("unknown case " + case)
    if stay_open > 0 and closed_by_peer(s, stay_open):
        print("%s: closed within %.1f s, too early" % (case, stay_open), file=sys.stderr)
        s.close()
        return False
    ok = closed_by_peer(s, wait - stay_open)
    s.close()
    return ok


def telemetry_connect(name):
    """A connection to instance NAME's telemetry socket, past its greeting."""
    paths = ["/var/run/dpdk/%s/dpdk_telemetry.v2" % name]
    if os.environ.get("XDG_RUNTIME_DIR"):
        paths.append("%s/dpdk/%s/dpdk_telemetry.v2" % (os.environ["XDG_RUNTIME_DIR"], name))
    paths.append("/tmp/dpdk/%s/dpdk_telemetry.v2" % name)
    for path in paths:
        if os.path.exists(path):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect(path)
            json.loads(s.recv(16384))  # the greeting
            return s
    raise SystemExit("no telemetry socket for " + name)


def telemetry_call(s, command):
    s.send(command.encode())
    return json.loads(s.recv(1 << 20))[command.split(",")[0]]


def telemetry(name, command):
    s = telemetry_connect(name)
    reply = telemetry_call(s, command)
    s.close()
    return reply


def main():
    if sys.argv[1] == "attack":
        case, host, port, dst, src = sys.argv[2:7]
        wait = float(sys.argv[7]) if len(sys.argv) > 7 else 3.0
        stay_open = float(sys.argv[8]) if len(sys.argv) > 8 else 0.0
        sys.exit(0 if attack(case, host, int(port), dst, src, wait, stay_open) else 1)
    if sys.argv[1] == "telemetry":
        print(json.dumps(telemetry(sys.argv[2], sys.argv[3])))
        return
    raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
