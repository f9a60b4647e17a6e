#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# UDSP (User Defined Selection Policies) end to end between two applications
# linked to liblnet, each with two NIs over two veth pairs on two subnets
# (the kernel captures' s3 layout), the client discovering the server as a
# Multi-Rail peer; 1 MiB operations (PUT a pattern, GET it back, compare):
#   a. no rule: each client NI sends 40% to 60%;
#   b. `--src A0 --priority 0` and the NID pairs A0/B0, A1/B1: A0 sends
#      every message, all of them to B0; then the NID pairs alone, crossed
#      (A0/B1, A1/B0): the local NIs still alternate, each sends only to
#      the server NID that prefers it;
#   c. `--dst B1 --priority 0`: B1 receives every message;
#   d. the rules of b added after the warm-up, deleted at half the run:
#      the first half pinned, the second spread again;
#   e. one NI on tcp and one on tcp1 each side: spread over the nets with
#      no rule, all on tcp1 with `--src tcp1 --priority 0`;
#   f. health first: pinned to rail 0, the client's rail-0 veth goes down
#      under the traffic: nothing lost, the rest goes over rail 1.
#   udsp.sh BUILD_DIR SRC_DIR [COUNT]   (needs root and iproute2)
#
# What is counted. The client prints the run's PUTs and GETs by path
# (run_paths: its NID, the server's, how many), from the ACK or REPLY that
# answered each: an answer comes back over the path its request took.
# Those are the messages the rules govern: the rule checks are exact
# (100% and 0%) on them. The NIs' and peer NIs' send and receive counts
# also hold LNet's own messages, which the client's rules do not steer:
# discovery's ping and push (the first operation waits for them), and the
# ACK of the server's own push to the client, which goes back over the
# path the server chose, sometimes after the warm-up. So those counts are
# taken from the client's counts after its warm-up (8 operations) and
# allow LNet's own couple of messages where the rules say 0: SLACK below.
set -u
build=$1 src=$2 count=${3:-400}
. "$src/harness.sh"
netns_script udsp lud

a0=10.$x.1.1 b0=10.$x.1.2 a1=10.$x.2.1 b1=10.$x.2.2
A0=$a0@tcp A1=$a1@tcp B0=$b0@tcp B1=$b1@tcp
node="$build/test/integration/lnet_node"
half=$((count / 2)) msgs=$((count * 2)) inflight=8 SLACK=2

topology() {
	two_rails "${tag}a" "${tag}b" "$a0" "$b0" "$a1" "$b1"
}

serve() { node_serve "${tag}b" "$@"; }   # NAME ARGS...
unserve() { node_unserve; }

# client NAME ARGS...: an lnet_node client in namespace a, $count operations of
# 1 MiB after a warm-up of 8; every one verified, none failed.
client() {
	name=$1
	shift
	ip netns exec "${tag}a" "$node" client --paths --peer "$B0" --sizes 1048576 --inflight $inflight \
		--warmup 8 --count "$count" "$@" >"$work/$name.out" 2>"$work/$name.err"
	v=$(awk '$1 == "verified:" { print $2 }' "$work/$name.out")
	f=$(awk '$1 == "failed:" { print $2 }' "$work/$name.out")
	echo "verified ${v:-?}, failed ${f:-?}"
	[ "$v" = "$count" ] && [ "$f" = 0 ] || { cat "$work/$name.out" "$work/$name.err"; return 1; }
}

field() { node_field "$@"; }

# minus A B: A - B, a missing count as 0 (the check fails on the numbers then).
minus() {
	echo $((${1:-0} - ${2:-0}))
}

# sent NAME NID: what the client's NI NID sent after the warm-up (LNet's own included).
sent() {
	minus "$(field "$work/$1.out" nis "$2" send_count)" "$(field "$work/$1.out" warm "$2" send_count)"
}

# to_peer NAME NID: what the client sent to the server's NID after the warm-up.
to_peer() {
	minus "$(field "$work/$1.out" nis_peer_nis "$2" send_count)" \
		"$(field "$work/$1.out" warm_peer_nis "$2" send_count)"
}

