#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# peer add/del on peers lnetctl did not configure (issue 31 §3), as 2.17's
# peer.c carries them out (lnet_peer_add, lnet_add_peer_ni,
# lnet_peer_add_nid, lnet_del_peer_ni; rules in lib/lnet/mgmt/lnet_peer_dir.c):
# two lnetd-pmd on 127.0.0.0/8, A discovers B (two NIDs), then on A:
#  - peer add --prim_nid B1 --nid X over B's discovered peer: that peer is
#    made again, configured, with B1 and X only (peer state 9, not 281);
#  - peer add --prim_nid X --nid B2, B2 a secondary NID of B's discovered
#    peer: B2 moves, B's peer keeps B1; then --nid B1, its primary: B's
#    peer goes; a configured owner refuses (-17) and the add is undone;
#  - peer add --prim_nid B2 (a secondary of B's discovered peer): that peer
#    goes, B2 alone is made;
#  - peer del --prim_nid P --nid P: the whole peer, exit 0;
#  - peer add over the peer a route made for its gateway: -16, no change.
# Exact stdout, stderr and exit status of each, then peer show.
#   errshapes_peers.sh BUILD_DIR SRC_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
a=lnetd-ep-a-$$ b=lnetd-ep-b-$$
n3=127.0.$(( $$ % 200 + 20 ))
ipa=$n3.61 b1=$n3.62 b2=$n3.63 x=$n3.64 z=$n3.65
ctl_name=$a
: >"$work/empty"

nl_err() {
	printf -- '---\n%s:\n-     peer:\n      errno: %s\n      descr: ! "%s"\n...\n' "$1" "$2" "$3" >"$work/nl"
}
# peer_is NID STATE MR NID...: peer show -v 3 --nid NID names a peer with these NIDs and state
peer_is() {
	pnid=$1 st=$2 mr=$3
	shift 3
	{
		printf 'peer:\n-     primary nid: %s\n      Multi-Rail: %s\n      peer state: %s\n      peer ni:\n' \
			"$1" "$mr" "$st"
		for n in "$@"; do
			printf '      -     nid: %s\n' "$n"
		done
	} >"$work/want_peer"
	"$ctl" --name "$a" peer show -v 3 --nid "$pnid" >"$work/ps" 2>&1 || { cat "$work/ps"; return 1; }
	grep -E '^(peer:|-     primary nid|      Multi-Rail|      peer state|      peer ni:|      -     nid:)' \
		"$work/ps" | cmp -s "$work/want_peer" - ||
		{ diff "$work/want_peer" "$work/ps"; return 1; }
}
no_peer() { ! "$ctl" --name "$a" peer show --nid "$1" >/dev/null 2>&1; }
discovered() { peer_is "$b1@tcp" 273 true "$b1@tcp" "$b2@tcp"; }
rediscover() { "$ctl" --name "$a" discover "$b1@tcp" >/dev/null && eventually 10 discovered; }

check "daemon $a starts" start_daemon "$a"
pid_a=$pid
check "daemon $b starts" start_daemon "$b"
pid_b=$pid
check "net add on $a" "$ctl" --name "$a" net add --nid "$ipa@tcp"
check "net add on $b: $b1, $b2" sh -c \
	"'$ctl' --name '$b' net add --nid '$b1@tcp' && '$ctl' --name '$b' net add --nid '$b2@tcp'"

# --- 1. over a discovered peer: made again with the primary alone ---
check "$a discovers $b: its peer, unconfigured, state 273" rediscover
check "peer add --prim_nid B1 --nid X: nothing printed, exit 0" \
	out_err 0 "$work/empty" "$work/empty" peer add --prim_nid "$b1@tcp" --nid "$x@tcp"
check "... the peer made again: B1 and X, state 9 (MULTI_RAIL|CONFIGURED), B2 gone" \
	peer_is "$b1@tcp" 9 true "$b1@tcp" "$x@tcp"
check "... B2 belongs to no peer" no_peer "$b2@tcp"
check "peer del --prim_nid B1 --nid B1: the whole peer, nothing printed, exit 0" \
	out_err 0 "$work/empty" "$work/empty" peer del --prim_nid "$b1@tcp" --nid "$b1@tcp"
