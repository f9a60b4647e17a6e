#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Our ksocklnd bytes on a real link, checked by Wireshark's LNet dissector
# (shared/reference/wireshark-oracle.md). Two network namespaces joined by a
# veth pair: daemon A and a client application (lnet_node) in one, daemon B
# and a server application in the other. tcpdump records the veth while
# `lnetctl capture` records A's NI. Then:
#   - both files parse byte by byte: acceptor requests, hellos naming the
#     stream's own addresses, whole ksock messages (pcap_check.py);
#   - both pass the tshark check: every PDU decodes, no expert item, TCP
#     bytes balanced against PDU sizes per stream and direction;
#   - A's LNet headers in the capture command's file equal the wire's;
#   - every PUT and GET header the client logged as it sent it is on the
#     wire with the same values, and nothing else came from it but its
#     discovery of the server (one ping, one push).
#   tshark_veth.sh BUILD_DIR SRC_DIR     (needs root, iproute2, tcpdump, tshark)
set -u
build=$1 src=$2
. "$src/harness.sh"
. "$src/../common/tshark_lib.sh"
node="$build/test/integration/lnet_node"
check_py="$src/../common/pcap_check.py"

for tool in ip tcpdump tshark; do
	command -v "$tool" >/dev/null 2>&1 || { echo "tshark_veth: needs $tool; skipped"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "tshark_veth: needs root; skipped"; exit 77; }

tag=lnw$$ net=10.78.$(( $$ % 200 + 20 ))
ipa=$net.1 ipb=$net.2 ipk=$net.11 ips=$net.12
nss=""
on_exit='for n in $nss; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del "$n" 2>/dev/null; done'

topology() {
	ip netns add "${tag}a" && nss="${tag}a" && ip netns add "${tag}b" && nss="$nss ${tag}b" &&
		ip -n "${tag}a" link add eth0 type veth peer name eth0 netns "${tag}b" &&
		ip -n "${tag}a" link set lo up && ip -n "${tag}b" link set lo up &&
		ip -n "${tag}a" addr add "$ipa/24" dev eth0 && ip -n "${tag}a" addr add "$ipk/24" dev eth0 &&
		ip -n "${tag}b" addr add "$ipb/24" dev eth0 && ip -n "${tag}b" addr add "$ips/24" dev eth0 &&
		ip -n "${tag}a" link set eth0 up && ip -n "${tag}b" link set eth0 up
}

daemon_up() { # letter ip
	DAEMON_PREFIX="ip netns exec $tag$1" start_daemon "$tag$1" &&
		"$ctl" --name "$tag$1" net add --nid "$2@tcp"
}

ping_is() { # from-letter to-ip
	"$ctl" --name "$tag$1" ping "$2@tcp" | grep -q "nid: $2@tcp"
}

data_traffic() {
	ip netns exec "${tag}b" "$node" serve --nid "$ips@tcp" >"$work/s.out" 2>&1 &
	spid=$!
	pids="$pids $spid"
	eventually 30 grep -q '^serving:' "$work/s.out" || { cat "$work/s.out"; return 1; }
	ip netns exec "${tag}a" "$node" client --nid "$ipk@tcp" --peer "$ips@tcp" \
		--sizes 0,1,4096,1048576 --count 40 --inflight 4 --log "$work/client.log" >"$work/c.out" 2>&1
}

# The LNet headers that daemons A and B sent, as Wireshark reads them from a file.
daemon_headers() {
	tshark_headers "$1" | awk -F'|' -v a="$ipa" -v b="$ipb" '$7 == a || $7 == b'
}

# Besides what it logged, the client's LNet discovered the server's first, as
# a kernel node would: one ping (GET of 272 bytes) and one push (PUT of its
# 48-byte ping info), both on portal 0 with the ping match bits, and the ACK
# of the server's push back.
client_sent_what_it_logged() {
	tshark_headers "$work/wire.pcap" --src "$ipk" | cut -d'|' -f1-6 | sort >"$work/wire.all"
	grep -v '^[0-9]*|[0-9]*|[-0]|0x8000000000000000|' "$work/wire.all" >"$work/wire.client"
	grep '^[0-9]*|[0-9]*|[-0]|0x8000000000000000|' "$work/wire.all" >"$work/wire.disc"
	sort "$work/client.log" >"$work/logged"
	printf '0|0|-|0x8000000000000000|-|-\n1|48|0|0x8000000000000000|0|-\n2|0|0|0x8000000000000000|0|272\n' >"$work/disc.want"
	[ "$(wc -l <"$work/logged")" -eq 80 ] && cmp -s "$work/logged" "$work/wire.client" &&
		cmp -s "$work/disc.want" "$work/wire.disc" ||
		{ diff "$work/logged" "$work/wire.client" | head; diff "$work/disc.want" "$work/wire.disc"; return 1; }
}

check "topology: two namespaces joined by a veth pair" topology
check "tcpdump on the veth" tcpdump_start "${tag}a" eth0 "$work/wire.pcap"
check "daemon A on $ipa" daemon_up a "$ipa"
check "daemon B on $ipb" daemon_up b "$ipb"
check "lnetctl capture on A" "$ctl" --name "${tag}a" capture start --file "$work/ours.pcap"
check "A pings B" ping_is a "$ipb"
check "B pings A" ping_is b "$ipa"
check "A pings B again" ping_is a "$ipb"
check "an application PUTs and GETs 0 B to 1 MiB through the veth, data verified" data_traffic
check "capture stop: nothing dropped" sh -c "'$ctl' --name '${tag}a' capture stop | grep -q 'dropped: 0'"
check "tcpdump lost nothing (its 128 MiB buffer held every packet)" tcpdump_stop "$work/wire.pcap"

check "tcpdump's file parses byte by byte: 4 connections (12 streams), their requests and hellos" sh -c \
	"python3 '$check_py' --no-sums '$work/wire.pcap' | tee '$work/wire.check' | grep -q '^streams 12 connreqs 6 hellos 12 msgs'"
check "the capture command's file parses the same way, checksums included: A's 3 connections" sh -c \
	"python3 '$check_py' '$work/ours.pcap' | tee '$work/ours.check' | grep -q '^streams 6 connreqs 3 hellos 6 msgs'"
check "tshark on tcpdump's file: all decoded, nothing malformed, bytes balanced" tshark_check_file "$work/wire.pcap"
check "tshark on the capture command's file: the same" tshark_check_file "$work/ours.pcap"
daemon_headers "$work/wire.pcap" >"$work/h.wire"
daemon_headers "$work/ours.pcap" >"$work/h.ours"
check "the daemons' LNet headers: the capture command's equal the wire's" sh -c \
	"[ -s '$work/h.ours' ] && cmp '$work/h.wire' '$work/h.ours'"
check "3 GETs and 3 REPLYs of ping between the daemons" sh -c \
	"[ \$(grep -c '^2|' '$work/h.wire') -eq 3 ] && [ \$(grep -c '^3|' '$work/h.wire') -eq 3 ]"
check "every PUT and GET header the client logged is on the wire, and only its discovery else" \
	client_sent_what_it_logged
finish tshark_veth
