#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The userspace TCP (drivers/net/tcp) against Linux's under loss: as
# net_veth, lnet-netcheck runs the stack on net_af_packet on one end of a
# veth pair in a namespace of its own, Linux at the other end in a second
# one. The kernel has no netem: a cls_bpf program (net_veth_loss.c, built
# here with clang -target bpf) on a bridge between the two drops a fraction
# of the IPv4 frames each way. At 0.1, 1 and 5% loss a Linux client gets 1 MiB
# back from the stack's echo, and the stack gets 1 MiB back from a Linux
# echo server, every byte verified; the stack and Linux retransmitted (1
# and 5%), and Linux counted no bad checksum and no abort on timeout.
# Then, without loss, the ends Linux provokes: a client that resets at
# close (SO_LINGER 0) and a server killed while the stack sends; the
# stack's connection ends with ECONNRESET both times. Only
# test addresses, only inside the three namespaces, which go with the test.
#   net_veth_loss.sh BUILD_DIR SRC_DIR  (needs root, iproute2 with tc, ethtool, python3, clang)
set -u
build=$1 src=$2
. "$src/harness.sh"
tool="$build/apps/lnet-netcheck/lnet-netcheck"
for t in ip tc ethtool nstat python3 clang; do
	command -v "$t" >/dev/null 2>&1 || { echo "net_veth_loss: needs $t; skipped"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "net_veth_loss: needs root; skipped"; exit 77; }

tag=lnl$$ x=$(( $$ % 200 + 20 ))
ip_pmd=198.19.$x.1 ip_kern=198.19.$x.2
nsp=${tag}p nsk=${tag}k nsm=${tag}m
on_exit='for n in "$nsp" "$nsk" "$nsm"; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del "$n" 2>/dev/null; done'
ip netns add "$nsp" && ip netns add "$nsk" && ip netns add "$nsm" ||
	{ echo "net_veth_loss: no namespaces"; exit 1; }
# The stack's veth (vp) and Linux's (vk) meet on a bridge in a middle
# namespace, where the loss program runs on each port's ingress: a frame
# dropped on its sender's own egress would only be queued again by Linux,
# never counted as lost.
ip -n "$nsp" link add vp type veth peer name mp netns "$nsm"
ip -n "$nsk" link add vk type veth peer name mk netns "$nsm"
ip -n "$nsm" link add lbr type bridge
for n in "$nsp" "$nsk" "$nsm"; do
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$n" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
done
ip -n "$nsm" link set mp master lbr
ip -n "$nsm" link set mk master lbr
for l in mp mk lbr; do ip -n "$nsm" link set "$l" up; done
ip -n "$nsp" link set vp up
ip -n "$nsk" link set vk up
ip -n "$nsk" addr add "$ip_kern/24" dev vk
ip netns exec "$nsk" ethtool -K vk tx off tso off gso off >/dev/null
ip netns exec "$nsp" ethtool -K vp tx off tso off gso off >/dev/null
for l in mp mk; do ip netns exec "$nsm" ethtool -K "$l" tx off tso off gso off >/dev/null; done

wait_for() { # file, pattern: until the pattern shows in the file (the process may die first)
	t=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$pid" 2>/dev/null || return 1
		t=$((t + 1)); [ "$t" -lt 600 ] || return 1
		sleep 0.1
	done
}
counter() { sed -n "s/^$2 //p" "$1"; }
# A Linux counter of the kernel's namespace, absolute (a new namespace starts at 0).
kstat() { ip netns exec "$nsk" nstat -saz "$1" | awk -v n="$1" '$1 == n { print $2 }'; }
eal="--no-huge -m 256 --no-pci --no-shconf --no-telemetry -l 0 --log-level=*:warning --file-prefix $tag"
port="net_af_packet_$tag,iface=vp"

