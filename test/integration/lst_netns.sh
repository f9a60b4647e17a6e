#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Our lst against three lnetd-pmd --selftest daemons over socklnd, each in a
# network namespace of its own (made and deleted here), on one subnet: a
# bridge in C's namespace joins a veth pair to S1 and one to S2. lst
# makes a session, a group of the two servers and one of C, a batch with a
# brw write and a brw read of 1 MiB with check=full and a ping test (C the
# client, both servers its destinations), runs it; lst stat shows the
# servers' traffic (waited for, not slept on) and show_error none; S2 is
# killed: stat and show_error report it as the kernel's lst does;
# end_session leaves no session on the nodes (a console of their own can
# take them); with the service off a daemon has no console. Before all of
# it, with tcpdump and tshark there, tcpdump records C's bridge from the
# first connection while the session is made and a batch of a few brw
# write and read RPCs of 1 MiB with check=full and pings runs to its end:
# Wireshark's LNet dissector decodes every PDU (tshark_check_file) and sees
# selftest's portals, 50 (test requests), 51 (framework) and 52 (replies
# and bulk), beside LNet's 0 (discovery). Needs root.
#   lst_netns.sh BUILD_DIR SRC_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/../common/tshark_lib.sh"
lst="$build/apps/lst/lst"
netns_script lst_netns lst
c1=10.$x.1.1 s1=10.$x.1.2 s2=10.$x.1.3

# A veth pair from C's bridge to server namespace $1 (address $2 there).
bridge_port() {
	ip -n "${tag}c" link add "p$1" type veth peer name eth0 netns "$tag$1" &&
		ip -n "${tag}c" link set "p$1" master br0 && ip -n "${tag}c" link set "p$1" up &&
		ip -n "$tag$1" addr add "$2/24" dev eth0 && ip -n "$tag$1" link set eth0 up
}

topology() {
	for n in c s1 s2; do
		ip netns add "$tag$n" && nss="$nss $tag$n" && ip -n "$tag$n" link set lo up || return 1
	done
	ip -n "${tag}c" link add br0 type bridge && ip -n "${tag}c" addr add "$c1/24" dev br0 &&
		ip -n "${tag}c" link set br0 up && bridge_port s1 "$s1" && bridge_port s2 "$s2"
}

# daemon_in with --selftest: lnetd-pmd $tag$1 in namespace $tag$1, serving lnet_selftest.
selftest_daemon_in() {
	DAEMON_PREFIX="ip netns exec $tag$1" start_daemon "$tag$1" --selftest
}

# lst on daemon $1 (c, s1, s2); its stdout in $work/o, stderr in $work/e, its exit status.
lst_on() {
	d=$1
	shift
	LNETCTL_NAME=$tag$d "$lst" "$@" >"$work/o" 2>"$work/e"
}
is() { # FILE, then the exact lines wanted
	f=$1
	shift
	printf '%s\n' "$@" >"$work/want"
	cmp -s "$work/want" "$f" || { echo "want:"; cat "$work/want"; echo "got:"; cat "$f"; return 1; }
}
lst_ok() { # lst on C: exit 0, stdout the lines given, stderr empty
	want_=$1
	shift
	lst_on c "$@" || { cat "$work/o" "$work/e"; return 1; }
	[ ! -s "$work/e" ] || { cat "$work/e"; return 1; }
	if [ -z "$want_" ]; then
		[ ! -s "$work/o" ] || { cat "$work/o"; return 1; }
		return 0
	fi
	eval "is $work/o $want_"
}

# One lst stat round of the servers: both bandwidths above 0.00 MiB/s.
servers_busy() {
	lst_on c stat --delay 1 --count 1 servers || return 1
	awk '/^\[LNet Bandwidth of servers\]/ { bw = 1; next }
	     bw && /^\[R\]/ { r = $3 } bw && /^\[W\]/ { w = $3 }
	     END { exit !(r + 0 > 0 && w + 0 > 0) }' "$work/o" || { cat "$work/o"; return 1; }
}

