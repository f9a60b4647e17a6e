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
# keep it from losing packets; tcpdump_stop lets the last block reach it first.
tcpdump_start() {
	ip netns exec "$1" tcpdump -i "$2" -s 0 -B 131072 -U --immediate-mode -w "$3" \
		"tcp port 988" 2>"$3.err" &
	tcpdump_pid=$!
	i=0
	while [ $i -lt 50 ] && ! grep -q "listening on" "$3.err"; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "listening on" "$3.err"
}

tcpdump_stop() { # FILE: stop, then say whether the kernel dropped none
	sleep 1
	kill -INT "$tcpdump_pid"
	wait "$tcpdump_pid"
	grep -q "^0 packets dropped by kernel" "$1.err"
}