cat >"$work/tcp_client.py" <<'PY'
import socket, sys, threading
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = bytes((i * 7 + (i >> 11)) & 0xff for i in range(n))
s = socket.create_connection((host, port), timeout=60)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
sender = threading.Thread(target=lambda: (s.sendall(data), s.shutdown(socket.SHUT_WR)))
sender.start()
got = bytearray()
while True:
    b = s.recv(65536)
    if not b:
        break
    got += b
sender.join()
s.close()
print("echoed %d of %d, %s" % (len(got), n, "verified" if bytes(got) == data else "mismatch"))
sys.exit(0 if bytes(got) == data else 1)
PY
cat >"$work/tcp_echo.py" <<'PY'
import socket, sys
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind((sys.argv[1], int(sys.argv[2])))
l.listen(1)
print("listening", flush=True)
c, _ = l.accept()
c.settimeout(60)
n = 0
while True:
    b = c.recv(65536)
    if not b:
        break
    c.sendall(b)
    n += len(b)
c.close()
print("echoed %d" % n, flush=True)
PY

# The loss program, once per rate; on both bridge ports' ingress (each way).
ip netns exec "$nsm" tc qdisc add dev mp clsact
ip netns exec "$nsm" tc qdisc add dev mk clsact
for per10k in 10 100 500; do
	pct=$(awk -v l="$per10k" 'BEGIN { printf "%g", l / 100 }')
	obj="$work/loss$per10k.o"
	check "$pct%: the cls_bpf program builds" \
		clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -DLOSS_PER_10K="$per10k" \
		-c "$src/net_veth_loss.c" -o "$obj"
	ip netns exec "$nsm" tc filter del dev mp ingress 2>/dev/null
	ip netns exec "$nsm" tc filter del dev mk ingress 2>/dev/null
	check "$pct%: it drops on the bridge both ways" sh -c \
		"ip netns exec $nsm tc filter add dev mp ingress bpf direct-action obj $obj sec tc &&
		 ip netns exec $nsm tc filter add dev mk ingress bpf direct-action obj $obj sec tc"
	retx0=$(kstat TcpRetransSegs)

	# A Linux client through the stack's echo.
	ip netns exec "$nsp" "$tool" $eal -- --port "$port" --addr "$ip_pmd/24" --tcp-echo 7 \
		>"$work/echo$per10k.log" 2>&1 &
	pid=$!
	pids="$pids $pid"
	check "$pct%: lnet-netcheck came up as a TCP echo" wait_for "$work/echo$per10k.log" '^ready '
	check "$pct%: a Linux client gets 1 MiB back from the stack, verified" \
		timeout 120 ip netns exec "$nsk" python3 "$work/tcp_client.py" "$ip_pmd" 7 1048576
	kill -TERM "$pid"
	wait "$pid"
	check "$pct%: the echo ended cleanly on SIGTERM" test $? -eq 0

	# The stack through a Linux echo server.
	ip netns exec "$nsk" python3 "$work/tcp_echo.py" "$ip_kern" 7007 >"$work/linux$per10k.log" 2>&1 &
	pid=$!
	pids="$pids $pid"
	check "$pct%: a Linux echo server listens" wait_for "$work/linux$per10k.log" '^listening'
	timeout 120 ip netns exec "$nsp" "$tool" $eal -- --port "$port" --addr "$ip_pmd/24" \
		--tcp-send "$ip_kern:7007" --bytes 1048576 >"$work/send$per10k.log" 2>&1
	rc=$?
	check "$pct%: the stack gets 1 MiB back from a Linux echo, verified, exit $rc" sh -c \
		"[ $rc -eq 0 ] && grep -q '^tcp: sent 1048576, echoed 1048576, verified' '$work/send$per10k.log'"
	wait "$pid"
	check "$pct%: the Linux echo server saw it all" grep -q '^echoed 1048576' "$work/linux$per10k.log"

	ours=$(( $(counter "$work/echo$per10k.log" retransmits) + $(counter "$work/send$per10k.log" retransmits) ))
	theirs=$(( $(kstat TcpRetransSegs) - retx0 ))
	echo "$pct%: retransmitted: the stack $ours, Linux $theirs"
	if [ "$per10k" -ge 100 ]; then
		check "$pct%: the stack retransmitted ($ours)" test "$ours" -gt 0
		check "$pct%: Linux retransmitted ($theirs)" test "$theirs" -gt 0
	fi
	check "$pct%: no bad TCP segment reached the stack" sh -c \
		"[ $(counter "$work/echo$per10k.log" rx_bad) -eq 0 ] && [ $(counter "$work/send$per10k.log" rx_bad) -eq 0 ]"
