#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One kernel node of a capture, replayed toward lnetd-pmd playing the other.

  kernel_standin.py --play nodeB --ctl LNETCTL --name DAEMON --out DIR
                    [--expected DIR] PHASE...

PHASE: a capture of shared/captures/kernel/ by its timeline name
(s2_01_ping_discovery_off); several are replayed in order on the same
connections, as their session ran them. Runs in the network namespace whose
addresses are those of the node played (--play); the daemon, in the other
one, owns the other node's addresses (192.0.2.11/.12, 198.51.100.11/.12).

The capture's units (ksock_capture.py) and the timeline's commands are put
in one time order and walked:
  - a command of the daemon's node is given to our lnetctl (ping, discover
    and net add/del in the background, peer show -v waited for and kept);
    commands of the node played are already in its units;
  - a unit the daemon's node sent is waited for (its kind, counted);
  - a unit the node played sent is sent: a connection opened where the
    capture opened one, hellos as captured, LNet messages as captured but a
    REPLY or ACK rewritten to the cookie the daemon's own GET or PUT carried.
Everything the daemon sends is decoded and kept. At the end, per phase, the
daemon's units are compared with the kernel's field by field (cookies,
incarnations and times aside): LNet messages in order, connection requests
and hellos as a set, and each `peer show -v` with the kernel's for that step
(tool-output/PHASE.NODE.peer_show_v*.yaml). Unified diffs are printed; the
exit status is 0 when nothing differs.

With --lst LST (lnet_selftest phases, s1_03 and s4_01, the daemon as nodeA:
the console and a test client), the console's steps run with our lst, the
node played's selftest replies and bulk GETs and PUTs (portal 52) are made
the answers to the daemon's own requests (srpc_rewritten), and what is
compared is our lst's output with the kernel lst's (tool-output/
PHASE.nodeA.lst_*.txt), the daemon's own group's rates masked; each lst step
must exit 0 as the kernel's did.
"""
import argparse
import difflib
import glob
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ksock_capture as kc  # noqa: E402

CAPTURES = os.environ.get("LNP_KERNEL_CAPTURES") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "../../../shared/captures/kernel")
NODE_IPS = {"nodeA": ("192.0.2.11", "198.51.100.11"), "nodeB": ("192.0.2.12", "198.51.100.12")}
# Fields that differ between any two runs, never compared.
VOLATILE = ("time", "conn", "raw", "frm", "to", "ack_wmd", "return_wmd", "dst_wmd",
            "src_incarnation", "dst_incarnation")
WAIT = 10.0


class Wire:
    """The stand-in's connections with the daemon, and every unit it sent us."""

    def __init__(self):
        self.lock = threading.Condition()
        self.received = []        # units from the daemon, arrival order
        self.socks = []           # [sock, local ip, remote ip, hello the daemon sent or None]
        self.by_conn = {}         # capture connection -> sock entry
        self.autoreply = None     # once the replay stopped: answers the daemon's hellos
        self.accepted = []        # the entries of connections the daemon opened

    def listen(self, ip):
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((ip, 988))
        ls.listen(16)
        threading.Thread(target=self.accepting, args=(ls,), daemon=True).start()

    def accepting(self, ls):
        while True:
            s, peer = ls.accept()
            self.adopt(s, s.getsockname()[0], peer[0], "connreq")

    def connect(self, src_ip, dst_ip):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        for p in range(1023, 511, -1):  # a privileged port, as ksocklnd connects from
            try:
                s.bind((src_ip, p))
                break
            except OSError:
                continue
        s.settimeout(WAIT)
        s.connect((dst_ip, 988))
        s.settimeout(None)
        return self.adopt(s, src_ip, dst_ip, "hello")

    def adopt(self, s, local, remote, stage):
        entry = [s, local, remote, None]
        with self.lock:
            self.socks.append(entry)
            if stage == "connreq":
                self.accepted.append(entry)
        threading.Thread(target=self.reading, args=(entry, stage), daemon=True).start()
        return entry

    def reading(self, entry, stage):
        st = kc.Stream(None, initiator=stage == "connreq")
        st.stage, st.next_seq = stage, 0
        while True:
            try:
                data = entry[0].recv(65536)
            except OSError:
                data = b""
            if not data:  # the daemon closed (or reset) its side
                with self.lock:
                    self.received.append({"kind": "CLOSE", "frm": entry[2], "to": entry[1],
                                          "time": time.time()})
                    self.lock.notify_all()
                return
            st.buf += data
            for u in st.units():
                if u["kind"] == "NOOP":
                    continue
                u.update(frm=entry[2], to=entry[1], time=time.time())
                with self.lock:
                    if u["kind"] == "HELLO":
                        entry[3] = u
                    self.received.append(u)
                    self.lock.notify_all()
                    if u["kind"] == "HELLO" and stage == "connreq" and self.autoreply:
                        self.autoreply(entry)

    def wait_for(self, kind, count):
        """True once the daemon sent @count units of @kind (LNET: any LNet message)."""
        deadline = time.time() + WAIT
        with self.lock:
            while len(self.of_kind(kind)) < count:
                left = deadline - time.time()
                if left <= 0:
                    return False
                self.lock.wait(left)
            return True

    def of_kind(self, kind):
        return [u for u in self.received if unit_class(u) == kind]