# got SERVER CLIENT NID: what the server's NID received after the client's warm-up
# (all it received but what the client had sent it by then).
got() {
	minus "$(field "$work/$1.out" nis "$3" recv_count)" \
		"$(field "$work/$2.out" warm_peer_nis "$3" send_count)"
}

# path NAME SECTION FROM TO: the run's PUTs and GETs answered so far (SECTION
# "run" at the end, "at_N" at op N) that went from our FROM to the server's TO.
# FROM or TO "*": any.
path() {
	awk -v sec="$2_paths:" -v from="$3" -v to="$4" '
		/^[a-z_0-9]+:$/ { in_sec = ($1 == sec); next }
		in_sec && $2 == "from:" { f = $3 }
		in_sec && $1 == "to:" { t = $2 }
		in_sec && $1 == "messages:" && (from == "*" || f == from) && (to == "*" || t == to) { m += $2 }
		END { print m + 0 }' "$work/$1.out"
}

# share PART WHOLE LO HI: PART is LO% to HI% of WHOLE.
share() {
	[ "$2" -gt 0 ] && [ $(($1 * 100 / $2)) -ge "$3" ] && [ $(($1 * 100 / $2)) -le "$4" ]
}

# spread NAME X0 X1: a client's NIs X0 and X1 each sent 40% to 60% after the
# warm-up, and its run's messages left from each 40% to 60% of the time.
spread() {
	s0=$(sent "$1" "$2") s1=$(sent "$1" "$3")
	p0=$(path "$1" run "$2" "*") p1=$(path "$1" run "$3" "*")
	echo "sent: $2 $s0, $3 $s1; run's messages from $2 $p0, from $3 $p1"
	share "$s0" $((s0 + s1)) 40 60 && share "$p0" $((p0 + p1)) 40 60 && [ $((p0 + p1)) = $msgs ]
}

# only_path NAME SECTION FROM TO TOTAL: every one of the TOTAL messages (all
# answered) went from FROM to TO.
only_path() {
	p=$(path "$1" "$2" "$3" "$4") all=$(path "$1" "$2" "*" "*")
	echo "$3 -> $4: $p of $all"
	[ "$p" = "$all" ] && [ "$p" = "$5" ]
}

# one_and_none WHAT GOT NOTHING: GOT has every message of the run (LNet's own
# may add to it), NOTHING at most LNet's own SLACK.
one_and_none() {
	echo "$1: $2 and $3"
	[ "$2" -ge $msgs ] && [ "$3" -le $SLACK ]
}

# pct WHAT PART WHOLE LO HI: PART is LO% to HI% of WHOLE.
pct() {
	echo "$1: $2 of $3"
	share "$2" "$3" "$4" "$5"
}

# all_of WHAT PART WHOLE [AT_LEAST]: PART is all of WHOLE (and at least AT_LEAST).
all_of() {
	echo "$1: $2 of $3"
	[ "$2" = "$3" ] && [ "$2" -ge "${4:-0}" ]
}

# at_most WHAT N MAX, at_least WHAT N MIN
at_most() {
	echo "$1: $2 (at most $3)"
	[ "$2" -le "$3" ]
}
at_least() {
	echo "$1: $2 (at least $3)"
	[ "$2" -ge "$3" ]
}

# since NAME SECTION FROM TO: the run's messages from FROM to TO answered after "SECTION".
since() {
	minus "$(path "$1" run "$3" "$4")" "$(path "$1" "$2" "$3" "$4")"
}

# within WHAT A B: A and B differ by LNet's own SLACK at most.
within() {
	echo "$1: $2 and $3"
	[ $(($2 - $3)) -le $SLACK ] && [ $(($3 - $2)) -le $SLACK ]
}

check "topology: two namespaces joined by two veth pairs on two subnets" topology

# a. No rule: the baseline the rules below change.
check "a: server with two NIs" serve sa --nid "$B0" --nid "$B1"
check "a: client with two NIs, no rule: $count operations of 1 MiB" client ca --nid "$A0" --nid "$A1"
check "a: client: each NI sent 40% to 60%, and 40% to 60% of the run's messages left from each" \
	spread ca "$A0" "$A1"
