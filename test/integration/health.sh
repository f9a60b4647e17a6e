#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Health end to end between two applications linked to liblnet, each with
# two NIs on one net over two veth pairs on two subnets (the kernel
# captures' s2 layout), 64 operations of 1 MiB in flight (PUT a pattern,
# GET it back, compare every byte):
#   - a rail's veth taken down under the traffic: no operation is lost
#     (every one verified), the messages it held were resent over the
#     other rail, its NI's health dropped; once the veth is back up the
#     rail carries traffic again;
#   - the same with a fault rule instead (a drop rule with a health error on
#     the PUTs and GETs to one of the server's NIDs: each fails as a remote
#     drop and is resent to the other NID), its recovery pings and the resends on
#     the wire passing Wireshark's dissector (tcpdump on both veths);
#   - a peer with no path left (both of its links down): every operation in
#     flight ends with an error event, within transaction_timeout.
#   health.sh BUILD_DIR SRC_DIR [COUNT]   (needs root, iproute2, tcpdump, tshark)
set -u
build=$1 src=$2 count=${3:-1500}
. "$src/harness.sh"
. "$src/../common/tshark_lib.sh"
netns_script health lhl

a0=10.$x.1.1 b0=10.$x.1.2 a1=10.$x.2.1 b1=10.$x.2.2
node="$build/test/integration/lnet_node"

topology() {
	two_rails "${tag}a" "${tag}b" "$a0" "$b0" "$a1" "$b1"
}

serve() { node_serve "${tag}b" "$1" --nid "$b0@tcp" --nid "$b1@tcp"; } # NAME: two NIs
unserve() { node_unserve; }

# client NAME ARGS...: an lnet_node client with two NIs in namespace a, 64 in flight.
client() {
	name=$1
	shift
	ip netns exec "${tag}a" "$node" client --nid "$a0@tcp" --nid "$a1@tcp" --peer "$b0@tcp" \
		--sizes 1048576 --inflight 64 "$@" >"$work/$name.out" 2>"$work/$name.err"
}

field() { node_field "$@"; } # FILE SECTION NID KEY

# stat FILE KEY: a health counter the client printed at exit.
stat() {
	awk -v key="$2:" '/^health:$/ { on = 1; next } /^[a-z]/ { on = 0 } on && $1 == key { print $2 }' "$1"
}

all_verified() { # FILE COUNT
	v=$(awk '$1 == "verified:" { print $2 }' "$1") f=$(awk '$1 == "failed:" { print $2 }' "$1")
	echo "verified $v, failed $f"
	[ "$v" = "$2" ] && [ "$f" = 0 ] || { cat "$1" "$(dirname "$1")/$(basename "$1" .out).err"; return 1; }
}

pcap_both() { # tcpdump on both of the client's veths
	tcpdump_start "${tag}a" eth0 "$work/f0.pcap" && p0=$tcpdump_pid &&
		tcpdump_start "${tag}a" eth1 "$work/f1.pcap" && p1=$tcpdump_pid
}

pcap_both_stop() {
	tcpdump_pid=$p0
	tcpdump_stop "$work/f0.pcap" || return 1
	tcpdump_pid=$p1
	tcpdump_stop "$work/f1.pcap"
}

# Recovery pings to $b1 in either capture: GETs of 272 bytes of ping target on portal 0
# (discovery pings the primary, $b0: a ping to $b1 is recovery's).
recovery_pings_seen() {
	{ tshark_headers "$work/f0.pcap"; tshark_headers "$work/f1.pcap"; } >"$work/f.headers"
	n=$(grep -c "^2|0|0|0x8000000000000000|0|272|[^|]*|$b1\$" "$work/f.headers")
	echo "recovery pings to $b1: $n"
	[ "$n" -ge 1 ]
}

resends_all_succeeded() { # FILE
	r=$(stat "$1" resend_count) ok=$(stat "$1" successful_resends) bad=$(stat "$1" failed_resends)
	echo "resent $r, succeeded $ok, gave up $bad"
	[ -n "$r" ] && [ "$r" = "$ok" ] && [ "$bad" = 0 ]
}

# peer_lost_health FILE SECTION NID: below full health in SECTION, drops counted by the end.
peer_lost_health() {
	h=$(field "$1" "$2" "$3" health) d=$(field "$1" nis_peer_nis "$3" dropped)
	echo "health $h, dropped $d"
	[ -n "$h" ] && [ "$h" -lt 1000 ] && [ "${d:-0}" -gt 0 ]
}

# more FILE NID SECTION_BEFORE: NID sent more by the end than at SECTION_BEFORE.
sent_more_after() {
	before=$(field "$1" "$3" "$2" send_count) after=$(field "$1" nis "$2" send_count)
	echo "$2 sent $before at $3, $after at the end"
	[ -n "$before" ] && [ -n "$after" ] && [ "$after" -gt "$before" ]
}