def unit_class(u):
    return u["kind"] if u["kind"] in ("CONNREQ", "HELLO", "CLOSE") else "LNET"


class Replay:
    def __init__(self, args):
        self.args, self.wire = args, Wire()
        self.ours = "nodeA" if args.play == "nodeB" else "nodeB"
        self.our_ips, self.my_ips = NODE_IPS[self.ours], NODE_IPS[args.play]
        self.commands, self.shows, self.notes = [], [], []
        self.lst_env, self.lst_outputs, self.lst_failed = {}, [], False
        self.expected = []        # the daemon's node's units in the capture, in order
        self.stopped, self.phase_first, self.phase_start = False, 0, 0
        for ip in self.my_ips:
            try:
                self.wire.listen(ip)
            except OSError as e:
                self.notes.append("cannot listen on %s:988: %s" % (ip, e))

    # --- the daemon's commands -------------------------------------------------

    def command(self, phase, cmd):
        words = cmd.split()
        if words[:2] == ["rmmod", "lnet_selftest"]:
            return True  # no selftest module here: nothing to unload
        if self.args.lst and self.lst_command(phase, cmd):
            return True
        if words[0] != "lnetctl":
            self.notes.append("%s: '%s' and what follows it have no lnetctl form here; the "
                              "capture is compared up to it" % (phase, words[0]))
            return False
        argv = [self.args.ctl, "--name", self.args.name] + words[1:]
        if words[1:4] == ["peer", "show", "-v"]:
            self.settle()
            out = subprocess.run(argv, capture_output=True, text=True)
            self.shows.append((phase, out.stdout + out.stderr))
            return True
        # The capture's steps ran one after another (each ended before the
        # next began, its units played by now): so do ours.
        self.settle()
        self.commands.append((cmd, subprocess.Popen(argv, stdout=subprocess.PIPE,
                                                    stderr=subprocess.STDOUT, text=True)))
        return True

    def lst_command(self, phase, cmd):
        """The console's steps given to our lst (--lst): `export LST_SESSION=N` sets
        it for the later ones, `[sleep N;] lst ...` runs in the background as the
        lnetctl steps do (its replies come from the node played meanwhile), its
        output kept for the kernel's (tool-output/PHASE.NODE.lst_*.txt)."""
        words = cmd.replace(";", " ; ").split()
        if words[0] == "export" and words[1].startswith("LST_SESSION="):
            self.lst_env["LST_SESSION"] = words[1].split("=", 1)[1]
            return True
        if words[0] == "sleep" and words[2] == ";":
            words = words[3:]  # the kernel's sleep let its batch end: settle() waits for that
        if words[0] != "lst":
            return False
        self.settle()
        env = dict(os.environ, LNETCTL_NAME=self.args.name, **self.lst_env)
        p = subprocess.Popen([self.args.lst] + words[1:], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env)
        self.commands.append((cmd, p, phase))
        return True

    def played_has_form(self, phase, cmd):
        words = cmd.split()
        if words[0] == "lnetctl" or words[:2] == ["rmmod", "lnet_selftest"]:
            return True
        self.notes.append("%s: the node played runs '%s': what follows needs it on the daemon's "
                          "side too; the capture is compared up to it" % (phase, words[0]))
        return False

    def settle(self):
        for cmd, p, *lst_phase in self.commands:
            try:
                out, _ = p.communicate(timeout=WAIT * 2)
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
            if p.returncode != 0:
                self.notes.append("'%s' exited %d: %s" % (cmd, p.returncode, out.strip()))
            if lst_phase:  # every lst step of the captures exited 0 (their timelines)
                self.lst_outputs.append((lst_phase[0], cmd, out))
                self.lst_failed |= p.returncode != 0
        self.commands = []

    # --- the node played ---------------------------------------------------------

    def sock_for(self, u):
        """The connection a unit of the node played goes on, opened if it is the first."""
        w = self.wire
        if u["kind"] == "CONNREQ":
            entry = w.connect(u["frm"], u["to"])
            w.by_conn[u["conn"]] = entry
            return entry
        if u["conn"] in w.by_conn:
            return w.by_conn[u["conn"]]
        if u["kind"] == "HELLO":  # the reply on a connection the daemon opened
            want = self.capture_hello_type(u["conn"])
            # The daemon opens its typed connections at once and their hellos may
            # come in any order: wait for the one of the type this reply answers.
            deadline = time.time() + WAIT
            with w.lock:
                while True:
                    free = [e for e in w.socks if e[3] is not None
                            and e not in w.by_conn.values() and e[1] == u["frm"]]
                    match = [e for e in free if e[3]["conn_type"] == want]
                    left = deadline - time.time()
                    if match or left <= 0:
                        break
                    w.lock.wait(left)
            e = match[0] if match else (free[0] if free else None)
            if e is None:
                raise ReplayStop("no connection from the daemon to answer the hello on")
            w.by_conn[u["conn"]] = e
            return e
        with w.lock:  # opened before the capture: any live one between the two addresses
            same = [e for e in w.socks if e[1] == u["frm"] and e[2] == u["to"] and e[3] and len(e) == 4]
        if same:
            return same[0]
        entry = w.connect(u["frm"], u["to"])
        entry[0].sendall(kc_connreq(u["to"]) + kc_hello(u["frm"], u["to"]))
        return entry

    def capture_hello_type(self, conn):
        for e in self.expected:
            if e.get("conn") == conn and e["kind"] == "HELLO":
                return e["conn_type"]
        return None

    def close_one(self, u):
        """The node played closes a connection between the capture's two addresses."""
        w = self.wire
        with w.lock:
            live = [e for e in w.socks if e[1] == u["frm"] and e[2] == u["to"] and len(e) == 4]
        if u["conn"] in w.by_conn and w.by_conn[u["conn"]] in live:
            live.insert(0, w.by_conn[u["conn"]])
        if live:
            live[0].append("closed")
            try:
                live[0][0].shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def send(self, u):
        if u["kind"] == "CLOSE":
            return self.close_one(u)
        entry = self.sock_for(u)
        if u["kind"] == "CONNREQ":
            raw = struct.pack("<IIQ", kc.ACCEPTOR_MAGIC, 1, nid4(u["dst"]))
        elif u["kind"] == "HELLO":
            raw = kc_hello(u["src"], u["dst"], u["src_incarnation"], u["dst_incarnation"],
                           u["conn_type"])
        else:
            raw = struct.pack("<IIQQ", kc.KSOCK_MSG_LNET, 0, 0, 0) + self.rewritten(u)
        entry[0].sendall(raw)

    def answer_hello(self, entry):
        """The replay stopped: a connection the daemon opens still comes up (its
        hello answered as ksocklnd would), so later steps show what it sends."""
        if entry in self.wire.by_conn.values() or "answered" in entry:
            return
        h = entry[3]
        peer_type = {"BULK_IN": "BULK_OUT", "BULK_OUT": "BULK_IN"}.get(h["conn_type"], h["conn_type"])
        entry.append("answered")
        try:
            entry[0].sendall(kc_hello(h["dst"], h["src"], None, 0, peer_type))
        except OSError:
            pass

    def stop(self):
        """Nothing more of the capture is sent; hellos waiting and to come are answered."""
        self.stopped = True
        with self.wire.lock:
            waiting = [e for e in self.wire.accepted if e[3] is not None]
            self.wire.autoreply = self.answer_hello
        for e in waiting:
            self.answer_hello(e)

    def send_or_stop(self, name, u):
        try:
            self.send(u)
        except (ReplayStop, OSError) as e:
            self.notes.append("%s: cannot send the %s: %s; nothing more sent" % (name, u["kind"], e))
            self.stop()

    def rewritten(self, u):
        """A REPLY or ACK with the cookie of the daemon's GET or PUT it answers: the
        capture's Nth GET (PUT) of the daemon's node in this phase is the daemon's Nth."""
        raw = bytearray(u["raw"])
        if u["kind"] in ("PUT", "GET") and u["portal"] == SRPC_RDMA_PORTAL:
            return self.srpc_rewritten(raw, u)
        if u["kind"] not in ("REPLY", "ACK"):
            return bytes(raw)
        asked, key = ("GET", "return_wmd") if u["kind"] == "REPLY" else ("PUT", "ack_wmd")
        theirs = [e for e in self.expected[self.phase_first:] if e["kind"] == asked]
        with self.wire.lock:
            ours = [g for g in self.wire.received[self.phase_start:] if g["kind"] == asked]
        for i, e in enumerate(theirs):
            if e[key] == u["dst_wmd"]:
                if i < len(ours):
                    raw[32:48] = bytes.fromhex(ours[i][key])
                else:
                    self.notes.append("the %s answers the daemon's %s #%d, never sent"
                                      % (u["kind"], asked, i + 1))
                break
        return bytes(raw)

    def srpc_rewritten(self, raw, u):
        """A selftest reply or bulk of the node played (portal 52), made the answer to
        the daemon's own request: the capture's Nth request of a kind (portal and
        match bits: framework opcode or test service) is the daemon's Nth. Its match
        bits become that request's reply or bulk id, a reply's session id the one
        the daemon's console sent, a ping reply's seq the one it asked."""
        bits = int(u["match_bits"], 16)
        found = self.captured_request(bits)
        if found is None:
            self.notes.append("the %s with match bits 0x%x answers no request of the capture"
                              % (u["kind"], bits))
            return bytes(raw)
        kind, index, at = found
        ours = self.daemon_request(kind, index)
        if ours is None:
            self.notes.append("the %s answers the daemon's request %s #%d, never sent"
                              % (u["kind"], kind, index + 1))
            return bytes(raw)
        theirs_req = self.srpc_body(self.expected_request(kind, index))
        ours_req = self.srpc_body(ours)
        raw[48:56] = ours_req[at:at + 8]
        body = raw[72:]
        if len(body) == SRPC_MSG_SIZE:
            sid_at = 40 if kind[1] == SRPC_SVC_TEST else 32
            if kind[0] == SRPC_FRAMEWORK_PORTAL and body[28:44] == theirs_req[sid_at:sid_at + 16]:
                raw[72 + 28:72 + 44] = ours_req[sid_at:sid_at + 16]
            if kind[:2] == (SRPC_REQUEST_PORTAL, SRPC_SVC_PING):
                raw[72 + 32:72 + 36] = ours_req[36:40]
        return bytes(raw)

    def captured_request(self, bits):
        """(kind, index in the phase, offset of the id in its body) of the capture's
        request of the daemon's node whose reply id (or bulk id) is @bits."""
        seen = {}
        for e in self.expected[self.phase_first:]:
            kind = request_kind(e)
            if kind is None:
                continue
            index = seen.get(kind, 0)
            seen[kind] = index + 1
            body = self.srpc_body(e)
            if struct.unpack_from("<Q", body, 24)[0] == bits:
                return kind, index, 24
            if kind[1] in (SRPC_SVC_TEST, SRPC_SVC_BRW) and struct.unpack_from("<Q", body, 32)[0] == bits:
                return kind, index, 32
        return None

    def expected_request(self, kind, index):
        return [e for e in self.expected[self.phase_first:] if request_kind(e) == kind][index]

    def daemon_request(self, kind, index):
        """The daemon's @index-th request of @kind in this phase, waited for."""
        deadline = time.time() + WAIT
        with self.wire.lock:
            while True:
                ours = [g for g in self.wire.received[self.phase_start:] if request_kind(g) == kind]
                left = deadline - time.time()
                if len(ours) > index or left <= 0:
                    return ours[index] if len(ours) > index else None
                self.wire.lock.wait(left)

    @staticmethod
    def srpc_body(u):
        return bytes(u["raw"][72:])

    # --- one phase ---------------------------------------------------------------

    def phase(self, name):
        session = "s" + name[1]
        timeline = json.load(open(os.path.join(CAPTURES, "timeline-%s.json" % session)))
        ph = next(p for p in timeline if p["name"] == name)
        pcap = glob.glob(os.path.join(CAPTURES, name + ".pcap*"))[0]
        events = [(st["t_start"], 0, "cmd", st) for st in ph["steps"]]
        events += [(u["time"], 1, "unit", u) for u in kc.conversation(pcap) if u["kind"] != "NOOP"]
        events.sort(key=lambda e: (e[0], e[1]))
        first = len(self.expected)
        start = len(self.wire.received)
        counts = {"CONNREQ": 0, "HELLO": 0, "LNET": 0, "CLOSE": 0}
        for k in counts:
            counts[k] = len(self.wire.of_kind(k))
        self.stopped, self.phase_first, self.phase_start = False, first, start
        self.wire.autoreply = None
        cut = False
        stopped = False  # once the daemon missed a unit: the kernel's rest kept, ours run
        for _, _, what, x in events:
            if what == "cmd":
                if x["node"] == self.ours and not self.command(name, x["cmd"]):
                    # Its units cannot be played nor asked of the daemon: the kernel's
                    # units from here on are not compared; later lnetctl steps still run.
                    stopped = cut = True
                    self.stop()
                elif x["node"] != self.ours and not cut and not self.played_has_form(name, x["cmd"]):
                    # The node played starts what needs a service of the kernel's
                    # (lst: lnet_selftest) that the daemon has not: compared up to it.
                    stopped = cut = True
                    self.stop()
                continue
            if cut:
                continue
            if x["frm"] not in self.our_ips:
                if not stopped:
                    self.send_or_stop(name, x)
                    stopped = self.stopped
                continue
            self.expected.append(x)
            kind = unit_class(x)
            counts[kind] += 1
            if not stopped and not self.wire.wait_for(kind, counts[kind]):
                self.notes.append("%s: the daemon did not send its %s #%d (%s) within %d s; "
                                  "nothing more sent to it" % (name, kind, counts[kind],
                                                                x["kind"], WAIT))
                stopped = True
                self.stop()
        self.settle()
        # A look for what the daemon sends unasked after the last step (the
        # kernel did not: every unit the kernel sent was waited for above).
        # Not a bound anything waits on: all that comes in it is a difference
        # anyway; a unit later than it shows in the next phase's diff, or,
        # after the last phase, goes unseen. A slow machine fails nothing here.
        time.sleep(0.5)
        with self.wire.lock:
            got = self.wire.received[start:]
        return self.expected[first:], got


