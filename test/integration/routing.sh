#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# LNet routing end to end in network namespaces: two LNet nets on two
# subnets, rail A (tcp, 10.X.1.0/24) and rail B (tcp1, 10.X.2.0/24), each a
# bridge in a hub namespace, and two routers between them:
#
#   C: daemon  10.X.1.1@tcp,  client app 10.X.1.11@tcp    (rail A)
#   R1: daemon 10.X.1.2@tcp + 10.X.2.2@tcp1, set routing 1 (both rails)
#   R2: daemon 10.X.1.3@tcp + 10.X.2.3@tcp1, set routing 1 (both rails)
#   S: daemon  10.X.2.4@tcp1, server app 10.X.2.14@tcp1    (rail B)
#
# C's routes to tcp1 and S's to tcp go through R1 and R2 (daemons: lnetctl
# route add; applications: lnet_node --route). Checked:
#   - routing show on R1: enable 3 (starting) right after set routing 1,
#     then 1 once alive_router_check_interval + router_ping_timeout have
#     passed, with each CPT's pools and the buffers: totals;
#   - C's route show -v: both routes up, single-hop, hop -1;
#   - lnetctl ping C -> S and S -> C through a router (route_count grows);
#   - the applications: PUT and GET of 0 B, 4 KiB, 1 MiB, every byte
#     compared, with tcpdump on S's rail-B interface: Wireshark's LNet
#     dissector decodes every PDU, nothing malformed, bytes accounted, and
#     the PUTs and GETs reaching S carry C's NID as source and S's as
#     destination (end points, as the kernel forwards them) while their TCP
#     source is a router's rail-B address;
#   - 10,000 operations (ROUTING_MANY) with 64 in flight, all verified; the routers'
#     route_count grows by every PUT, ACK, GET and REPLY of them;
#   - R1 killed (kill -9) under 32 operations in flight: the run, told to
#     stop T + 1 s after, ends (no operation hangs), every operation verified
#     or ended by an error event, nothing corrupted; a new client run goes
#     through R2 alone, all verified; C's route through R1 goes down (its
#     router checks); R1 restarted: the route comes back up and a new run
#     goes through R1 again;
#   - drop_asym_route: C sends through R2 only, S routes to tcp through R1
#     only: with drop_asym_route 1 S drops C's ping (drop_count grows), with
#     0 it answers;
#   - SIGTERM: the daemons left exit 0; no sanitizer report anywhere.
#   routing.sh BUILD_DIR SRC_DIR     (needs root and iproute2; tcpdump and
#   tshark for the wire check, which is skipped without them)
set -u
build=$1 src=$2
. "$src/harness.sh"
. "$src/../common/tshark_lib.sh"
netns_script routing lrt
node="$build/test/integration/lnet_node"
hub=${tag}hub

A=10.$x.1 B=10.$x.2
ipc=$A.1 ipk=$A.11 r1a=$A.2 r2a=$A.3
r1b=$B.2 r2b=$B.3 ips=$B.4 ipv=$B.14
K=$ipk@tcp V=$ipv@tcp1            # the client and server applications' NIDs
# Short router checks: forwarding starts 3 s after set routing 1, gateways
# are pinged every 2 s. Router pools for 64 operations of 1 MiB in flight.
fast=alive_router_check_interval=2,router_ping_timeout=1
pools=tiny_router_buffers=512,small_router_buffers=512,large_router_buffers=128
T=5                                # the applications' transaction_timeout
# C's and S's daemons reconnect to a router that was gone within 4 s (ksocklnd
# doubles its retry interval up to max_reconnectms, 60 s by default: a router
# restarted after a minute would wait for that long before its routes are up).
backoff=max_reconnectms=4000

# attach LETTER IFACE BRIDGE ADDR...: IFACE in namespace LETTER, a veth whose
# other end is a port of BRIDGE in the hub, with the addresses (/24).
attach() {
	ns=$tag$1 ifn=$2 br=$3 hp=$1$2
	shift 3
	ip -n "$ns" link add "$ifn" type veth peer name "$hp" netns "$hub" &&
		ip -n "$hub" link set "$hp" master "$br" up && ip -n "$ns" link set "$ifn" up || return 1
	for a in "$@"; do
		ip -n "$ns" addr add "$a/24" dev "$ifn" || return 1
	done
}

