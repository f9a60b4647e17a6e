#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# IPv6 NIs: socklnd V4 (acceptor request v2 with a 20-byte NID, 80-byte
# hellos, 96-byte LNet headers) between two namespaces joined by a veth pair
# that carries IPv6 only. Daemon A takes its NID from the interface
# (`net add --if eth0`: no IPv4 there, so its global IPv6 address), B from
# --nid. Then: net show names the large NIDs and the interface; ping both
# ways, recorded by tcpdump on the veth and by lnetctl capture (IPv6
# frames), both files checked byte by byte (pcap_check.py; Wireshark's
# dissector knows no V4); an application embedding liblnet PUTs and GETs 0 B to 1 MiB and
# checks every byte; peer show lists the IPv6 peer; a tcp NI of one family
# does not reach a peer of the other; the daemons exit 0 on SIGTERM.
#   ipv6_netns.sh BUILD_DIR SRC_DIR     (needs root, iproute2 and tcpdump)
set -u
build=$1 src=$2
. "$src/harness.sh"
node="$build/test/integration/lnet_node"
check_py="$src/../common/pcap_check.py"
for tool in ip tcpdump; do
	command -v "$tool" >/dev/null 2>&1 || { echo "ipv6_netns: needs $tool; skipped"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "ipv6_netns: needs root; skipped"; exit 77; }

tag=ln6$$ x=$(printf '%x' $(( $$ % 4000 + 16 )))
ipa=fd00:$x::1 ipb=fd00:$x::2 ipk=fd01:$x::11 ips=fd01:$x::12
nss=""
on_exit='for n in $nss; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del "$n" 2>/dev/null; done'

veth() { # name a-address b-address
	ip -n "${tag}a" link add "$1" type veth peer name "$1" netns "${tag}b" &&
		ip -n "${tag}a" addr add "$2/64" dev "$1" nodad &&
		ip -n "${tag}b" addr add "$3/64" dev "$1" nodad &&
		ip -n "${tag}a" link set "$1" up && ip -n "${tag}b" link set "$1" up
}

# eth0 for the daemons (one address each, so --if eth0 has one to take), eth1 for the applications.
topology() {
	ip netns add "${tag}a" && nss="${tag}a" && ip netns add "${tag}b" && nss="$nss ${tag}b" &&
		ip -n "${tag}a" link set lo up && ip -n "${tag}b" link set lo up &&
		veth eth0 "$ipa" "$ipb" && veth eth1 "$ipk" "$ips"
}

daemon_in() { # letter
	DAEMON_PREFIX="ip netns exec $tag$1" start_daemon "$tag$1"
}

ping_is() { # from-letter to-nid; retried while a fresh veth comes up (the peer backs off 1 s)
	i=0
	while [ $i -lt 10 ]; do
		"$ctl" --name "$tag$1" ping "$2" >"$work/ping" 2>&1 && grep -q "nid: $2" "$work/ping" && return 0
		sleep 1
		i=$((i + 1))
	done
	cat "$work/ping"
	return 1
}

data_traffic() {
	ip netns exec "${tag}b" "$node" serve --nid "$ips@tcp" >"$work/s.out" 2>&1 &
	pids="$pids $!"
	eventually 30 grep -q '^serving:' "$work/s.out" || { cat "$work/s.out"; return 1; }
	ip netns exec "${tag}a" "$node" client --nid "$ipk@tcp" --peer "$ips@tcp" \
		--sizes 0,1,4096,1048576 --count 40 --inflight 4 >"$work/c.out" 2>&1 ||
		{ cat "$work/c.out"; return 1; }
	grep -q "verified: 40" "$work/c.out"
}

check "topology: two veth pairs with IPv6 addresses only" topology
check "daemon A" daemon_in a
pid_a=$pid
check "daemon B" daemon_in b
pid_b=$pid
check "A: net add --if eth0 takes its IPv6 address" "$ctl" --name "${tag}a" net add --net tcp --if eth0
check "B: net add --nid $ipb@tcp" "$ctl" --name "${tag}b" net add --nid "$ipb@tcp"
check "A's net show: the large NID on eth0" sh -c \
	"'$ctl' --name ${tag}a net show --net tcp | tr -d '\\n' | grep -q 'nid: $ipa@tcp *status: up *interfaces: *0: eth0'"
check "B's net show: the interface found from the NID" sh -c \
	"'$ctl' --name ${tag}b net show --net tcp | grep -q '0: eth0'"
check "tcpdump on A's eth0" tcpdump_start "${tag}a" eth0 "$work/wire.pcap"
check "lnetctl capture on A" "$ctl" --name "${tag}a" capture start --file "$work/ours.pcap"
check "A pings B over IPv6" ping_is a "$ipb@tcp"
check "B pings A over IPv6" ping_is b "$ipa@tcp"
check "capture stop: nothing dropped" sh -c "'$ctl' --name ${tag}a capture stop | grep -q 'dropped: 0'"
check "tcpdump lost nothing" tcpdump_stop "$work/wire.pcap"
check "tcpdump's file, byte by byte: 3 connections, acceptor requests v2, V4 hellos, 96-byte headers" \
	sh -c "python3 '$check_py' --no-sums '$work/wire.pcap' | grep -q '^streams 6 connreqs 3 hellos 6 msgs'"
check "the capture command's file: the same, as IPv6 frames with good checksums" \
	sh -c "python3 '$check_py' '$work/ours.pcap' | grep -q '^streams 6 connreqs 3 hellos 6 msgs'"
check "A's peer show lists B" sh -c "'$ctl' --name ${tag}a peer show | grep -q 'primary nid: $ipb@tcp'"
check "PUT and GET of 0 B to 1 MiB between applications, every byte compared" data_traffic
check "an IPv4 NID on a net of IPv6 NIs is not reachable: a clear error" sh -c \
	"! '$ctl' --name ${tag}a ping 10.1.2.3@tcp >'$work/p4' 2>&1 && grep -q 'errno: -113' '$work/p4'"
check "SIGTERM: A exits 0" stop_daemon "$pid_a"
check "SIGTERM: B exits 0" stop_daemon "$pid_b"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work'/*.err 2>/dev/null"
finish ipv6_netns
