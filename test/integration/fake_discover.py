#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A stand-in for lnetd-pmd's telemetry socket that answers /lnet/discover
with canned peers, so lnetctl's rendering of a discovery that succeeded can
be checked byte for byte before the library discovers peers. Each request is
appended to LOG, one line.

  fake_discover.py SOCKET_PATH LOG

Replies (the daemon's /lnet/discover shape):
  10.1.0.1@tcp, 10.1.0.2@tcp: peer 10.1.0.1@tcp, Multi-Rail, both NIDs
  10.1.0.9@tcp: peer 10.1.0.9@tcp, not Multi-Rail
  anything else: status -113 (no route to host)
A stuck daemon (issue 31, D1), for lnetctl's own deadline: /lnet/ping and
/lnet/discover of 10.1.0.66@tcp, and /lnet/net_show, get no answer at all;
/lnet/ping of another NID gets -113.
"""
import json
import os
import socket
import sys
import threading

MR = {"status": 0, "primary_nid": "10.1.0.1@tcp", "multi_rail": "true",
      "peer_state": 273, "nid0": "10.1.0.1@tcp", "nid1": "10.1.0.2@tcp"}
NON_MR = {"status": 0, "primary_nid": "10.1.0.9@tcp", "multi_rail": "false",
          "peer_state": 18, "nid0": "10.1.0.9@tcp"}
DEAD = {"status": -113, "descr": "no route to the peer"}


STUCK = "10.1.0.66@tcp"


def answer(req):
    """The reply to REQ, or None for no reply at all."""
    cmd, _, params = req.partition(",")
    args = dict(p.split("=", 1) for p in params.split(",") if "=" in p)
    nid = args.get("nid")
    if cmd == "/lnet/global_show":
        return {cmd: {"discovery": 1}}
    if cmd == "/lnet/net_show" or (cmd in ("/lnet/ping", "/lnet/discover") and nid == STUCK):
        return None
    if cmd == "/lnet/ping":
        return {cmd: DEAD}
    if cmd != "/lnet/discover":
        return {cmd: None}
    if nid in ("10.1.0.1@tcp", "10.1.0.2@tcp"):
        return {cmd: MR}
    if nid == "10.1.0.9@tcp":
        return {cmd: NON_MR}
    return {cmd: DEAD}


def serve(conn, log):
    conn.send(json.dumps({"version": "fake", "pid": os.getpid(),
                          "max_output_len": 16384}).encode())
    while True:
        req = conn.recv(1024)
        if not req:
            break
        with open(log, "a", encoding="utf-8") as f:
            f.write(req.decode() + "\n")
        reply = answer(req.decode())
        if reply is not None:
            conn.send(json.dumps(reply).encode())
    conn.close()


def main():
    path, log = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    srv.bind(path)
    srv.listen(4)
    print("ready", flush=True)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn, log), daemon=True).start()


if __name__ == "__main__":
    main()
