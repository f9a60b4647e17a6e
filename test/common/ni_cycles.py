#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""net add / net del cycles on one lnetd-pmd over one telemetry connection.

  ni_cycles.py NAME COUNT NET NID   -> COUNT times /lnet/net_add then /lnet/net_del
                                       of NID on NET; prints the seconds taken;
                                       exit 1 at the first refusal (printed)

lnetctl net add / net del send the same two requests, one process each.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bad_peer import telemetry_call, telemetry_connect  # noqa: E402


def call(s, command):
    reply = telemetry_call(s, command)
    if reply.get("status", 0) != 0:
        raise SystemExit("%s: %s" % (command, reply))


def main():
    name, count, net, nid = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    s = telemetry_connect(name)
    start = time.monotonic()
    for _ in range(count):
        call(s, "/lnet/net_add,net=%s,nid=%s" % (net, nid))
        call(s, "/lnet/net_del,net=%s,nid=%s" % (net, nid))
    print("%.3f" % (time.monotonic() - start))


if __name__ == "__main__":
    main()
