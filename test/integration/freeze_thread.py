#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Hold one thread of a process still, the others running on.

    freeze_thread.py PID COMM_PREFIX SECONDS

Stops the first thread of PID whose name starts with COMM_PREFIX (an EAL
worker: "rte-worker") for SECONDS: PTRACE_SEIZE, then PTRACE_INTERRUPT,
which stops that thread alone (no signal, no group stop), then detaches,
and it runs on. What a lcore stuck in one poll looks like from outside.
Exit 0 when it held the thread, 77 when ptrace is not allowed here, 1 when
no such thread.
"""
import ctypes
import os
import sys
import time

PTRACE_DETACH = 17
PTRACE_SEIZE = 0x4206
PTRACE_INTERRUPT = 0x4207
WALL = 0x40000000


def find_thread(pid, prefix):
    for tid in sorted(os.listdir("/proc/%d/task" % pid), key=int):
        with open("/proc/%d/task/%s/comm" % (pid, tid), encoding="utf-8") as f:
            if f.read().strip().startswith(prefix):
                return int(tid)
    return None


def main():
    pid, prefix, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    tid = find_thread(pid, prefix)
    if tid is None:
        print("no thread %s* in %d" % (prefix, pid))
        return 1
    if libc.ptrace(PTRACE_SEIZE, tid, None, None) != 0:
        print("ptrace: %s" % os.strerror(ctypes.get_errno()))
        return 77
    libc.ptrace(PTRACE_INTERRUPT, tid, None, None)
    os.waitpid(tid, WALL)
    print("held thread %d" % tid, flush=True)
    time.sleep(seconds)
    libc.ptrace(PTRACE_DETACH, tid, None, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