done
check "Linux counted no bad TCP checksum" test "$(kstat TcpInCsumErrors)" -eq 0
check "Linux aborted nothing on a timeout" test "$(kstat TcpExtTCPAbortOnTimeout)" -eq 0

# Without loss: the ends Linux provokes.
ip netns exec "$nsm" tc filter del dev mp ingress
ip netns exec "$nsm" tc filter del dev mk ingress
cat >"$work/rst_close.py" <<'PY'
import socket, struct, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30)
s.sendall(b"x" * 1000)
got = 0
while got < 1000:
    got += len(s.recv(65536))
# SO_LINGER 0: close() sends an RST, as a kernel peer with linger2 -1 does.
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
s.close()
print("reset after %d echoed" % got)
PY
cat >"$work/hang.py" <<'PY'
import socket, sys, time
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind((sys.argv[1], int(sys.argv[2])))
l.listen(1)
print("listening", flush=True)
c, _ = l.accept()
print("accepted", flush=True)
while True:
    time.sleep(1)  # reads nothing: killed from outside
PY

# A Linux client that resets at close: the stack's end closes with ECONNRESET.
ip netns exec "$nsp" "$tool" $eal -- --port "$port" --addr "$ip_pmd/24" --tcp-echo 7 \
	>"$work/rst.log" 2>&1 &
pid=$!
pids="$pids $pid"
check "rst: lnet-netcheck came up as a TCP echo" wait_for "$work/rst.log" '^ready '
check "rst: a Linux client echoes 1000 bytes then closes with SO_LINGER 0" \
	timeout 60 ip netns exec "$nsk" python3 "$work/rst_close.py" "$ip_pmd" 7
check "rst: the stack's connection closed on the reset" \
	wait_for "$work/rst.log" '^tcp: closed: Connection reset by peer'
kill -TERM "$pid"
wait "$pid"
check "rst: lnet-netcheck ended cleanly on SIGTERM" test $? -eq 0
check "rst: the stack took one reset" test "$(counter "$work/rst.log" rst_rx)" -eq 1

# A Linux server killed while the stack sends: the stack's send ends with ECONNRESET.
ip netns exec "$nsk" python3 "$work/hang.py" "$ip_kern" 7008 >"$work/hang.log" 2>&1 &
hpid=$!
pid=$hpid
pids="$pids $hpid"
check "killed: a Linux server listens" wait_for "$work/hang.log" '^listening'
timeout 120 ip netns exec "$nsp" "$tool" $eal -- --port "$port" --addr "$ip_pmd/24" \
	--tcp-send "$ip_kern:7008" --bytes 16777216 >"$work/killed.log" 2>&1 &
spid=$!
pids="$pids $spid"
check "killed: the stack connected" wait_for "$work/hang.log" '^accepted'
kill -KILL "$hpid"
wait "$spid"
rc=$?
check "killed: the stack's send failed, exit $rc" test "$rc" -ne 0
check "killed: its connection closed with ECONNRESET" \
	grep -q '^tcp: closed: Connection reset by peer' "$work/killed.log"
check "killed: it did not send it all" sh -c "! grep -q '^tcp: sent 16777216, echoed 16777216' '$work/killed.log'"

[ -z "${LNP_KEEP_WORK:-}" ] || cat "$work"/*.log
finish net_veth_loss