class ReplayStop(Exception):
    pass


# lnet_selftest (selftest-facts §1, §2): requests on portals 50 (tests) and 51
# (framework) with the service id as match bits, replies and bulk on 52.
SRPC_REQUEST_PORTAL, SRPC_FRAMEWORK_PORTAL, SRPC_RDMA_PORTAL = 50, 51, 52
SRPC_SVC_TEST, SRPC_SVC_BRW, SRPC_SVC_PING = 4, 11, 12
SRPC_MSG_SIZE = 160


def request_kind(u):
    """(portal, service, brw direction or 0) of a selftest request, or None: a brw
    read and a brw write are two kinds (two tests, each with its own order)."""
    if u.get("kind") != "PUT" or u.get("portal") not in (SRPC_REQUEST_PORTAL, SRPC_FRAMEWORK_PORTAL):
        return None
    if u.get("payload_length") != SRPC_MSG_SIZE:
        return None
    service = int(u["match_bits"], 16)
    rw = 0
    if u["portal"] == SRPC_REQUEST_PORTAL and service == SRPC_SVC_BRW:
        rw = struct.unpack_from("<I", u["raw"], 72 + 40)[0]
    return u["portal"], service, rw


def nid4(s):
    addr, net = s.split("@")
    return (((2 << 16) | int(net[3:] or 0)) << 32) | struct.unpack("!I", socket.inet_aton(addr))[0]


