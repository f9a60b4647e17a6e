#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The shipped config/examples, each started in a network namespace of its
# own whose veth interfaces carry the names the example uses (created and
# deleted here): its NIs come up on those interfaces, its peers are there,
# SIGTERM exits 0. The router and the routed client are joined by a veth
# pair (their eth0): the router routes (routing show), the client's route
# through it comes up. Needs root (ip netns); skipped otherwise.
#   examples_netns.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
examples=$2/../../config/examples
. "$(dirname "$0")/harness.sh"
nss=""
on_exit='for n in $nss; do ip netns pids "$n" 2>/dev/null | xargs -r kill -TERM 2>/dev/null; ip netns del "$n" 2>/dev/null; done'

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
	echo "examples_netns: needs root and iproute2; skipped"
	exit 77
fi

netns_with() { # ns, then "ifname=addr/len" ...
	ns=$1; shift
	ip netns add "$ns" || return 1
	nss="$nss $ns"
	ip -n "$ns" link set lo up
	for spec in "$@"; do
		ifn=${spec%%=*}
		ip -n "$ns" link add "$ifn" type veth peer name "${ifn}p" &&
			ip -n "$ns" addr add "${spec#*=}" dev "$ifn" &&
			ip -n "$ns" link set "$ifn" up && ip -n "$ns" link set "${ifn}p" up || return 1
	done
}

run_example() { # example, ns, daemon options...
	ex=$1 ns=$2; shift 2
	DAEMON_PREFIX="ip netns exec $ns" start_daemon "$ns" --config "$examples/$ex.yaml" "$@"
}

has_ni() { # name, nid, interface
	"$ctl" --name "$1" net show >"$work/ns" 2>&1 &&
		grep -A3 "nid: $2\$" "$work/ns" | grep -q "0: $3\$" || { cat "$work/ns"; return 1; }
}

peers_are() { # name, example
	[ "$("$ctl" --name "$1" peer show | grep -c 'primary nid')" -eq \
	  "$(grep -c '^    - primary nid' "$examples/$2.yaml")" ]
}

stop() { stop_daemon "$1"; }

n=lnp-gw-$$
check "storage-gateway: namespace with ens1f0 and ens2f0" netns_with "$n" ens1f0=10.1.0.1/24 ens2f0=10.1.1.1/24
check "storage-gateway: starts on two CPTs" run_example storage-gateway "$n" --cpu-pattern "0[0] 1[1]"
pid_gw=$pid
check "storage-gateway: a NI on ens1f0" has_ni "$n" 10.1.0.1@tcp ens1f0
check "storage-gateway: a NI on ens2f0" has_ni "$n" 10.1.1.1@tcp ens2f0
check "storage-gateway: one NI per CPT" sh -c \
	"'$ctl' --name '$n' net show -v --net tcp | grep 'CPT:' | tr '\\n' ' ' | grep -q '\"\\[0\\]\".*\"\\[1\\]\"'"
check "storage-gateway: its peers" peers_are "$n" storage-gateway
check "storage-gateway: SIGTERM exits 0" stop "$pid_gw"

n=lnp-mr-$$
check "multirail-client: namespace with eth0 and eth1" netns_with "$n" eth0=192.0.2.1/24 eth1=198.51.100.1/24
check "multirail-client: starts" run_example multirail-client "$n"
pid_mr=$pid
check "multirail-client: a NI on eth0" has_ni "$n" 192.0.2.1@tcp eth0
check "multirail-client: a NI on eth1" has_ni "$n" 198.51.100.1@tcp eth1
check "multirail-client: its peer" peers_are "$n" multirail-client
check "multirail-client: its three UDSP rules" sh -c "[ \"\$('$ctl' --name '$n' udsp show | grep -c '^    - idx:')\" -eq 3 ]"
check "multirail-client: eth0's NI has priority 0" sh -c \
	"'$ctl' --name '$n' net show -v 4 --net tcp | tr -d '\\n' | grep -q 'nid: 192.0.2.1@tcp.*nid priority: 0.*nid: 198.51.100.1@tcp.*nid priority: -1'"
check "multirail-client: each server NID prefers its rail's NI" sh -c \
	"'$ctl' --name '$n' peer show -v 4 | tr -d '\\n' | grep -q 'nid: 192.0.2.12@tcp *udsp info:.*Preferred source NIDs: *NID-0: 192.0.2.1@tcp.*nid: 198.51.100.12@tcp *udsp info:.*Preferred source NIDs: *NID-0: 198.51.100.1@tcp'"
