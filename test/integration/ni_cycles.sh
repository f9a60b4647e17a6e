#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# net add / net del run on the management lcore, with the ping target
# rebuild, one operation at a time: concurrent lnetctl net adds and dels all
# succeed and the ping (from a second daemon, and to itself) then lists
# exactly the NIs configured; 1,000 add/del cycles all succeed (they used to
# stop after 32 with ENOSPC) and the daemon's RSS does not grow with them.
# No root needed: NIs listen on a high port on 127.0.0.0/8.
#   ni_cycles.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
cycles="python3 $src/../common/ni_cycles.py"
port=$(( 20000 + $$ % 20000 ))
net=127.0.$(( $$ % 200 + 20 ))
a=lnetd-cyc-a-$$ b=lnetd-cyc-b-$$
# ASan keeps freed memory in quarantine (256 MiB): without that, RSS shows what is live.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=1"

ping_nids() { # from-node nid: the NIs the ping lists, sorted, one a line
	"$ctl" --name "$1" ping "$2" >"$work/ping" 2>&1 || { cat "$work/ping"; return 1; }
	sed -n 's/^  - nid: //p' "$work/ping" | sort
}

pings_exactly() { # from-node nid, then the NIDs expected
	from=$1 to=$2; shift 2
	printf '%s\n' "$@" | sort >"$work/want"
	ping_nids "$from" "$to" >"$work/got" && cmp -s "$work/want" "$work/got" ||
		{ echo "want:"; cat "$work/want"; echo "got:"; cat "$work/got"; return 1; }
}

both() { # two lnetctl command lines (quoted), run at the same time: both must succeed
	sh -c "$1" >"$work/o1" 2>&1 & p1=$!
	sh -c "$2" >"$work/o2" 2>&1 & p2=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	[ $r1 -eq 0 ] && [ $r2 -eq 0 ] || { cat "$work/o1" "$work/o2"; return 1; }
}

rss_kb() { sed -n 's/^VmRSS:[^0-9]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }

# Two CPTs on $a: net del visits the NI's lcore and both CPTs' before it is done.
check "daemon $a starts, two CPTs" start_daemon "$a" --accept-port "$port" --accept all \
	--cpu-pattern "0[0] 1[1]"
pid_a=$pid
check "daemon $b starts" start_daemon "$b" --accept-port "$port" --accept all
pid_b=$pid
check "$a: net add tcp" "$ctl" --name "$a" net add --nid "$net.51@tcp"
check "$b: net add tcp" "$ctl" --name "$b" net add --nid "$net.52@tcp"
check "$b pings $a: one NI" pings_exactly "$b" "$net.51@tcp" "$net.51@tcp"

r=0
while [ $r -lt 10 ]; do
	check "round $r: two net adds at once" both \
		"'$ctl' --name '$a' net add --nid '$net.53@tcp1' --cpt 1" \
		"'$ctl' --name '$a' net add --nid '$net.54@tcp2' --cpt 0"
	check "round $r: $b's ping lists the three NIs" \
		pings_exactly "$b" "$net.51@tcp" "$net.51@tcp" "$net.53@tcp1" "$net.54@tcp2"
	check "round $r: two net dels at once" both \
		"'$ctl' --name '$a' net del --net tcp1" "'$ctl' --name '$a' net del --net tcp2"
	check "round $r: $b's ping lists one NI" pings_exactly "$b" "$net.51@tcp" "$net.51@tcp"
	r=$((r + 1))
done

check "100 net add/del cycles" sh -c "$cycles '$a' 100 tcp3 '$net.55@tcp3' >'$work/t100'"
rss100=$(rss_kb "$pid_a")
check "900 more (1,000 in all)" sh -c "$cycles '$a' 900 tcp3 '$net.55@tcp3' >'$work/t900'"
rss1000=$(rss_kb "$pid_a")
echo "RSS after 100 cycles: $rss100 kB, after 1,000: $rss1000 kB;" \
	"seconds: $(cat "$work/t100") + $(cat "$work/t900")"
check "RSS after 1,000 cycles within 8 MiB of after 100" [ $((rss1000 - rss100)) -lt 8192 ]
check "then net add tcp3 once more" "$ctl" --name "$a" net add --nid "$net.55@tcp3"
check "$b's ping lists exactly tcp and tcp3" \
	pings_exactly "$b" "$net.51@tcp" "$net.51@tcp" "$net.55@tcp3"
check "$a's ping of itself lists the same" \
	pings_exactly "$a" "$net.51@tcp" "$net.51@tcp" "$net.55@tcp3"
check "net show: lo, tcp and tcp3" sh -c \
	"[ \$('$ctl' --name '$a' net show | grep -c 'nid:') -eq 3 ]"
check "SIGTERM: $a exits 0" stop_daemon "$pid_a"
check "SIGTERM: $b exits 0" stop_daemon "$pid_b"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work/$a.err' '$work/$b.err'"
finish ni_cycles
