#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A router with one eth NI and one socket NI forwards 1 MiB PUTs, verified:
#
#   C: client app 10.X.1.1@tcp (kernel sockets)  --veth--  R's port eth0
#   R: lnetd-pmd, eth NI 10.X.1.2@tcp on net_af_packet (its end: no kernel
#      address, offloads off on C's end), socket NI 10.X.2.2@tcp1, routing 1
#   S: server app 10.X.2.1@tcp1 (kernel sockets)  --veth--  R's 10.X.2.2
#
# C's route to tcp1 and S's to tcp go through R. The client PUTs and GETs
# 0 B, 4 KiB and 1 MiB (every byte compared) and R's route_count grows by
# what it forwarded.
#   eth_router.sh BUILD_DIR SRC_DIR     (needs root, iproute2, ethtool)
set -u
build=$1
. "$(dirname "$0")/harness.sh"
netns_script eth_router ler
command -v ethtool >/dev/null 2>&1 || { echo "eth_router: needs ethtool; skipped"; exit 77; }
node="$build/test/integration/lnet_node"
ipc=10.$x.1.1 ipr=10.$x.1.2 irb=10.$x.2.2 ips=10.$x.2.1
fast=alive_router_check_interval=2,router_ping_timeout=1

topology() {
	for l in c r s; do
		ip netns add "$tag$l" && nss="$nss $tag$l" && ip -n "$tag$l" link set lo up || return 1
	done
	ip -n "${tag}r" link add vr type veth peer name vc netns "${tag}c" &&
		ip -n "${tag}r" link add vrs type veth peer name vs netns "${tag}s" &&
		ip netns exec "${tag}r" sysctl -qw net.ipv6.conf.vr.disable_ipv6=1 &&
		ip -n "${tag}c" addr add "$ipc/24" dev vc && ip -n "${tag}c" link set vc up &&
		ip -n "${tag}r" link set vr up &&
		ip -n "${tag}r" addr add "$irb/24" dev vrs && ip -n "${tag}r" link set vrs up &&
		ip -n "${tag}s" addr add "$ips/24" dev vs && ip -n "${tag}s" link set vs up &&
		ip netns exec "${tag}c" ethtool -K vc tx off tso off gso off >/dev/null &&
		ip netns exec "${tag}r" ethtool -K vr tx off tso off gso off >/dev/null
}

r_config() {
	cat >"$work/r.yaml" <<EOF
ports:
  - name: eth0
    device: net_af_packet_$tag,iface=vr
    address: $ipr/24
net:
  - net type: tcp
    local NI(s):
      - interfaces:
          0: eth0
  - net type: tcp1
    local NI(s):
      - nid: $irb@tcp1
EOF
}

lc() { "$ctl" --name "${tag}r" "$@"; }
route_count() { v_=$(lc stats show 2>/dev/null | sed -n 's/^    route_count: //p'); echo "${v_:-0}"; }
routing_on() { lc routing show 2>/dev/null | grep -q '^    - enable: 1$'; }
transports() { # the two NIs, one on each transport
	lc net show -v >"$work/ns" && grep -qx '            transport: eth' "$work/ns" &&
		grep -qx '            transport: socket' "$work/ns" || { cat "$work/ns"; return 1; }
}

server_up() {
	ip netns exec "${tag}s" "$node" serve --nid "$ips@tcp1" --route "tcp:$irb@tcp1" >"$work/s.out" 2>&1 &
	pids="$pids $!"
	eventually 30 grep -q '^serving:' "$work/s.out" || { cat "$work/s.out"; return 1; }
}
value() { sed -n "s/^    $1: //p" "$work/c.out" | head -1; }
client_verified() { # COUNT
	ip netns exec "${tag}c" "$node" client --nid "$ipc@tcp" --peer "$ips@tcp1" \
		--route "tcp1:$ipr@tcp" --sizes 0,4096,1048576 --count "$1" --inflight 4 \
		>"$work/c.out" 2>"$work/c.err" &&
		[ "$(value verified)" = "$1" ] && [ "$(value failed)" = 0 ] && [ "$(value mismatched)" = 0 ] ||
		{ tail -n 20 "$work/c.out" "$work/c.err"; return 1; }
}
forwarded_since() { [ $(( $(route_count) - $1 )) -ge "$2" ]; }

check "topology: C --veth-- R --veth-- S, R's C side an af_packet port" topology
check "R's configuration: a port with an eth NI on tcp, a socket NI on tcp1" r_config
r_up() { DAEMON_PREFIX="ip netns exec ${tag}r" start_daemon "${tag}r" --config "$work/r.yaml" --lnet-params "$fast"; }
check "router R starts" r_up
pid_r=$pid
check "R's NIs: one eth, one socket (net show -v)" transports
check "set routing 1 on R" lc set routing 1
check "R routes once its checks have passed" eventually 15 routing_on
check "server S on $ips@tcp1, routed to tcp through R" server_up
before=$(route_count)
check "client C PUTs and GETs 0 B, 4 KiB, 1 MiB to S through R: 60 verified" client_verified 60
check "R forwarded them (route_count grew by 4 per operation at least)" forwarded_since "$before" 240
check "router R stops cleanly on SIGTERM" stop_daemon "$pid_r"
finish eth_router
