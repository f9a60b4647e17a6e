#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Scale figures (issue 5): one lnetd-pmd, N peers of one NI each imported
# with lnetctl; prints YAML: the daemon's resident memory before and after,
# bytes per peer NI, the import's time, a full `peer show`'s time and one
# peer's `peer show --nid` time. Figures, never pass/fail.
#   test/bench/scale.sh [BUILD_DIR] [PEERS]
set -eu
build=${1:-build}
peers=${2:-100000}
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

awk -v n="$peers" 'BEGIN { print "peer:"; for (i = 0; i < n; i++) {
	a = 201326592 + i; ip = int(a / 16777216) "." int(a / 65536) % 256 "." int(a / 256) % 256 "." a % 256;
	printf "    - primary nid: %s@tcp\n      Multi-Rail: True\n      peer ni:\n        - nid: %s@tcp\n", ip, ip } }' \
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

echo "scale:"
echo "    peers: $peers"
echo "    rss_before_kib: $before"
echo "    rss_after_kib: $after"
echo "    bytes_per_peer_ni: $(( (after - before) * 1024 / peers ))"
echo "    import_s: $(secs "$t0" "$t1")"
echo "    peer_show_s: $(secs "$t1" "$t2")"
echo "    peer_show_one_s: $(secs "$t2" "$t3")"
