#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The shipped config/examples, each started in a network namespace of its
# own whose veth interfaces carry the names the example uses (created and
# deleted here): its NIs come up on those interfaces, its peers are there,
# SIGTERM exits 0. Needs root (ip netns); skipped otherwise.
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

n=lnp-rt-$$
check "router: namespace with eth0" netns_with "$n" eth0=192.168.10.1/24
check "router: starts" run_example router "$n"
pid_rt=$pid
check "router: the tcp NI on eth0" has_ni "$n" 192.168.10.1@tcp eth0
check "router: its gateway peers" peers_are "$n" router
check "router: SIGTERM exits 0" stop "$pid_rt"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work'/*.err"
finish examples_netns
