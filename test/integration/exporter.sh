#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usertools/lnetd-exporter against two lnetd-pmd talking ksocklnd on
# 127.0.0.0/8 (root: port 988): scraped twice while they ping each other,
# read with prometheus_client's text parser (exporter_check.py): the
# families, their types and label sets, values lnetctl set, counters that
# moved, --max-peers, the Grafana dashboard's queries, and lnet_up 0 once
# the daemon is gone.
#   exporter.sh BUILD_DIR SOURCE_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
exporter="$src/../../usertools/lnetd-exporter"
checker="/usr/bin/python3 $src/exporter_check.py"
/usr/bin/python3 -c 'import prometheus_client' ||
	{ echo "exporter: python3-prometheus-client is missing (./dev.sh deps installs it)"; exit 1; }

a=lnetd-ex-a-$$ b=lnetd-ex-b-$$
sub=127.0.$(( $$ % 200 + 20 ))
ipa=$sub.11 ipb=$sub.12

sends_of() { # daemon: its send_count (stats show)
	"$ctl" --name "$1" stats show | sed -n 's/^    send_count: //p'
}
sends_above() { [ "$(sends_of "$1")" -gt "$2" ]; } # daemon count
serving() { grep -q '^lnetd-exporter: serving http://' "$work/exporter.out"; }

check "daemon $a starts" start_daemon "$a"
pid_a=$pid
check "daemon $b starts" start_daemon "$b"
check "net add on $a" "$ctl" --name "$a" net add --nid "$ipa@tcp" --peer-credits 16 --credits 512
check "net add on $b" "$ctl" --name "$b" net add --nid "$ipb@tcp"
check "a route on $a to tcp7 through $b, hop 2, priority 3" \
	"$ctl" --name "$a" route add --net tcp7 --gateway "$ipb@tcp" --hop 2 --priority 3
check "routing on $b" "$ctl" --name "$b" set routing 1

"$exporter" --name "$a" --port 0 >"$work/exporter.out" 2>"$work/exporter.err" &
exporter_pid=$!
on_exit="kill $exporter_pid 2>/dev/null"
check "the exporter says where it serves" eventually 30 serving
url=$(sed -n 's|^lnetd-exporter: serving \(http://.*\)$|\1|p' "$work/exporter.out")
echo "exporter: $url"

# Pings both ways until $work/go goes (400 at most: the loop never outlives the test).
: >"$work/go"
(
	i=0
	while [ -f "$work/go" ] && [ $i -lt 400 ]; do
		"$ctl" --name "$a" ping "$ipb@tcp" >/dev/null 2>&1
		"$ctl" --name "$b" ping "$ipa@tcp" >/dev/null 2>&1
		i=$((i + 1))
	done
) &
traffic=$!
check "traffic between $a and $b under way" eventually 30 sends_above "$a" 0
check "first scrape during traffic" $checker scrape "$url" "$work/s1.prom"
check "the families, their types, one label set per NI and peer NI" \
	$checker families "$work/s1.prom" "$ipa@tcp" "$ipb@tcp"
check "lnet_ni_credits of $ipa@tcp: 512, as net add set" \
	$checker value "$work/s1.prom" lnet_ni_credits "nid=$ipa@tcp,net=tcp,lnd=tcp" 512
check "lnet_ni_peer_credits: 16" \
	$checker value "$work/s1.prom" lnet_ni_peer_credits "nid=$ipa@tcp" 16
check "lnet_peer_ni_tx_credits_max of $ipb@tcp: the NI's peer credits, 16" \
	$checker value "$work/s1.prom" lnet_peer_ni_tx_credits_max "nid=$ipb@tcp" 16
check "lnet_route_hops 2 and lnet_route_priority 3 of the route" sh -c \
	"$checker value '$work/s1.prom' lnet_route_hops 'net=tcp7,gateway=$ipb@tcp' 2 &&
	 $checker value '$work/s1.prom' lnet_route_priority 'net=tcp7,gateway=$ipb@tcp' 3"
