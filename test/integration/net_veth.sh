#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The userspace IP stack (drivers/net) against Linux: lnet-netcheck runs it
# on net_af_packet (then net_af_xdp) bound to one end of a veth pair, in a namespace of its
# own; the kernel at the other end, in a second namespace, resolves its MAC
# (arping, and its own neighbour table) and pings it; the stack pings the
# kernel back; then TCP both ways (a Linux client to the stack's echo, the
# stack to a Linux echo server), 1 MiB verified. Both ends' counters are checked. Only test addresses, only
# inside the two namespaces, which go with the test.
# The kernel's side has its veth offloads off (a checksum left partial
# reaches AF_PACKET as such), and the PMD's interface carries no kernel
# address and no IPv6, so the kernel there stays silent.
#   net_veth.sh BUILD_DIR SRC_DIR     (needs root, iproute2, ethtool, ping, arping, python3)
set -u
build=$1 src=$2
. "$src/harness.sh"
tool="$build/apps/lnet-netcheck/lnet-netcheck"
for t in ip ethtool ping arping python3; do
	command -v "$t" >/dev/null 2>&1 || { echo "net_veth: needs $t; skipped"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "net_veth: needs root; skipped"; exit 77; }

tag=lnv$$ x=$(( $$ % 200 + 20 ))
ip_pmd=198.18.$x.1 ip_kern=198.18.$x.2
nsp=${tag}p nsk=${tag}k
on_exit='ip netns pids "$nsp" 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del "$nsp" 2>/dev/null; ip netns del "$nsk" 2>/dev/null'
ip netns add "$nsp" && ip netns add "$nsk" || { echo "net_veth: no namespaces"; exit 1; }
ip -n "$nsp" link add vp type veth peer name vk netns "$nsk"
ip netns exec "$nsp" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip netns exec "$nsk" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip -n "$nsp" link set vp up
ip -n "$nsk" link set vk up
ip -n "$nsk" addr add "$ip_kern/24" dev vk
ip netns exec "$nsk" ethtool -K vk tx off tso off gso off >/dev/null
ip netns exec "$nsp" ethtool -K vp tx off tso off gso off >/dev/null

wait_for() { # file, pattern: until the pattern shows in the file (the process may die first)
	t=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$pid" 2>/dev/null || return 1
		t=$((t + 1)); [ "$t" -lt 600 ] || return 1
		sleep 0.1
	done
}
eal="--no-huge -m 256 --no-pci --no-shconf --no-telemetry -l 0 --log-level=*:warning --file-prefix $tag"

# The stack answers.
ip netns exec "$nsp" "$tool" $eal -- --port "net_af_packet_$tag,iface=vp" --addr "$ip_pmd/24" \
	>"$work/answer.log" 2>&1 &
pid=$!
pids="$pids $pid"
check "lnet-netcheck came up on net_af_packet" wait_for "$work/answer.log" '^ready '
mac=$(sed -n 's/^ready //p' "$work/answer.log")
check "arping from the kernel resolves our MAC ($mac)" \
	sh -c "ip netns exec $nsk arping -c 1 -w 5 -I vk $ip_pmd | grep -qi '$mac'"
check "the kernel pings the stack: 5 of 5 answered" \
	sh -c "ip netns exec $nsk ping -c 5 -i 0.2 -w 10 $ip_pmd | grep -q ' 5 received'"
check "the kernel's neighbour table holds our MAC" \
	sh -c "ip -n $nsk neigh show $ip_pmd | grep -qi '$mac'"
kill -TERM "$pid"
wait "$pid"
check "lnet-netcheck ended cleanly on SIGTERM" test $? -eq 0
counter() { sed -n "s/^$2 //p" "$1"; }
check "it answered the echo requests" test "$(counter "$work/answer.log" icmp_echo_tx)" -ge 5
check "it answered ARP" test "$(counter "$work/answer.log" arp_reply_tx)" -ge 1
check "it announced itself" test "$(counter "$work/answer.log" garp_tx)" -ge 1
check "no bad IPv4 checksum reached it" test "$(counter "$work/answer.log" rx_bad_cksum)" -eq 0

# The stack asks: its ARP request, then echo requests the kernel answers.
ip -n "$nsk" neigh flush dev vk
ip netns exec "$nsk" nstat -n >/dev/null 2>&1
ip netns exec "$nsp" "$tool" $eal -- --port "net_af_packet_$tag,iface=vp" --addr "$ip_pmd/24" \
	--ping "$ip_kern" --count 3 >"$work/ping.log" 2>&1
rc=$?
check "the stack pings the kernel: 3 of 3 answered, exit $rc" \
	sh -c "[ $rc -eq 0 ] && grep -q '^ping: 3 sent, 3 replies' '$work/ping.log'"
