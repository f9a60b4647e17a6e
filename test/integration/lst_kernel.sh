#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Our lst against a kernel test node: lnetd-pmd --selftest in the place of
# node A of the kernel captures (192.0.2.11, the lst console and group g1),
# kernel_standin.py playing node B (192.0.2.12, group g2) with B's captured
# bytes: its framework replies, its brw bulk GETs and PUTs and its brw and
# ping replies, each rewritten to answer the daemon's own request (reply and
# bulk ids, the console's session id, the ping seq; selftest-facts §1, §2).
# The capture's own lst steps run with our lst (LST_SESSION, new_session,
# add_group, add_batch, add_test, list_batch, run, stat, stop,
# end_session) and its output is compared with the kernel lst's kept
# output (tool-output/PHASE.nodeA.lst_*.txt): g2's stat blocks are
# deterministic (its rates come from B's replies' counters and running_ms);
# g1 is our own node, its rates this run's, so its numbers are masked.
# s1_03 runs after s1_01 and s1_02 as in its boot (connections and
# discovery done). Needs root.
#   lst_kernel.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
netns_script lst_kernel lkn
LNP_KERNEL_CAPTURES=${LNP_KERNEL_CAPTURES:-$src/../../../shared/captures/kernel}
export LNP_KERNEL_CAPTURES
[ -f "$LNP_KERNEL_CAPTURES/s1_03_selftest.pcap.gz" ] ||
	{ echo "lst_kernel: no kernel captures at $LNP_KERNEL_CAPTURES; skipped"; exit 77; }
standin="$src/../common/kernel_standin.py"
lst="$build/apps/lst/lst"

# run PHASE...: a fresh pair of namespaces and daemon, the phases replayed in
# order, the last one's lst output compared; the stand-in's report printed.
run() {
	two_rails "${tag}A" "${tag}B" 192.0.2.11 192.0.2.12 198.51.100.11 198.51.100.12 || return 1
	DAEMON_PREFIX="ip netns exec ${tag}A" start_daemon "${tag}A" --selftest || return 1
	dpid=$pid
	"$ctl" --name "${tag}A" net add --net tcp --if eth0 || return 1
	eval last=\${$#}
	ip netns exec "${tag}B" python3 "$standin" --play nodeB --ctl "$ctl" --name "${tag}A" \
		--lst "$lst" --compare "$last" "$@" >"$work/replay.out" 2>&1
	rc=$?
	cat "$work/replay.out"
	stop_daemon "$dpid" || rc=1
	grep -q Sanitizer "$work/${tag}A.err" && { cat "$work/${tag}A.err"; rc=1; }
	eval "$on_exit"
	nss=""
	return $rc
}

check "s1_03 (brw write 4k, brw read 1M, ping; stat 5 times): our lst against node B's captured replies prints the kernel lst's list_batch and stat" \
	run s1_01_first_ping_discovery_on s1_02_discover s1_03_selftest
check "s4_01 (first contact, brw write 4k): our lst against node B's captured replies prints the kernel lst's list_batch" \
	run s4_01_selftest_first_contact
finish lst_kernel
