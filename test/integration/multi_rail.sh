#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Multi-Rail end to end between two applications linked to liblnet, each
# with two NIs on one net over two veth pairs on two subnets (the kernel
# captures' s3 layout), with no `peer add`:
#   - the client's first PUT discovers the server (ping, push), which is
#     then a Multi-Rail peer with both NIDs;
#   - 1 MiB PUTs, each read back with a GET and compared, spread over both
#     rails: each client NI sends, and each server NI receives, between 40%
#     and 60% of the traffic;
#   - a server with discovery off is not Multi-Rail to the client, which
#     then keeps to one of its NIs (the kernel's preferred NI of a non-MR
#     peer);
#   - an NI deleted while operations are in flight: the traffic moves off
#     it and no operation is lost. As the kernel's net del, the NI's LND
#     stays up until what is in flight on it is done; what it still holds
#     then (the socklnd completes a message once the peer's TCP acknowledged
#     it) fails as a local abort, and health resends it over the other NI;
#     an NI added at runtime takes its share and nothing fails.
#   multi_rail.sh BUILD_DIR SRC_DIR [COUNT]   (needs root and iproute2)
set -u
build=$1 src=$2 count=${3:-2000}
. "$src/harness.sh"
netns_script multi_rail lmr

a0=10.$x.1.1 b0=10.$x.1.2 a1=10.$x.2.1 b1=10.$x.2.2
node="$build/test/integration/lnet_node"

topology() {
	two_rails "${tag}a" "${tag}b" "$a0" "$b0" "$a1" "$b1"
}

serve() { node_serve "${tag}b" "$@"; }   # NAME ARGS...: its NI counts in $work/NAME.out
unserve() { node_unserve; }

# client NAME ARGS...: an lnet_node client in namespace a; every operation verified.
client() {
	name=$1
	shift
	ip netns exec "${tag}a" "$node" client --peer "$b0@tcp" --sizes 1048576 \
		--inflight 8 "$@" >"$work/$name.out" 2>"$work/$name.err" &&
		grep -q "^    failed: 0$" "$work/$name.out" ||
		{ cat "$work/$name.out" "$work/$name.err"; return 1; }
}

# count FILE NID KEY: that NI's count in an lnet_node's "nis:" list.
count() {
	awk -v nid="$2" -v key="$3:" '$3 == nid { on = 1; next } /- nid:/ { on = 0 } on && $1 == key { print $2 }' "$1"
}

# spread FILE KEY NID1 NID2: each NI has 40% to 60% of the two's KEY counts.
spread() {
	c1=$(count "$1" "$3" "$2") c2=$(count "$1" "$4" "$2")
	echo "$3: $c1, $4: $c2"
	[ -n "$c1" ] && [ -n "$c2" ] && [ $((c1 + c2)) -gt 0 ] &&
		[ $((c1 * 100 / (c1 + c2))) -ge 40 ] && [ $((c1 * 100 / (c1 + c2))) -le 60 ] ||
		{ cat "$1"; return 1; }
}

# one_rail FILE NID1 NID2 OPS: one NI sent every operation's message, the other
# at most the discovery ping (reserved-portal messages keep no preferred NI).
one_rail() {
	c1=$(count "$1" "$2" send_count) c2=$(count "$1" "$3" send_count)
	echo "$2: $c1, $3: $c2"
	{ [ "$c1" -ge $((2 * $4)) ] && [ "$c2" -le 2 ]; } ||
		{ [ "$c2" -ge $((2 * $4)) ] && [ "$c1" -le 2 ]; } || { cat "$1"; return 1; }
}

check "topology: two namespaces joined by two veth pairs on two subnets" topology
check "server with two NIs" serve s1 --nid "$b0@tcp" --nid "$b1@tcp"
check "client with two NIs: $count PUTs of 1 MiB (each read back and compared), no peer add" \
	client c1 --nid "$a0@tcp" --nid "$a1@tcp" --count "$count"
check "client: its two NIs each sent 40% to 60%" spread "$work/c1.out" send_count "$a0@tcp" "$a1@tcp"
check "server stops" unserve s1
check "server: its two NIs each received 40% to 60% (the client spread over its NIDs)" \
	spread "$work/s1.out" recv_count "$b0@tcp" "$b1@tcp"

few=$((count / 10))
check "server with two NIs and discovery off" serve s2 --nid "$b0@tcp" --nid "$b1@tcp" --discovery 0
check "client with two NIs: $few operations to a peer that is not Multi-Rail" \
	client c2 --nid "$a0@tcp" --nid "$a1@tcp" --count "$few"
check "client: one NI carried every operation (a non-MR peer keeps its NI)" \
	one_rail "$work/c2.out" "$a0@tcp" "$a1@tcp" "$few"
check "server stops" unserve s2

check "server with two NIs" serve s3 --nid "$b0@tcp" --nid "$b1@tcp"
# verified OUT COUNT: every operation verified, none failed.
verified() {
	v=$(awk '$1 == "verified:" { print $2 }' "$1") f=$(awk '$1 == "failed:" { print $2 }' "$1")
	echo "verified $v, failed $f"
	[ "$v" = "$2" ] && [ "$f" = 0 ] || { cat "$1" "${1%.out}.err"; return 1; }
}
check "client deletes $a1 after $few of $((few * 4)) operations" sh -c \
	"ip netns exec '${tag}a' '$node' client --peer '$b0@tcp' --sizes 1048576 --inflight 8 --nid '$a0@tcp' --nid '$a1@tcp' --count $((few * 4)) --change-after $few --del-nid '$a1@tcp' >'$work/c3.out' 2>'$work/c3.err'; true"
check "client: every operation verified, none lost with the NI" verified "$work/c3.out" $((few * 4))
# The client's "nis:" list at exit (its NIs, not the peers' NIs listed after it).
awk '/^nis:$/ { on = 1; next } /^[a-z]/ { on = 0 } on' "$work/c3.out" >"$work/c3.nis"
check "client: $a1 is gone, $a0 carried the rest" sh -c \
	"! grep -q 'nid: $a1@tcp' '$work/c3.nis' && [ \$(awk '/send_count/ {print \$2}' '$work/c3.nis') -ge $((few * 3 * 2)) ]"
check "client adds $a1 after $few of $((few * 4)) operations: none lost" \
	client c4 --nid "$a0@tcp" --count $((few * 4)) --change-after "$few" --add-nid "$a1@tcp"
check "client: the added $a1 took its share of the rest (at least 30% of all)" sh -c \
	"c0=\$(awk -v n='$a0@tcp' '\$3 == n { on = 1; next } /- nid:/ { on = 0 } on && \$1 == \"send_count:\" { print \$2 }' '$work/c4.out'); c1=\$(awk -v n='$a1@tcp' '\$3 == n { on = 1; next } /- nid:/ { on = 0 } on && \$1 == \"send_count:\" { print \$2 }' '$work/c4.out'); echo \$c0 \$c1; [ \$((c1 * 100 / (c0 + c1))) -ge 30 ]"
check "server stops" unserve s3
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work'/*.err"
finish multi_rail
