#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Scale figures (issue 5): one lnetd-pmd, N peers of NIDS NIs each (1 or
# 2; with 2 each peer is Multi-Rail, its second NID in 13.x.x.x) imported
# with lnetctl; prints YAML: the daemon's resident memory before and after,
# bytes per peer and per peer NI, the import's time, a full `peer show`'s
# time and one peer's `peer show --nid` time. Figures, never pass/fail.
#   test/bench/scale.sh [BUILD_DIR] [PEERS] [NIDS]
set -eu
build=${1:-build}
peers=${2:-100000}
nids=${3:-1}
case $nids in 1 | 2) ;; *) echo "NIDS is 1 or 2" >&2; exit 2 ;; esac
daemon="$build/apps/lnetd-pmd/lnetd-pmd"
ctl="$build/apps/lnetctl/lnetctl"
[ -x "$daemon" ] && [ -x "$ctl" ] || { echo "build $daemon and $ctl first (./dev.sh build)" >&2; exit 2; }
name=lnet-scale-$$
work=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

now() { date +%s.%N; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
secs() { echo "$1 $2" | awk '{ printf "%.3f", $2 - $1 }'; }

# Peer i is 12.x.x.x (i) and, with two NIDs, also 13.x.x.x (i): the shape
# `lnetctl export` writes for a Multi-Rail peer.
awk -v n="$peers" -v nids="$nids" '
function ip(a) { return int(a / 16777216) "." int(a / 65536) % 256 "." int(a / 256) % 256 "." a % 256 }
BEGIN { print "peer:"; for (i = 0; i < n; i++) {
	p = ip(201326592 + i);
	printf "    - primary nid: %s@tcp\n      Multi-Rail: True\n      peer ni:\n        - nid: %s@tcp\n", p, p;
	if (nids == 2) printf "        - nid: %s@tcp\n", ip(218103808 + i) } }' \
	>"$work/peers.yaml"

"$daemon" -- --name "$name" >"$work/out" 2>"$work/err" &
pid=$!
i=0
until "$ctl" --name "$name" global show >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 200 ] && kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
	sleep 0.1
done
before=$(rss_kib "$pid")
t0=$(now)
"$ctl" --name "$name" import "$work/peers.yaml"
t1=$(now)
after=$(rss_kib "$pid")
"$ctl" --name "$name" peer show >"$work/show"
t2=$(now)
"$ctl" --name "$name" peer show --nid 12.0.0.7@tcp >/dev/null
t3=$(now)
shown=$(grep -c 'primary nid' "$work/show")
[ "$shown" -eq "$peers" ] || { echo "peer show listed $shown of $peers peers" >&2; exit 1; }
# Every NID made it in: a figure of peers that lost their second NI would flatter.
shown=$(grep -c '^ *- *nid:' "$work/show" || true)
[ "$shown" -eq $((peers * nids)) ] || { echo "peer show listed $shown of $((peers * nids)) peer NIs" >&2; exit 1; }

echo "scale:"
echo "    peers: $peers"
echo "    nids_per_peer: $nids"
echo "    rss_before_kib: $before"
echo "    rss_after_kib: $after"
echo "    bytes_per_peer: $(( (after - before) * 1024 / peers ))"
echo "    bytes_per_peer_ni: $(( (after - before) * 1024 / (peers * nids) ))"
echo "    import_s: $(secs "$t0" "$t1")"
echo "    peer_show_s: $(secs "$t1" "$t2")"
echo "    peer_show_one_s: $(secs "$t2" "$t3")"