check "multirail-client: SIGTERM exits 0" stop "$pid_mr"

# The router, the routed client and a server, each in a namespace: the
# router's eth0 (tcp) and the client's eth0 are the ends of a veth pair, its
# eth1 (tcp1) and the server's the ends of another. The server is a daemon
# with a tcp1 NI and a route to tcp through the router: its router checks
# keep the router's tcp1 NI up (as the kernel's, a router reports a net on
# which nobody pinged it for a while as down, and routes through it go down).
# All with short router checks (the kernel's 60 + 50 s otherwise): the
# router forwards, and the client's route is up, within seconds.
ns_rt=lnp-rt-$$ ns_rc=lnp-rc-$$ ns_rs=lnp-rs-$$ # (not $n: links_up uses it)
fast=alive_router_check_interval=1,router_ping_timeout=1
namespaces() {
	for ns_ in "$@"; do
		ip netns add "$ns_" && nss="$nss $ns_" && ip -n "$ns_" link set lo up || return 1
	done
}
routing_on() { # routing show: enable 3 (starting) or 1, and the example's buffers
	"$ctl" --name "$ns_rt" routing show >"$work/routing" 2>&1 &&
		grep -Eq '^    - enable: (1|3)$' "$work/routing" &&
		sed -n '/^buffers:$/,$p' "$work/routing" | tr -d '\n' |
		grep -qx 'buffers:    tiny: 512    small: 4096    large: 256' || { cat "$work/routing"; return 1; }
}
server_up() {
	DAEMON_PREFIX="ip netns exec $ns_rs" start_daemon "$ns_rs" --lnet-params "$fast" &&
		"$ctl" --name "$ns_rs" net add --net tcp1 --if eth1 &&
		"$ctl" --name "$ns_rs" route add --net tcp --gateway 192.168.20.1@tcp1
}
route_is() { # state: the routed client's one route, as the example has it
	printf -- 'route:\n-     net: tcp1\n      gateway: 192.168.10.1@tcp\n      hop: -1\n      priority: 0\n      state: %s\n      type: %s\n' \
		"$1" "$2" >"$work/route.want"
	"$ctl" --name "$ns_rc" route show -v >"$work/route" 2>&1 && cmp -s "$work/route.want" "$work/route"
}
check "router, routed-client, server: namespaces" namespaces "$ns_rt" "$ns_rc" "$ns_rs"
check "... the router's eth0 a veth to the client's eth0" \
	netns_veth "$ns_rt" "$ns_rc" eth0 192.168.10.1/24 192.168.10.21/24
check "... its eth1 a veth to the server's eth1" \
	netns_veth "$ns_rt" "$ns_rs" eth1 192.168.20.1/24 192.168.20.21/24
links_both() { links_up "$ns_rt" "$ns_rc" eth0 && links_up "$ns_rt" "$ns_rs" eth1; }
check "... up" links_both
check "router: starts (its buffers: size the pools routing starts with)" \
	run_example router "$ns_rt" --lnet-params "$fast"
pid_rt=$pid
check "router: the tcp NI on eth0" has_ni "$ns_rt" 192.168.10.1@tcp eth0
check "router: the tcp1 NI on eth1" has_ni "$ns_rt" 192.168.20.1@tcp1 eth1
check "router: routing show says routing is on (enable 3, then 1), buffers 512/4096/256" routing_on
check "router: forwarding (enable: 1) after the short checks" \
	eventually 10 sh -c "'$ctl' --name '$ns_rt' routing show | grep -q '^    - enable: 1\$'"
check "server: a daemon on tcp1 (eth1), its route to tcp through the router" server_up
pid_rs=$pid
check "routed-client: starts" run_example routed-client "$ns_rc" --lnet-params "$fast"
pid_rc=$pid
check "routed-client: a NI on eth0" has_ni "$ns_rc" 192.168.10.21@tcp eth0
check "routed-client: its route to tcp1 through the router (up, single-hop)" eventually 10 route_is up single-hop
check "routed-client: pings the server through the router" sh -c \
	"'$ctl' --name '$ns_rc' ping 192.168.20.21@tcp1 | grep -q 'nid: 192.168.20.21@tcp1'"
check "routed-client: SIGTERM exits 0" stop "$pid_rc"
check "server: SIGTERM exits 0" stop "$pid_rs"
check "router: SIGTERM exits 0" stop "$pid_rt"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work'/*.err"
finish examples_netns
