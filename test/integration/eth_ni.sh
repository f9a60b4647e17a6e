#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# An eth NI: lnetd-pmd P runs its tcp NI on the userspace TCP over
# net_af_packet bound to one end of a veth pair (its ports: section, then a
# net on interface eth0, the port's name); lnetd-pmd K, in the other
# namespace, runs socklnd over the kernel's TCP on the other end. Neither
# can tell: they ping each other (the kernel's ping shape), and lst moves
# 1 MiB bulks both ways with check=full (brw write and read from K to P,
# and from P to K) with no error node; both stop cleanly. The kernel's end
# has its offloads off (a checksum left partial would reach AF_PACKET as
# such) and P's end carries no kernel address and no IPv6.
# lnetctl capture on P's eth NI writes what a socket NI's would: tshark
# decodes every LNet message of it, bytes balanced per stream. Pings go on
# across a veth bounce. Then 1% of the frames each way are dropped
# (loss_1pct.bpf.c on K's end) and 4 KiB and 1 MiB bulks both ways, written
# and read, all check out.
#   eth_ni.sh BUILD_DIR SRC_DIR     (needs root, iproute2, ethtool, tshark, clang)
set -u
build=$1
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/../common/tshark_lib.sh"
lst="$build/apps/lst/lst"
netns_script eth_ni lne
for tool in ethtool tshark clang; do
	command -v "$tool" >/dev/null 2>&1 || { echo "eth_ni: needs $tool; skipped"; exit 77; }
done
ipk=10.79.$x.1 ipp=10.79.$x.2

topology() {
	ip netns add "${tag}k" && nss="${tag}k" && ip netns add "${tag}p" && nss="$nss ${tag}p" &&
		ip -n "${tag}p" link add vp type veth peer name vk netns "${tag}k" &&
		ip netns exec "${tag}p" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 &&
		ip -n "${tag}k" link set lo up && ip -n "${tag}p" link set lo up &&
		ip -n "${tag}k" addr add "$ipk/24" dev vk &&
		ip -n "${tag}k" link set vk up && ip -n "${tag}p" link set vp up &&
		ip netns exec "${tag}k" ethtool -K vk tx off tso off gso off >/dev/null &&
		ip netns exec "${tag}p" ethtool -K vp tx off tso off gso off >/dev/null
}

p_config() {
	cat >"$work/p.yaml" <<EOF
ports:
  - name: eth0
    device: net_af_packet_$tag,iface=vp
    address: $ipp/24
net:
  - net type: tcp
    local NI(s):
      - interfaces:
          0: eth0
EOF
}

ping_is() { # from-letter, to-ip: the kernel's ping shape
	printf 'ping:\n- primary nid: %s@tcp\n  Multi-Rail: false\n  peer_ni:\n  - nid: %s@tcp\n' \
		"$2" "$2" >"$work/want"
	"$ctl" --name "$tag$1" ping "$2@tcp" >"$work/got" 2>&1 && cmp -s "$work/want" "$work/got" ||
		{ diff "$work/want" "$work/got"; return 1; }
}

lst_on_k() { # lst with K as console; stdout in $work/o, stderr in $work/e
	LNETCTL_NAME=${tag}k "$lst" "$@" >"$work/o" 2>"$work/e"
}
lst_ok() { # exit 0, stdout exactly the one line given ("" none), stderr empty
	lst_on_k "$@" && [ ! -s "$work/e" ] || { cat "$work/o" "$work/e"; return 1; }
}
lst_says() { # line, then lst's arguments
	want_=$1
	shift
	lst_ok "$@" && printf '%s\n' "$want_" | cmp -s - "$work/o" || { cat "$work/o"; return 1; }
}
batch_ended() {
	lst_on_k query "$1" && grep -qx "$1 \[0\] is stopped" "$work/o"
}

export LST_SESSION=$$
check "topology: a veth pair, K's end addressed, offloads off" topology
check "P's configuration: a port and a net on it" p_config
daemon_in_ns() { # letter, then the daemon's options
	d_=$1
	shift
	DAEMON_PREFIX="ip netns exec $tag$d_" start_daemon "$tag$d_" "$@"
}
check "daemon K (kernel sockets) --selftest" daemon_in_ns k --selftest
pid_k=$pid
check "K: $ipk@tcp" "$ctl" --name "${tag}k" net add --nid "$ipk@tcp"
check "daemon P (an eth NI on net_af_packet) --selftest --config" \
	daemon_in_ns p --selftest --config "$work/p.yaml"
pid_p=$pid
check "P: its NI is the port's address, on interface eth0" sh -c \
	"'$ctl' --name '${tag}p' net show -v --net tcp >'$work/ns' && grep -q 'nid: $ipp@tcp' '$work/ns' && grep -q '0: eth0' '$work/ns' || { cat '$work/ns'; false; }"
check "net show -v names each NI's transport: eth on P, socket on K" sh -c \
	"'$ctl' --name '${tag}p' net show -v --net tcp | grep -qx '            transport: eth' && '$ctl' --name '${tag}k' net show -v --net tcp | grep -qx '            transport: socket'"
# P's eth NI's streams as a socket NI's are captured: same framing, checked by tshark below.
check "lnetctl capture on P's eth NI" "$ctl" --name "${tag}p" capture start --file "$work/p.pcap"
check "K pings P" ping_is k "$ipp"
check "P pings K" ping_is p "$ipk"

