#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Outside-in cases with scapy (net_scapy.py) against the userspace stack:
# lnet-netcheck runs it on net_af_packet (a TCP echo on port 7) at one end
# of a veth pair in a namespace of its own; scapy at the other end, in a
# second namespace, sends crafted frames from an address no kernel holds
# (the kernel there stays out of the conversations). Only test addresses,
# only inside the two namespaces, which go with the test.
#   net_scapy.sh BUILD_DIR SRC_DIR   (needs root, iproute2, ethtool, Debian's python3-scapy)
set -u
build=$1 src=$2
. "$src/harness.sh"
tool="$build/apps/lnet-netcheck/lnet-netcheck"
py=/usr/bin/python3
for t in ip ethtool "$py"; do
	command -v "$t" >/dev/null 2>&1 || { echo "net_scapy: needs $t; skipped"; exit 77; }
done
"$py" -c 'import scapy' 2>/dev/null || { echo "net_scapy: needs python3-scapy; skipped"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "net_scapy: needs root; skipped"; exit 77; }

tag=lns$$ x=$(( $$ % 200 + 20 ))
ip_pmd=198.20.$x.1 ip_kern=198.20.$x.2 ip_scapy=198.20.$x.3
nsp=${tag}p nsk=${tag}k
on_exit='ip netns pids "$nsp" 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del "$nsp" 2>/dev/null; ip netns del "$nsk" 2>/dev/null'
ip netns add "$nsp" && ip netns add "$nsk" || { echo "net_scapy: no namespaces"; exit 1; }
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
ip netns exec "$nsp" "$tool" $eal -- --port "net_af_packet_$tag,iface=vp" --addr "$ip_pmd/24" \
	--tcp-echo 7 >"$work/stack.log" 2>&1 &
pid=$!
pids="$pids $pid"
check "lnet-netcheck came up as a TCP echo" wait_for "$work/stack.log" '^ready '
timeout 120 ip netns exec "$nsk" "$py" "$src/net_scapy.py" vk "$ip_scapy" "$ip_pmd" 7 9 >"$work/scapy.log" 2>&1
rc=$?
cat "$work/scapy.log"
check "every scapy case passed, exit $rc" sh -c "[ $rc -eq 0 ] && grep -q ' 0 failed$' '$work/scapy.log'"
kill -TERM "$pid"
wait "$pid"
check "lnet-netcheck ended cleanly on SIGTERM" test $? -eq 0
[ -z "${LNP_KEEP_WORK:-}" ] || cat "$work/stack.log"
finish net_scapy
