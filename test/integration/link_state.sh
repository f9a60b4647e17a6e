#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# An interface going down under an NI, as ksocklnd's netdev and inetaddr
# notifiers take it: two daemons in two namespaces joined by two veth pairs
# on one subnet (the usual Multi-Rail layout: every NID of B stays
# reachable from A's eth0 when A's eth1 is down), each with `net add --net
# tcp --if eth0,eth1`; A discovers B (Multi-Rail, two NIDs). Then, on A:
#   - `ip link set eth1 down`: A's net show says its eth1 NI is down, and B
#     receives a push from A under a new seqno (the ping target now gives
#     that NID status DOWN); A's pings to B all leave from eth0;
#   - `ip link set eth1 up`: up again, another push; pings use both NIs;
#   - the eth1 address deleted: down, pushed; added back: up, pushed;
#   - another interface made and deleted: no NI reads its link again.
# The daemons exit 0 on SIGTERM, with no sanitizer report.
#   link_state.sh BUILD_DIR SRC_DIR     (needs root and iproute2)
set -u
build=$1 src=$2
. "$src/harness.sh"
netns_script link_state lls

a0=10.$x.1.1 b0=10.$x.1.2 a1=10.$x.1.3 b1=10.$x.1.4
tel="python3 $src/../common/bad_peer.py telemetry"

# status_now NID up|down: A's net show gives that NI the status.
status_now() {
	"$ctl" --name "${tag}a" net show --net tcp | sed 's/^ *-* *//' |
		awk -v nid="$1" '$0 == "nid: " nid { on = 1; next } /^nid: / { on = 0 } on' >"$work/st"
	grep -qx "status: $2" "$work/st" || { cat "$work/st"; return 1; }
}
status_is() { # within 5 s: netlink is asynchronous
	eventually 5 status_now "$@"
}

pushes_to_b() { # B's count of pushes received
	$tel "${tag}b" /lnet/push_show | python3 -c 'import json,sys; print(json.load(sys.stdin)["received"])'
}

# pushed_now N: B has received more than N pushes, the last from A.
pushed_now() {
	[ "$(pushes_to_b)" -gt "$1" ] && $tel "${tag}b" /lnet/push_show | grep -q "\"last_primary_nid\": \"$a0@tcp\"" ||
		{ $tel "${tag}b" /lnet/push_show; return 1; }
}
pushed_since() {
	eventually 5 pushed_now "$1"
}

# gets_from NID: the GETs B has received from A's NID (B's peer show -v 2
# received_stats): what crossed the wire from that NI. A's own count of
# GETs sent would also count an attempt that died on a link already down
# (a discovery ping of B, say), which never left the NI.
gets_from() {
	"$ctl" --name "${tag}b" peer show -v 2 --nid "$1" | sed 's/^ *-* *//' |
		awk -v nid="$1" '$0 == "nid: " nid { on = 1; next } /^nid: / { on = 0 }
			on && $0 == "received_stats:" { rx = 1; next } on && /_stats:$/ { rx = 0 }
			on && rx && /^get: / { print $2; exit }'
}

# pings: 10 pings from A to B, after noting B's counts (s0, s1).
pings() {
	s0=$(gets_from "$a0@tcp") s1=$(gets_from "$a1@tcp")
	i=0
	while [ $i -lt 10 ]; do
		"$ctl" --name "${tag}a" ping --timeout 2 "$b0@tcp" >/dev/null 2>&1 || return 1
		i=$((i + 1))
	done
}
# split_is EXPR: B's GETs from A's NIs since pings (e0, e1) satisfy EXPR.
# B counts a GET as it completes, a moment after its REPLY left: retried.
split_now() {
	e0=$(( $(gets_from "$a0@tcp") - s0 )) e1=$(( $(gets_from "$a1@tcp") - s1 ))
	eval "$1" || { echo "eth0, eth1 GETs: $e0 $e1"; return 1; }
}
only_eth0() {
	pings && eventually 3 split_now '[ $e1 -eq 0 ] && [ $e0 -ge 10 ]'
}
both() {
	pings && eventually 3 split_now '[ $e1 -gt 0 ] && [ $e0 -gt 0 ]'
}

check "topology: two veth pairs on one subnet" two_rails "${tag}a" "${tag}b" "$a0" "$b0" "$a1" "$b1"
# IPv6 off in A (the test is IPv4): no link-local address whose DAD ends
# later, an event on A's veths at a moment of the kernel's choosing.
check "IPv6 off in A's namespace" ip netns exec "${tag}a" sysctl -qw \
	net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