topology() {
	ip netns add "$hub" && nss="$nss $hub" || return 1
	for br in brA brB; do
		ip -n "$hub" link add "$br" type bridge && ip -n "$hub" link set "$br" up || return 1
	done
	for l in c r1 r2 s; do
		ip netns add "$tag$l" && nss="$nss $tag$l" && ip -n "$tag$l" link set lo up || return 1
	done
	attach c eth0 brA "$ipc" "$ipk" && attach s eth0 brB "$ips" "$ipv" &&
		attach r1 eth0 brA "$r1a" && attach r1 eth1 brB "$r1b" &&
		attach r2 eth0 brA "$r2a" && attach r2 eth1 brB "$r2b" &&
		links_up "${tag}r1" "${tag}r2" eth0 eth1 && links_up "${tag}c" "${tag}s" eth0
}

# daemon_up LETTER LNET-PARAMS NET:IP...: daemon $tag LETTER in its namespace, one NI each.
daemon_up() {
	l=$1 p=$2
	shift 2
	DAEMON_PREFIX="ip netns exec $tag$l" start_daemon "$tag$l" --lnet-params "$p" --socklnd "$backoff" ||
		return 1
	for spec in "$@"; do
		"$ctl" --name "$tag$l" net add --nid "${spec#*:}@${spec%%:*}" || return 1
	done
}

lc() { # LETTER lnetctl-args...: lnetctl on that daemon
	l=$1
	shift
	"$ctl" --name "$tag$l" "$@"
}

stat_of() { # LETTER KEY: a counter of stats show (0 from a daemon that is gone)
	v_=$(lc "$1" stats show 2>/dev/null | sed -n "s/^    $2: //p")
	echo "${v_:-0}"
}
routed() { echo $(( $(stat_of r1 route_count) + $(stat_of r2 route_count) )); }

routing_is() { # LETTER ENABLE: routing show says so, with the pools and their totals
	lc "$1" routing show >"$work/routing.$1" 2>&1 &&
		grep -q "^    - enable: $2\$" "$work/routing.$1" &&
		grep -q '^    - cpt\[0\]:$' "$work/routing.$1" &&
		for pool in tiny small large; do
			grep -q "^          $pool:\$" "$work/routing.$1" || return 1
		done &&
		sed -n '/^buffers:$/,$p' "$work/routing.$1" | tr -d '\n' |
		grep -qx 'buffers:    tiny: 512    small: 512    large: 128' ||
		{ cat "$work/routing.$1"; return 1; }
}

# routes_are LETTER STATE GW...: route show -v lists exactly these routes (net
# tcp1 for C, tcp for S), each in STATE, single-hop, hop -1, priority 0.
routes_are() {
	l=$1 st=$2
	shift 2
	net=tcp1
	[ "$l" = s ] && net=tcp
	{
		echo 'route:'
		for gw in "$@"; do
			printf -- '-     net: %s\n      gateway: %s\n      hop: -1\n      priority: 0\n' "$net" "$gw"
			printf '      state: %s\n      type: single-hop\n' "$st"
		done
	} >"$work/routes.want"
	lc "$l" route show -v >"$work/routes.$l" 2>&1 && cmp -s "$work/routes.want" "$work/routes.$l" ||
		{ diff "$work/routes.want" "$work/routes.$l"; return 1; }
}
# route_state LETTER GW STATE: that one route's state in route show -v
route_state() {
	lc "$1" route show -v --gateway "$2" >"$work/rs" 2>&1 && grep -q "^      state: $3\$" "$work/rs"
}

ping_ok() { # LETTER NID: lnetctl ping answered by NID
	lc "$1" ping "$2" --timeout 2 >"$work/ping" 2>&1 && grep -q "nid: $2\$" "$work/ping"
}
routed_since() { [ $(( $(routed) - $1 )) -ge "$2" ]; } # BEFORE N: N more forwarded
ping_routed() { # LETTER NID: answered, and the routers forwarded the GET and its REPLY
	before=$(routed)
	ping_ok "$@" || { cat "$work/ping"; return 1; }
	eventually 3 routed_since "$before" 2 || { echo "forwarded: $before, then $(routed)"; return 1; }
}

# client NAME ARGS...: the client application in C, both routes; its
# summary in $work/NAME.out. Its exit status.
client() {
	name=$1
	shift
	ip netns exec "${tag}c" "$node" client --nid "$K" --peer "$V" \
		--route "tcp1:$r1a@tcp" --route "tcp1:$r2a@tcp" "$@" >"$work/$name.out" 2>"$work/$name.err"
}
value() { sed -n "s/^    $2: //p" "$work/$1.out" | head -1; } # NAME KEY: from the client summary
all_verified() { # NAME COUNT
	[ "$(value "$1" verified)" = "$2" ] && [ "$(value "$1" failed)" = 0 ] &&
		[ "$(value "$1" mismatched)" = 0 ] || { tail -n 20 "$work/$1.out" "$work/$1.err"; return 1; }
}
run_verified() { # NAME COUNT ARGS...
	name=$1 n=$2
	shift 2
	client "$name" --count "$n" "$@"
	all_verified "$name" "$n"
}