# tcpdump on C's bridge (every LNet byte of C's: it is the only console and
# client), and ICMP: an echo reply in the file says tcpdump wrote all before it.
capture_start() {
	ip netns exec "${tag}c" tcpdump -i br0 -U -w "$work/lst.pcap" 'tcp port 988 or icmp' \
		2>"$work/tcpdump.err" &
	tcpdump_pid=$!
	pids="$pids $tcpdump_pid"
	eventually 30 grep -q 'listening on' "$work/tcpdump.err"
}
echo_reply_captured() {
	tcpdump -r "$work/lst.pcap" icmp 2>/dev/null | grep -q 'echo reply'
}
# SIGINT drops what tcpdump has not read yet: first a ping, and its reply in the file.
capture_stop() {
	ip netns exec "${tag}c" ping -c 1 -W 5 "$s1" >/dev/null && eventually 30 echo_reply_captured &&
		kill -INT "$tcpdump_pid" && wait "$tcpdump_pid"
}
# The batch $1 has ended on every node (its loops done).
batch_ended() {
	lst_on c query "$1" && grep -qx "$1 \[0\] is stopped" "$work/o"
}
# The portals of the LNet PUTs and GETs Wireshark decoded: selftest's three,
# and 0, LNet's own (discovery's ping of a new peer).
selftest_portals_seen() {
	tshark_headers "$work/lst.pcap" | awk -F'|' '$1 == 1 || $1 == 2 { print $3 }' | sort -un >"$work/portals"
	is "$work/portals" 0 50 51 52
}
tshark_run=0
command -v tshark >/dev/null 2>&1 && command -v tcpdump >/dev/null 2>&1 && tshark_run=1
[ $tshark_run -eq 1 ] || echo "lst_netns: no tcpdump or tshark: the tshark check is skipped"

export LST_SESSION=$$
check "topology: S1 and S2 on C's bridge" topology
check "daemon C --selftest" selftest_daemon_in c
pid_c=$pid
check "daemon S1 --selftest" selftest_daemon_in s1
check "daemon S2 --selftest" selftest_daemon_in s2
pid_s2=$pid
check "C: $c1@tcp" "$ctl" --name "${tag}c" net add --nid "$c1@tcp"
check "S1: $s1@tcp" "$ctl" --name "${tag}s1" net add --nid "$s1@tcp"
check "S2: $s2@tcp" "$ctl" --name "${tag}s2" net add --nid "$s2@tcp"
[ $tshark_run -eq 0 ] || check "tcpdump on C's bridge, before any connection" capture_start

check "new_session" lst_ok "'SESSION: lt FEATURES: 1 TIMEOUT: 300 FORCE: No'" new_session lt
check "add_group servers: MKSN to both" lst_ok "'$s1@tcp are added to session' '$s2@tcp are added to session'" \
	add_group servers "$s1@tcp" "$s2@tcp"
check "add_group clients: C itself" lst_ok "'$c1@tcp are added to session'" add_group clients "$c1@tcp"
check "list_group servers: two ACTIVE" lst_ok "'	ACTIVE	BUSY	DOWN	UNKNOWN	TOTAL' '	2	0	0	0	2	servers'" \
	list_group servers
if [ $tshark_run -eq 1 ]; then
	check "add_batch captured" lst_ok "" add_batch captured
	for t in "brw write size=1M check=full" "brw read size=1M check=full" "ping"; do
		# shellcheck disable=SC2086
		check "captured: add_test --loop 2 $t" lst_ok "'Test was added successfully'" add_test \
			--batch captured --loop 2 --to servers --from clients $t
	done
	check "run captured" lst_ok "'captured is running now'" run captured
	check "captured: its loops end" eventually 60 batch_ended captured
	check "tcpdump stops" capture_stop
	check "tshark: every LNet PDU decodes, nothing malformed, bytes balanced" tshark_check_file "$work/lst.pcap"
	check "tshark: selftest's portals 50, 51 and 52, and LNet's 0" selftest_portals_seen
