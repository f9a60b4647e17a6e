#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of lnet-capcheck on real captures and on broken copies of them.

  capcheck_test.py LNET_CAPCHECK CAPTURES_DIR TEST

TEST is one of: clean (every capture under CAPTURES_DIR reads with no
problem), ndpi (the nDPI capture's streams counted as its README says),
reorder (retransmitted and reordered segments change nothing), planted
(defects planted in copies, each reported at its frame). Exit 77 (skipped)
when the captures are not there.
"""
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

LNET_PORT = 988
KSOCK_MSG_LNET = 0xC1


def run(tool, path):
    """The tool's exit status and its JSON report of @path."""
    p = subprocess.run([tool, "--json", path], capture_output=True, text=True, check=False)
    if p.returncode == 2:
        raise SystemExit(f"{path}: unreadable: {p.stderr}")
    return p.returncode, json.loads(p.stdout)


# ---- classic pcap, Ethernet, IPv4, TCP: enough to edit copies ----

def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    head, off, frames = data[:24], 24, []
    assert struct.unpack("<I", head[:4])[0] == 0xA1B2C3D4, "little-endian microsecond pcap only"
    while off + 16 <= len(data):
        ts, us, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        frames.append([ts, us, bytearray(data[off + 16:off + 16 + incl]), orig])
        off += 16 + incl
    return head, frames


def write_pcap(path, head, frames):
    with open(path, "wb") as f:
        f.write(head)
        for ts, us, pkt, orig in frames:
            f.write(struct.pack("<IIII", ts, us, len(pkt), orig))
            f.write(pkt)


class Seg:
    """The TCP view of one frame (None when it is not TCP on the LNet port)."""

    def __init__(self, pkt):
        ihl = (pkt[14] & 15) * 4
        self.tcp = 14 + ihl
        self.data = self.tcp + (pkt[self.tcp + 12] >> 4) * 4
        self.end = 14 + struct.unpack(">H", pkt[16:18])[0]
        self.src = (bytes(pkt[26:30]), struct.unpack(">H", pkt[self.tcp:self.tcp + 2])[0])
        self.dst = (bytes(pkt[30:34]), struct.unpack(">H", pkt[self.tcp + 2:self.tcp + 4])[0])
        self.seq = struct.unpack(">I", pkt[self.tcp + 4:self.tcp + 8])[0]
        self.flags = pkt[self.tcp + 13]
        self.payload = bytes(pkt[self.data:self.end])

    @staticmethod
    def of(pkt):
        if len(pkt) < 54 or pkt[12:14] != b"\x08\x00" or pkt[23] != 6:
            return None
        s = Seg(pkt)
        return s if LNET_PORT in (s.src[1], s.dst[1]) else None

    def starts_lnet(self):
        """The segment starts with a whole ksock LNET header and LNet header."""
        return len(self.payload) >= 96 and struct.unpack("<I", self.payload[:4])[0] == KSOCK_MSG_LNET

    def lnet_type(self):
        return struct.unpack("<I", self.payload[48:52])[0]


def findings(report, level=None):
    return [(f["frame"], f["kind"], f["text"]) for s in report["streams"] for f in s["findings"]
            if level is None or f["level"] == level]


def problems(report):
    return findings(report, "problem")


# ---- tests ----

def test_clean(tool, captures):
    paths = sorted(glob.glob(os.path.join(captures, "**", "*.pcap*"), recursive=True))
    assert paths, "no captures"
    for path in paths:
        rc, rep = run(tool, path)
        assert rc == 0 and problems(rep) == [], f"{path}: {problems(rep)}"
        print(f"ok {path}: {rep['frames']} frames, {len(rep['streams'])} directions")


def test_unreadable(tool, captures, tmp):
    """Not a capture: exit 2. A capture cut mid-frame: read up to the cut, said on stderr."""
    for path in (os.path.join(captures, "README.md"), os.path.join(tmp, "absent.pcap")):
        p = subprocess.run([tool, path], capture_output=True, text=True, check=False)
        assert p.returncode == 2 and p.stderr, (path, p.returncode, p.stderr)
    with open(os.path.join(captures, "kernel", "s1_01_first_ping_discovery_on.pcap"), "rb") as f:
        data = f.read()
    cut = os.path.join(tmp, "cut.pcap")
    with open(cut, "wb") as f:
        f.write(data[:len(data) - 30])
    p = subprocess.run([tool, "--json", cut], capture_output=True, text=True, check=False)
    assert p.returncode == 0 and "read up to frame" in p.stderr, (p.returncode, p.stderr)
    assert json.loads(p.stdout)["frames"] == 39, p.stdout


def ndpi_counts(rep):
    return [(s["src"], s["put"], s["ack"], s["bytes"]) for s in rep["streams"]]


def test_ndpi(tool, captures):
    rc, rep = run(tool, os.path.join(captures, "ndpi-lustre.pcapng"))
    assert rc == 0, rep
    # README: stream 0 is the set-up (request frame 4, hellos frames 6 and 8),
    # stream 1 caught mid-way holds 12 PUTs and one ACK (frame 10)
    want = [("192.168.88.132:1022", 0, 0, 72), ("192.168.88.131:988", 0, 0, 56),
            ("192.168.88.118:1023", 7, 1, 3512), ("192.168.88.119:988", 5, 0, 2128)]
    assert ndpi_counts(rep) == want, ndpi_counts(rep)
    info = findings(rep, "info")
    assert (4, "connreq", "acceptor request: version 1, target 192.168.88.131@tcp") in info, info
    assert [f for f in info if f[0] == 6 and f[1] == "hello" and "0x17f08208a059eef0" in f[2]
            and "type bulk_in" in f[2]], info
    assert [f for f in info if f[0] == 8 and "type bulk_out" in f[2]], info
    notes = findings(rep, "note")
    assert (9, "resync", "the capture starts mid-stream (from frame 9): resynchronised at frame 9,"
            " 0 bytes skipped") in notes, notes


def test_reorder(tool, captures, tmp):
    """Swap two data segments of one direction and retransmit one: same counts, no problem."""
    src = os.path.join(captures, "kernel", "s1_03_selftest.pcap.gz")
    plain = os.path.join(tmp, "s1_03.pcap")
    subprocess.run(f"gzip -dc '{src}' > '{plain}'", shell=True, check=True)
    rc, base = run(tool, plain)
    head, frames = read_pcap(plain)
    first = Seg.of(frames[0][2])
    data = [i for i, f in enumerate(frames)
            if (s := Seg.of(f[2])) and s.payload and s.src == first.src]
    a, b = data[10], data[11]
    frames[a], frames[b] = frames[b], frames[a]
    frames.append(list(frames[data[20]]))  # a late retransmission
    frames[-1][2] = bytearray(frames[-1][2])
    broken = os.path.join(tmp, "reordered.pcap")
    write_pcap(broken, head, frames)
    rc2, rep = run(tool, broken)
    assert rc2 == 0 and problems(rep) == [], problems(rep)
    count = lambda r: sorted((s["src"], s["dst"], s["put"], s["get"], s["reply"], s["bytes"])
                             for s in r["streams"])
    assert count(rep) == count(base), (count(rep), count(base))


def main():
    tool, captures, test = sys.argv[1], sys.argv[2], sys.argv[3]
    if not os.path.isdir(os.path.join(captures, "kernel")):
        print(f"{captures}: no captures, skipped")
        return 77
    with tempfile.TemporaryDirectory(prefix="capcheck.") as tmp:
        if test == "clean":
            test_clean(tool, captures)
            test_unreadable(tool, captures, tmp)
        elif test == "ndpi":
            test_ndpi(tool, captures)
        elif test == "reorder":
            test_reorder(tool, captures, tmp)
        elif test == "planted":
            test_planted(tool, captures, tmp)
        else:
            raise SystemExit(f"unknown test {test}")
    print(f"{test}: ok")
    return 0


def lnet_frames(frames, direction=None):
    """1-based numbers of the frames whose payload is one whole LNET message."""
    out = []
    for i, f in enumerate(frames):
        s = Seg.of(f[2])
        if s and s.starts_lnet() and (direction is None or (s.src, s.dst) == direction):
            plen = struct.unpack("<I", s.payload[52:56])[0]
            if len(s.payload) == 96 + plen:
                out.append(i + 1)
    return out


def put32(frames, n, off, value):
    """Write a little-endian word at @off of frame @n's TCP payload."""
    pkt = frames[n - 1][2]
    at = Seg(pkt).data + off
    pkt[at:at + 4] = struct.pack("<I", value)


def ksock_csum(payload):
    """ksm_csum of a whole message (lnet-facts 4.6): crc32_le from ~0, not inverted."""
    zeroed = payload[:4] + b"\0\0\0\0" + payload[8:]
    return zlib.crc32(zeroed) ^ 0xFFFFFFFF


def expect(tool, path, frame, kind, words, level="problem"):
    rc, rep = run(tool, path)
    got = [f for f in findings(rep, level) if f[0] == frame and f[1] == kind and words in f[2]]
    assert got, f"{path}: want {level} {kind} '{words}' at frame {frame}, got {findings(rep)}"
    assert rc == (1 if level == "problem" else 0), (rc, problems(rep))
    print(f"ok {os.path.basename(path)}: frame {frame}: {got[0][2]}")


def planted_copy(tmp, name, head, frames):
    path = os.path.join(tmp, name)
    write_pcap(path, head, frames)
    return path


def test_planted(tool, captures, tmp):
    src = os.path.join(captures, "kernel", "s1_01_first_ping_discovery_on.pcap")
    head, frames = read_pcap(src)
    msgs = lnet_frames(frames)
    replies = [n for n in msgs if Seg(frames[n - 1][2]).lnet_type() == 3]
    assert len(msgs) >= 3 and replies, (msgs, replies)

    # a flipped byte: the LNet type becomes 9
    f = [[a, b, bytearray(c), d] for a, b, c, d in frames]
    put32(f, msgs[0], 48, 9)
    expect(tool, planted_copy(tmp, "type.pcap", head, f), msgs[0], "lnet", "unknown LNet message type")

    # a checksum that does not match, then one that does
    f = [[a, b, bytearray(c), d] for a, b, c, d in frames]
    put32(f, msgs[1], 4, 0x12345678)
    expect(tool, planted_copy(tmp, "csum.pcap", head, f), msgs[1], "csum", "ksm_csum 0x12345678")
    f = [[a, b, bytearray(c), d] for a, b, c, d in frames]
    put32(f, msgs[1], 4, ksock_csum(Seg(f[msgs[1] - 1][2]).payload))
    rc, rep = run(tool, planted_copy(tmp, "csum-right.pcap", head, f))
    assert rc == 0 and problems(rep) == [], problems(rep)

    # a REPLY to a handle no GET carried: its object cookie changed
    f = [[a, b, bytearray(c), d] for a, b, c, d in frames]
    put32(f, replies[0], 24 + 32 + 8, 0xDEAD)
    expect(tool, planted_copy(tmp, "reply.pcap", head, f), replies[0], "lnet", "that no GET sent")

    # the GET's sink made 1 byte: its REPLY is longer
    f = [[a, b, bytearray(c), d] for a, b, c, d in frames]
    gets = [n for n in msgs if Seg(f[n - 1][2]).lnet_type() == 2 and n < replies[0]]
    put32(f, gets[0], 24 + 64, 1)
    expect(tool, planted_copy(tmp, "sink.pcap", head, f), replies[0], "lnet",
           "whose sink is 1 bytes")

    # a destination on the hello's net that is not the hello's peer
    f = [[a, b, bytearray(c), d] for a, b, c, d in frames]
    dest = struct.unpack("<I", Seg(f[msgs[0] - 1][2]).payload[24:28])[0]
    put32(f, msgs[0], 24, dest + 100)
    expect(tool, planted_copy(tmp, "dest.pcap", head, f), msgs[0], "lnet",
           "on a connection whose hello names")

    test_planted_zc(tool, head, frames, msgs, tmp)
    test_planted_ack_unasked(tool, captures, tmp)

    # a payload longer than the stream: the last message of a closed stream
    test_planted_past_end(tool, captures, tmp)

    # a capture that starts in the middle of a message
    test_planted_mid_message(tool, head, frames, msgs, tmp)

    # a connection whose hello the capture lost: framing resumes at its first message
    first = Seg(frames[msgs[0] - 1][2])
    hello = [i + 1 for i, fr in enumerate(frames) if (x := Seg.of(fr[2])) and
             (x.src, x.dst) == (first.src, first.dst) and len(x.payload) == 56][0]
    f = [fr for i, fr in enumerate(frames) if i + 1 != hello]
    expect(tool, planted_copy(tmp, "no-hello.pcap", head, f), msgs[0] - 1, "resync",
           "the capture lacks the handshake", level="note")


def put64(frames, n, off, value):
    put32(frames, n, off, value & 0xFFFFFFFF)
    put32(frames, n, off + 4, value >> 32)


def test_planted_zc(tool, head, frames, msgs, tmp):
    """A ZC request (cookie 5): unanswered, answered, unanswered for 60 s."""
    req = Seg(frames[msgs[0] - 1][2])
    answer = [n for n in msgs if n > msgs[0] and Seg(frames[n - 1][2]).src == req.dst]
    f = [[a, b, bytearray(c), d] for a, b, c, d in frames]
    put64(f, msgs[0], 8, 5)
    expect(tool, planted_copy(tmp, "zc.pcap", head, f), msgs[0], "zcack",
           "ZC cookie 5 never acknowledged", level="note")
    f[-1][0] += 60  # the capture goes on a minute longer
    expect(tool, planted_copy(tmp, "zc-late.pcap", head, f), msgs[0], "zcack",
           "ZC cookie 5 never acknowledged")
    put64(f, answer[0], 16, 5)  # piggybacked on the peer's next message
    rc, rep = run(tool, planted_copy(tmp, "zc-acked.pcap", head, f))
    assert rc == 0 and [x for x in findings(rep) if x[1] == "zcack"] == [], findings(rep)


def test_planted_ack_unasked(tool, captures, tmp):
    """A PUT whose ACK came back, made to ask for none."""
    for src in sorted(glob.glob(os.path.join(captures, "kernel", "*.pcap"))):
        head, frames = read_pcap(src)
        msgs = lnet_frames(frames)
        puts = {Seg(frames[n - 1][2]).payload[56:72]: n for n in msgs
                if Seg(frames[n - 1][2]).lnet_type() == 1}
        for n in msgs:
            seg = Seg(frames[n - 1][2])
            if seg.lnet_type() == 0 and puts.get(seg.payload[56:72], n) < n:
                put_n = puts[seg.payload[56:72]]
                f = [[a, b, bytearray(c), d] for a, b, c, d in frames]
                put64(f, put_n, 56, 2**64 - 1)
                put64(f, put_n, 64, 2**64 - 1)
                rc, rep = run(tool, planted_copy(tmp, "unasked.pcap", head, f))
                got = [x for x in findings(rep) if x[0] == n and "which asked for none" in x[2]]
                if got:
                    print(f"ok unasked.pcap: frame {n}: {got[0][2]}")
                    assert rc == 1
                    return
                # a capture begun mid-stream: the finding is a note of another kind
    raise AssertionError("no PUT and its ACK in a kernel capture")


def closed_directions(frames):
    return {(s.src, s.dst) for f in frames if (s := Seg.of(f[2])) and s.flags & 0x05}


def test_planted_past_end(tool, captures, tmp):
    for src in sorted(glob.glob(os.path.join(captures, "kernel", "*.pcap"))):
        head, frames = read_pcap(src)
        for d in sorted(closed_directions(frames)):
            data = [i + 1 for i, f in enumerate(frames)
                    if (s := Seg.of(f[2])) and s.payload and (s.src, s.dst) == d]
            whole = lnet_frames(frames, d)
            if data and whole and data[-1] == whole[-1] and \
                    Seg(frames[whole[-1] - 1][2]).lnet_type() in (1, 3):  # PUT, REPLY: a payload
                f = [[a, b, bytearray(c), x] for a, b, c, x in frames]
                n = whole[-1]
                plen = struct.unpack("<I", Seg(f[n - 1][2]).payload[52:56])[0]
                put32(f, n, 52, plen + 1000)
                expect(tool, planted_copy(tmp, "past-end.pcap", head, f), n, "framing",
                       "the stream closed")
                return
    raise AssertionError("no closed stream ending in a whole PUT or REPLY")


def test_planted_mid_message(tool, head, frames, msgs, tmp):
    """Drop a connection's frames before message K, and K's first 30 bytes."""
    k = msgs[1]
    seg = Seg(frames[k - 1][2])
    conn = {seg.src, seg.dst}
    later = [n for n in lnet_frames(frames, (seg.src, seg.dst)) if n > k]
    assert later, "no message after K"
    keep = []
    for i, fr in enumerate(frames):
        s = Seg.of(fr[2])
        if s and {s.src, s.dst} == conn and i + 1 < k:
            continue
        keep.append([fr[0], fr[1], bytearray(fr[2]), fr[3]])
        if i + 1 == k:
            pkt = keep[-1][2]
            del pkt[s.data:s.data + 30]
            pkt[16:18] = struct.pack(">H", s.end - 14 - 30)
            pkt[s.tcp + 4:s.tcp + 8] = struct.pack(">I", (s.seq + 30) & 0xFFFFFFFF)
            keep[-1][3] -= 30
    dropped = len(frames) - len(keep)
    expect(tool, planted_copy(tmp, "mid.pcap", head, keep), later[0] - dropped, "resync",
           "the capture starts mid-stream", level="note")


if __name__ == "__main__":
    sys.exit(main())