check "server stops" unserve
check "a: server: each NI received 40% to 60% after the warm-up" \
	pct "received by $B0" "$(got sa ca "$B0")" $(($(got sa ca "$B0") + $(got sa ca "$B1"))) 40 60

# b. A0 first (a src NID priority rule), and the NID pairs A0/B0, A1/B1 (without
# the pairs A0 would still alternate between B0 and B1): one path only.
pin="--udsp src=$A0,priority=0 --udsp src=$A0,dst=$B0 --udsp src=$A1,dst=$B1"
check "b: server with two NIs" serve sb --nid "$B0" --nid "$B1"
check "b: client: --udsp src=$A0,priority=0 and the pairs $A0/$B0, $A1/$B1" client cb \
	--nid "$A0" --nid "$A1" $pin
check "b: client: every message of the run went from $A0 to $B0" only_path cb run "$A0" "$B0" $msgs
check "b: client: $A0 sent 100%, $A1 0% (but LNet's own)" \
	one_and_none "sent by $A0 and $A1" "$(sent cb "$A0")" "$(sent cb "$A1")"
check "b: client: $B0 was sent 100%, $B1 0% (but LNet's own)" \
	one_and_none "sent to $B0 and $B1" "$(to_peer cb "$B0")" "$(to_peer cb "$B1")"
check "server stops" unserve
check "b: server: $B0 received 100%, $B1 0% (but LNet's own)" \
	one_and_none "received by $B0 and $B1" "$(got sb cb "$B0")" "$(got sb cb "$B1")"

# b'. The NID pairs alone choose no local NI: the client's NIs still alternate, and
# each sends to the server NID whose preferred-source list holds it. Crossed pairs
# (A0/B1, A1/B0): with no rule this library's round robins go in step and already
# keep A0 with B0 and A1 with B1 (a's paths), which straight pairs would not change.
check "b': server with two NIs" serve sp --nid "$B0" --nid "$B1"
check "b': client: the NID pairs alone, crossed: --udsp src=$A0,dst=$B1 --udsp src=$A1,dst=$B0" \
	client cp --nid "$A0" --nid "$A1" --udsp "src=$A0,dst=$B1" --udsp "src=$A1,dst=$B0"
check "b': client: no message of the run from $A0 to $B0 or from $A1 to $B1" \
	at_most "not paired" $(($(path cp run "$A0" "$B0") + $(path cp run "$A1" "$B1"))) 0
check "b': client: $A0 -> $B1 and $A1 -> $B0 carried all" \
	all_of "paired" $(($(path cp run "$A0" "$B1") + $(path cp run "$A1" "$B0"))) $msgs
check "b': client: $A0 -> $B1 40% to 60% of them (the local NIs alternate)" \
	pct "$A0 -> $B1" "$(path cp run "$A0" "$B1")" $msgs 40 60
check "server stops" unserve
# The NI counts say the same: what the server's B1 received after the warm-up is
# what A0 sent, what B0 received is what A1 sent (within LNet's own on either side).
check "b': server's per-NI receive counts: $B1 got what $A0 sent" \
	within "$A0 sent, $B1 got" "$(sent cp "$A0")" "$(got sp cp "$B1")"
check "b': server's per-NI receive counts: $B0 got what $A1 sent" \
	within "$A1 sent, $B0 got" "$(sent cp "$A1")" "$(got sp cp "$B0")"

# c. A peer NI first (a dst NID priority rule).
check "c: server with two NIs" serve sc --nid "$B0" --nid "$B1"
check "c: client: --udsp dst=$B1,priority=0" client cc --nid "$A0" --nid "$A1" --udsp "dst=$B1,priority=0"
check "c: client: every message of the run went to $B1" \
	all_of "to $B1" "$(path cc run "*" "$B1")" "$(path cc run "*" "*")" $msgs
check "server stops" unserve
check "c: server: $B1 received 100%, $B0 0% (but LNet's own)" \
	one_and_none "received by $B1 and $B0" "$(got sc cc "$B1")" "$(got sc cc "$B0")"

