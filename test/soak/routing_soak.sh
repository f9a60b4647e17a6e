#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Routing soak (not gating): test/integration/routing.sh run again and again
# for a while, to catch what shows once in tens of runs (issue 31: a
# forwarded REPLY held 3 s in a router). Each run's routers log the longest
# forward of each of their lcores as it grows past 100 ms ("longest forward
# so far") and every forward that took 1 s or more ("slow forward", with
# where the time went: waiting for a router credit or buffer, receiving the
# payload, waiting for tx credits, in the LND); their logs are read after
# each run, then the run's files go. Each slow forward is shown with the
# check of routing.sh that ended next (what the run was doing then); the
# killed R1's log is kept apart by routing.sh, so its slow forwards count. Every
# daemon's socklnd waits of 1 s or more (for a connection, a full socket, the
# peer's TCP acknowledgement), lcore stalls and sleeps the host ended late
# (no CPU for the thread) are listed after them.
#   routing_soak.sh BUILD_DIR [SECONDS]    (SOAK_SECONDS, default 600: no new
#   run starts after that; SOAK_RUNS caps the number of runs; SOAK_OPS, default
#   60000, is the operations of routing.sh's many-operations phase per run)
# Prints one line per run and a summary: runs, failed runs, the longest
# forward seen, every slow forward, and whether a host pause explains it
# (a process of its run woke from a sleep long after it was due, meanwhile).
# Exit 1 if a run failed or a forward took 1 s or more with no host pause
# to explain it, 77 without root or ip.
set -u
build=$(cd "${1:?usage: routing_soak.sh BUILD_DIR [SECONDS]}" && pwd)
secs=${2:-${SOAK_SECONDS:-600}}
max_runs=${SOAK_RUNS:-1000000}
ops_per_run=${SOAK_OPS:-60000} # routing.sh's many-operations phase: most of a run is routed traffic
here=$(cd "$(dirname "$0")" && pwd)
script="$here/../integration/routing.sh"
[ "$(id -u)" = 0 ] && command -v ip >/dev/null 2>&1 || { echo "routing_soak: needs root and ip"; exit 77; }

out=$(mktemp -d /tmp/lnet_routing_soak.XXXXXX)
trap '[ -n "${SOAK_KEEP:-}" ] && echo "kept: $out" || rm -rf "$out"' EXIT
trap 'exit 130' INT TERM
start=$(date +%s)
runs=0 failed=0 longest=0 longest_run=0 slow=0
: >"$out/slow"
: >"$out/lnd"
while [ $(( $(date +%s) - start )) -lt "$secs" ] && [ "$runs" -lt "$max_runs" ]; do
	runs=$((runs + 1))
	t0=$(date +%s)
	[ -d "$out" ] || { echo "routing_soak: $out is gone: stopped"; exit 1; }
	# each line of the run stamped with the time it came (a slow forward's log line has
	# its own): what the test was doing then. routing.sh writes to a file, never a pipe:
	# nothing the stamper does can cut a run short (and leave its namespaces behind).
	: >"$out/raw" # there before tail opens it
	LNP_KEEP_WORK=1 ROUTING_MANY=$ops_per_run sh "$script" "$build" "$here/../integration" >>"$out/raw" 2>&1 &
	rpid=$!
	tail -n +1 -f --pid="$rpid" "$out/raw" 2>/dev/null |
		while IFS= read -r line; do echo "$(date +%s.%N | cut -c1-14) $line"; done >"$out/run"
	wait "$rpid"
	rc=$?
	cp "$out/run" "$out/run.$runs" # kept until the end: the summary shows the phases
	t1=$(date +%s)
	work=$(sed -n 's/^[0-9.]* kept: //p' "$out/run" | tail -1)
	lng=0
	if [ -n "$work" ] && [ -d "$work" ]; then
		# the routers' logs (the daemons are r1, r2 and the restarted r1)
		lng=$(cat "$work"/lrt*r1.* "$work"/lrt*r2.* 2>/dev/null |
			sed -n 's/.*longest forward so far \([0-9]*\) ms.*/\1/p' | sort -n | tail -1)
		lng=${lng:-0}
		for f in "$work"/lrt*r1.* "$work"/lrt*r2.*; do
			[ -f "$f" ] || continue
			r=$(basename "$f" | sed 's/^lrt[0-9]*//; s/\..*//')
			grep "slow forward" "$f" | sed "s/^/run $runs, $r: /" >>"$out/slow"
		done
		# every daemon's waits of 1 s or more inside socklnd, and lcore stalls:
		# where a slow forward's "LND" time went, and whether its lcore ran
		for f in "$work"/*.err "$work"/*.out; do
			[ -f "$f" ] || continue
			r=$(basename "$f" | sed 's/^lrt[0-9]*//')
			grep -E "for a connection to|took no bytes|nothing acknowledged|stalled: one poll|after its sleep was due" "$f" |
				sed "s/^/run $runs, $r: /" >>"$out/lnd"
		done
		rm -rf "$work"
	fi
	ops=$(sed -n 's/^[0-9.]* [0-9]* operations: \(.*\) s$/\1/p' "$out/run")
	state=ok
	if [ "$rc" -ne 0 ]; then
		failed=$((failed + 1))
		if [ $((t1 - t0)) -lt 10 ]; then # not a run: the machine's problem, not the code's
			echo "routing_soak: run $runs ended in $((t1 - t0)) s:"; tail -n 5 "$out/raw"
			break
		fi
		state="FAILED ($rc)"
		grep -E ' FAIL' "$out/run" | head -5 | sed "s/^/run $runs:   /"
	fi
	echo "run $runs: $state in $((t1 - t0)) s, $ops_per_run ops in ${ops:-?} s, longest forward ${lng} ms"
	if [ "$lng" -gt "$longest" ]; then
		longest=$lng longest_run=$runs
	fi
