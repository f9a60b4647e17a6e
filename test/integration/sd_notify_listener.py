#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""systemd's side of sd_notify, for a test with no systemd as PID 1.

    sd_notify_listener.py SOCKET LOG [CMD...]

Binds the datagram socket SOCKET (what NOTIFY_SOCKET names), then writes one
line to LOG per field of every datagram received: "<seconds> <FIELD=value>",
seconds on the monotonic clock since the listener started, flushed at once
so a shell can wait for a line. When a datagram holds READY=1 and CMD is
given, CMD runs before the next datagram is read, and its output goes to
LOG.ready.N (N counting the READY=1s from 1): what the node looked like when
it said it was ready. Ends on SIGTERM.
"""
import os
import signal
import socket
import subprocess
import sys
import time


def main():
    path, log_path, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if os.path.exists(path):
        os.unlink(path)
    sock.bind(path)
    start = time.monotonic()
    readies = 0
    with open(log_path, "a", encoding="utf-8") as log:
        log.write("%.3f LISTENING\n" % 0.0)
        log.flush()
        while True:
            data = sock.recv(4096).decode("utf-8", "replace")
            now = time.monotonic() - start
            fields = [f for f in data.split("\n") if f]
            if cmd and "READY=1" in fields:
                readies += 1
                with open("%s.ready.%d" % (log_path, readies), "w", encoding="utf-8") as out:
                    subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=False)
            for f in fields:
                log.write("%.3f %s\n" % (now, f))
            log.flush()


if __name__ == "__main__":
    main()
