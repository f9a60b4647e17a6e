# SPDX-License-Identifier: BSD-3-Clause
# Shared by the integration scripts: sourced after `build` is set. Gives
# check/fails_with/start_daemon/stop_daemon/finish, a scratch directory
# ($work) and the cleanup of every daemon started ($pids) and of whatever
# the script adds to `on_exit`. LNP_KEEP_WORK=1 keeps $work for a look;
# LNP_EAL_ARGS replaces the daemons' EAL arguments (all of them: e.g.
# "--no-huge -m 256 --no-pci --no-shconf -l 0-1 --log-level=lnet:debug").
daemon="$build/apps/lnetd-pmd/lnetd-pmd"
ctl="$build/apps/lnetctl/lnetctl"
work=$(mktemp -d)
fails=0 checks=0 pids="" on_exit=""

harness_cleanup() {
	for p in $pids; do kill -TERM "$p" 2>/dev/null; done
	# What ignores TERM (an application still waiting for its operations) goes anyway.
	sleep 0.5
	for p in $pids; do kill -KILL "$p" 2>/dev/null; done
	[ -z "$on_exit" ] || eval "$on_exit"
	if [ -n "${LNP_KEEP_WORK:-}" ]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap harness_cleanup EXIT

check() { # description, then a command that must succeed
	desc=$1; shift
	checks=$((checks + 1))
	if "$@"; then echo "ok: $desc"; else echo "FAIL: $desc"; fails=$((fails + 1)); fi
}

fails_with() { # errno, then an lnetctl command line: exit 1 and the error block
	want=$1; shift
	"$ctl" "$@" >"$work/err" 2>&1 && return 1
	grep -q "errno: $want" "$work/err" && grep -q "descr: " "$work/err" || { cat "$work/err"; return 1; }
}

# name [daemon options...]: start, wait for its telemetry socket; sets $pid.
# DAEMON_PREFIX runs it through a wrapper (ip netns exec NS).
start_daemon() {
	name=$1; shift
	${DAEMON_PREFIX:-} "$daemon" ${LNP_EAL_ARGS:-} -- --name "$name" "$@" >"$work/$name.out" 2>"$work/$name.err" &
	pid=$!
	pids="$pids $pid"
	i=0
	while [ $i -lt 200 ]; do
		"$ctl" --name "$name" global show >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$work/$name.err"; return 1; }
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

stop_daemon() { # pid -> the daemon's exit status
	kill -TERM "$1"
	wait "$1"
}

finish() { # script name: the summary line, and the exit status
	echo "$1: $((checks - fails)) passed, $fails failed"
	[ "$fails" -eq 0 ]
}

# netns_script NAME PREFIX: the start of a test in network namespaces:
# skipped (77) without ip or root; sets $tag (PREFIX and our pid), $x (a
# number for the test's subnets), $nss (namespaces made, added to by
# two_rails) and the on_exit that kills what runs in them and deletes them.
netns_script() {
	command -v ip >/dev/null 2>&1 || { echo "$1: needs ip; skipped"; exit 77; }
	[ "$(id -u)" -eq 0 ] || { echo "$1: needs root; skipped"; exit 77; }
	tag=$2$$ x=$(( $$ % 200 + 20 )) nss=""
	on_exit='for n in $nss; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del "$n" 2>/dev/null; done'
}

# eventually SECONDS CMD...: CMD succeeds within SECONDS (tried every 0.1 s);
# the last try's output and status otherwise.
eventually() { # (its counters are named apart: sh has only globals)
	ev_tries=$(($1 * 10))
	shift
	ev_try=1
	while [ $ev_try -lt $ev_tries ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		ev_try=$((ev_try + 1))
	done
	"$@"
}

# daemon_in LETTER: daemon $tag LETTER started in namespace $tag LETTER.
daemon_in() {
	DAEMON_PREFIX="ip netns exec $tag$1" start_daemon "$tag$1"
}

# netns_veth NS_A NS_B NAME A-CIDR B-CIDR: a veth pair NAME between two
# namespaces, addressed and up.
netns_veth() {
	ip -n "$1" link add "$3" type veth peer name "$3" netns "$2" &&
		ip -n "$1" addr add "$4" dev "$3" && ip -n "$2" addr add "$5" dev "$3" &&
		ip -n "$1" link set "$3" up && ip -n "$2" link set "$3" up
}

# out_err WANT_RC WANT_STDOUT_FILE WANT_STDERR_FILE lnetctl-args...: exact
# bytes on each stream; lnetctl talks to daemon $ctl_name when it is set.
out_err() {
	rc=$1 o=$2 e=$3
	shift 3
	"$ctl" ${ctl_name:+--name "$ctl_name"} "$@" >"$work/o" 2>"$work/e"
	got=$?
	[ "$got" -eq "$rc" ] || { echo "exit $got, want $rc"; cat "$work/o" "$work/e"; return 1; }
	cmp -s "$o" "$work/o" || { echo "stdout:"; diff "$o" "$work/o"; return 1; }
	cmp -s "$e" "$work/e" || { echo "stderr:"; diff "$e" "$work/e"; return 1; }
}
line() { printf '%s\n' "$1" >"$work/want"; } # TEXT: the one line wanted, in $work/want

# node_serve NS NAME ARGS...: an lnet_node server ($node) in namespace NS,
# up once it says "serving:"; its pid in $server, its output in
# $work/NAME.out (the NI counts it prints at exit) and NAME.err.
node_serve() {
	ns_=$1 name_=$2
	shift 2
	ip netns exec "$ns_" "$node" serve "$@" >"$work/$name_.out" 2>"$work/$name_.err" &
	server=$!
	i_=0
	while [ $i_ -lt 100 ] && ! grep -q '^serving:' "$work/$name_.out"; do
		sleep 0.1
		i_=$((i_ + 1))
	done
	grep -q '^serving:' "$work/$name_.out" || { cat "$work/$name_.err"; return 1; }
}

node_unserve() { # stop the server node_serve started
	kill -TERM "$server" && wait "$server"
}

# node_field FILE SECTION NID KEY: that (peer) NI's KEY under SECTION of an
# lnet_node's output ("nis", "at_N", "warm", "nis_peer_nis", ...).
node_field() {
	awk -v sec="$2:" -v nid="$3" -v key="$4:" '
		/^[a-z_0-9]+:$/ { in_sec = ($1 == sec); on = 0; next }
		in_sec && $3 == nid { on = 1; next }
		/- nid:/ { on = 0 }
		in_sec && on && $1 == key { print $2 }' "$1"
}

# two_rails NS_A NS_B A0 B0 A1 B1: namespaces NS_A and NS_B (added to $nss,
# which the caller's on_exit deletes) joined by eth0 (A0/B0) and eth1
# (A1/B1), /24 each: the kernel captures' two-rail layout.
two_rails() {
	ip netns add "$1" && nss="$nss $1" && ip netns add "$2" && nss="$nss $2" &&
		ip -n "$1" link set lo up && ip -n "$2" link set lo up &&
		netns_veth "$1" "$2" eth0 "$3/24" "$4/24" && netns_veth "$1" "$2" eth1 "$5/24" "$6/24" &&
		links_up "$1" "$2" eth0 eth1
}

# links_up NS_A NS_B IFACE...: wait (5 s at most) until each IFACE is
# operationally up in both namespaces: the kernel's linkwatch sets a new
# veth's carrier a moment after `link set up`, and an NI started before
# that is down (IFF_RUNNING), as ksocklnd's would be.
links_up() {
	na=$1 nb=$2
	shift 2
	i=0
	while [ $i -lt 50 ]; do
		down=0
		for l in "$@"; do
			for n in "$na" "$nb"; do
				ip -n "$n" -o link show "$l" | grep -q ',LOWER_UP' || down=1
				ip -n "$n" -o link show "$l" | grep -q 'state UP' || down=1
			done
		done
		[ $down -eq 0 ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "links not up after 5 s"
	return 1
}

# tcpdump_start NS IFACE FILE: record IFACE's port-988 traffic in namespace NS;
# sets $tcpdump_pid once it listens. Its buffer (128 MiB) and immediate mode
# keep it from losing packets; tcpdump_stop lets the last packet reach the
# file first. FILE.where says where it listens, for tcpdump_stop's marker.
tcpdump_start() {
	echo "$1 $2" >"$3.where"
	ip netns exec "$1" tcpdump -i "$2" -s 0 -B 131072 -U --immediate-mode -w "$3" \
		"tcp port 988 or $tcpdump_marker" 2>"$3.err" &
	tcpdump_pid=$!
	i=0
	while [ $i -lt 50 ] && ! grep -q "listening on" "$3.err"; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "listening on" "$3.err"
}

# The marker: an Ethernet broadcast frame holding a UDP datagram to port 9
# (discard) from 0.0.0.0 to 255.255.255.255, written on the captured
# interface by a packet socket once the traffic is over (no address
# needed: IPv6-only and tentative interfaces too; the peer drops it).
# tcpdump writes packets in the order it takes them off the interface:
# with the marker in its file, all before it are there too. No check reads
# UDP (tshark's and pcap_check.py's look at TCP port 988).
tcpdump_marker="udp port 9"
tcpdump_marker_send() { # NS IFACE
	ip netns exec "$1" python3 -c '
import socket, struct, sys
payload = b"lnp tcpdump marker"
udp = struct.pack("!HHHH", 9, 9, 8 + len(payload), 0) + payload
ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                           bytes(4), b"\xff\xff\xff\xff"))
words = struct.unpack("!10H", bytes(ip))
total = sum(words)
total = (total & 0xFFFF) + (total >> 16)
total = (total & 0xFFFF) + (total >> 16)
struct.pack_into("!H", ip, 10, ~total & 0xFFFF)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
s.send(b"\xff" * 6 + s.getsockname()[4].ljust(6, b"\0")[:6] + b"\x08\x00" + bytes(ip) + udp)' "$2"
}
tcpdump_marked() { # FILE: the marker is in it
	[ "$(tcpdump -n -r "$1" "$tcpdump_marker" 2>/dev/null | wc -l)" -ge 1 ]
}

tcpdump_stop() { # FILE: stop once the marker is in it; say whether the kernel dropped none
	ts_marked=0
	# shellcheck disable=SC2046 # FILE.where: NS IFACE
	tcpdump_marker_send $(cat "$1.where") && eventually 30 tcpdump_marked "$1" && ts_marked=1
	kill -INT "$tcpdump_pid"
	wait "$tcpdump_pid"
	[ $ts_marked -eq 1 ] || { echo "tcpdump: no marker in $1 after 30 s"; return 1; }
	grep -q "^0 packets dropped by kernel" "$1.err"
}

# lcores_calm NAME MAX_GAP_US [JSON_FILE]: daemon NAME's /lnet/lcore_stats
# (kept in JSON_FILE; the script sets $src): the watchdog found no lcore blocked in a
# system call (stalls_blocked: a stall whose thread was preempted, state R, is the
# host's: a loaded machine's, not the code's), and each lcore's longest gap between
# loop rounds is under MAX_GAP_US.
lcores_calm() {
	lc_json=${3:-$work/lcores.json}
	python3 "$src/../common/bad_peer.py" telemetry "$1" /lnet/lcore_stats >"$lc_json" || return 1
	cat "$lc_json"
	python3 - "$lc_json" "$2" <<'EOF_PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
lcores = [v for k, v in d.items() if re.fullmatch(r"l[0-9]+", k)]
assert len(lcores) >= 2, d
for lc in lcores:
    assert lc["stalls_blocked"] == 0, lc
    assert lc["max_gap_us"] < int(sys.argv[2]), lc
EOF_PY
}
