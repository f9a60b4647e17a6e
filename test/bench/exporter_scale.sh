#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lnetd-exporter's scrape time against one lnetd-pmd holding PEERS peers of
# one NID (scale.sh's peers: 12.x.x.x@tcp, imported with lnetctl): a scrape
# with --max-peers 0, the default 1000, and every peer; prints YAML (seconds,
# series, bytes). Figures, never pass/fail.
#   test/bench/exporter_scale.sh [BUILD_DIR] [PEERS]
set -eu
build=${1:-build}
peers=${2:-100000}
daemon="$build/apps/lnetd-pmd/lnetd-pmd"
ctl="$build/apps/lnetctl/lnetctl"
exporter="$(dirname "$0")/../../usertools/lnetd-exporter"
[ -x "$daemon" ] && [ -x "$ctl" ] || { echo "build $daemon and $ctl first (./dev.sh build)" >&2; exit 2; }
name=lnet-exscale-$$
work=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.3f", $2 - $1 }'; }

awk -v n="$peers" '
function ip(a) { return int(a / 16777216) "." int(a / 65536) % 256 "." int(a / 256) % 256 "." a % 256 }
BEGIN { print "peer:"; for (i = 0; i < n; i++) {
	p = ip(201326592 + i);
	printf "    - primary nid: %s@tcp\n      Multi-Rail: True\n      peer ni:\n        - nid: %s@tcp\n", p, p } }' \
	>"$work/peers.yaml"

"$daemon" -- --name "$name" >"$work/out" 2>"$work/err" &
pid=$!
i=0
until "$ctl" --name "$name" global show >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 200 ] && kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
	sleep 0.1
done
"$ctl" --name "$name" import "$work/peers.yaml"

echo "exporter_scale:"
echo "    peers: $peers"
for max in 0 1000 "$peers"; do
	t0=$(now)
	"$exporter" --name "$name" --once --max-peers "$max" >"$work/scrape" 2>/dev/null
	t1=$(now)
	grep -qx 'lnet_up 1.0' "$work/scrape" || { echo "no lnet_up 1 at --max-peers $max" >&2; exit 1; }
	echo "    max_peers_$max:"
	echo "        scrape_s: $(secs "$t0" "$t1")"
	echo "        series: $(grep -vc '^#' "$work/scrape")"
	echo "        bytes: $(wc -c <"$work/scrape")"
	echo "        peers_omitted: $(sed -n 's/^lnet_exporter_peers_omitted //p' "$work/scrape")"
done
