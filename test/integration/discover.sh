#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lnetctl discover between two lnetd-pmd on loopback (ksocklnd over TCP on
# 127.0.0.0/8), as the kernel's 2.17 lnetctl prints it (the s1_02, s1_04 and
# s1_05 outputs of /work/shared/captures/kernel/tool-output):
#  - A (one NI) discovers B (two NIs): "discover:" with B's primary NID,
#    "Multi-Rail: true" and both of B's NIDs under peer_ni, exit 0, nothing
#    on stderr; the same when asked by B's second NID, and with --force;
#  - A's peer show afterwards: B Multi-Rail with both NIDs, and peer show
#    -v 3's "peer state: 273" (MULTI_RAIL|DISCOVERED|NIDS_UPTODATE, as the
#    kernel's s1_06 peer show -v 4);
#  - B discovers A: A's one NID, Multi-Rail: true;
#  - two NIDs in one command: two entries under one "discover:";
#  - a NID nobody answers: "failed to discover NID: <strerror>" under
#    "manage:" on stdout, a negative errno, exit 255;
#  - a good NID and a dead one together: the peer under "discover:", then the
#    failure under "manage:", one document, exit 255;
#  - discovery off on A (set discovery 0): still one ping, the peer printed
#    (lnet_ctl_discover's contract in lnet_ctl.h);
#  - SIGTERM while a discover and a ping wait on a silent peer: the daemon
#    exits 0 at once, both fail.
#   discover.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
a=lnetd-dc-a-$$ b=lnetd-dc-b-$$
ipa=127.0.$(( $$ % 200 + 20 )).41
ipb1=127.0.$(( $$ % 200 + 20 )).42
ipb2=127.0.$(( $$ % 200 + 20 )).43
ipnobody=127.0.$(( $$ % 200 + 20 )).44
yaml_ok() { python3 -c 'import yaml,sys; list(yaml.safe_load_all(sys.stdin))' <"$1"; }

# discover_is FROM WANT_FILE ARGS...: exact stdout, empty stderr, exit 0.
discover_is() {
	from=$1 want=$2
	shift 2
	"$ctl" --name "$from" discover "$@" >"$work/got" 2>"$work/err"
	rc=$?
	[ "$rc" -eq 0 ] && [ ! -s "$work/err" ] && cmp -s "$want" "$work/got" ||
		{ echo "exit $rc"; diff "$want" "$work/got"; cat "$work/err"; return 1; }
}

check "daemon $a starts" start_daemon "$a"
pid_a=$pid
check "daemon $b starts" start_daemon "$b"
pid_b=$pid
check "net add on $a" "$ctl" --name "$a" net add --nid "$ipa@tcp"
check "net add on $b: $ipb1" "$ctl" --name "$b" net add --nid "$ipb1@tcp"
check "net add on $b: $ipb2" "$ctl" --name "$b" net add --nid "$ipb2@tcp"

printf 'discover:\n- primary nid: %s@tcp\n  Multi-Rail: true\n  peer_ni:\n  - nid: %s@tcp\n  - nid: %s@tcp\n' \
	"$ipb1" "$ipb1" "$ipb2" >"$work/b"
check "$a discovers $b: primary, Multi-Rail: true, both NIDs (s1_04's shape)" discover_is "$a" "$work/b" "$ipb1@tcp"
check "peer show on $a: $b Multi-Rail with both NIDs" sh -c \
	"'$ctl' --name '$a' peer show --nid '$ipb1@tcp' >'$work/ps' && grep -qx '      Multi-Rail: true' '$work/ps' && grep -q 'nid: $ipb1@tcp' '$work/ps' && grep -q 'nid: $ipb2@tcp' '$work/ps'"
check "peer show -v 3 on $a: peer state 273 (MULTI_RAIL|DISCOVERED|NIDS_UPTODATE, as the kernel's)" sh -c \
	"'$ctl' --name '$a' peer show -v 3 --nid '$ipb1@tcp' | grep -qx '      peer state: 273'"
