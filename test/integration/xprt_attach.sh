#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lnetd-pmd's client service (issue 36): off by default; with
# --xprt-clients, processes attach at xprt.sock and hand over memfd
# regions, shown by /lnet/xprt_clients; one killed with SIGKILL leaves
# nothing mapped and the others attached; a uid not in --xprt-uids is
# refused and counted.
#   xprt_attach.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
client="$build/test/integration/xprt_attach_client"

# tel NAME FIELD: a field of /lnet/xprt_clients (clients: "pid:mapped_bytes ..." by id).
tel() {
	python3 - "/var/run/dpdk/$1/dpdk_telemetry.v2" "$2" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.recv(16384)  # the greeting
s.send(b"/lnet/xprt_clients")
r = json.loads(s.recv(16384))["/lnet/xprt_clients"]
f = sys.argv[2]
if f == "clients":
    cs = sorted((v for k, v in r.items() if k.startswith("client")), key=lambda c: c["id"])
    print(" ".join("%d:%d" % (c["pid"], c["mapped_bytes"]) for c in cs))
else:
    print(r[f])
PY
}
is() { [ "$(tel "$1" "$2")" = "$3" ]; } # name field value

[ "$(id -u)" -eq 0 ] || { echo "xprt_attach: needs root (the runtime directory under /var/run/dpdk); skipped"; exit 77; }

a=xa$$
check "off by default: start" start_daemon "$a"
check "off by default: /lnet/xprt_clients says -ENODEV" is "$a" status -19
check "off by default: no socket" test ! -e "/var/run/dpdk/$a/xprt.sock"
check "stop: exit 0" stop_daemon "$pid"

check "--xprt-clients: start" start_daemon "$a" --xprt-clients
sock=$(tel "$a" socket)
check "the socket beside telemetry's" test "$sock" = "/var/run/dpdk/$a/xprt.sock" -a -S "$sock"
check "nobody attached" is "$a" attached 0

# Two clients holding 1 MiB and 64 KiB; the first is killed.
mkfifo "$work/hold1" "$work/hold2"
"$client" "$sock" 1048576 hold <"$work/hold1" >"$work/c1" 2>&1 &
c1=$!
exec 7>"$work/hold1"
check "the first attached" eventually 20 is "$a" attached 1
"$client" "$sock" 65536 hold <"$work/hold2" >"$work/c2" 2>&1 &
c2=$!
exec 8>"$work/hold2"
check "two attached" eventually 20 is "$a" attached 2
check "their pids and mapped bytes" eventually 20 is "$a" clients "$c1:1048576 $c2:65536"
check "mapped in all" is "$a" mapped_bytes 1114112
kill -KILL "$c1"
wait "$c1" 2>/dev/null
check "killed: detached and counted" eventually 20 is "$a" detached 1
check "killed: its region unmapped, the other kept" is "$a" clients "$c2:65536"
check "killed: mapped bytes back" is "$a" mapped_bytes 65536
check "killed: not a failure" is "$a" failed 0
check "a new client attaches" "$client" "$sock" 4096
exec 8>&-
check "the other ends cleanly" wait "$c2"
check "all gone: nothing mapped" eventually 20 is "$a" mapped_bytes 0
check "all gone: 3 attached, 3 detached" is "$a" detached 3
check "stop: exit 0" stop_daemon "$pid"
exec 7>&-

# A uid not allowed: refused before a byte is read.
check "--xprt-uids 4242: start" start_daemon "$a" --xprt-clients --xprt-uids 4242
check "root refused" sh -c "! '$client' /var/run/dpdk/$a/xprt.sock 4096"
check "refused: counted" eventually 20 is "$a" refused 1
check "refused: never attached" is "$a" attached 0
check "stop: exit 0" stop_daemon "$pid"
check "--xprt-uids with no uid: refused" sh -c "! '$daemon' -- --xprt-uids '' >/dev/null 2>&1"
finish xprt_attach