t_down=$((count / 5)) t_up=$((count / 2))
check "topology: two namespaces joined by two veth pairs on two subnets" topology
check "server with two NIs" serve s1
# Once eth1 is back up the client starts nothing until its NI there is up
# and at full health again (as healthy as eth0's: LNet then takes both),
# however long the link and recovery take.
check "client: $count operations of 1 MiB, 64 in flight; eth1 down after $t_down, up after $t_up" \
	client c1 --count "$count" \
	--run-after "$t_down:ip link set eth1 down" \
	--run-after "$((t_down + 64)):true" \
	--run-after "$t_up:ip link set eth1 up" \
	--run-after "$((t_up + 1)):@healthy $a1@tcp"
check "client: every operation verified, none lost" all_verified "$work/c1.out" "$count"
check "client: its NI on eth1 was back at full health before it went on" \
	sh -c "! grep 'still not so' '$work/c1.err'"
# What the rail held when it went (often nothing: a veth's bytes are acknowledged in
# microseconds) was resent, every resend succeeded; the fault rule below always resends.
check "client: whatever the downed rail held was resent over the other, every resend succeeded" \
	resends_all_succeeded "$work/c1.out"
# What was on the wire when the link went is mostly acknowledged already (a
# veth sends at once); what failed is the server's NID behind it, as the
# kernel's C saw 192.0.2.33@tcp in scenario 2: its health drops, its drops count.
check "client: the server's $b1 lost health and counted drops while its link was down" \
	peer_lost_health "$work/c1.out" "at_$((t_down + 64))_peer_nis" "$b1@tcp"
check "client: the rail carries traffic again once eth1 is back up" \
	sent_more_after "$work/c1.out" "$a1@tcp" "at_$t_up"
check "server stops" unserve s1

# A fault rule in place of the link: PUTs and GETs to $b1 (the application's portal, not LNet's
# pings) fail as remote drops from op 50 to op 250.
few=$((count / 5))
check "server with two NIs" serve s2
check "tcpdump on both of the client's veths" pcap_both
# Once a message failed there, $b1 is less healthy than $b0 and gets no more of them, and
# nothing of it arrives: it is pinged for recovery. The application pauses until a REPLY
# comes from $b1: the rule fails its own GETs there, so that REPLY answers a recovery
# ping, whose GET crossed eth1 (captured) before it.
check "client: $few operations of 4 KiB, a drop rule on $b1's PUTs and GETs from op 50 to op $((few - 50))" \
	client c2 --count "$few" --sizes 4096 --inflight 8 \
	--run-after "50:@fault $b1@tcp" --run-after "60:@replied $b1@tcp" --run-after "$((few - 50)):@nofault"
check "tcpdump lost nothing" pcap_both_stop
check "client: every operation verified, none lost to the rule" all_verified "$work/c2.out" "$few"
check "client: $b1 answered (a recovery ping) before it went on" sh -c "! grep 'still not so' '$work/c2.err'"
check "client: the rule fired and each message it failed was resent" sh -c \
	"d=\$(awk '/^health:/ { on = 1 } on && \$1 == \"remote_dropped_count:\" { print \$2 }' '$work/c2.out'); r=\$(awk '/^health:/ { on = 1 } on && \$1 == \"resend_count:\" { print \$2 }' '$work/c2.out'); echo \"dropped \$d, resent \$r\"; [ \"\${d:-0}\" -gt 0 ] && [ \"\$r\" -ge \"\$d\" ]"
check "client: $b1 lost health to the rule" peer_lost_health "$work/c2.out" "at_$((few - 50))_peer_nis" "$b1@tcp"
check "tshark on $a0's veth: all decoded, nothing malformed, bytes balanced" tshark_check_file "$work/f0.pcap"
check "tshark on $a1's veth: the same" tshark_check_file "$work/f1.pcap"
# Recovery pings: GETs of the ping target (portal 0, the ping match bits, 272 bytes asked) to $b1.
check "recovery pings to $b1 on the wire, as the kernel's (GET ptl 0, ping bits, 272)" \
	recovery_pings_seen
check "server stops" unserve s2

# No path left: both of the server's links go down (its veths' peers, ours, lose carrier).
check "server with two NIs" serve s3
check "client: transaction_timeout 10, both server links down after $few; it stops at the first error" \
	sh -c "ip netns exec '${tag}a' '$node' client --nid '$a0@tcp' --nid '$a1@tcp' --peer '$b0@tcp' --sizes 1048576 --inflight 64 --count $((few * 4)) --timeout 10 --stop-on-error --run-after '$few:ip -n ${tag}b link set eth0 down; ip -n ${tag}b link set eth1 down' >'$work/c3.out' 2>'$work/c3.err'; [ -s '$work/c3.out' ]"
check "client: every operation started ended (verified or failed), each failure with its event" sh -c \
	"awk '\$1 == \"operations:\" { o = \$2 } \$1 == \"verified:\" { v = \$2 } \$1 == \"failed:\" { f = \$2 } END { print o, v, f; exit !(f > 0 && v + f == o) }' '$work/c3.out'"
# Each ends within transaction_timeout of its own send (the last sent just before the first
# error); response deadlines are looked at once a second: 10 s, and 2 s of slack.
check "client: those in flight ended within transaction_timeout" sh -c \
	"awk '\$1 == \"seconds_to_complete_them:\" { print; exit !(\$2 <= 12) }' '$work/c3.out'"
check "server stops" unserve s3
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work'/*.err"
finish health
