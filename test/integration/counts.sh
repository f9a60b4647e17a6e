#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Message counts as the kernel keeps them, after the kernel captures' s2_01
# session (fresh nodes, no discovery): A pings B, B pings A, A pings B.
# A's `peer show -v` is then the kernel's s2_01.nodeA.peer_show_v.yaml with
# our NIDs (send 3, recv 3: two GETs and the REPLY to B's GET counted as
# sent, two REPLYs and B's GET as received); each side's tcp NI counts the
# same 3/3 in `net show -v`, and its recv_count is the node's (`stats show`).
# -v 2 splits them by type as the kernel does (a REPLY sent counts under get),
# -v 3 and the full export add the peer state, -v 4 the udsp info, in the
# kernel's shape. Then three PUTs from an application to a portal B never
# posted: B drops them as the kernel does (the NI's dropped put, the node's
# drop_count), the sender's peer NI counts no drop. Discovery is on, so the
# application's first PUT waits for its discovery of B, as the kernel's
# would: its ping (GET, REPLY), its push (PUT, ACK) and B's push back (PUT,
# ACK): 3 more sent and received on B's NI and its peer NI for the sender.
# Once with one CPT, once with two.
#   counts.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"

# The statistics block of NI $2 in `net show -v` of daemon $1, one line.
ni_stats() {
	"$ctl" --name "$1" net show -v --net tcp | tr -d '\n' |
		sed -n "s/.*nid: $2 .*statistics: *\(send_count: [0-9]*\) *\(recv_count: [0-9]*\) *\(drop_count: [0-9]*\).*/\1 \2 \3/p"
}

node_stat() { # daemon key
	"$ctl" --name "$1" stats show | sed -n "s/^    $2: //p"
}

ni_is() { # daemon nid want
	got=$(ni_stats "$1" "$2")
	[ "$got" = "$3" ] || { echo "$1 $2: got '$got', want '$3'"; return 1; }
}