done
slow=$(wc -l <"$out/slow")
echo "routing_soak: $runs runs in $(( $(date +%s) - start )) s, $failed failed;" \
	"longest forward ${longest} ms (run $longest_run); $slow forwards of 1 s or more"
cat "$out/slow"
if [ -s "$out/lnd" ]; then
	echo "routing_soak: waits of 1 s or more in socklnd, and lcore stalls:"
	sort -u "$out/lnd"
fi
# for each slow forward, the check of its run that came next (stamped lines)
while IFS= read -r l; do
	n=$(echo "$l" | sed 's/^run \([0-9]*\),.*/\1/')
	at=$(echo "$l" | sed -n 's/.*slow forward at \([0-9.]*\):.*/\1/p')
	[ -n "$at" ] || continue
	awk -v at="$at" -v n="$n" '$1 >= at { sub(/^[0-9.]* /, ""); print "  run " n " at " at ": then " $0; exit }' \
		"$out/run.$n"
done <"$out/slow" | sort -u
# A slow forward during which some process of its run woke from a sleep long
# after it was due (no CPU for it: the host paused, or was too busy) is the
# host's, not the router's; one without is the code's, and fails the soak.
unexplained=0
while IFS= read -r l; do
	n=$(echo "$l" | sed 's/^run \([0-9]*\),.*/\1/')
	at=$(echo "$l" | sed -n 's/.*slow forward at \([0-9.]*\):.*/\1/p')
	took=$(echo "$l" | sed -n 's/.*status [-0-9]*: \([0-9]*\) ms.*/\1/p')
	[ -n "$at" ] && [ -n "$took" ] || continue
	pause=$(grep "^run $n, " "$out/lnd" | sed -n 's/.*woke \([0-9]*\) ms after its sleep was due.*woke at \([0-9.]*\)).*/\2 \1/p' |
		awk -v at="$at" -v took="$took" '$1 >= at - took / 1000 - 0.5 && $1 <= at + 1 { if ($2 > m) m = $2 } END { print m + 0 }')
	if [ "$pause" -gt 0 ]; then
		echo "  run $n at $at: $took ms, the host's: a process of the run woke $pause ms late then"
	else
		echo "  run $n at $at: $took ms, no host pause seen: the router's"
		unexplained=$((unexplained + 1))
	fi
done <"$out/slow"
echo "routing_soak: $slow slow forwards, $unexplained not explained by a host pause"
[ "$failed" -eq 0 ] && [ "$unexplained" -eq 0 ]