check "new_session on K" lst_ok new_session ethni
check "add_group p" lst_says "$ipp@tcp are added to session" add_group p "$ipp@tcp"
check "add_group k" lst_says "$ipk@tcp are added to session" add_group k "$ipk@tcp"
check "add_batch b" lst_ok add_batch b
for t in "brw write size=1M check=full" "brw read size=1M check=full"; do
	# shellcheck disable=SC2086
	check "K to P: add_test --loop 8 $t" lst_says "Test was added successfully" add_test \
		--batch b --loop 8 --concurrency 2 --from k --to p $t
	# shellcheck disable=SC2086
	check "P to K: add_test --loop 8 $t" lst_says "Test was added successfully" add_test \
		--batch b --loop 8 --concurrency 2 --from p --to k $t
done
check "run b" lst_says "b is running now" run b
check "b: its loops end" eventually 120 batch_ended b
check "show_error p: none (every bulk checked)" sh -c \
	"LNETCTL_NAME=${tag}k '$lst' show_error p >'$work/o' 2>&1; grep -qx 'Total 0 error nodes in p' '$work/o' || { cat '$work/o'; false; }"
check "show_error k: none" sh -c \
	"LNETCTL_NAME=${tag}k '$lst' show_error k >'$work/o' 2>&1; grep -qx 'Total 0 error nodes in k' '$work/o' || { cat '$work/o'; false; }"
check "end_session" lst_ok end_session
check "P's capture stops: nothing dropped" sh -c "'$ctl' --name '${tag}p' capture stop | grep -q 'dropped: 0'"
check "tshark on P's capture: every LNet message decoded, nothing malformed, bytes balanced" \
	tshark_check_file "$work/p.pcap"
check "P's capture holds both ends' addresses and the acceptor port" sh -c \
	"tshark -n -r '$work/p.pcap' -Y 'ip.addr==$ipp && ip.addr==$ipk && tcp.port==988' -c 1 | grep -q ."
check "P's NI received the tests' messages: at least 32" sh -c \
	"'$ctl' --name '${tag}p' net show -v --net tcp | sed -n 's/^ *recv_count: //p' | awk '{ exit !(\$1 >= 32) }'"
# A link bounce under the eth NI: the veth down then up, and traffic goes
# on (K's socket NI follows its link; P's connections to K are renewed).
# net_af_packet reports no link changes to net_port (its link stays up),
# so that the NI follows its port's link is checked on a ring port, whose
# link does change: lnd_socklnd_utcp's test_port_link_drives_ni.
pings() { # from-letter, to-ip: a ping answered (Multi-Rail may have come with the bounce)
	"$ctl" --name "$tag$1" ping "$2@tcp" 2>&1 | grep -q "nid: $2@tcp"
}
bounce_then_pings() {
	ip -n "${tag}p" link set vp down && ip -n "${tag}p" link set vp up &&
		eventually 30 pings k "$ipp" && eventually 30 pings p "$ipk"
}
check "the veth down and up: K pings P, P pings K" bounce_then_pings
# 1% of the frames each way dropped (cls_bpf on K's end, egress and
# ingress): the eth NI's TCP recovers them; every bulk still checks out.
loss_on() {
	clang -O2 -target bpf -c "$(dirname "$0")/loss_1pct.bpf.c" -o "$work/loss.o" &&
		ip netns exec "${tag}k" tc qdisc add dev vk clsact &&
		ip netns exec "${tag}k" tc filter add dev vk egress bpf da obj "$work/loss.o" sec classifier &&
		ip netns exec "${tag}k" tc filter add dev vk ingress bpf da obj "$work/loss.o" sec classifier
}
loss_dropped() { # the clsact qdisc counted frames the filters shot
	ip netns exec "${tag}k" tc -s qdisc show dev vk >"$work/q" &&
		grep -o 'dropped [0-9]*' "$work/q" | awk '{ d += $2 } END { exit !(d > 0) }' ||
		{ cat "$work/q"; return 1; }
}
check "1% loss each way on the veth (cls_bpf)" loss_on
check "new_session on K, under loss" lst_ok new_session ethniloss
check "add_group p" lst_says "$ipp@tcp are added to session" add_group p "$ipp@tcp"
check "add_group k" lst_says "$ipk@tcp are added to session" add_group k "$ipk@tcp"
check "add_batch l" lst_ok add_batch l
for t in "brw write size=4k check=full" "brw read size=4k check=full" \
	"brw write size=1M check=full" "brw read size=1M check=full"; do
	# shellcheck disable=SC2086
	check "under loss, K to P: add_test --loop 8 $t" lst_says "Test was added successfully" \
		add_test --batch l --loop 8 --concurrency 2 --from k --to p $t
	# shellcheck disable=SC2086
	check "under loss, P to K: add_test --loop 8 $t" lst_says "Test was added successfully" \
		add_test --batch l --loop 8 --concurrency 2 --from p --to k $t
done
check "run l" lst_says "l is running now" run l
check "l: its loops end" eventually 180 batch_ended l
check "under loss, show_error p: none (every bulk checked)" sh -c \
	"LNETCTL_NAME=${tag}k '$lst' show_error p >'$work/o' 2>&1; grep -qx 'Total 0 error nodes in p' '$work/o' || { cat '$work/o'; false; }"
check "under loss, show_error k: none" sh -c \
	"LNETCTL_NAME=${tag}k '$lst' show_error k >'$work/o' 2>&1; grep -qx 'Total 0 error nodes in k' '$work/o' || { cat '$work/o'; false; }"
check "end_session" lst_ok end_session
check "the loss was real: the filters dropped frames" loss_dropped
check "daemon P stops cleanly on SIGTERM" stop_daemon "$pid_p"
check "daemon K stops cleanly on SIGTERM" stop_daemon "$pid_k"
finish eth_ni
