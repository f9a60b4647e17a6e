#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# IPv6 neighbour discovery of the userspace IP stack (drivers/net) against
# Linux: lnet-netcheck runs it on net_af_packet bound to one end of a veth
# pair, in a namespace of its own, with an IPv6 address besides its
# link-local one; the kernel at the other end, in a second namespace,
# resolves both (its ping -6 sends the solicitations; the stack does not
# answer echo over IPv6 yet, so only the resolution and the echo request's
# arrival are checked), and then tries to take the stack's address for
# itself: its DAD must fail, since the stack defends it. Then the stack
# probes for Linux's address and must give it up. Only test
# addresses, only inside the two namespaces, which go with the test.
# The kernel's own address is added with nodad: Linux would otherwise hold
# it tentative for a second of DAD, and the test is about the stack's
# answers, not Linux's probing. The PMD's interface has IPv6 off so that the
# kernel there stays silent.
#   net_veth6.sh BUILD_DIR SRC_DIR     (needs root, iproute2, ethtool, ping, python3)
set -u
build=$1 src=$2
. "$src/harness.sh"
tool="$build/apps/lnet-netcheck/lnet-netcheck"
for t in ip ethtool ping python3 nstat; do
	command -v "$t" >/dev/null 2>&1 || { echo "net_veth6: needs $t; skipped"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "net_veth6: needs root; skipped"; exit 77; }

tag=lv6$$ x=$(( $$ % 200 + 20 ))
ip_pmd=198.18.$x.1
ip6_pmd=fd00:198:18:$x::1 ip6_kern=fd00:198:18:$x::2 ip6_other=fd00:198:18:$x::3
nsp=${tag}p nsk=${tag}k
on_exit='ip netns pids "$nsp" 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del "$nsp" 2>/dev/null; ip netns del "$nsk" 2>/dev/null'
ip netns add "$nsp" && ip netns add "$nsk" || { echo "net_veth6: no namespaces"; exit 1; }
ip -n "$nsp" link add vp type veth peer name vk netns "$nsk"
ip netns exec "$nsp" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip netns exec "$nsp" sysctl -qw net.ipv6.conf.vp.disable_ipv6=1
ip -n "$nsp" link set vp up
ip -n "$nsk" link set vk up
ip -n "$nsk" -6 addr add "$ip6_kern/64" dev vk nodad
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
until_true() { # a command, retried for up to 10 s
	t=0
	until "$@"; do
		t=$((t + 1)); [ "$t" -lt 100 ] || return 1
		sleep 0.1
	done
}
eal="--no-huge -m 256 --no-pci --no-shconf --no-telemetry -l 0 --log-level=*:warning --file-prefix $tag"

ip netns exec "$nsk" nstat -n >/dev/null 2>&1
ip netns exec "$nsp" "$tool" $eal -- --port "net_af_packet_$tag,iface=vp" --addr "$ip_pmd/24" \
	--addr6 "$ip6_pmd" >"$work/answer.log" 2>&1 &
pid=$!
pids="$pids $pid"
check "lnet-netcheck came up on net_af_packet with $ip6_pmd" wait_for "$work/answer.log" '^ready '
mac=$(sed -n 's/^ready //p' "$work/answer.log")
ll_pmd=$(python3 -c "
m = bytes.fromhex('$mac'.replace(':', ''))
e = bytes([m[0] ^ 2]) + m[1:3] + b'\xff\xfe' + m[3:]
import ipaddress; print(ipaddress.IPv6Address(b'\xfe\x80' + bytes(6) + e))")

# The kernel's echo requests go out only once it resolved the address.
ip netns exec "$nsk" ping -6 -c 1 -W 2 "$ip6_pmd" >/dev/null 2>&1
ip netns exec "$nsk" ping -6 -c 1 -W 2 "$ll_pmd%vk" >/dev/null 2>&1
resolved() { ip -n "$nsk" -6 neigh show "$1" dev vk | grep -i "$mac" | grep -Eq 'REACHABLE|STALE|DELAY|PROBE'; }
check "the kernel resolved $ip6_pmd to our MAC ($mac)" resolved "$ip6_pmd"
check "the kernel resolved our link-local $ll_pmd to our MAC" resolved "$ll_pmd"

# Linux probes for the stack's address (DAD): the stack's answer makes it fail.
ip -n "$nsk" -6 addr add "$ip6_pmd/64" dev vk
dad_failed() { ip -n "$nsk" -6 addr show dev vk | grep -A1 "$ip6_pmd/64" | grep -q dadfailed; }
check "the kernel's DAD for $ip6_pmd fails: the stack defends it" until_true dad_failed
# An address the stack does not hold passes.
ip -n "$nsk" -6 addr add "$ip6_other/64" dev vk
other_ok() { ip -n "$nsk" -6 addr show dev vk | grep -A1 "$ip6_other/64" | grep -vq tentative; }
check "the kernel's DAD for $ip6_other (not ours) succeeds" until_true other_ok

kill -TERM "$pid"
wait "$pid"
check "lnet-netcheck ended cleanly on SIGTERM" test $? -eq 0
counter() { sed -n "s/^$2 //p" "$1"; }
check "it answered solicitations" test "$(counter "$work/answer.log" nd_na_tx)" -ge 3
check "the kernel's echo requests reached it, checksums right" \
	test "$(counter "$work/answer.log" icmp6_echo_rx)" -ge 2
check "no bad ICMPv6 reached it" test "$(counter "$work/answer.log" icmp6_bad)" -eq 0
check "no bad ND message reached it" test "$(counter "$work/answer.log" nd_bad)" -eq 0
check "the kernel saw no bad ICMPv6 checksum" \
	sh -c "! ip netns exec $nsk nstat -az Icmp6InCsumErrors | grep -Eq 'Icmp6InCsumErrors +[1-9]'"
check "the kernel took our advertisements" \
	sh -c "ip netns exec $nsk nstat -az Icmp6InNeighborAdvertisements | grep -Eq 'Icmp6InNeighborAdvertisements +[1-9]'"

check "it ran DAD for both its addresses" test "$(counter "$work/answer.log" nd_dad_ns_tx)" -ge 2

# The other way round: the stack probes for an address Linux holds, and gives it up.
ip netns exec "$nsp" "$tool" $eal -- --port "net_af_packet_$tag,iface=vp" --addr "$ip_pmd/24" \
	--addr6 "$ip6_kern" >"$work/dup.log" 2>&1 &
pid=$!
pids="$pids $pid"
check "lnet-netcheck came up after DAD for $ip6_kern" wait_for "$work/dup.log" '^ready '
kill -TERM "$pid"
wait "$pid"
check "dup: lnet-netcheck ended cleanly on SIGTERM" test $? -eq 0
check "its DAD found Linux holds $ip6_kern" test "$(counter "$work/dup.log" nd_dup_addr)" -eq 1
check "dup: no bad ND message reached it" test "$(counter "$work/dup.log" nd_bad)" -eq 0

[ -z "${LNP_KEEP_WORK:-}" ] || cat "$work/answer.log" "$work/dup.log"
finish net_veth6