fi
check "add_batch b" lst_ok "" add_batch b
for t in "brw write size=1M check=full" "brw read size=1M check=full" "ping"; do
	# shellcheck disable=SC2086
	check "add_test $t" lst_ok "'Test was added successfully'" add_test --batch b --concurrency 2 \
		--distribute 1:2 --from clients --to servers $t
done
check "list_batch b: three tests, idle" sh -c "LNETCTL_NAME=${tag}c '$lst' list_batch b | head -1 | grep -qx 'Batch: b Tests: 3 State: 176'"
check "list_group: the session's groups, numbered" lst_ok "'1) servers' '2) clients' 'Total 2 groups'" list_group
# The session's default batch "batch" first (made with it, as the kernel's console does).
if [ $tshark_run -eq 1 ]; then batches="'1) batch' '2) captured' '3) b' 'Total 3 batches'"; else batches="'1) batch' '2) b' 'Total 2 batches'"; fi
check "list_batch: the session's batches, numbered" lst_ok "$batches" list_batch
check "run of a batch not in the session: said, exit 255" sh -c "LNETCTL_NAME=${tag}c '$lst' run nosuch >'$work/o' 2>'$work/e'; [ \$? -eq 255 ] && grep -q '^Failed to get count of nodes from nosuch: ' '$work/e'"
check "run b" lst_ok "'b is running now'" run b
check "query b: running" lst_ok "'b [0] is running'" query b
check "lst stat: the servers receive and send 1 MiB bulks" eventually 60 servers_busy
check "show_error servers: none" lst_ok "'servers:' 'Total 0 error nodes in servers'" show_error servers

check "S2 killed" sh -c "kill -9 $pid_s2"
check "stat: a node fails (its STAT RPC)" sh -c "LNETCTL_NAME=${tag}c '$lst' stat --delay 1 --count 1 --timeout 3 servers | grep -qx 'Failed to stat on 1 nodes'"
check "show_error servers: S2's RPC failure on stderr" sh -c "! LNETCTL_NAME=${tag}c '$lst' show_error servers >'$work/o' 2>'$work/e' || true; grep -qx 'RPC failure, can.t show error on 12345-$s2@tcp' '$work/e' && grep -qx 'Total 1 error nodes in servers' '$work/o'"
check "stop b" sh -c "LNETCTL_NAME=${tag}c '$lst' stop b | tail -1 | grep -qx 'Batch is stopped'"
check "end_session" sh -c "LNETCTL_NAME=${tag}c '$lst' end_session; LNETCTL_NAME=${tag}c '$lst' show_session 2>&1 | grep -qx 'No session exists'"
# Each node is free: a console of its own takes it (a node still in C's session would answer EBUSY).
for n in c s1; do
	check "$n: no session left, its own console takes it" sh -c \
		"LST_SESSION=7 LNETCTL_NAME=$tag$n '$lst' new_session own >/dev/null && LST_SESSION=7 LNETCTL_NAME=$tag$n '$lst' add_group g 0@lo | grep -qx '0@lo are added to session'"
done
# As the kernel's console lives in the lnet_selftest module: none while the service is off.
printf 'global:\n    lnet_selftest: 0\n' >"$work/off.yaml"
check "S1: lnet_selftest off" "$ctl" --name "${tag}s1" import "$work/off.yaml"
check "S1: no console: lst refused, exit 255" sh -c \
	"LNETCTL_NAME=${tag}s1 '$lst' show_session 2>'$work/e'; [ \$? -eq 255 ] && grep -qx 'lnet_selftest is not enabled (--selftest)' '$work/e'"
check "daemon C stops: exit 0" stop_daemon "$pid_c"
finish lst_netns