check "lnet_ni_up 1 for $ipa@tcp" $checker value "$work/s1.prom" lnet_ni_up "nid=$ipa@tcp" 1
# The second scrape waits for its condition: the next scrape whose counters all moved.
check "a later scrape during traffic: every traffic counter moved" \
	eventually 30 $checker moved "$work/s1.prom" "$url" "$ipa@tcp" "$ipb@tcp"
rm -f "$work/go"
wait "$traffic"

# --max-peers: a third peer (added, never reached) makes two on $a.
check "peer add on $a: a second peer" "$ctl" --name "$a" peer add --prim_nid "$sub.50@tcp"
"$exporter" --name "$a" --once --max-peers 1 >"$work/max1.prom" 2>"$work/max1.err"
check "--max-peers 1: one peer's NIs, the others counted as omitted" \
	$checker peers "$work/max1.prom" 1
"$exporter" --name "$a" --once --max-peers 0 >"$work/max0.prom" 2>"$work/max0.err"
check "--max-peers 0: no peer NI, every peer omitted" $checker peers "$work/max0.prom" 0
"$exporter" --name "$a" --once >"$work/all.prom" 2>"$work/all.err"
check "the default (1000): both peers, none omitted" $checker peers "$work/all.prom" 2

# The router's view: its buffer pools per CPT.
"$exporter" --name "$b" --once >"$work/b.prom" 2>"$work/b.err"
# Forwarding starts after alive_router_check_interval + router_ping_timeout: 3 until then.
check "$b: lnet_routing_state 1 or 3 (on, or starting), as set routing 1 left it" \
	grep -qE '^lnet_routing_state (1|3)\.0$' "$work/b.prom"
check "$b: the tiny pool of CPT 0 has buffers and a low-water mark" sh -c \
	"grep -q '^lnet_router_buffers{cpt=\"0\",pool=\"tiny\"} [1-9]' '$work/b.prom' &&
	 grep -q '^lnet_router_buffer_credits_min{cpt=\"0\",pool=\"tiny\"} ' '$work/b.prom'"
check "every metric the Grafana dashboard queries is served" $checker dashboard \
	"$src/../../contrib/grafana/lnetd-router.json" "$work/s1.prom" "$work/b.prom"
check "--socket PATH reads the same daemon" sh -c \
	"'$exporter' --socket /var/run/dpdk/$b/dpdk_telemetry.v2 --once 2>/dev/null | grep -qE '^lnet_routing_state (1|3)\\.0$'"

check "SIGTERM: $a exits 0" stop_daemon "$pid_a"
check "the daemon gone: lnet_up 0 and none of its series, not an error page" $checker down "$url"
check "... and again on the next scrape" $checker down "$url"
check "... said once on stderr, not at each scrape" sh -c \
	"[ \$(grep -vc '^lnetd-exporter: reading ' '$work/exporter.err') -eq 1 ]"
check "--once for an instance that is not there: lnet_up 0, exit 0" sh -c \
	"'$exporter' --name nosuch-$$ --once 2>/dev/null | grep -qx 'lnet_up 0.0'"
check "the exporter exits 0 on SIGTERM" stop_daemon "$exporter_pid"

# A daemon that is stopping answers every command -ESHUTDOWN; one of another
# version may answer in another shape: lnet_up 0 and why, not an error page.
fake_once() { # MODE WHAT: the exporter on a fake telemetry socket; WHAT on stderr
	$checker fake "$work/fake-$1.sock" "$1" &
	fake_pid=$!
	eventually 10 test -S "$work/fake-$1.sock" &&
		"$exporter" --socket "$work/fake-$1.sock" --once >"$work/fake.prom" 2>"$work/fake.err"
	rc=$?
	kill "$fake_pid"
	wait "$fake_pid" 2>/dev/null
	cat "$work/fake.err"
	[ $rc -eq 0 ] && grep -qx 'lnet_up 0.0' "$work/fake.prom" &&
		[ "$(grep -c '^lnet_' "$work/fake.prom")" -eq 2 ] && grep -q "$2" "$work/fake.err"
}
check "a daemon that is stopping (-108 to every command): lnet_up 0" \
	fake_once stopping 'lnetd-pmd is stopping'
check "answers of another shape: lnet_up 0, 'unexpected answer'" fake_once odd 'unexpected answer'
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work/$a.err' '$work/$b.err'"
finish exporter
