#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 31: a forward held for seconds must say whether lnetd-pmd or the host
# held it. The stall watchdog sees polls only; an idle lcore's thread that the
# host runs late (no CPU for it) is seen by the thread itself, when its sleep
# ends long after it was due. Here the whole daemon is stopped (SIGSTOP) for
# 400 ms, the host withholding its CPU, with --stall-ms 100, until one
# sleep came back late (a stop that lands inside a poll is a stall instead,
# so the stop is repeated until one lands in a sleep, 20 times at most):
#   - /lnet/lcore_stats counts it: oversleeps >= 1, oversleep_longest_us at
#     least the threshold;
#   - its log says so ("woke N ms after its sleep was due"), N >= 100;
#   - the daemon still answers and stops on SIGTERM.
#   oversleep.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
name=lovs$$

# The lcores' longest overshoot in /lnet/lcore_stats (0 when none overslept).
longest_oversleep() {
	python3 "$src/../common/bad_peer.py" telemetry "$name" /lnet/lcore_stats |
		python3 -c '
import json, re, sys
d = json.load(sys.stdin)
lcores = [v for k, v in d.items() if re.fullmatch(r"l[0-9]+", k)]
print(max(lc["oversleep_longest_us"] if lc["oversleeps"] > 0 else 0 for lc in lcores))'
}

check "the daemon starts with --stall-ms 100" start_daemon "$name" --stall-ms 100
tries=0 over=0
while [ "$tries" -lt 20 ] && [ "$over" -eq 0 ]; do
	tries=$((tries + 1))
	kill -STOP "$pid"
	sleep 0.4 # the stimulus: how long the host gives the daemon no CPU
	kill -CONT "$pid"
	eventually 10 "$ctl" --name "$name" global show
	over=$(longest_oversleep)
done
echo "an overshoot of $over us after $tries stops"
check "a sleep that ended late is counted, its overshoot at least the threshold" [ "$over" -ge 100000 ]
woke() { grep -E "woke [0-9]+ ms after its sleep was due" "$work/$name.err" |
	sed 's/.*woke \([0-9]*\) ms.*/\1/' | sort -n | tail -1; }
check "... and logged with how late it woke" [ "$(woke)" -ge 100 ]
check "the daemon answers" "$ctl" --name "$name" global show
check "SIGTERM stops it: exit 0" stop_daemon "$pid"
finish oversleep