# tcpdump on S's rail-B interface, the server application's traffic only.
capture_start() { # tcpdump_start's, with a host; FILE.where: tcpdump_stop's marker
	echo "${tag}s eth0" >"$1.where"
	ip netns exec "${tag}s" tcpdump -i eth0 -s 0 -B 131072 -U --immediate-mode -w "$1" \
		"(tcp port 988 and host $ipv) or $tcpdump_marker" 2>"$1.err" &
	tcpdump_pid=$!
	eventually 5 grep -q "listening on" "$1.err"
}

# The LNet PDUs of a capture, one line each: TCP source IP, type, dest NID, src NID
# (a NID as address@net number: Wireshark gives address and net apart).
wire_pdus() {
	tshark -2 -n -r "$1" -X lua_script:"$src/../common/lnet_data_portals.lua" -Y lnet.msg_type \
		-T fields -E separator='|' -E occurrence=a \
		-e ip.src -e lnet.msg_type -e lnet.nid.addr -e lnet.nid.net_interface 2>/dev/null |
		awk -F'|' '{
			n = split($2, t, ","); split($3, a, ","); split($4, m, ",")
			for (i = 1; i <= n; i++)
				printf "%s %s %s@%s %s@%s\n", $1, t[i], a[2*i-1], m[2*i-1], a[2*i], m[2*i]
		}'
}

# The PUTs (1) and GETs (2) that reached the server, but for the routers' own
# (their pings and pushes): all from C's client to the server, by end-point
# NIDs, each carried by R1 or R2 over rail B, and as many as the client sent
# (every operation a PUT and a GET, and its discovery of the server: one ping,
# one push: so ARG + 2). The ACKs (0) and REPLYs (3) the server
# sent back go to C's client, from the server, by end-point NIDs too.
forwarded_end_to_end() {
	wire_pdus "$1" >"$work/pdus"
	awk -v v="$ipv@1" -v r1="$r1b@1" -v r2="$r2b@1" \
		'($2 == 1 || $2 == 2) && $3 == v && $4 != r1 && $4 != r2' "$work/pdus" >"$work/to_s"
	awk -v v="$ipv" -v r1="$r1b@1" -v r2="$r2b@1" \
		'($2 == 0 || $2 == 3) && $1 == v && $3 != r1 && $3 != r2' "$work/pdus" >"$work/from_s"
	total=$(wc -l <"$work/to_s")
	e2e=$(awk -v k="$ipk@0" -v r1="$r1b" -v r2="$r2b" '$4 == k && ($1 == r1 || $1 == r2)' "$work/to_s" | wc -l)
	by_r1=$(awk -v r="$r1b" '$1 == r' "$work/to_s" | wc -l)
	back=$(wc -l <"$work/from_s")
	back_e2e=$(awk -v k="$ipk@0" -v v="$ipv@1" '$3 == k && $4 == v' "$work/from_s" | wc -l)
	echo "PUTs and GETs to S: $total, C->S end to end over a router: $e2e (over R1: $by_r1);" \
		"ACKs and REPLYs back: $back, S->C end to end: $back_e2e"
	[ "$total" -eq $(($2 + 2)) ] && [ "$e2e" -eq "$total" ] && [ "$by_r1" -gt 0 ] && [ "$by_r1" -lt "$total" ] &&
		[ "$back" -eq "$total" ] && [ "$back_e2e" -eq "$back" ] || { head "$work/pdus"; return 1; }
}

check "topology: rails A and B (bridges in a hub), namespaces C, R1, R2, S" topology
check "router R1: NIs $r1a@tcp and $r1b@tcp1" daemon_up r1 "$fast,$pools" "tcp:$r1a" "tcp1:$r1b"
pid_r1=$pid
check "router R2: NIs $r2a@tcp and $r2b@tcp1" daemon_up r2 "$fast,$pools" "tcp:$r2a" "tcp1:$r2b"
pid_r2=$pid
check "set routing 1 on R1" lc r1 set routing 1
check "R1's routing show right after: enable: 3 (starting), each CPT's pools, buffers: 512/512/128" \
	routing_is r1 3
