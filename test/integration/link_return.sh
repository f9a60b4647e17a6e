#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 31, D1: lnetd-pmd once sent nothing for 33 s after its rail came
# back (../shared/captures/kernel-vs-pmd-2/, 07-health-pmd-link-down). The
# sequence replayed, CYCLES times: two daemons with two rails each, ping
# loops both ways over both rails; P's rail-1 veth goes down while they run
# (what P had written there stays unacknowledged), comes back, and the
# connections opened before the outage are closed (sock_timeout) while new
# traffic arrives. Through all of it:
#   - every ping of a primary NID is answered, but for one that crossed a
#     rail's going or return (the kernel's own pings fail there too: the
#     captures' 07-k1-pingloop.txt), and none takes longer than its timeout;
#   - no lcore of P stalls (the stall watchdog, at 2 s, counted none), and
#     each lcore's longest gap between loop rounds stays under 5 s: far
#     above a descheduled thread's gaps on a busy shared machine (2.6 s
#     seen with ten jobs on two CPUs), far below the 33 s of D1;
#   - the rail carries traffic again after each return.
#   link_return.sh BUILD_DIR SRC_DIR [CYCLES] [DOWN_S]   (needs root, iproute2)
set -u
build=$1 src=$2 cycles=${3:-3} down_s=${4:-7}
. "$src/harness.sh"
netns_script link_return llr

a0=10.$x.1.1 b0=10.$x.1.2 a1=10.$x.2.1 b1=10.$x.2.2
p=${tag}p k=${tag}k

# Short LND timeouts: the outage outlives the connections opened before it.
setup() {
	two_rails "$p" "$k" "$a0" "$b0" "$a1" "$b1" &&
		DAEMON_PREFIX="ip netns exec $p" start_daemon "$p" --stall-ms 2000 \
			--socklnd sock_timeout=5 &&
		DAEMON_PREFIX="ip netns exec $k" start_daemon "$k" --socklnd sock_timeout=5 &&
		"$ctl" --name "$p" net add --net tcp --if eth0,eth1 &&
		"$ctl" --name "$k" net add --net tcp --if eth0,eth1 &&
		"$ctl" --name "$p" discover "$b0@tcp" >/dev/null &&
		"$ctl" --name "$k" discover "$a0@tcp" >/dev/null
}

# ping_loop FROM TO LOG: one ping after another until $work/stop; "rc seconds" per line.
# The outer timeout bounds a ping whose daemon stopped answering (D1's symptom).
ping_loop() {
	while [ ! -e "$work/stop" ]; do
		t0=$(now_ms)
		timeout 30 "$ctl" --name "$1" ping --timeout 10 "$2" >"$3.out" 2>&1
		rc=$?
		echo "$rc $t0 $(now_ms)" >>"$3"
		[ $rc -eq 0 ] || cat "$3.out" >>"$3.failed"
	done
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

pinged_since() { # LOG LINES: a ping answered after line LINES of LOG
	tail -n +"$(($2 + 1))" "$1" | grep -q '^0 '
}

# One outage: down while the loops run (at least one ping each way crosses
# it), up, then wait until a ping of P's rail-1 NID is answered again.
cycle() {
	echo "down $(now_ms)" >>"$work/outages"
	ip -n "$p" link set eth1 down || return 1
	eventually 30 pinged_since "$work/p0.log" "$(wc -l <"$work/p0.log")" || return 1
	sleep "$down_s" # the outage itself: connections time out (sock_timeout 5) meanwhile
	n=$(wc -l <"$work/k1.log")
	ip -n "$p" link set eth1 up && links_up "$p" "$k" eth1 || return 1
	eventually 60 pinged_since "$work/k1.log" "$n" || return 1
	echo "back $(now_ms)" >>"$work/outages"
}

# LOG: every ping ended within 15 s (its timeout is 10); every one that failed
# overlapped an outage (from a rail's going to its first answered ping after return).
all_answered() {
	awk 'FILENAME == ARGV[1] { if ($1 == "down") d[++n] = $2; else b[n] = $2; next }
	     { total++; if ($3 - $2 > slow) slow = $3 - $2
	       if ($3 - $2 > 15000) { late++; print "took " $3 - $2 " ms: " $0 }
	       if ($1 == 0) next
	       failed++; crossed = 0
	       for (i = 1; i <= n; i++) if ($3 >= d[i] && $2 <= b[i]) crossed = 1
	       if (!crossed) { outside++; print "failed outside an outage: " $0 } }
	     END { printf "%d pings, %d failed (all across an outage: %s), slowest %d ms\n",
	           total, failed, outside ? "no" : "yes", slow
	           exit !(total > 0 && !outside && !late) }' "$work/outages" "$1" ||
		{ cat "$1.failed" 2>/dev/null; return 1; }
}

# No lcore found blocked, each lcore's longest gap under 5 s; the watchdog at 2 s, no log line lost.
no_stall() {
	lcores_calm "$p" 5000000 "$work/lcores.json" &&
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["stall_threshold_us"] == 2000000 and d["log_dropped"] == 0))' \
			"$work/lcores.json"
}

check "two daemons, two rails each, discovered both ways" setup
: >"$work/outages"
: >"$work/p0.log"
: >"$work/k0.log"
: >"$work/k1.log"
ping_loop "$p" "$b0@tcp" "$work/p0.log" &
l1=$!
ping_loop "$k" "$a0@tcp" "$work/k0.log" &
l2=$!
ping_loop "$k" "$a1@tcp" "$work/k1.log" &
l3=$!
on_exit="touch '$work/stop'; $on_exit"
cyc=1 # (links_up and eventually have an i of their own: sh has only globals)
while [ $cyc -le "$cycles" ]; do
	check "cycle $cyc: P's rail 1 down ${down_s} s under traffic, back, answering again" cycle
	cyc=$((cyc + 1))
done
touch "$work/stop"
wait $l1 $l2 $l3
check "every ping of P's primary NID from K answered, but across an outage" all_answered "$work/k0.log"
check "every ping of K's primary NID from P answered, but across an outage" all_answered "$work/p0.log"
check "no lcore of P blocked in a system call; each one's longest gap between rounds under 5 s" no_stall
# stats show's lcore_stalls: every lcore's stalls (the host's included), as /lnet/lcore_stats counts them
stalls_shown() {
	want=$(python3 -c 'import json, re, sys; d = json.load(open(sys.argv[1])); print(sum(v["stalls"] for k, v in d.items() if re.fullmatch(r"l[0-9]+", k)))' "$work/lcores.json")
	"$ctl" --name "$p" stats show | grep -qx "    lcore_stalls: $want"
}
check "stats show: lcore_stalls, as /lnet/lcore_stats counts them" stalls_shown
finish link_return
