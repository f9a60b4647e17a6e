#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run a command whose stderr is a pipe nobody reads: a terminal or a log
collector that stopped (issue 31, D1: an lcore that writes its log lines
itself blocks there). The pipe is made as small as Linux allows (one page)
and never read, so it is full after a few dozen lines.

  stuck_stderr.py STATUS_FILE STDOUT_FILE COMMAND [ARGS...]

STATUS_FILE gets, every 0.1 s, the bytes waiting in the pipe and its size
("4096 4096" once it is full). The command's exit ends this program, with
its status; SIGTERM is passed on to it.
"""
import fcntl
import os
import signal
import subprocess
import sys
import termios
import time

F_SETPIPE_SZ = 1031


def main():
    status, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    r, w = os.pipe()
    size = fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
    with open(out, "wb") as stdout:
        child = subprocess.Popen(cmd, stdout=stdout, stderr=w)
    os.close(w)
    signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGTERM))
    while child.poll() is None:
        buf = bytearray(4)
        fcntl.ioctl(r, termios.FIONREAD, buf)
        with open(status + ".tmp", "w", encoding="ascii") as f:
            f.write("%d %d\n" % (int.from_bytes(buf, sys.byteorder), size))
        os.replace(status + ".tmp", status)
        time.sleep(0.1)
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
