#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Wireshark's LNet dissector as an independent oracle for our bytes
# (shared/reference/wireshark-oracle.md): two lnetd-pmd ping each other
# over ksocklnd while tshark captures loopback port 988 and `lnetctl
# capture` records node A's side. Both files must pass tshark_check_file
# (test/common/tshark_lib.sh), and the LNet headers in the two must be the
# same. tshark_veth.sh does the same on a veth with tcpdump.
#   tshark_two_daemons.sh BUILD_DIR     (skips without root or tshark)
set -u
build=$1
daemon="$build/apps/lnetd-pmd/lnetd-pmd"
ctl="$build/apps/lnetctl/lnetctl"
[ "$(id -u)" = 0 ] && command -v tshark >/dev/null 2>&1 || { echo "needs root and tshark: skipped"; exit 77; }
work=$(mktemp -d)
. "$(dirname "$0")/../common/tshark_lib.sh"
a=lnetd-ws-a-$$ b=lnetd-ws-b-$$
ipa=127.0.$(( $$ % 200 + 20 )).21 ipb=127.0.$(( $$ % 200 + 20 )).22
pids=""
cleanup() {
	for p in $pids; do kill -TERM "$p" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT

start() {
	"$daemon" -- --name "$1" >/dev/null 2>&1 &
	pids="$pids $!"
	i=0
	while [ $i -lt 200 ] && ! "$ctl" --name "$1" global show >/dev/null 2>&1; do
		sleep 0.1
		i=$((i + 1))
	done
}

start "$a"
start "$b"
tshark -i lo -f "tcp port 988 and host $ipa" -w "$work/cap.pcap" >/dev/null 2>"$work/tshark.err" &
ts=$!
# eventually SECONDS CMD...: CMD succeeds within SECONDS (tried every 0.1 s).
eventually() {
	ev_n=$(($1 * 10)) ev_i=0
	shift
	while [ $ev_i -lt $ev_n ]; do
		"$@" && return 0
		sleep 0.1
		ev_i=$((ev_i + 1))
	done
	return 1
}
capturing() { grep -q "^Capturing on" "$work/tshark.err"; }
eventually 30 capturing || { echo "FAIL: tshark not capturing after 30 s"; cat "$work/tshark.err"; exit 1; }
"$ctl" --name "$a" net add --nid "$ipa@tcp" &&
	"$ctl" --name "$b" net add --nid "$ipb@tcp" &&
	"$ctl" --name "$a" capture start --file "$work/ours.pcap" &&
	"$ctl" --name "$a" ping "$ipb@tcp" >/dev/null &&
	"$ctl" --name "$b" ping "$ipa@tcp" >/dev/null &&
	"$ctl" --name "$a" ping "$ipb@tcp" >/dev/null || { echo "FAIL: traffic"; exit 1; }
# The last REPLY has crossed lo; tshark writes what it captures as it goes:
# wait until its file holds all three REPLYs before stopping it (the checks
# below then compare the files' every message).
three_replies() { [ "$(tshark -n -r "$work/cap.pcap" -Y 'lnet' 2>/dev/null | grep -c LNET_REPLY)" -ge 3 ]; }
eventually 30 three_replies || echo "tshark's file: fewer than 3 REPLYs after 30 s"
"$ctl" --name "$a" capture stop >"$work/stop.yaml" || { echo "FAIL: capture stop"; exit 1; }
kill -INT "$ts"
wait "$ts"

# The LNet headers of a file, in order: type, length, NIDs, pids, match bits, portal.
headers() {
	tshark -2 -n -r "$1" -Y 'lnet.msg_type' -T fields -E separator='|' -E occurrence=a \
		-e lnet.msg_type -e lnet.payload_length -e lnet.nid.addr -e lnet.src_pid \
		-e lnet.dest_pid -e lnet.msg_dst_match_bits -e lnet.ptl_index 2>/dev/null
}

rc=0
tshark_check_file "$work/cap.pcap" || rc=1
tshark_check_file "$work/ours.pcap" || rc=1
tshark -n -r "$work/cap.pcap" -Y 'lnet' 2>/dev/null >"$work/summary"
grep -c LNET_GET "$work/summary" | grep -qx 3 && grep -c LNET_REPLY "$work/summary" | grep -qx 3 ||
	{ echo "FAIL: expected 3 GET and 3 REPLY"; cat "$work/summary"; rc=1; }
headers "$work/cap.pcap" >"$work/h.kernel"
headers "$work/ours.pcap" >"$work/h.ours"
cmp -s "$work/h.kernel" "$work/h.ours" && [ -s "$work/h.ours" ] ||
	{ echo "FAIL: lnetctl capture's LNet headers differ from the wire's"; diff "$work/h.kernel" "$work/h.ours"; rc=1; }
# lnet-capcheck judges both files clean and finds the 3 GETs and 3 REPLYs
capcheck_ok() {
	"$build/apps/lnet-capcheck/lnet-capcheck" --json "$1" >"$1.json" &&
		python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
n = lambda k: sum(s[k] for s in r["streams"])
sys.exit(0 if (r["problems"], n("get"), n("reply")) == (0, 3, 3) else 1)' "$1.json"
}
for f in cap ours; do
	capcheck_ok "$work/$f.pcap" || { echo "FAIL: lnet-capcheck on $f.pcap"; cat "$work/$f.pcap.json"; rc=1; }
done
grep -q 'dropped: 0' "$work/stop.yaml" || { echo "FAIL: capture dropped packets"; cat "$work/stop.yaml"; rc=1; }
[ $rc -eq 0 ] && echo "tshark_two_daemons: 1 passed, 0 failed" || echo "tshark_two_daemons: 0 passed, 1 failed"
exit $rc
