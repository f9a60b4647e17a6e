#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A kernel node's push (frame 7 of the kernel-vs-pmd discover capture),
# replayed over a ksocklnd connection, is ACKed with its cookie and the ping
# match bits, and the connection keeps serving pings; a push bigger than the
# push target is ACKed truncated and the target grows; /lnet/push_show
# counts them; a second daemon pings through it all. Root: the replaying
# peer connects from a privileged port, as a kernel node does.
#   push.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
tel="python3 $src/../common/bad_peer.py telemetry"
port=$(( 20000 + $$ % 20000 ))
net=127.0.$(( $$ % 200 + 20 ))
a=lnetd-push-a-$$ b=lnetd-push-b-$$

push_show_is() { # node key=value...: /lnet/push_show has those values
	node=$1; shift
	$tel "$node" /lnet/push_show >"$work/push_show" || return 1
	for kv in "$@"; do
		python3 -c "import json,sys; d=json.load(open('$work/push_show')); sys.exit(str(d.get('${kv%%=*}')) != '${kv#*=}')" ||
			{ echo "want $kv in:"; cat "$work/push_show"; return 1; }
	done
}

pings() {
	"$ctl" --name "$b" ping "$net.71@tcp" | grep -q "nid: $net.71@tcp" &&
		"$ctl" --name "$a" ping "$net.72@tcp" | grep -q "nid: $net.72@tcp"
}

check "daemon $a starts" start_daemon "$a" --accept-port "$port" --accept all
pid_a=$pid
# $b has two CPTs, its NI on CPT 1: the push target's MD lives on CPT 0.
check "daemon $b starts, two CPTs" start_daemon "$b" --accept-port "$port" --accept all \
	--cpu-pattern "0[0] 1[1]"
pid_b=$pid
check "$a: net add tcp" "$ctl" --name "$a" net add --nid "$net.71@tcp"
check "$b: net add tcp on CPT 1" "$ctl" --name "$b" net add --nid "$net.72@tcp" --cpt 1
check "the two ping each other" pings
check "push_show: nothing yet, a target of LNET_PING_INFO_MIN_SIZE (272)" \
	push_show_is "$a" received=0 target_bytes=272
check "the kernel's push replayed: ACKed, pings served after, a truncated push ACKed" \
	python3 "$src/../common/kernel_push.py" "$net.71" "$port" "$net.71@tcp" "$net.73@tcp"
# A push that still found the old target was ACKed truncated and sent again:
# every push is accepted or truncated, and two were accepted.
counts_add_up() { # node
	$tel "$1" /lnet/push_show >"$work/push_show" &&
		python3 -c "import json,sys; d=json.load(open('$work/push_show')); sys.exit(d['received'] != d['accepted'] + d['truncated'] + d['invalid'] + d['errors'])" ||
		{ cat "$work/push_show"; return 1; }
}
check "push_show: 2 accepted, at least 1 truncated, the target grew to 352" \
	push_show_is "$a" accepted=2 invalid=0 errors=0 target_bytes=352
check "push_show: every push counted once" counts_add_up "$a"
check "push_show: the last push, from $net.73@tcp, seqno 7, 20 NIs" \
	push_show_is "$a" "last_src=$net.73@tcp" last_seqno=7 last_nnis=20 last_features=30
check "the kernel's push once more, on a new connection: nothing truncated now" \
	python3 "$src/../common/kernel_push.py" "$net.71" "$port" "$net.71@tcp" "$net.73@tcp" 352
check "push_show: 5 accepted" push_show_is "$a" accepted=5
check "push_show: every push counted once, still" counts_add_up "$a"
check "the kernel's push to $b, whose NI is on CPT 1" \
	python3 "$src/../common/kernel_push.py" "$net.72" "$port" "$net.72@tcp" "$net.74@tcp"
check "$b's push_show: 2 accepted, the target grew to 352" \
	push_show_is "$b" accepted=2 target_bytes=352 "last_src=$net.74@tcp"
check "$b's push_show: every push counted once" counts_add_up "$b"
check "the two daemons still ping each other" pings
check "SIGTERM: $a exits 0" stop_daemon "$pid_a"
check "SIGTERM: $b exits 0" stop_daemon "$pid_b"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work/$a.err' '$work/$b.err'"
finish push