check "set routing 1 on R2" lc r2 set routing 1
check "R1's routing show: enable: 1 once the checks' 3 s have passed" eventually 10 routing_is r1 1
check "R2 routes as well" eventually 10 routing_is r2 1
check "daemon C: NI $ipc@tcp" daemon_up c "$fast" "tcp:$ipc"
pid_c=$pid
check "daemon S: NI $ips@tcp1" daemon_up s "$fast" "tcp1:$ips"
pid_s=$pid
check "C: route add tcp1 through R1 and R2" sh -c \
	"'$ctl' --name '${tag}c' route add --net tcp1 --gateway '$r1a@tcp' && '$ctl' --name '${tag}c' route add --net tcp1 --gateway '$r2a@tcp'"
check "S: route add tcp through R1 and R2" sh -c \
	"'$ctl' --name '${tag}s' route add --net tcp --gateway '$r1b@tcp1' && '$ctl' --name '${tag}s' route add --net tcp --gateway '$r2b@tcp1'"
check "C's route show -v: both routes up, single-hop, hop -1" \
	eventually 10 routes_are c up "$r1a@tcp" "$r2a@tcp"
check "S's route show -v: both routes up" eventually 10 routes_are s up "$r1b@tcp1" "$r2b@tcp1"
check "C pings S ($ips@tcp1) through a router" ping_routed c "$ips@tcp1"
check "S pings C ($ipc@tcp) back through a router" ping_routed s "$ipc@tcp"

# The applications: the first run on the wire of rail B.
have_tshark=1
for tool in tcpdump tshark; do command -v "$tool" >/dev/null 2>&1 || have_tshark=0; done
[ $have_tshark -eq 1 ] && check "tcpdump on S's eth0 (rail B), the server application's traffic" \
	capture_start "$work/railb.pcap"
check "server application on $V, routes to tcp through R1 and R2" \
	node_serve "${tag}s" s --nid "$V" --route "tcp:$r1b@tcp1" --route "tcp:$r2b@tcp1" --timeout $T
pids="$pids $server"
check "client application on $K: PUT and GET of 0 B, 4 KiB, 1 MiB through the routers, every byte compared" \
	run_verified short 60 --sizes 0,4096,1048576 --inflight 8
if [ $have_tshark -eq 1 ]; then
	check "tcpdump lost nothing" tcpdump_stop "$work/railb.pcap"
	check "tshark on rail B: every LNet PDU decodes, nothing malformed, bytes accounted" \
		tshark_check_file "$work/railb.pcap"
	check "the 120 PUTs and GETs reaching S: src NID $K, dest NID $V, from R1's and R2's rail-B addresses; ACKs and REPLYs back: src $V, dest $K" \
		forwarded_end_to_end "$work/railb.pcap" 120
else
	echo "routing: no tcpdump or tshark: the wire check skipped"
fi

before=$(routed)
many=${ROUTING_MANY:-10000} # the soak asks for more: routed traffic is what it is after
check "$many operations (0 B, 4 KiB, 1 MiB), 64 in flight, through the routers, all verified" \
	run_verified many "$many" --sizes 0,4096,1048576 --inflight 64
echo "$many operations: $(value many seconds) s"
check "the routers' route_count grew by $((4 * many)) at least (PUT, ACK, GET, REPLY of each)" \
	[ $(( $(routed) - before )) -ge $((4 * many)) ]

# R1 killed (kill -9) under the traffic: a long run of 32 operations in flight
# over both routers; once R1 has forwarded some of it, R1 is killed. What R1
# held is lost: each operation either goes on through R2 (resent) or ends with
# an error event once transaction_timeout has passed. So T + 1 s after the
# kill the client is told to stop (SIGTERM: no new operation, the ones in
# flight drained); it must end within 3 s of that.
r1_forwarded() { [ "$(stat_of r1 route_count)" -ge "$1" ]; }
ip netns exec "${tag}c" "$node" client --nid "$K" --peer "$V" --route "tcp1:$r1a@tcp" \
	--route "tcp1:$r2a@tcp" --sizes 4096,65536,1048576 --count 100000000 --inflight 32 \
	--timeout $T >"$work/kill.out" 2>"$work/kill.err" &
kpid=$!
pids="$pids $kpid"
check "the client's traffic goes through R1" eventually 20 r1_forwarded $(( $(stat_of r1 route_count) + 400 ))
kill -9 "$pid_r1"
t_kill=$(date +%s)
wait "$pid_r1" 2>/dev/null
r2_at_kill=$(stat_of r2 route_count)
r2_forwarded() { [ "$(stat_of r2 route_count)" -ge "$1" ]; }
check "after R1 was killed the client's traffic goes on through R2" \
	eventually 30 r2_forwarded $((r2_at_kill + 400))
