#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""net add / net del cycles on one lnetd-pmd over one telemetry connection.

  ni_cycles.py NAME COUNT NET NID   -> COUNT times /lnet/net_add then /lnet/net_del
                                       of NID on NET; prints the seconds taken;
                                       exit 1 at the first refusal (printed)

lnetctl net add / net del send the same two requests, one process each.
"""
import json
import os
import socket
import sys
import time


def connect(name):
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


def call(s, command):
    s.send(command.encode())
    reply = json.loads(s.recv(1 << 20))[command.split(",")[0]]
    if reply.get("status", 0) != 0:
        raise SystemExit("%s: %s" % (command, reply))


def main():
    name, count, net, nid = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    s = connect(name)
    start = time.monotonic()
    for _ in range(count):
        call(s, "/lnet/net_add,net=%s,nid=%s" % (net, nid))
        call(s, "/lnet/net_del,net=%s,nid=%s" % (net, nid))
    print("%.3f" % (time.monotonic() - start))


if __name__ == "__main__":
    main()
