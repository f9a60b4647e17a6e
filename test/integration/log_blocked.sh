#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 31, D1's cause: an lcore that writes its own log lines (DPDK's stream:
# stderr, then syslog) blocks as soon as its reader stops reading, and a
# router that blocks drops its fabric's traffic. Here lnetd-pmd's stderr is a
# one-page pipe nobody reads (stuck_stderr.py); its rail-1 link goes down and
# up until the pipe is full, and ten times more, each change logged by an
# lcore ("link down", "link up") and seen in net show. Then:
#   - pings both ways are answered, each within its timeout;
#   - no lcore blocked (the watchdog, at 3 s: an lcore blocked on the pipe
#     would stay blocked, state S in write(2), counted in stalls_blocked; one
#     merely preempted on a loaded machine, state R, is the host's and not
#     counted there), none of their gaps reached 10 s (a descheduled
#     thread's, on a busy machine, stay far below): the lines waited in the
#     log ring, or were dropped and counted, while the log writer thread,
#     not an lcore, waited for the pipe;
#   - the daemon still stops on SIGTERM, the pipe still full.
#   log_blocked.sh BUILD_DIR SRC_DIR   (needs root, iproute2)
set -u
build=$1 src=$2
. "$src/harness.sh"
netns_script log_blocked llb

a0=10.$x.1.1 b0=10.$x.1.2 a1=10.$x.2.1 b1=10.$x.2.2
p=${tag}p k=${tag}k

# P under a stderr nobody reads; up once its telemetry answers.
start_stuck() {
	python3 "$src/../common/stuck_stderr.py" "$work/pipe" "$work/p.out" \
		ip netns exec "$p" "$daemon" ${LNP_EAL_ARGS:-} -- --name "$p" --stall-ms 3000 &
	stuck=$!
	pids="$pids $stuck"
	eventually 20 "$ctl" --name "$p" global show
}

setup() {
	two_rails "$p" "$k" "$a0" "$b0" "$a1" "$b1" && start_stuck &&
		DAEMON_PREFIX="ip netns exec $k" start_daemon "$k" &&
		"$ctl" --name "$p" net add --net tcp --if eth0,eth1 &&
		"$ctl" --name "$k" net add --net tcp --if eth0,eth1 &&
		"$ctl" --name "$p" discover "$b0@tcp" >/dev/null
}

pipe_full() { # less room left than a log line takes
	read -r used size <"$work/pipe" && [ "$used" -gt $((size - 64)) ]
}

status_now() { # NID up|down: P's net show says so (a stuck P fails it in 5 s)
	LNETCTL_REPLY_TIMEOUT=5 "$ctl" --name "$p" net show --net tcp | awk -v nid="$1" '$3 == nid { on = 1; next } on && $1 == "status:" { print $2; exit }' |
		grep -qx "$2"
}

# Down, seen down, up, seen up: each change logged by the lcore that saw it ("link down", "link up").
toggle() {
	ip -n "$p" link set eth1 down && eventually 10 status_now "$a1@tcp" down &&
		ip -n "$p" link set eth1 up && eventually 10 status_now "$a1@tcp" up
}

# Rail 1 down and up until P's stderr is full (each time two lines), then 20 times more.
fill_and_go_on() {
	n=0
	while ! pipe_full && [ $n -lt 200 ]; do
		toggle || return 1
		n=$((n + 1))
	done
	pipe_full || { echo "pipe not full after $n toggles: $(cat "$work/pipe")"; return 1; }
	echo "pipe full after $n toggles"
	i2=0
	while [ $i2 -lt 10 ]; do toggle || return 1; i2=$((i2 + 1)); done
	pipe_full
}

pings() { # FROM TO: five pings, each answered within its timeout (the outer one catches a hang)
	j=0
	while [ $j -lt 5 ]; do
		timeout 30 "$ctl" --name "$1" ping --timeout 5 "$2" >"$work/ping" 2>&1 ||
			{ cat "$work/ping"; return 1; }
		j=$((j + 1))
	done
}

no_stall() { lcores_calm "$p" 10000000; }

stops() { # SIGTERM: gone within 10 s, the pipe never read
	kill -TERM "$stuck" && eventually 10 sh -c "! kill -0 $stuck 2>/dev/null" && pipe_full
}

check "two daemons, two rails; P's stderr a one-page pipe nobody reads" setup
check "P's rail 1 down and up until its stderr is full, then 10 times more" fill_and_go_on
check "P pings K: all five answered" pings "$p" "$b0@tcp"
check "K pings P: all five answered" pings "$k" "$a0@tcp"
check "no lcore of P blocked in a system call, no gap of 10 s" no_stall
check "P stops on SIGTERM with its stderr still full" stops
finish log_blocked