def kc_connreq(dst):
    return struct.pack("<IIQ", kc.ACCEPTOR_MAGIC, 1, nid4(dst))


def kc_hello(src, dst, sinc=None, dinc=0, ctype="CONTROL"):
    types = {v: k for k, v in kc.CONN_TYPES.items()}
    return struct.pack("<IIQQIIQQII", kc.PROTO_MAGIC, 3, nid4(src), nid4(dst), 12345, 0,
                       sinc if sinc is not None else time.time_ns(), dinc, types[ctype], 0)


def lines(units):
    """The comparable text of units: one line per field, LNet messages in order,
    connection requests, hellos and closes sorted (their order across connections is a race)."""
    conns, msgs = [], []
    for u in units:
        fields = {k: v for k, v in u.items() if k not in VOLATILE}
        text = " ".join("%s=%s" % (k, json.dumps(fields[k], sort_keys=True)) for k in sorted(fields)
                        if k not in ("kind", "ping"))
        one = ["%s %s" % (u["kind"], text)]
        if "ping" in fields:
            p = fields["ping"]
            one.append("  ping " + " ".join("%s=%s" % (k, p[k]) for k in sorted(p) if k != "nids"))
            one += ["  ping nid %s status %s" % (n["nid"], n["status"]) for n in p.get("nids", [])]
        (conns if unit_class(u) != "LNET" else msgs).append(one)
    return ["connections:"] + sorted(l for one in conns for l in one) + \
        ["messages:"] + [l for one in msgs for l in one]


