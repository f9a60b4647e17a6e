#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lnetd-pmd as its installed systemd unit starts it, with no systemd as
# PID 1: sd_notify_listener.py stands in for systemd (NOTIFY_SOCKET,
# WATCHDOG_USEC), and the unit's own ExecStart= and ExecReload= lines are
# run, read from the installed lnetd-pmd.service with their paths.
#   service_unit.sh BUILD_DIR SRC_DIR          the build, meson-installed into
#                                              a scratch root (gating)
#   service_unit.sh BUILD_DIR SRC_DIR DEB_DIR  the Debian packages in DEB_DIR
#                                              (./dev.sh package), unpacked into
#                                              a scratch root (conformance)
# Two namespaces joined by a veth pair; node B an ordinary daemon, node A
# the unit's, with lnet.conf naming a tcp NI on A's eth0 while that link
# has no carrier (B's end down). Checks:
#   - SIGTERM while the node waits for its NIs stops it at once (exit 0);
#   - no READY=1 while A's NI is down; READY=1 once the link is up, and the
#     node was ready then (lnetctl net show at READY=1: the NI up);
#   - WATCHDOG=1 comes again and again while the lcores run, and stops while
#     an EAL worker thread is held still (freeze_thread.py), STATUS naming
#     the lcore, then comes again;
#   - the installed lnetctl pings B from A;
#   - ExecReload with a changed lnet.conf: RELOADING=1 then READY=1, the
#     added NI (tcp1 on eth1), route and global are there, the NI was kept (its send count went on, it was
#     not made again) and B still answers; a reload with them removed
#     deletes the NI and the route; a file that does not read changes nothing;
#   - log lines to journald's stream (JOURNAL_STREAM) carry a <N> priority;
#   - SIGTERM (systemctl stop): STOPPING=1 and exit 0.
# Needs root and iproute2.
set -u
build=$1 src=$2 debs=${3:-}
. "$src/harness.sh"
netns_script service_unit svc

root="$work/root"
mkdir -p "$root"
if [ -n "$debs" ]; then
	ls "$debs"/lnetd-pmd_*.deb >/dev/null 2>&1 || { echo "no packages in $debs"; exit 1; }
	for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$root"; done
else
	meson install -C "$build" --destdir "$root" --no-rebuild --quiet >/dev/null
fi
unit=$(find "$root" -name lnetd-pmd.service | head -n 1)
check "the unit is installed" test -f "$unit"
[ -f "$unit" ] || { finish service_unit; exit 1; }
check "the unit is Type=notify with a watchdog" \
	sh -c "grep -qx 'Type=notify' '$unit' && grep -q '^WatchdogSec=' '$unit'"

# ExecStart with its paths under $root, the settings file's variables
# expanded as systemd does ($VAR: split at spaces).
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
conf=$(printf '%s\n' "$exec_start" | sed -n 's/.*--config \([^ ]*\).*/\1/p')
daemon_path=${exec_start%% *}
ctl=$(find "$root" -name lnetctl -type f | head -n 1)
check "ExecStart names the daemon and /etc/lnet.conf's place" \
	sh -c "test -x '$root$daemon_path' && test -f '$root$conf'"

a=${tag}a b=${tag}b
ip netns add "$a" && nss="$nss $a"
ip netns add "$b" && nss="$nss $b"
ip netns exec "$a" ip link set lo up
ip netns exec "$b" ip link set lo up
a0=10.$x.9.1 b0=10.$x.9.2
ip -n "$a" link add eth0 type veth peer name eth0 netns "$b"
ip -n "$a" addr add "$a0/24" dev eth0
ip -n "$b" addr add "$b0/24" dev eth0
# A's side up, B's down until the test says: A's NI has no carrier (down).
ip -n "$a" link set eth0 up
# eth1, up at both ends: for an NI a reload adds and removes.
a1=10.$x.10.1 b1=10.$x.10.2
netns_veth "$a" "$b" eth1 "$a1/24" "$b1/24"