check "it resolved the kernel's MAC" test "$(counter "$work/ping.log" arp_reply_rx)" -ge 1
check "the kernel saw no bad ICMP checksum" \
	sh -c "! ip netns exec $nsk nstat -az IcmpInCsumErrors | grep -Eq 'IcmpInCsumErrors +[1-9]'"

# TCP (drivers/net/tcp) against Linux's, on net_af_packet: a Linux client
# sends 1 MiB to the stack's echo and checks every byte back; then the stack
# connects to a Linux echo server and does the same.
cat >"$work/tcp_client.py" <<'PY'
import socket, sys, threading
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = bytes((i * 7 + (i >> 11)) & 0xff for i in range(n))
s = socket.create_connection((host, port), timeout=30)
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
c.settimeout(30)
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
ip -n "$nsk" neigh flush dev vk
ip netns exec "$nsk" nstat -n >/dev/null 2>&1
ip netns exec "$nsp" "$tool" $eal -- --port "net_af_packet_$tag,iface=vp" --addr "$ip_pmd/24" \
	--tcp-echo 7 >"$work/tcp_echo.log" 2>&1 &
pid=$!
pids="$pids $pid"
check "lnet-netcheck came up as a TCP echo" wait_for "$work/tcp_echo.log" '^ready '
check "a Linux client gets its 1 MiB back from the stack's TCP, verified" \
	timeout 60 ip netns exec "$nsk" python3 "$work/tcp_client.py" "$ip_pmd" 7 1048576
kill -TERM "$pid"
wait "$pid"
check "tcp echo: lnet-netcheck ended cleanly on SIGTERM" test $? -eq 0
check "tcp echo: it accepted the connection" test "$(counter "$work/tcp_echo.log" opened)" -eq 1
check "tcp echo: no bad TCP segment reached it" test "$(counter "$work/tcp_echo.log" rx_bad)" -eq 0
ip netns exec "$nsk" python3 "$work/tcp_echo.py" "$ip_kern" 7007 >"$work/linux_echo.log" 2>&1 &
pid=$!
pids="$pids $pid"
check "a Linux echo server listens" wait_for "$work/linux_echo.log" '^listening'
timeout 60 ip netns exec "$nsp" "$tool" $eal -- --port "net_af_packet_$tag,iface=vp" \
	--addr "$ip_pmd/24" --tcp-send "$ip_kern:7007" --bytes 1048576 >"$work/tcp_send.log" 2>&1
rc=$?
check "the stack sends 1 MiB to a Linux echo and gets it back verified, exit $rc" \
	sh -c "[ $rc -eq 0 ] && grep -q '^tcp: sent 1048576, echoed 1048576, verified' '$work/tcp_send.log'"
wait "$pid"
check "the Linux echo server saw it all" grep -q '^echoed 1048576' "$work/linux_echo.log"
check "the kernel saw no bad TCP checksum" \
	sh -c "! ip netns exec $nsk nstat -az TcpInCsumErrors | grep -Eq 'TcpInCsumErrors +[1-9]'"

# The same port on net_af_xdp (native XDP on the veth): the kernel pings
# the stack, the stack pings the kernel. libxdp 1.3 leaves its umem
# descriptor allocated at exit (xsk_umem__create): not ours, suppressed.
printf 'leak:xsk_umem__create\n' >"$work/lsan.supp"
ip -n "$nsk" neigh flush dev vk
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$work/lsan.supp" \
	ip netns exec "$nsp" "$tool" $eal -- --port "net_af_xdp_$tag,iface=vp" --addr "$ip_pmd/24" \
	>"$work/xdp.log" 2>&1 &
pid=$!
pids="$pids $pid"
check "lnet-netcheck came up on net_af_xdp" wait_for "$work/xdp.log" '^ready '
check "af_xdp: the kernel pings the stack: 3 of 3 answered" \
	sh -c "ip netns exec $nsk ping -c 3 -i 0.2 -w 10 $ip_pmd | grep -q ' 3 received'"
kill -TERM "$pid"
wait "$pid"
check "af_xdp: lnet-netcheck ended cleanly on SIGTERM" test $? -eq 0
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$work/lsan.supp" \
	ip netns exec "$nsp" "$tool" $eal -- --port "net_af_xdp_$tag,iface=vp" --addr "$ip_pmd/24" \
	--ping "$ip_kern" --count 3 >"$work/xdp_ping.log" 2>&1
rc=$?
check "af_xdp: the stack pings the kernel: 3 of 3 answered, exit $rc" \
	sh -c "[ $rc -eq 0 ] && grep -q '^ping: 3 sent, 3 replies' '$work/xdp_ping.log'"

[ -z "${LNP_KEEP_WORK:-}" ] || cat "$work/answer.log" "$work/ping.log" "$work/xdp.log" \
	"$work/xdp_ping.log" "$work/tcp_echo.log" "$work/tcp_send.log" "$work/linux_echo.log"
finish net_veth