check "discover by $b's second NID: the same peer" discover_is "$a" "$work/b" "$ipb2@tcp"
check "discover --force: the same (s1_05's forced rediscovery)" discover_is "$a" "$work/b" --force "$ipb1@tcp"
check "discover -f: the same" discover_is "$a" "$work/b" -f "$ipb1@tcp"

printf 'discover:\n- primary nid: %s@tcp\n  Multi-Rail: true\n  peer_ni:\n  - nid: %s@tcp\n' "$ipa" "$ipa" >"$work/a"
check "$b discovers $a: its one NID, Multi-Rail: true (s1_02's shape)" discover_is "$b" "$work/a" "$ipa@tcp"

{
	sed -n '1p' "$work/b"
	sed -n '2,$p' "$work/b"
	sed -n '2,$p' "$work/b"
} >"$work/bb"
check "two NIDs of $b in one command (a comma list): two entries under one discover:" discover_is "$a" "$work/bb" "$ipb1@tcp,$ipb2@tcp"

dead_is() { # FROM ARGS...: the failure under manage: on stdout, exit 255
	from=$1
	shift
	"$ctl" --name "$from" discover "$@" >"$work/got" 2>"$work/err"
	rc=$?
	[ "$rc" -eq 255 ] && [ ! -s "$work/err" ] && grep -qx 'manage:' "$work/got" &&
		grep -qx -- '- discover:' "$work/got" && grep -qx '  errno: -[1-9][0-9]*' "$work/got" &&
		grep -q "^  descr: ! 'failed to discover $ipnobody@tcp: " "$work/got" ||
		{ echo "exit $rc"; cat "$work/got" "$work/err"; return 1; }
}
check "discover a NID nobody answers: failed to discover under manage:, exit 255" dead_is "$a" "$ipnobody@tcp"
check "that output is valid YAML" yaml_ok "$work/got"
live_and_dead() { # the kernel's one reply: discover: on line 1, manage: after it, no second document
	"$ctl" --name "$a" discover "$ipb1@tcp" "$ipnobody@tcp" >"$work/o" 2>"$work/e"
	rc=$?
	[ "$rc" -eq 255 ] && [ ! -s "$work/e" ] && [ "$(sed -n '1p' "$work/o")" = "discover:" ] &&
		[ "$(grep -c '^manage:$' "$work/o")" = 1 ] && [ "$(grep -c '^---' "$work/o")" = 0 ] &&
		grep -qx -- "- primary nid: $ipb1@tcp" "$work/o" ||
		{ echo "exit $rc"; cat "$work/o" "$work/e"; return 1; }
}
check "a live NID and a dead one: discover: first, then manage:, one document" live_and_dead
check "that output is valid YAML too" yaml_ok "$work/o"

check "set discovery 0 on $a" "$ctl" --name "$a" set discovery 0
# As the kernel's: discover still pings (once, no push) and prints the peer
# as it is: still Multi-Rail (the flag is never cleared), its two NIDs.
check "discovery off: discover still pings and prints the peer, exit 0" discover_is "$a" "$work/b" "$ipb1@tcp"
check "set discovery 1 on $a" "$ctl" --name "$a" set discovery 1

