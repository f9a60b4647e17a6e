#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Three LNet nodes (lnetd-pmd daemons A, B, C) and two applications
# embedding liblnet (lnet_node: a server S beside B, a client beside C):
#   - lnetctl ping between every pair of daemons, both ways (C with
#     conns_per_peer 2 connects first: 5 connections to each);
#   - PUT then GET of 0 B, 1 B, 4 KiB and 1 MiB, every byte compared;
#   - 10,000 operations with 64 in flight;
#   - S killed mid-transfer: every operation in flight completes with an
#     error event within transaction_timeout (5 s here, 15 s allowed); S restarted is
#     reachable again; B killed and restarted is pinged again by A.
#   three_nodes.sh BUILD_DIR SRC_DIR netns|loopback
# netns: each node in a network namespace of its own, joined by veth pairs
# to a bridge in a hub namespace (root; created and deleted here).
# loopback: the same on 127.0.x.0/24 with a high port (no root needed).
set -u
build=$1 src=$2 mode=$3
. "$src/harness.sh"
node="$build/test/integration/lnet_node"
x=$(( $$ % 200 + 20 ))
tag=$$

if [ "$mode" = netns ]; then
	if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
		echo "three_nodes (netns): needs root and iproute2; skipped"
		exit 77
	fi
	net=10.77.$x port=988
	nss=""
	on_exit='for n in $nss; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del "$n" 2>/dev/null; done'
else
	net=127.0.$x port=$(( 20000 + $$ % 20000 ))
fi
ipa=$net.1 ipb=$net.2 ipc=$net.3 ips=$net.12 ipk=$net.13

# The command prefix that runs a program where node $1 lives (exec'd, so $! is the program).
where() {
	[ "$mode" = netns ] && echo "ip netns exec lnp$tag$1"
}

make_ns() { # letter, addresses...
	ns=lnp$tag$1; shift
	ip netns add "$ns" && nss="$nss $ns" && ip -n "$ns" link set lo up &&
		ip -n "$ns" link add eth0 type veth peer name "v$tag$ns" &&
		ip -n "$ns" link set "v$tag$ns" netns "lnp${tag}hub" &&
		ip -n "lnp${tag}hub" link set "v$tag$ns" master br0 up &&
		ip -n "$ns" link set eth0 up || return 1
	for addr in "$@"; do
		ip -n "$ns" addr add "$addr/24" dev eth0 || return 1
	done
}

topology() {
	[ "$mode" = netns ] || return 0
	ip netns add "lnp${tag}hub" && nss="$nss lnp${tag}hub" &&
		ip -n "lnp${tag}hub" link add br0 type bridge && ip -n "lnp${tag}hub" link set br0 up &&
		make_ns a "$ipa" && make_ns b "$ipb" "$ips" && make_ns c "$ipc" "$ipk"
}

daemon_up() { # letter ip [net add options]
	n=$1 ip=$2
	shift 2
	DAEMON_PREFIX=$(where "$n") start_daemon "lnp$tag$n" --accept-port "$port" --accept all &&
		"$ctl" --name "lnp$tag$n" net add --nid "$ip@tcp" "$@"
}

lnd_stat() { # letter counter: C's socklnd counter, from the telemetry socket
	python3 "$src/../common/bad_peer.py" telemetry "lnp$tag$1" /lnet/lnd_stats |
		sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"
}

ping_ok() { # from-letter to-ip, retried while the peer backs off or restarts
	i=0
	while [ $i -lt 30 ]; do
		"$ctl" --name "lnp$tag$1" ping "$2@tcp" --timeout 2 2>/dev/null | grep -q "nid: $2@tcp" && return 0
		sleep 1
		i=$((i + 1))
	done
	return 1
}

serve() {
	$(where b) "$node" serve --nid "$ips@tcp" --port "$port" >"$work/s.out" 2>&1 &
	spid=$!
	pids="$pids $spid"
	eventually 30 grep -q '^serving:' "$work/s.out" && kill -0 "$spid"
}

client() { # lnet_node client options...
	$(where c) "$node" client --nid "$ipk@tcp" --peer "$ips@tcp" --port "$port" "$@" >"$work/c.out" 2>"$work/c.err"
}