# write_conf [more]: A's lnet.conf; "more" adds a tcp1 NI on eth1, a route
# to tcp9 through B and a global setting.
write_conf() {
	cat >"$root$conf" <<EOF
# lnet.conf of node A (the kernel's format)
net:
    - net type: tcp
      local NI(s):
        - interfaces:
              0: eth0
EOF
	[ "${1:-}" = more ] && cat >>"$root$conf" <<EOF
    - net type: tcp1
      local NI(s):
        - interfaces:
              0: eth1
route:
    - net: tcp9
      gateway: $b0@tcp
global:
    max_interfaces: 100
EOF
	return 0
}
write_conf

# The unit's command line: the installed daemon, the settings file's words.
# eval "set -- $(unit_argv)" after LNETD_OPTS="--name NAME" is what the unit runs.
LNETD_EAL_ARGS="${LNP_EAL_ARGS:-}" # the unit's default: empty
unit_argv() {
	printf '%s\n' "$exec_start" | sed "s|^$daemon_path|$root$daemon_path|; s|--config $conf|--config $root$conf|"
}
ni_down_shown() { # instance
	"$ctl" --name "$1" net show --net tcp 2>/dev/null | grep -q "status: down"
}

# systemctl stop while the node still waits for its NIs: it stops at once.
LNETD_OPTS="--name ${a}w"
eval "set -- $(unit_argv)"
ip netns exec "$a" "$@" >"$work/w.out" 2>"$work/w.err" &
wpid=$!
pids="$pids $wpid"
check "waiting for its NI, the node runs" eventually 20 ni_down_shown "${a}w"
kill -TERM "$wpid"
gone() { ! kill -0 "$wpid" 2>/dev/null; }
check "SIGTERM while waiting for the NIs: it stops within 5 s" eventually 5 gone
wait "$wpid"
check "... exit 0" test $? -eq 0

notify="$work/notify.sock" log="$work/notify.log"
python3 "$src/sd_notify_listener.py" "$notify" "$log" "$ctl" --name "$a" net show --net tcp &
listener=$!
pids="$pids $listener"
eventually 5 grep -q LISTENING "$log"

LNETD_OPTS="--name $a"
eval "set -- $(unit_argv)"
: >"$work/a.err"
# systemd names the journal stream it gives as stderr by its device and inode.
journal=$(stat -c '%d:%i' "$work/a.err")
NOTIFY_SOCKET=$notify WATCHDOG_USEC=1000000 JOURNAL_STREAM=$journal \
	ip netns exec "$a" "$@" >"$work/a.out" 2>>"$work/a.err" &
apid=$!
pids="$pids $apid"

count() { # FIELD: how many times it came
	grep -c " $1\$" "$log" || true
}
readies_are() { [ "$(count READY=1)" -eq "$1" ]; }
check "A runs with its NI down (telemetry answers)" eventually 20 ni_down_shown "$a"
sleep 0.5 # a READY=1 sent while the NI is down would be in the log by now
check "no READY=1 while the NI is down" readies_are 0
check "STATUS says what it waits for" grep -q "STATUS=waiting for NIs" "$log"
ip -n "$b" link set eth0 up
check "READY=1 once the link is up" eventually 20 readies_are 1
check "at READY=1 the NI was up" grep -q "status: up" "$log.ready.1"
check "READY's STATUS names the configuration" grep -q "STATUS=$a up: 2 NIs, configuration $root$conf" "$log"
wd_at_ready=$(count WATCHDOG=1)
many_pings() { [ "$(count WATCHDOG=1)" -ge $((wd_at_ready + 4)) ]; }
check "WATCHDOG=1 again and again (1 s period)" eventually 5 many_pings

# A lcore stuck: its EAL worker thread held still (ptrace), the rest running.
python3 "$src/freeze_thread.py" "$apid" rte-worker 2 >"$work/freeze.out" 2>&1
frozen=$?
if [ "$frozen" -eq 77 ]; then
	echo "skipped: the stuck-lcore checks (ptrace not allowed: $(cat "$work/freeze.out"))"