# Our NI list changes: every Multi-Rail peer gets a push (s1_04, s1_05).
ipb3=127.0.$(( $$ % 200 + 20 )).45
peer_nids_are() { # node peer-nid nid...: peer show lists exactly these NIDs (retried: a push is async)
	node=$1 pn=$2
	shift 2
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	i=0
	while [ $i -lt 300 ]; do # 30 s at most
		got=$("$ctl" --name "$node" peer show --nid "$pn" | sed -n 's/^ *- *nid: //p' | sort | tr '\n' ' ')
		[ "$got" = "$want" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "got '$got', want '$want'"
	return 1
}
check "net add of a third NI on $b: its push gives $a's peer three NIDs" sh -c \
	"'$ctl' --name '$b' net add --nid '$ipb3@tcp'"
check "$a's peer $b: $ipb1, $ipb2, $ipb3" peer_nids_are "$a" "$ipb1@tcp" "$ipb1@tcp" "$ipb2@tcp" "$ipb3@tcp"
check "net del of it: pushed again, $a's peer loses it" sh -c \
	"'$ctl' --name '$b' net del --nid '$ipb3@tcp'"
check "$a's peer $b: $ipb1, $ipb2" peer_nids_are "$a" "$ipb1@tcp" "$ipb1@tcp" "$ipb2@tcp"

tel="python3 $(dirname "$0")/../common/bad_peer.py telemetry"
disc_show_has() { # node key min: /lnet/discovery_show's key is at least min
	$tel "$1" /lnet/discovery_show >"$work/ds" &&
		python3 -c "import json,sys; d=json.load(open('$work/ds')); sys.exit(d.get('$2', -1) < $3)" ||
		{ cat "$work/ds"; return 1; }
}
disc_counts_ok() {
	disc_show_has "$a" discovered 1 && disc_show_has "$a" data_accepted 3 &&
		grep -q '"held_messages": 0' "$work/ds" || { cat "$work/ds"; return 1; }
}
check "/lnet/discovery_show on $a: $b discovered, its data (ping replies, pushes) accepted, nothing held" \
	disc_counts_ok

# A discover still waiting when the daemon is told to stop: a peer that
# takes the connection and never says hello keeps it waiting (discovery's
# timeout is transaction_timeout, 50 s). The daemon ends that wait and exits
# 0 at once, with no sanitizer report (the telemetry thread used to run on
# into the freed LNet instance); lnetctl gets the failure.
ipsilent=127.0.$(( $$ % 200 + 20 )).46
python3 -c "import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('$ipsilent', 988)); s.listen(8); c=[]
print('listening', flush=True)
while True: c.append(s.accept()); print('accepted', flush=True)" >"$work/silent.out" &
silent=$!
on_exit="${on_exit:+$on_exit; }kill $silent 2>/dev/null"
check "the silent peer listens" eventually 20 grep -q listening "$work/silent.out"
"$ctl" --name "$a" discover "$ipsilent@tcp" >"$work/slow" 2>&1 &
slow=$!
"$ctl" --name "$a" ping --timeout 30 "$ipsilent@tcp" >"$work/slowping" 2>&1 &
slowping=$!
check "$a connected to the silent peer" eventually 20 grep -q accepted "$work/silent.out"
check "a discover of a peer that never answers is still waiting" kill -0 "$slow"
exits_within() { # pid seconds: its exit status; killed (137) if still running then
	i=0
	while kill -0 "$1" 2>/dev/null; do
		[ $i -ge $(($2 * 10)) ] && { echo "still running after $2 s"; kill -9 "$1"; break; }
		sleep 0.1
		i=$((i + 1))
	done
	wait "$1"
}
stop_within() { # pid seconds
	kill -TERM "$1"
	exits_within "$1" "$2"
}
# The bounds below are generous (a loaded, sanitized run) yet under the
# ping's own 30 s: an lnetctl answered only by its timeout still fails.
check "SIGTERM during that discover: $a exits 0 within 20 s" stop_within "$pid_a" 20
shutdown_answered() { # PID OUTPUT: lnetctl exits 255 with -ESHUTDOWN (-108), within 20 s
	exits_within "$1" 20
	rc=$?
	[ "$rc" -eq 255 ] && grep -qx '  errno: -108' "$2" || { echo "exit $rc"; cat "$2"; return 1; }
}
check "the waiting lnetctl discover is answered -ESHUTDOWN (-108), exit 255" \
	shutdown_answered "$slow" "$work/slow"
check "so is a waiting lnetctl ping --timeout 30: its GET fails as the NI goes" \
	shutdown_answered "$slowping" "$work/slowping"
kill "$silent" 2>/dev/null
check "SIGTERM: $b exits 0" stop_daemon "$pid_b"
finish discover