value() { # key: from the last client summary
	sed -n "s/^    $1: //p" "$work/c.out"
}

check "topology: $mode" topology
check "daemon A on $ipa" daemon_up a "$ipa"
pid_a=$pid
check "daemon B on $ipb" daemon_up b "$ipb"
pid_b=$pid
check "daemon C on $ipc, conns_per_peer 2" daemon_up c "$ipc" --conns-per-peer 2
pid_c=$pid
check "C's net show -v says conns_per_peer: 2" sh -c \
	"'$ctl' --name lnp${tag}c net show -v --net tcp | grep -q 'conns_per_peer: 2'"
for pair in "c $ipa" "c $ipb" "a $ipb" "a $ipc" "b $ipa" "b $ipc"; do
	# shellcheck disable=SC2086
	check "lnetctl ping $pair" ping_ok $pair
done
check "C opened 1 CONTROL + 2 BULK_IN + 2 BULK_OUT to each of A and B" [ "$(lnd_stat c connects)" = 10 ]

check "server S (an application embedding liblnet) on $ips" serve
check "PUT and GET of 0 B, 1 B, 4 KiB, 1 MiB: 200 operations, every byte compared" \
	client --sizes 0,1,4096,1048576 --count 200 --inflight 16
check "10,000 operations, 64 in flight, all verified" client --sizes 0,1,4096 --count 10000 --inflight 64
check "... and the summary says so" [ "$(value verified)" = 10000 ]
check "a polled client (one thread, no EAL, the real clock) verifies 1,000 operations" \
	client --exec polled --sizes 0,1,4096,1048576 --count 1000 --inflight 16
check "... all of them" [ "$(value verified)" = 1000 ]
check "daemon A pings S, the application" ping_ok a "$ips"

# Kill S while 64 operations are in flight: the client kills it itself
# (--run-after) when its 1,000th operation starts, the other 63 slots busy
# then, however fast or slow the machine. timeout ends a client that would
# hang (exit 124); 120 s covers its start and those 1,000 operations on a
# loaded, sanitized build.
timeout 120 $(where c) "$node" client --nid "$ipk@tcp" --peer "$ips@tcp" --port "$port" --sizes 4096,65536 \
	--count 2000000 --inflight 64 --timeout 5 --stop-on-error --run-after "1000:kill -9 $spid" >"$work/c.out" 2>&1
rc=$?
kill -9 "$spid" 2>/dev/null # the client failed before its 1,000th operation: S goes anyway
wait "$spid" 2>/dev/null
check "S killed by the client with 1,000 operations started" grep -q '^at_1000:$' "$work/c.out"
check "... and the client ends (no operation left hanging)" [ "$rc" -ne 124 ]
# Each operation in flight ends at transaction_timeout (5 s) at the latest
# (S's sockets reset at once, as a rule); the client measures from its first
# error to the last of them: 3 x 5 s leaves a stalled machine room.
check "... within transaction_timeout of the first error (15 s allowed)" awk -v s="$(value seconds_to_complete_them)" \
	'BEGIN { exit !(s != "" && s <= 15) }'
check "every operation in flight completed with an error event" sh -c \
	"[ '$(value failed)' -ge 1 ] && [ '$(value failed)' = '$(value pending_at_first_error)' ] && [ \$(( $(value verified) + $(value failed) )) -eq '$(value operations)' ]"
check "nothing came back corrupted" [ "$(value mismatched)" = 0 ]
check "S restarted" serve
check "daemon C reaches the restarted S" ping_ok c "$ips"
check "a new client verifies 100 operations on the restarted S" client --count 100 --inflight 8

# Kill daemon B (kill -9) and restart it: A reaches it again.
kill -9 "$pid_b"
wait "$pid_b" 2>/dev/null
check "daemon B restarted" daemon_up b "$ipb"
pid_b=$pid
check "A pings the restarted B" ping_ok a "$ipb"
check "B pings A" ping_ok b "$ipa"
for p in "$pid_a" "$pid_b" "$pid_c"; do
	check "SIGTERM: daemon $p exits 0" stop_daemon "$p"
done
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work'/*.err '$work/s.out' 2>/dev/null"
finish "three_nodes ($mode)"