def diff(want, got, what):
    d = list(difflib.unified_diff(want, got, "kernel: " + what, "lnetd-pmd: " + what, lineterm=""))
    for line in d:
        print(line)
    return not d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--play", choices=NODE_IPS, required=True)
    ap.add_argument("--ctl", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--expected", help="expected-data directory (default: the captures')")
    ap.add_argument("--compare", action="append", default=[],
                    help="phase whose result counts (default: all given)")
    ap.add_argument("--mask-counts", action="store_true",
                    help="peer show -v: send/recv/drop counts and min_tx_credits not compared "
                         "(a phase after one not replayed, such as s1_03's selftest)")
    ap.add_argument("--lst", help="our lst: the capture's lst steps of the daemon's node run "
                    "with it and their output compared with the kernel's")
    ap.add_argument("phases", nargs="+")
    args = ap.parse_args()
    r = Replay(args)
    ok = True
    for name in args.phases:
        want, got = r.phase(name)
        if args.compare and name not in args.compare:
            continue
        if args.lst:
            # The selftest units carry this run's ids and times: what is compared
            # is what the console printed from them.
            ok &= compare_lst(r, name, args.expected)
            continue
        same = diff(lines(want), lines(got), "%s, %s's units" % (name, r.ours))
        print("%s: %s's units: %s (%d kernel, %d ours)" %
              (name, r.ours, "same" if same else "DIFFER", len(want), len(got)))
        ok &= same
        ok &= compare_shows(r, name, args.expected, args.mask_counts)
    ok &= not r.lst_failed
    for n in dict.fromkeys(r.notes):  # each once, in order
        print("note: " + n)
    sys.exit(0 if ok else 1)


COUNTS = ("send_count:", "recv_count:", "drop_count:", "min_tx_credits:")


def masked(text_lines):
    return [l.split(":")[0] + ": *" if l.strip().startswith(COUNTS) else l for l in text_lines]


def compare_shows(r, name, expected, mask):
    base = expected or os.path.join(CAPTURES, "tool-output")
    files = sorted(glob.glob(os.path.join(base, "%s.%s.peer_show_v*.yaml" % (name[:5], r.ours))))
    shows = [text for ph, text in r.shows if ph == name]
    ok = True
    for i, path in enumerate(files):
        got = shows[i].splitlines() if i < len(shows) else ["(no peer show -v was run)"]
        want = open(path).read().splitlines()
        if mask:
            want, got = masked(want), masked(got)
        same = diff(want, got, os.path.basename(path))
        print("%s: %s: %s" % (name, os.path.basename(path), "same" if same else "DIFFER"))
        ok &= same
    return ok


def compare_lst(r, name, expected):
    """Our lst's output of each step the kernel's lst output was kept for
    (tool-output/PHASE.NODE.lst_WHAT.txt, the Nth file of a command for its Nth run)."""
    base = expected or os.path.join(CAPTURES, "tool-output")
    ok = True
    for what in ("stat", "list_batch"):
        path = os.path.join(base, "%s.%s.lst_%s.txt" % (name[:5], r.ours, what))
        if not os.path.exists(path):
            continue
        runs = [out for ph, cmd, out in r.lst_outputs if ph == name and ("lst %s " % what) in cmd + " "]
        # The kernel's file holds the last run's output (list_batch: after run, State 177).
        got = runs[-1].splitlines() if runs else ["(no lst %s was run)" % what]
        want = open(path).read().splitlines()
        if what == "stat":
            want, got = own_rates_masked(want, r.ours), own_rates_masked(got, r.ours)
        same = diff(want, got, os.path.basename(path))
        print("%s: %s: %s" % (name, os.path.basename(path), "same" if same else "DIFFER"))
        ok &= same
    return ok


def own_rates_masked(text_lines, ours):
    """lst stat's blocks of the daemon's own group (g1 in the captures: the
    console's node) with their numbers masked: they are this run's rates, where
    the node played's come from its captured replies."""
    own = "g1" if ours == "nodeA" else "g2"
    out, masking = [], False
    for line in text_lines:
        if line.startswith("[LNet "):
            masking = line.endswith(" of %s]" % own)
        elif masking:
            line = re.sub(" +", " ", re.sub(r"[0-9]+(\.[0-9]+)?", "*", line)).rstrip()
        out.append(line)
    return out


if __name__ == "__main__":
    main()