else
	check "an EAL worker thread held still for 2 s" test "$frozen" -eq 0
	check "the lcore moving again: STATUS says so" eventually 5 grep -q "every lcore moving again" "$log"
	# Between "makes no progress" and "moving again": no WATCHDOG=1, for 1 s at least.
	awk '/makes no progress/ { t0 = $1; on = 1; next }
	     on && /WATCHDOG=1/ { bad = 1 }
	     on && /every lcore moving again/ { t1 = $1; on = 0 }
	     END { exit !(t0 > 0 && t1 - t0 >= 1 && !bad) }' "$log" >/dev/null
	check "a stuck lcore: STATUS says so, and no WATCHDOG=1 for over a second" test $? -eq 0
	wd_after=$(count WATCHDOG=1)
	pings_again() { [ "$(count WATCHDOG=1)" -ge $((wd_after + 2)) ]; }
	check "the lcore moving again: WATCHDOG=1 again" eventually 5 pings_again
fi

cat >"$work/b.yaml" <<EOF
net:
    - net type: tcp
      local NI(s):
        - interfaces:
              0: eth0
EOF
DAEMON_PREFIX="ip netns exec $b" start_daemon "$b" --config "$work/b.yaml" || { echo "B did not start"; exit 1; }

check "log lines to the journal carry their priority" grep -q '^<[0-7]>lnet: .*link up' "$work/a.err"

ctl_a() { ip netns exec "$a" "$ctl" --name "$a" "$@"; }
check "the installed lnetctl pings B from A" ctl_a ping "$b0@tcp"
sends() { ctl_a net show -v --net tcp | sed -n 's/^ *send_count: //p' | head -n 1; }
sent_before=$(sends)

reload() { # the unit's ExecReload, for $apid
	cmd=$(sed -n 's/^ExecReload=//p' "$unit" | sed "s/\$MAINPID/$apid/")
	eval "$cmd"
}
# Pings to B all through the reload: what stayed keeps its traffic.
pinging() { # 40 pings in turn; the failures counted in $work/ping.fail
	i=0 f=0
	while [ $i -lt 40 ]; do
		"$ctl" --name "$a" ping --timeout 2 "$b0@tcp" >/dev/null 2>&1 || f=$((f + 1))
		[ $i -eq 5 ] && : >"$work/ping.started"
		i=$((i + 1))
	done
	echo "$f" >"$work/ping.fail"
}
pinging &
pinger=$!
eventually 10 test -f "$work/ping.started"
write_conf more
reload
check "reload: RELOADING=1 then READY=1" eventually 20 readies_are 2
wait "$pinger"
check "reload: 40 pings to B across it, none failed" grep -qx 0 "$work/ping.fail"
check "reload: RELOADING=1 said" grep -q " RELOADING=1\$" "$log"
check "reload: the added route is there" sh -c "ip netns exec $a $ctl --name $a route show | grep -q 'net: tcp9'"
check "reload: the changed global is set" sh -c "'$ctl' --name $a global show | grep -q 'max_interfaces: 100'"
check "reload: B still answers" ctl_a ping "$b0@tcp"
kept() { [ "$(sends)" -gt "$sent_before" ]; }
check "reload: the NI was kept (its send count went on)" kept
check "reload: the added NI is there" sh -c "'$ctl' --name $a net show --net tcp1 | grep -q 'nid: $a1@tcp1'"
check "reload: STATUS says reloaded" grep -q "STATUS=reloaded $root$conf; 3 of 3 NIs up" "$log"

write_conf
reload
check "reload without the route: READY=1" eventually 20 readies_are 3
no_route() { ! ctl_a route show | grep -q 'net: tcp9'; }
check "reload: the removed route is gone" no_route
no_tcp1() { ! "$ctl" --name "$a" net show | grep -q "$a1@tcp1"; }
check "reload: the removed NI is gone" no_tcp1
check "reload: the tcp NI still there" ctl_a ping "$b0@tcp"

echo "net: [ this is not" >"$root$conf"
reload
check "reload of a broken file: READY=1 all the same" eventually 20 readies_are 4
check "... refused, said in STATUS" grep -q "STATUS=reload of $root$conf refused, nothing changed" "$log"
check "... the NI still there" ctl_a ping "$b0@tcp"

kill -TERM "$apid"
wait "$apid"
rc=$?
check "SIGTERM: exit 0" test "$rc" -eq 0
check "SIGTERM: STOPPING=1" grep -q " STOPPING=1\$" "$log"
[ "$fails" -eq 0 ] || { cat "$log" "$work/a.err"; }
finish service_unit