check "daemon A" daemon_in a
pid_a=$pid
check "daemon B" daemon_in b
pid_b=$pid
check "A: net add --net tcp --if eth0,eth1" "$ctl" --name "${tag}a" net add --net tcp --if eth0,eth1
check "B: net add --net tcp --if eth0,eth1" "$ctl" --name "${tag}b" net add --net tcp --if eth0,eth1
check "A's eth1 NI is up" status_is "$a1@tcp" up
check "A discovers B: Multi-Rail, both NIDs" sh -c \
	"'$ctl' --name ${tag}a discover $b0@tcp | grep -q 'nid: $b1@tcp'"
check "pings from A use both its NIs" both

link_checks() { # A's NI NID: how often rtnetlink made it read its link state again
	$tel "${tag}a" /lnet/lnd_stats |
		python3 -c "import json,sys; print(next(v['link_checks'] for v in json.load(sys.stdin).values() if v['nid'] == '$1'))"
}
# Another interface coming and going (a host making containers' veths) is
# not the NIs' business: neither reads its link state again. Each NI hears
# rtnetlink on a socket of its own, in order: an alias then set on eth0 and
# on eth1 (one RTM_NEWLINK each, the NI's own interface for one of them) is
# read after the other interface's events, and makes each NI read its link
# once. Seen that once, the other interface's events were read too, and made
# none. (No event of A's veths comes late: IPv6 is off in A and the NIs'
# sockets opened after the veths were up. An event wrongly read as the NI's
# would hide in the alias's read only if all came in one recv batch, the NI
# polling without pause: a miss at worst, never a false failure.)
marked() { # N0 N1: both NIs of A read their link again since the counts N0 N1
	[ "$(link_checks "$a0@tcp")" -gt "$1" ] && [ "$(link_checks "$a1@tcp")" -gt "$2" ]
}
others_ignored() {
	c0=$(link_checks "$a0@tcp") c1=$(link_checks "$a1@tcp")
	ip -n "${tag}a" link add v9a type veth peer name v9b && ip -n "${tag}a" link set v9a up &&
		ip -n "${tag}a" addr add 10.$x.9.1/24 dev v9a && ip -n "${tag}a" link del v9a &&
		ip -n "${tag}a" link set eth0 alias lnp-marker && ip -n "${tag}a" link set eth1 alias lnp-marker ||
		return 1
	eventually 30 marked "$c0" "$c1" || { echo "the alias not read: link_checks $c0 $c1"; return 1; }
	[ "$(link_checks "$a0@tcp")" -eq $((c0 + 1)) ] && [ "$(link_checks "$a1@tcp")" -eq $((c1 + 1)) ] ||
		{ echo "link_checks $c0 $c1 -> $(link_checks "$a0@tcp") $(link_checks "$a1@tcp"), the alias's 1 each wanted"; return 1; }
}
check "another interface's changes: neither NI of A reads its link again" others_ignored

n=$(pushes_to_b) checks1=$(link_checks "$a1@tcp")
check "ip link set eth1 down on A" ip -n "${tag}a" link set eth1 down
check "A's net show: its eth1 NI is down" status_is "$a1@tcp" down
check "A's net show -v 2: fatal_error 1 on that NI (the kernel's ni_fatal_error_on)" sh -c \
	"'$ctl' --name ${tag}a net show -v 2 --net tcp | sed 's/^ *-* *//' | awk '\$0 == \"nid: $a1@tcp\" { on = 1 } on && /^fatal_error: / { print; exit }' | grep -qx 'fatal_error: 1'"
check "B receives A's push (A's ping target changed)" pushed_since "$n"
check "A's pings to B all leave from eth0" only_eth0
checked_again() { [ "$(link_checks "$a1@tcp")" -gt "$checks1" ]; }
check "the eth1 NI read its link again (lnd_stats link_checks)" checked_again

n=$(pushes_to_b)
check "ip link set eth1 up on A" ip -n "${tag}a" link set eth1 up
check "A's net show: its eth1 NI is up again" status_is "$a1@tcp" up
check "B receives another push" pushed_since "$n"
check "pings from A use both NIs again" both

n=$(pushes_to_b)
check "the eth1 address deleted on A" ip -n "${tag}a" addr del "$a1/24" dev eth1
check "A's eth1 NI is down" status_is "$a1@tcp" down
check "B receives a push" pushed_since "$n"
n=$(pushes_to_b)
check "the address added back" ip -n "${tag}a" addr add "$a1/24" dev eth1
check "A's eth1 NI is up" status_is "$a1@tcp" up
check "B receives a push" pushed_since "$n"

check "SIGTERM: A exits 0" stop_daemon "$pid_a"
check "SIGTERM: B exits 0" stop_daemon "$pid_b"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work'/*.err 2>/dev/null"
finish link_state
