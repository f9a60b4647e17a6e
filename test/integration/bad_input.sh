#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A raw TCP client sends a node garbage, a wrong magic, a truncated hello,
# a hello for another NID, an impossible payload length, a bad checksum and
# a stalled half message (and a PUT with a good checksum, which is kept). Each connection is closed, counted (stats show errors, the
# socklnd's counters on telemetry), and another node keeps pinging through
# it all. A stall after the handshake is closed by sock_timeout (3 s here,
# from YAML); a client stalled in the handshake (silent, half a connection
# request, half a hello) by the acceptor's accept_timeout, 5 s, also on a
# node whose sock_timeout is the default 50 s.
#   bad_input.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
peer="python3 $src/../common/bad_peer.py"
port=$(( 20000 + $$ % 20000 ))
ipa=127.0.$(( $$ % 200 + 20 )).41
ipb=127.0.$(( $$ % 200 + 20 )).42
a=lnetd-bad-a-$$ b=lnetd-bad-b-$$

pings() { # both ways, the kernel's ping output
	"$ctl" --name "$b" ping "$ipa@tcp" | grep -q "nid: $ipa@tcp" &&
		"$ctl" --name "$a" ping "$ipb@tcp" | grep -q "nid: $ipb@tcp"
}

counter() { # name key: one socklnd counter of the node's tcp NI
	$peer telemetry "$1" /lnet/lnd_stats |
		python3 -c "import json,sys; d=json.load(sys.stdin); print(sum(v['$2'] for v in d.values()))"
}

at_least() { # value minimum
	[ "$1" -ge "$2" ] || { echo "got $1, want at least $2"; return 1; }
}

check "daemon $a starts" start_daemon "$a" --accept-port "$port" --accept all
pid_a=$pid
check "daemon $b starts" start_daemon "$b" --accept-port "$port" --accept all
pid_b=$pid
printf 'net:\n    - net type: tcp\n      local NI(s):\n        - nid: %s@tcp\n          lnd tunables:\n              timeout: 3\n' \
	"$ipa" >"$work/a.yaml"
check "$a: a tcp NI with sock_timeout 3 from YAML" "$ctl" --name "$a" import "$work/a.yaml"
check "$a: net show -v shows timeout 3" sh -c "'$ctl' --name '$a' net show -v --net tcp | grep -q '      timeout: 3'"
check "$b: a tcp NI" "$ctl" --name "$b" net add --nid "$ipb@tcp"
check "the two ping each other" pings

for case in garbage wrong-magic other-nid huge-payload bad-checksum; do
	check "$case: the connection is closed at once" \
		$peer attack "$case" "$ipa" "$port" "$ipa@tcp" "$ipb@tcp" 2
	check "$case: the other node still pings through" pings
done
check "good-checksum: a PUT with a right ksm_csum keeps its connection" \
	sh -c "! $peer attack good-checksum '$ipa' '$port' '$ipa@tcp' '$ipb@tcp' 2"
check "half-message: closed by sock_timeout" $peer attack half-message "$ipa" "$port" "$ipa@tcp" "$ipb@tcp" 7
check "half-message: the other node still pings through" pings

# Three clients stall in $b's handshake at once (its sock_timeout is 50 s):
# each is still open after 2 s and closed by accept_timeout within 12 s,
# while $a and $b keep pinging each other.
accepted0=$(counter "$b" accepted)
for case in silent half-connreq truncated-hello; do
	$peer attack "$case" "$ipb" "$port" "$ipb@tcp" "$ipa@tcp" 12 2 >"$work/$case.out" 2>&1 &
	eval "stall_$(echo $case | tr - _)=\$!"
done
accepted_from() { [ "$(counter "$b" accepted)" -ge "$1" ]; } # at least this many
check "$b accepted the three stalling clients" eventually 20 accepted_from $((accepted0 + 3))
check "pings while three clients stall in $b's handshake" pings
for case in silent half-connreq truncated-hello; do
	eval "p=\$stall_$(echo $case | tr - _)"
	check "$case: closed by accept_timeout (5 s), not sock_timeout" wait "$p"
done
check "the two still ping each other" pings
check "handshake timeouts counted on $b" at_least "$(counter "$b" handshake_timeouts)" 3

check "handshake failures counted (garbage, magic, other NID)" at_least "$(counter "$a" handshake_failures)" 3
check "protocol errors counted (the impossible length)" at_least "$(counter "$a" proto_errors)" 1
check "checksums: one matched, one did not" sh -c \
	"[ $(counter "$a" csum_checked) -eq 1 ] && [ $(counter "$a" csum_errors) -eq 1 ]"
check "timeouts counted (the half message)" at_least "$(counter "$a" timeouts)" 1
check "stats show counts them as errors" sh -c \
	"'$ctl' --name '$a' stats show | grep -q '^    errors: [5-9]'"
check "SIGTERM: $a exits 0" stop_daemon "$pid_a"
check "SIGTERM: $b exits 0" stop_daemon "$pid_b"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work/$a.err' '$work/$b.err'"
finish bad_input
