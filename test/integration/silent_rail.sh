#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 31, item 2: a rail that drops silently, with no link event on our
# side (the far side's switch port down, as kernel-routing-health's "bar"
# scenario). Rail 0 is a veth pair between the client and the server; rail 1
# goes through a bridge in a third namespace, whose port on the server's side
# is taken down under the traffic: the server's eth1 loses its carrier, the
# client's stays up and its segments go nowhere. transaction_timeout 30 and
# retry_count 3, as the issue's bar scenario: lnd_timeout is 7 s, under
# sock_timeout's 50. Each message the black hole holds fails as a network
# timeout after 7 s, its connection closing as ksocklnd closes a timed-out
# one, and LNet sends it again by another path inside transaction_timeout.
# Without source routing only one of the four paths is left: the cross ones
# go out by rail 1 (client to the server's rail-1 NID) or come back by it
# (the server answers the client's rail-1 address through its dead eth1). A
# try avoids every path that failed it: the fourth at the latest is the
# good one. 64 operations of 1 MiB in flight, each PUT read back with a GET
# and compared:
#   - every operation verified, none failed (held for sock_timeout, 50 s,
#     they would have failed at transaction_timeout, not been resent);
#   - the client counted network timeouts and resent them all successfully;
#     the server's rail-1 NID lost health.
#   silent_rail.sh BUILD_DIR SRC_DIR [COUNT]   (needs root, iproute2)
set -u
build=$1 src=$2 count=${3:-600}
. "$src/harness.sh"
netns_script silent_rail lsr

a0=10.$x.1.1 b0=10.$x.1.2 a1=10.$x.2.1 b1=10.$x.2.2
ca=${tag}a cb=${tag}b sw=${tag}s
node="$build/test/integration/lnet_node"

# Rail 1: client eth1 -- (pa) bridge br1 (pb) -- server eth1, the bridge in namespace $sw.
topology() {
	ip netns add "$ca" && nss="$nss $ca" && ip netns add "$cb" && nss="$nss $cb" &&
		ip netns add "$sw" && nss="$nss $sw" &&
		ip -n "$ca" link set lo up && ip -n "$cb" link set lo up &&
		netns_veth "$ca" "$cb" eth0 "$a0/24" "$b0/24" &&
		ip -n "$ca" link add eth1 type veth peer name pa netns "$sw" &&
		ip -n "$cb" link add eth1 type veth peer name pb netns "$sw" &&
		ip -n "$sw" link add br1 type bridge &&
		ip -n "$sw" link set pa master br1 && ip -n "$sw" link set pb master br1 &&
		ip -n "$sw" link set br1 up && ip -n "$sw" link set pa up && ip -n "$sw" link set pb up &&
		ip -n "$ca" addr add "$a1/24" dev eth1 && ip -n "$cb" addr add "$b1/24" dev eth1 &&
		ip -n "$ca" link set eth1 up && ip -n "$cb" link set eth1 up &&
		links_up "$ca" "$cb" eth0 eth1
}

field() { node_field "$@"; } # FILE SECTION NID KEY

stat() { # FILE KEY: a health counter the client printed at exit
	awk -v key="$2:" '/^health:$/ { on = 1; next } /^[a-z]/ { on = 0 } on && $1 == key { print $2 }' "$1"
}

all_verified() { # FILE COUNT
	v=$(awk '$1 == "verified:" { print $2 }' "$1") f=$(awk '$1 == "failed:" { print $2 }' "$1")
	echo "verified $v, failed $f"
	[ "$v" = "$2" ] && [ "$f" = 0 ] || { cat "$1" "$work/c.err"; return 1; }
}

# FILE: network timeouts counted, resends that succeeded, none given up (LNet's
# own messages, a recovery ping, time out too and are never resent; a message
# resent twice counts twice in resend_count, once in successful_resends).
timeouts_resent() {
	t=$(stat "$1" network_timeout_count) r=$(stat "$1" resend_count)
	ok=$(stat "$1" successful_resends) bad=$(stat "$1" failed_resends)
	echo "network timeouts $t, resent $r, succeeded $ok, gave up $bad"
	[ "${t:-0}" -gt 0 ] && [ "${r:-0}" -gt 0 ] && [ "${ok:-0}" -gt 0 ] && [ "$bad" = 0 ]
}

b1_lost_health() { # FILE
	h=$(field "$1" nis_peer_nis "$b1@tcp" health)
	echo "$b1@tcp health $h"
	[ -n "$h" ] && [ "$h" -lt 1000 ]
}

cut=$((count / 4))
check "topology: rail 0 a veth pair, rail 1 through a bridge in a third namespace" topology
check "server with two NIs" node_serve "$cb" s --nid "$b0@tcp" --nid "$b1@tcp"
check "client: $count operations of 1 MiB, 64 in flight, transaction_timeout 30, retry_count 3; the server's bridge port down after $cut" \
	sh -c "ip netns exec '$ca' env LNP_NODE_EAL_EXTRA='${SR_EAL_EXTRA:-}' '$node' client --nid '$a0@tcp' --nid '$a1@tcp' --peer '$b0@tcp' \
		--sizes 1048576 --inflight 64 --count $count --timeout 30 --retry-count 3 ${SR_NODE_EXTRA:-} \
		--run-after '$cut:ip -n $sw link set pb down' >'$work/c.out' 2>'$work/c.err'; true"
check "client: every operation verified, none failed" all_verified "$work/c.out" "$count"
check "client: the black-holed messages failed as network timeouts and were all resent" \
	timeouts_resent "$work/c.out"
check "client: the server's rail-1 NID lost health" b1_lost_health "$work/c.out"
check "server stops" node_unserve
finish silent_rail