# d. The rules of b added once the warm-up is done (the peer is known: they reach
# it), all deleted at half the run (@noudsp). Messages in flight at the deletion are
# answered in the second half: at most $inflight more from A0 there.
check "d: server with two NIs" serve sd --nid "$B0" --nid "$B1"
check "d: client: the rules of b from op 0, deleted at op $half" client cd --nid "$A0" --nid "$A1" \
	--run-after "0:@udsp src=$A0,priority=0 src=$A0,dst=$B0 src=$A1,dst=$B1" \
	--run-after "$half:@noudsp"
check "d: client: the first half all from $A0 to $B0" \
	all_of "$A0 -> $B0" "$(path cd "at_$half" "$A0" "$B0")" "$(path cd "at_$half" "*" "*")" \
	$((count - 2 * inflight))
check "d: client: the second half spread again: 40% to 60% of it from $A1" \
	pct "from $A1" "$(since cd "at_$half" "$A1" "*")" "$(since cd "at_$half" "*" "*")" 40 60
check "d: client: each NI sent at least 20% after the warm-up" \
	pct "sent by $A1" "$(sent cd "$A1")" $(($(sent cd "$A0") + $(sent cd "$A1"))) 20 80
check "server stops" unserve

# e. Two nets, one NI of each on each rail: with no rule both nets carry traffic; a
# src net priority rule puts it all on tcp1.
check "e: server with $B0 and $b1@tcp1" serve se0 --nid "$B0" --nid "$b1@tcp1"
check "e: client with $A0 and $a1@tcp1, no rule" client ce0 --nid "$A0" --nid "$a1@tcp1"
check "e: client: 40% to 60% of the run's messages over each net" \
	pct "over tcp1" "$(path ce0 run "$a1@tcp1" "$b1@tcp1")" $msgs 40 60
check "server stops" unserve
check "e: server with $B0 and $b1@tcp1" serve se --nid "$B0" --nid "$b1@tcp1"
check "e: client: --udsp src=tcp1,priority=0" client ce --nid "$A0" --nid "$a1@tcp1" \
	--udsp "src=tcp1,priority=0"
check "e: client: every message of the run over tcp1" only_path ce run "$a1@tcp1" "$b1@tcp1" $msgs
check "e: client: $a1@tcp1 sent 100%, $A0 0% (but LNet's own)" \
	one_and_none "sent by $a1@tcp1 and $A0" "$(sent ce "$a1@tcp1")" "$(sent ce "$A0")"
check "server stops" unserve
check "e: server: $b1@tcp1 received 100%, $B0 0% (but LNet's own)" \
	one_and_none "received by $b1@tcp1 and $B0" "$(got se ce "$b1@tcp1")" "$(got se ce "$B0")"

# f. Health before the rules: pinned to rail 0 by the rules of b, the client's
# eth0 goes down at a quarter of the run. No message can complete over rail 0
# after that (its answer cannot come back): each of the ops started later was
# answered over rail 1, those in flight then on rail 0 were resent over rail 1,
# and at most one message per slot in flight was answered over rail 0 after the
# count (before the link went).
down=$((count / 4))
check "f: server with two NIs" serve sf --nid "$B0" --nid "$B1"
check "f: client: the rules of b, eth0 down after $down: every operation verified" \
	client cf --nid "$A0" --nid "$A1" $pin --run-after "$down:ip link set eth0 down"
check "f: client: until then all from $A0 to $B0" \
	all_of "$A0 -> $B0" "$(path cf "at_$down" "$A0" "$B0")" "$(path cf "at_$down" "*" "*")" \
	$((down * 2 - 2 * inflight))
check "f: client: after it each later message went over rail 1 ($A1 -> $B1)" \
	at_least "$A1 -> $B1" "$(since cf "at_$down" "$A1" "$B1")" $(((count - down) * 2))
check "f: client: after it at most $inflight from $A0" \
	at_most "from $A0" "$(since cf "at_$down" "$A0" "*")" $inflight
check "server stops" unserve

check "no sanitizer report" sh -c "! grep -q Sanitizer '$work'/*.err"
finish udsp
