#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A ping to an unused address of the NI's own subnet, as the kernel's 2.17
# answers it (kernel-routing-health/transcript.txt: "errno: -113",
# "descr: ! 'failed to ping NID: No route to host'", exit 255): Linux
# resolves the neighbour with 3 ARP probes a second apart, then fails the
# socket's connect with EHOSTUNREACH; the kernel's lnet_ping() unlinks its
# MD when --timeout ends but waits for the GET to complete, so the connect's
# error is the ping's errno even with --timeout 2 (not -ETIMEDOUT). The
# next ping, while the socklnd backs off from that peer, fails at once with
# the same errno. The NI is on a veth in a namespace whose far end has no
# address: nobody answers ARP.
#   ping_unreachable.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
netns_script ping_unreachable pu
ip netns add "${tag}a" && nss="${tag}a"
ip netns add "${tag}b" && nss="$nss ${tag}b"
ip -n "${tag}a" link set lo up
ip -n "${tag}a" link add v0 type veth peer name v0 netns "${tag}b" &&
	ip -n "${tag}a" addr add "10.78.$x.1/24" dev v0 &&
	ip -n "${tag}a" link set v0 up && ip -n "${tag}b" link set v0 up ||
	{ echo "ping_unreachable: cannot make the veth"; exit 1; }
nobody=10.78.$x.9@tcp
ctl_in() { ip netns exec "${tag}a" "$ctl" --name "${tag}a" "$@"; }

check "daemon in ${tag}a starts" daemon_in a
check "net add --net tcp --if v0" ctl_in net add --net tcp --if v0

printf "manage:\n- ping:\n  errno: -113\n  descr: ! 'failed to ping %s: No route to host'\n" "$nobody" >"$work/want"
: >"$work/empty"
unreachable() { # ping ARGS...: exactly the kernel's -113 on stdout, nothing on stderr, exit 255
	ctl_in ping "$@" >"$work/o" 2>"$work/e"
	rc=$?
	[ "$rc" -eq 255 ] && cmp -s "$work/want" "$work/o" && cmp -s "$work/empty" "$work/e" ||
		{ echo "exit $rc"; diff "$work/want" "$work/o"; cat "$work/e"; return 1; }
}
check "ping --timeout 2 $nobody: -113 (the neighbour lookup failed), not -110" unreachable --timeout 2 "$nobody"
check "ip neigh: the lookup failed (FAILED), which is where -113 comes from" sh -c \
	"ip -n '${tag}a' neigh show 10.78.$x.9 | grep -q FAILED"
check "ping again at once: the socklnd's backoff, the same -113" unreachable "$nobody"
finish ping_unreachable