check "... gone with X" sh -c "! '$ctl' --name '$a' peer show --nid '$b1@tcp' >/dev/null 2>&1 && ! '$ctl' --name '$a' peer show --nid '$x@tcp' >/dev/null 2>&1"

# --- 2. NIDs of an unconfigured peer move to a configured one ---
check "$a discovers $b again" rediscover
check "peer add --prim_nid X --nid B2 (a secondary of B's peer): exit 0" \
	out_err 0 "$work/empty" "$work/empty" peer add --prim_nid "$x@tcp" --nid "$b2@tcp"
check "... X's peer: X, B2, state 9" peer_is "$x@tcp" 9 true "$x@tcp" "$b2@tcp"
check "... B's peer keeps B1, still discovered" peer_is "$b1@tcp" 273 true "$b1@tcp"
check "peer add --prim_nid X --nid B1 (B's peer's primary): exit 0" \
	out_err 0 "$work/empty" "$work/empty" peer add --prim_nid "$x@tcp" --nid "$b1@tcp"
check "... X's peer: X, B2, B1; B's peer is gone" peer_is "$b1@tcp" 9 true "$x@tcp" "$b2@tcp" "$b1@tcp"
nl_err add -17 'failed to add peer'
check "peer add --prim_nid Z --nid B1 (a configured peer's): -17, exit 234" \
	out_err 234 "$work/empty" "$work/nl" peer add --prim_nid "$z@tcp" --nid "$b1@tcp"
check "... Z deleted again (report_err), X's peer as it was" sh -c \
	"! '$ctl' --name '$a' peer show --nid '$z@tcp' >/dev/null 2>&1"
check "... X's peer unchanged" peer_is "$x@tcp" 9 true "$x@tcp" "$b2@tcp" "$b1@tcp"
check "peer del --prim_nid X --nid B2,X,B1: B2, then the whole peer, exit 0" \
	out_err 0 "$work/empty" "$work/empty" peer del --prim_nid "$x@tcp" --nid "$b2@tcp,$x@tcp,$b1@tcp"
check "... no peer left for X, B1, B2" sh -c \
	"[ -z \"\$('$ctl' --name '$a' peer list)\" ]"

# --- 3. a secondary NID of an unconfigured peer as a primary ---
check "$a discovers $b again" rediscover
check "peer add --prim_nid B2: exit 0" out_err 0 "$work/empty" "$work/empty" peer add --prim_nid "$b2@tcp"
check "... B2 alone, state 9" peer_is "$b2@tcp" 9 true "$b2@tcp"
check "... B's peer is gone" no_peer "$b1@tcp"
check "peer del --prim_nid B2" "$ctl" --name "$a" peer del --prim_nid "$b2@tcp"

# --- 4. the peer a route made for its gateway ---
check "route add --net tcp9 --gateway B1" "$ctl" --name "$a" route add --net tcp9 --gateway "$b1@tcp"
gw_peer() { "$ctl" --name "$a" peer show -v 3 --nid "$b1@tcp" >"$work/gw" 2>&1 && ! grep -q 'peer state: 9$' "$work/gw"; }
check "... its gateway's peer, unconfigured" gw_peer
cp "$work/gw" "$work/gw_before"
nl_err add -16 'failed to add primary peer'
check "peer add --prim_nid B1 over it: lnet_peer_add cannot delete a gateway's peer, -16, exit 234" \
	out_err 234 "$work/empty" "$work/nl" peer add --prim_nid "$b1@tcp"
check "... the gateway's peer still unconfigured, its NIDs as they were" sh -c \
	"'$ctl' --name '$a' peer show -v 3 --nid '$b1@tcp' | grep -E 'nid:|Multi-Rail|peer state' >'$work/g2' && grep -E 'nid:|Multi-Rail|peer state' '$work/gw_before' | cmp -s - '$work/g2' && ! grep -q 'peer state: 9\$' '$work/g2'"
check "route del" "$ctl" --name "$a" route del --net tcp9 --gateway "$b1@tcp"

check "SIGTERM: $a exits 0" stop_daemon "$pid_a"
check "SIGTERM: $b exits 0" stop_daemon "$pid_b"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work/$a.err' '$work/$b.err'"
finish errshapes_peers