# send_count = recv_count >= $3 and drop_count = $4 in the one-line statistics $1.
balanced_with_drops() { # stats min drops
	set -- $(echo "$1" | sed -n 's/.*send_count: *\([0-9]*\) *recv_count: *\([0-9]*\) *drop_count: *\([0-9]*\).*/\1 \2 \3/p') "$2" "$3"
	[ $# -eq 5 ] && [ "$1" -eq "$2" ] && [ "$1" -ge "$4" ] && [ "$3" -eq "$5" ]
}

ni_balanced() { # daemon nid min-send drops
	got=$(ni_stats "$1" "$2")
	balanced_with_drops "$got" "$3" "$4" || { echo "$1 $2: got '$got'"; return 1; }
}

peer_balanced() { # daemon peer-nid min-send drops
	"$ctl" --name "$1" peer show -v --nid "$2" | tr -d '\n' >"$work/peer"
	balanced_with_drops "$(cat "$work/peer")" "$3" "$4" || { cat "$work/peer"; echo; return 1; }
}

peer_is() { # daemon peer-nid send recv drop
	"$ctl" --name "$1" peer show -v --nid "$2" | tr -d '\n' >"$work/peer"
	grep -q "statistics: *send_count: $3 *recv_count: $4 *drop_count: $5" "$work/peer" ||
		{ cat "$work/peer"; echo; return 1; }
}

# The by-type block $3 (sent_stats...) of peer NI or NI listing $2 ("peer"/"net"), one line.
by_type() { # daemon peer|net section
	if [ "$2" = peer ]; then
		"$ctl" --name "$1" peer show -v 2
	else
		"$ctl" --name "$1" net show -v 2 --net tcp
	fi | tr -d '\n' | sed -n "s/.*$3: *\(put: [0-9]*\) *\(get: [0-9]*\) *\(reply: [0-9]*\) *\(ack: [0-9]*\) *\(hello: [0-9]*\).*/\1 \2 \3 \4 \5/p"
}

by_type_is() { # daemon peer|net section want
	got=$(by_type "$1" "$2" "$3")
	[ "$got" = "$4" ] || { echo "$1 $2 $3: got '$got', want '$4'"; return 1; }
}

# Keys, nesting and order of a YAML listing with every value masked.
shape() { sed 's/: .*/: V/'; }

# The kernel's -v 4 listing cut to its first peer and first peer NI.
kernel_v4_first() {
	awk '/^      -     nid:/ { n++ } n == 2 { exit } /^-     primary nid:/ { p++ } p == 2 { exit } { print }' \
		"$src/expected/kernel_s1_06_nodeA_peer_show_v4.yaml"
}

node_drops_are() { # daemon count length
	[ "$(node_stat "$1" drop_count)" = "$2" ] && [ "$(node_stat "$1" drop_length)" = "$3" ]
}

v4_shape_is_kernels() { # daemon
	"$ctl" --name "$1" peer show -v 4 | shape >"$work/v4" && kernel_v4_first | shape | diff - "$work/v4"
}

# The full export's peer section (up to global:) is `peer show -v 3`, byte for byte.
export_peers_are_v3() { # daemon
	"$ctl" --name "$1" export | sed -n '/^peer:/,/^global:/p' | sed '$d' >"$work/exp" &&
		"$ctl" --name "$1" peer show -v 3 | diff - "$work/exp"
}

# The NI's recv_count equals the node's: nothing but this traffic since start.
recv_agrees() { # daemon nid
	ni=$(ni_stats "$1" "$2" | sed -n 's/.*recv_count: \([0-9]*\).*/\1/p')
	node=$(node_stat "$1" recv_count)
	[ -n "$ni" ] && [ "$ni" = "$node" ] || { echo "$1: NI recv_count $ni, node $node"; return 1; }
}

# One session: fresh daemons (daemon options in "$@"), the three pings, the checks.
session() { # tag ipa ipb [daemon options...]
	tag=$1 ipa=$2 ipb=$3
	shift 3
	a=lnetd-cnt-a$tag-$$ b=lnetd-cnt-b$tag-$$
	check "[$tag] daemon $a starts" start_daemon "$a" "$@"
	pid_a=$pid
	check "[$tag] daemon $b starts" start_daemon "$b" "$@"
	pid_b=$pid
	check "[$tag] net add on $a" "$ctl" --name "$a" net add --nid "$ipa@tcp" ${cpta:+--cpt "$cpta"}
	check "[$tag] net add on $b" "$ctl" --name "$b" net add --nid "$ipb@tcp" ${cptb:+--cpt "$cptb"}
	if [ -n "$cptb" ]; then
		check "[$tag] $b's tcp NI is served by CPT $cptb" sh -c \
			"'$ctl' --name '$b' net show -v --net tcp | grep -q 'CPT: \"\\[$cptb\\]\"'"
	fi
	check "[$tag] fresh: $a's tcp NI counts nothing" ni_is "$a" "$ipa@tcp" "send_count: 0 recv_count: 0 drop_count: 0"
	check "[$tag] $a pings $b" sh -c "'$ctl' --name '$a' ping '$ipb@tcp' >/dev/null"
	check "[$tag] $b pings $a" sh -c "'$ctl' --name '$b' ping '$ipa@tcp' >/dev/null"
	check "[$tag] $a pings $b again" sh -c "'$ctl' --name '$a' ping '$ipb@tcp' >/dev/null"
	sed "s/192\.0\.2\.12@tcp/$ipb@tcp/" "$src/expected/kernel_s2_01_nodeA_peer_show_v.yaml" >"$work/want"
	check "[$tag] $a's peer show -v is the kernel's after the same 3 pings (s2_01 nodeA)" sh -c \
		"'$ctl' --name '$a' peer show -v >'$work/got' && diff '$work/want' '$work/got'"
	# B's last REPLY counts once A's TCP acknowledged it (it completes then): soon, not at once.
	check "[$tag] $b's peer NI $ipa@tcp: send 3 (REPLY, GET, REPLY), recv 3" \
		eventually 2 peer_is "$b" "$ipa@tcp" 3 3 0
	check "[$tag] $a's peer NI -v 2 sent: 2 GETs and a REPLY, all under get" \
		by_type_is "$a" peer sent_stats "put: 0 get: 3 reply: 0 ack: 0 hello: 0"
	check "[$tag] $a's peer NI -v 2 received: B's GET, 2 REPLYs" \
		by_type_is "$a" peer received_stats "put: 0 get: 1 reply: 2 ack: 0 hello: 0"
	check "[$tag] $b's peer NI -v 2 sent: a GET and 2 REPLYs, all under get" \
		by_type_is "$b" peer sent_stats "put: 0 get: 3 reply: 0 ack: 0 hello: 0"
	check "[$tag] $b's peer NI -v 2 received: 2 GETs, A's REPLY" \
		by_type_is "$b" peer received_stats "put: 0 get: 2 reply: 1 ack: 0 hello: 0"
	check "[$tag] $a's tcp NI -v 2 counts as its peer NI (sent)" \
		by_type_is "$a" net sent_stats "put: 0 get: 3 reply: 0 ack: 0 hello: 0"
	check "[$tag] $b's tcp NI -v 2: received GETs counted" \
		by_type_is "$b" net received_stats "put: 0 get: 2 reply: 1 ack: 0 hello: 0"
	check "[$tag] $a's peer NI health stats: the kernel's for a healthy peer NI" sh -c \
		"'$ctl' --name '$a' peer show -v 2 | tr -d '\n' | grep -q 'health stats: *health value: 1000 *dropped: 0 *timeout: 0 *error: 0 *network timeout: 0 *ping_count: 0 *next_ping: 0'"
	check "[$tag] $a's peer show -v 3: peer state 0 (created by traffic, no discovery bit yet)" sh -c \
		"'$ctl' --name '$a' peer show -v 3 | grep -qx '      peer state: 0'"
	check "[$tag] $a's peer show -v 4 has the kernel's keys, nesting and order (s1_06 -v 4)" \
		v4_shape_is_kernels "$a"
	check "[$tag] $a's full export: the peer section is peer show -v 3" export_peers_are_v3 "$a"
	check "[$tag] $a's tcp NI: send 3, recv 3" ni_is "$a" "$ipa@tcp" "send_count: 3 recv_count: 3 drop_count: 0"
	check "[$tag] $b's tcp NI: send 3, recv 3" ni_is "$b" "$ipb@tcp" "send_count: 3 recv_count: 3 drop_count: 0"
	check "[$tag] $a: the NI's recv_count is the node's" recv_agrees "$a" "$ipa@tcp"
	check "[$tag] $b: the NI's recv_count is the node's" recv_agrees "$b" "$ipb@tcp"
	check "[$tag] $a: 0@lo counted nothing" sh -c \
		"'$ctl' --name '$a' net show -v --net lo | tr -d '\n' | grep -q 'statistics: *send_count: 0 *recv_count: 0 *drop_count: 0'"
	check "[$tag] $a pings itself on 0@lo, twice" sh -c \
		"'$ctl' --name '$a' ping 0@lo >/dev/null && '$ctl' --name '$a' ping 0@lo >/dev/null"
	check "[$tag] $a: one 0@lo, send 4 recv 4 (GETs and REPLYs-as-get out, GETs and REPLYs in)" sh -c \
		"'$ctl' --name '$a' net show -v --net lo | tr -d '\n' >'$work/lo' && [ \$(grep -o 'nid: 0@lo' '$work/lo' | wc -l) -eq 1 ] && grep -q 'statistics: *send_count: 4 *recv_count: 4 *drop_count: 0' '$work/lo'"
	# The application gives up on its ACKs after a second each.
	"$app" client --nid "$ipc@tcp" --peer "$ipb@tcp" --put-only --count 3 --sizes 8 \
		--inflight 1 --timeout 1 >"$work/client.out" 2>&1
	check "[$tag] 3 PUTs to $b's unposted portal: none verified" sh -c "grep -q 'failed: 3' '$work/client.out' || { cat '$work/client.out'; false; }"
	check "[$tag] $b's tcp NI: 3 dropped PUTs" \
		by_type_is "$b" net dropped_stats "put: 3 get: 0 reply: 0 ack: 0 hello: 0"
	# The PUTs' ACKs never come: the application's LNet blames B's peer NI
	# (response timeout, transaction_timeout 1 s) and pings it for recovery,
	# as the kernel's does; B answers each ping, so it sends what it receives.
	check "[$tag] $b's tcp NI: drop_count 3 (and discovery's 3 more each way, and recovery pings)" \
		ni_balanced "$b" "$ipb@tcp" 6 3
	check "[$tag] $b: the node's drop_count 3, drop_length 24" node_drops_are "$b" 3 24
	check "[$tag] $b: the sender's peer NI counts no drop (the kernel counts rx drops on the NI)" \
		peer_balanced "$b" "$ipc@tcp" 3 0
	check "[$tag] SIGTERM: $a exits 0" stop_daemon "$pid_a"
	check "[$tag] SIGTERM: $b exits 0" stop_daemon "$pid_b"
	check "[$tag] no sanitizer report" sh -c "! grep -q Sanitizer '$work/$a.err' '$work/$b.err'"
}

net=127.0.$(( $$ % 200 + 20 ))
cpta="" cptb=""
app="$build/test/integration/lnet_node"
ipc=$net.25
session 1cpt "$net.21" "$net.22"
ipc=$net.26
# Two CPTs: A's NI on CPT 0, B's on CPT 1, so on one side at least the peer
# NI's shard is not the NI's (received messages hop to it), and MDs of both
# CPTs count in their own slots, summed when shown.
cpta=0 cptb=1
session 2cpts "$net.23" "$net.24" --cpu-pattern '0[0] 1[1]'
finish counts
