#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lst on a group of 200 nodes, more than a telemetry reply holds (about 40
# STAT entries in its 16 KiB): one lnetd-pmd --selftest with 198 tcp NIs
# on the loopback range and 0@lo (LNet's limit is 200 NIs), each NID a node
# of the group, and last a NID nobody serves. add_group makes a session on
# the 199 and fails on the last, which stays in the group, Unknown, as the
# kernel's console keeps it; `lst ping` lists every node, `lst stat` and
# `lst show_error` find the last one failed: they took all 200 entries, a
# page at a time from the daemon (op=ents); `lst list_group huge --all`
# lists a group of 231 nodes, a page at a time too (op=nodes). Needs root (port 988).
#   lst_paging.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
lst="$build/apps/lst/lst"
[ "$(id -u)" -eq 0 ] || { echo "lst_paging: needs root; skipped"; exit 77; }
name=lstpg$$ net=127.$(($$ % 200 + 20)).89 nodes=198
nobody=$net.250

nis_up() {
	i=1
	while [ $i -le $nodes ]; do
		"$ctl" --name "$name" net add --nid "$net.$i@tcp" || return 1
		i=$((i + 1))
	done
}
lst_to() { # FILE, then lst's arguments: its stdout and stderr in FILE
	f=$1
	shift
	LNETCTL_NAME=$name "$lst" "$@" >"$f" 2>&1
}
# lst ping --group big: 199 lines "12345-NID: Active [session: pg id: FIRST-NID]", the last Unknown.
ping_all() {
	lst_to "$work/ping" ping --group big || { cat "$work/ping"; return 1; }
	i=1
	while [ $i -le $nodes ]; do
		printf '\t12345-%s@tcp: Active [session: pg id: %s.1@tcp]\n' "$net.$i" "$net"
		i=$((i + 1))
	done >"$work/want"
	printf '\t12345-0@lo: Active [session: pg id: %s.1@tcp]\n' "$net" >>"$work/want"
	printf '\t12345-%s@tcp: Unknown [session: <NULL> id: <?>]\n' "$nobody" >>"$work/want"
	cmp -s "$work/want" "$work/ping" || { diff "$work/want" "$work/ping" | head; return 1; }
}
stat_all() { # the last node failed, the others' rates and bandwidths
	lst_to "$work/stat" stat --delay 1 --count 1 --timeout 5 big
	[ "$(grep -c 'Failed to stat on 1 nodes' "$work/stat")" -ge 1 ] &&
		[ "$(grep -c '^\[[RW]\] Avg' "$work/stat")" -eq 4 ] || { cat "$work/stat"; return 1; }
}
# On stderr, the last node's RPC failure; the 199 others are one daemon, whose
# RPC error count (the console's RPCs to the last node) each shows: 200 in all.
show_error_all() {
	LNETCTL_NAME=$name "$lst" show_error big >"$work/o" 2>"$work/e"
	grep -qx "RPC failure, can.t show error on 12345-$nobody@tcp" "$work/e" &&
		[ "$(grep -c '^12345-.*RPC: [1-9][0-9]* errors' "$work/e")" -eq 199 ] &&
		tail -1 "$work/o" | grep -qx 'Total 200 error nodes in big' || { tail -3 "$work/o" "$work/e"; return 1; }
}

export LST_SESSION=$$
check "daemon --selftest" start_daemon "$name" --selftest
check "$nodes tcp NIs on $net.0/24" nis_up
check "new_session" lst_to "$work/o" new_session pg
check "add_group big: $nodes NIDs, 0@lo, and $nobody@tcp refused" sh -c \
	"! LNETCTL_NAME=$name '$lst' add_group big '$net.[1-$nodes]@tcp' 0@lo $nobody@tcp >'$work/o' 2>&1 && grep -qx '0@lo are added to session' '$work/o' && grep -q 'create session RPC failed on 12345-$nobody@tcp' '$work/o'"
check "list_group big: 199 ACTIVE, 1 UNKNOWN" sh -c \
	"LNETCTL_NAME=$name '$lst' list_group big | tail -1 | grep -qx '	199	0	0	1	200	big'"
check "ping: all 200, in order" ping_all
# list_group NAME --all: every node of a group of 231, in order, a page of
# the group's nodes at a time (op=nodes, 64 a reply): the 199 that answer,
# then 32 NIDs nobody serves, one request of add_group (which stops at the
# first request that fails, as the kernel's lst); --active the 199.
list_all() {
	LNETCTL_NAME=$name "$lst" add_group huge "$net.[1-$nodes]@tcp" 0@lo "$net.[200-231]@tcp" \
		>/dev/null 2>&1
	lst_to "$work/o" list_group huge --all || { cat "$work/o"; return 1; }
	# The title line first, as the kernel's lst prints it for every list_group NAME.
	[ "$(wc -l <"$work/o")" -eq 234 ] && [ "$(sed -n 2p "$work/o")" = "Group [ huge ]" ] &&
		[ "$(sed -n 3p "$work/o")" = "	12345-$net.1@tcp: Active" ] &&
		[ "$(sed -n 201p "$work/o")" = "	12345-0@lo: Active" ] &&
		[ "$(sed -n 202p "$work/o")" = "	12345-$net.200@tcp: Unknown" ] &&
		[ "$(sed -n 233p "$work/o")" = "	12345-$net.231@tcp: Unknown" ] &&
		[ "$(sed -n 234p "$work/o")" = "Total 231 nodes [ huge ]" ] || { head -3 "$work/o"; tail -3 "$work/o"; return 1; }
	lst_to "$work/o" list_group huge --active &&
		tail -1 "$work/o" | grep -qx 'Total 199 nodes \[ huge \]' || { tail -3 "$work/o"; return 1; }
}
check "list_group huge --all: all 231 nodes, in order, a page at a time; --active 199" list_all
check "stat: 199 answered, the last failed" stat_all
check "show_error: the last node failed, 200 entries" show_error_all
# /lnet/lst,op=ents of a result no longer kept: the telemetry socket's own answer.
stale_page() {
	python3 - "/var/run/dpdk/$name/dpdk_telemetry.v2" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.recv(16384)  # the greeting
s.send(b"/lnet/lst,op=ents,result=999,first=40")
r = json.loads(s.recv(16384))["/lnet/lst"]
sys.exit(0 if r["status"] == -116 and "replaced" in r["descr"] else 1)
PY
}
check "a page of a result no longer kept: -ESTALE" stale_page
check "end_session" lst_to "$work/o" end_session
check "daemon stops: exit 0" stop_daemon "$pid"
finish lst_paging