# Part of the scenario: the client's own timeout (T s) passes after the kill;
# it still runs if no operation of it timed out. Not decided by timing: a
# slow machine only makes the wait longer than T.
left=$((t_kill + T + 1 - $(date +%s)))
[ "$left" -le 0 ] || sleep "$left"
check "$((T + 1)) s after R1 was killed the client still runs" sh -c "ps -o stat= -p $kpid | grep -qv Z"
# Told to stop, the client starts nothing more; what it has in flight was
# sent before, so ends within transaction_timeout ($T s) at the latest. 60 s
# allowed (a loaded, sanitized machine; exit included): longer is a hang.
kill -TERM "$kpid"
i=0
while [ $i -lt 600 ] && kill -0 "$kpid" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
t_end=$(date +%s)
check "the client ended once told to stop (60 s allowed): nothing hung" sh -c "! kill -0 $kpid 2>/dev/null"
wait "$kpid" 2>/dev/null
echo "R1 killed: $(value kill verified) verified, $(value kill failed) failed of $(value kill operations)," \
	"the client ended $((t_end - t_kill)) s after the kill"
check "every operation verified or ended by an error event: verified + failed = operations" \
	sh -c "[ \$(( $(value kill verified) + $(value kill failed) )) -eq $(value kill operations) ] && [ $(value kill operations) -gt 0 ]"
check "nothing came back corrupted" [ "$(value kill mismatched)" = 0 ]
check "a new client run (routes through R1 and R2) through R2 alone: 300 operations, all verified" \
	run_verified after 300 --sizes 0,4096,1048576 --inflight 16 --timeout $T
r1_down_r2_up() { route_state c "$r1a@tcp" down && route_state c "$r2a@tcp" up; }
check "C's route show -v: the route through R1 goes down, through R2 stays up" eventually 10 r1_down_r2_up
check "C pings S through R2" ping_routed c "$ips@tcp1"
# the killed R1's log, kept apart: the restarted one writes its own afresh (the soak reads both)
cp "$work/${tag}r1.err" "$work/${tag}killed-r1.err" 2>/dev/null
check "R1 restarted (kill -9 left its telemetry socket behind)" daemon_up r1 "$fast,$pools" "tcp:$r1a" "tcp1:$r1b"
pid_r1=$pid
check "... set routing 1" lc r1 set routing 1
f0=$fails
check "C's route through R1 comes back up (C's router checks find it routing)" \
	eventually 15 routes_are c up "$r1a@tcp" "$r2a@tcp"
if [ "$fails" -gt "$f0" ]; then # what R1 says of its nets, and S of R1, for whoever debugs it
	lc r1 routing show | grep enable; lc r1 net show | grep -E 'nid|status'
	lc s route show -v; lc s peer show -v --nid "$r1b@tcp1" | head -20
	lc c peer show -v 2 --nid "$r1a@tcp"; sleep 10; lc c route show -v
fi
before=$(stat_of r1 route_count)
check "a new client run goes through R1 again: 300 operations, all verified" \
	run_verified again 300 --sizes 0,4096,1048576 --inflight 16 --timeout $T
check "... the restarted R1 forwarded its share" [ $(( $(stat_of r1 route_count) - before )) -ge 200 ]

# drop_asym_route: C sends through R2 only, S routes to tcp through R1 only:
# C's ping reaches S through a router S has no route through.
asym_ping_dropped() {
	drops=$(stat_of s drop_count)
	! lc c ping "$ips@tcp1" --timeout 2 >"$work/ping" 2>&1 || { cat "$work/ping"; return 1; }
	eventually 3 sh -c "[ \$('$ctl' --name '${tag}s' stats show | sed -n 's/^    drop_count: //p') -gt $drops ]"
}
check "C: route del through R1 (C sends through R2 only)" lc c route del --net tcp1 --gateway "$r1a@tcp"
check "S: route del through R2 (S routes to tcp through R1 only)" lc s route del --net tcp --gateway "$r2b@tcp1"
check "S: set drop_asym_route 1" lc s set drop_asym_route 1
check "C's ping through R2: S drops it, its drop_count grows" asym_ping_dropped
check "S: set drop_asym_route 0" lc s set drop_asym_route 0
check "C's ping through R2 is answered now" eventually 10 ping_routed c "$ips@tcp1"

check "server application: SIGTERM ends it" node_unserve
for p in "$pid_c" "$pid_r1" "$pid_r2" "$pid_s"; do
	check "SIGTERM: daemon $p exits 0" stop_daemon "$p"
done
check "no sanitizer report in any daemon's or application's output" \
	sh -c "! grep -l Sanitizer '$work'/*.err '$work'/*.out"
finish routing
