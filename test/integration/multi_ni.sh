#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Several NIs on one net (the local side of Multi-Rail), as the kernel's
# s3 captures set it up: two namespaces joined by two veth pairs on two
# subnets, a daemon in each with `net add --net tcp --if eth0,eth1`. Then:
# net show -v lists two tcp NIs, each on its interface, up, with the
# kernel's `dev cpt: -1` for an interface without a device (veth); each
# daemon pings every NID of the other from each of its own NIs (--source);
# the ping target of each lists both NIDs; `net del --net tcp --if eth1` on
# B leaves eth0 working and B's ping target without eth1's NID, B's eth1
# NID stops answering; added back, it answers again and the ping target
# lists both. export --backup, net del of the net and import give A its
# two NIs back, exported the same. The daemons exit 0 on SIGTERM, with no sanitizer report.
#   multi_ni.sh BUILD_DIR SRC_DIR     (needs root and iproute2)
set -u
build=$1 src=$2
. "$src/harness.sh"
netns_script multi_ni lnm

a0=10.$x.1.1 b0=10.$x.1.2 a1=10.$x.2.1 b1=10.$x.2.2

topology() {
	two_rails "${tag}a" "${tag}b" "$a0" "$b0" "$a1" "$b1"
}

# ping_ok FROM-LETTER SOURCE-NID TO-NID: retried while a fresh veth comes up.
ping_ok() {
	i=0
	while [ $i -lt 10 ]; do
		"$ctl" --name "$tag$1" ping --source "$2" --timeout 2 "$3" >"$work/ping" 2>&1 &&
			grep -q "primary nid: " "$work/ping" && return 0
		sleep 1
		i=$((i + 1))
	done
	cat "$work/ping"
	return 1
}

# ping_lists FROM-LETTER TO-NID NID...: the ping reply lists exactly these NIDs.
ping_lists() {
	from=$1 to=$2
	shift 2
	"$ctl" --name "$tag$from" ping --timeout 2 "$to" >"$work/pl" 2>&1 || { cat "$work/pl"; return 1; }
	grep '^  - nid: ' "$work/pl" | sed 's/^  - nid: //' >"$work/pl.got"
	: >"$work/pl.want"
	for n in "$@"; do echo "$n" >>"$work/pl.want"; done
	cmp -s "$work/pl.got" "$work/pl.want" || { cat "$work/pl"; return 1; }
}

# show_v LETTER: the tcp net of net show -v, one line per key, indentation dropped.
show_v() {
	"$ctl" --name "$tag$1" net show -v --net tcp | sed 's/^ *-* *//' >"$work/nsv"
}

# ni_shown LETTER NID IFACE: that NI is on IFACE, up, with the kernel's dev cpt of a veth.
ni_shown() {
	show_v "$1" && awk -v nid="$2" '
		$0 == "nid: " nid { on = 1; next }
		/^nid: / { on = 0 }
		on { print }' "$work/nsv" | tr '\n' ' ' >"$work/ni" &&
		grep -q "status: up interfaces: 0: $3 " "$work/ni" &&
		grep -q "dev cpt: -1 " "$work/ni" || { cat "$work/nsv"; return 1; }
}

tcp_nis() { # LETTER COUNT: net show lists COUNT NIs on tcp
	[ "$("$ctl" --name "$tag$1" net show --net tcp | grep -c 'nid: ')" -eq "$2" ]
}

del_net_a() {
	"$ctl" --name "${tag}a" net del --net tcp && ! "$ctl" --name "${tag}a" net show --net tcp 2>/dev/null | grep -q 'nid: '
}

import_a() {
	"$ctl" --name "${tag}a" import "$work/bk1.yaml" && tcp_nis a 2
}

every_pair_pings() { # FROM-LETTER, then its NIDs, "--", then the other's NIDs
	from=$1
	shift
	srcs="" dsts="" seen=""
	for n in "$@"; do
		if [ "$n" = "--" ]; then seen=1; elif [ -z "$seen" ]; then srcs="$srcs $n"; else dsts="$dsts $n"; fi
	done
	for s in $srcs; do
		for d in $dsts; do
			ping_ok "$from" "$s@tcp" "$d@tcp" || { echo "no reply: $s -> $d"; return 1; }
		done
	done
}

check "topology: two veth pairs on two subnets" topology
check "daemon A" daemon_in a
pid_a=$pid
check "daemon B" daemon_in b
pid_b=$pid
check "A: net add --net tcp --if eth0,eth1" "$ctl" --name "${tag}a" net add --net tcp --if eth0,eth1
check "B: net add --net tcp --if eth0 and --if eth1 (one net add each)" sh -c \
	"'$ctl' --name ${tag}b net add --net tcp --if eth0 && '$ctl' --name ${tag}b net add --net tcp --if eth1"
check "A's net show: two NIs on tcp" tcp_nis a 2
check "B's net show: two NIs on tcp" tcp_nis b 2
check "A's net show -v: $a0@tcp on eth0, up, dev cpt -1 (veth: no device)" ni_shown a "$a0@tcp" eth0
check "A's net show -v: $a1@tcp on eth1, up, dev cpt -1" ni_shown a "$a1@tcp" eth1
check "B's net show -v: $b1@tcp on eth1, up, dev cpt -1" ni_shown b "$b1@tcp" eth1
check "A pings each of B's NIDs from each of its NIs" every_pair_pings a "$a0" "$a1" -- "$b0" "$b1"
check "B pings each of A's NIDs from each of its NIs" every_pair_pings b "$b0" "$b1" -- "$a0" "$a1"
check "B's ping target lists both its NIDs" ping_lists a "$b0@tcp" "$b0@tcp" "$b1@tcp"
check "A's ping target lists both its NIDs" ping_lists b "$a1@tcp" "$a0@tcp" "$a1@tcp"

check "B: net del --net tcp --if eth1" "$ctl" --name "${tag}b" net del --net tcp --if eth1
check "B's net show: one NI left on tcp, $b0@tcp" sh -c \
	"'$ctl' --name ${tag}b net show --net tcp | grep 'nid: ' | grep -qx ' *- *nid: $b0@tcp'"
check "B's ping target lists one NID fewer" ping_lists a "$b0@tcp" "$b0@tcp"
check "B's remaining NI still works, from both of A's NIs" every_pair_pings a "$a0" "$a1" -- "$b0"
check "B's deleted NID no longer answers" sh -c \
	"! '$ctl' --name ${tag}a ping --timeout 2 '$b1@tcp' >'$work/gone' 2>&1"
check "B pings A from its remaining NI" every_pair_pings b "$b0" -- "$a0" "$a1"

check "B: net add --net tcp --if eth1 again" "$ctl" --name "${tag}b" net add --net tcp --if eth1
check "B's net show: two NIs on tcp again" tcp_nis b 2
check "B's ping target lists both NIDs again, eth1's last" ping_lists a "$b0@tcp" "$b0@tcp" "$b1@tcp"
check "the re-added NI answers again, from both of A's NIs" every_pair_pings a "$a0" "$a1" -- "$b1"
check "A: export --backup lists both interfaces of tcp" sh -c \
	"'$ctl' --name ${tag}a export --backup >'$work/bk1.yaml' && grep -q '0: eth0' '$work/bk1.yaml' && grep -q '0: eth1' '$work/bk1.yaml'"
check "A: net del --net tcp takes both NIs" del_net_a
check "A: import of the backup brings both NIs back" import_a
# ... but for its peers, which come back Multi-Rail: 2.17's import adds each primary
# Multi-Rail whatever the file says (lnet_peer_ni_cmd), as ours does
check "A: the export after the import is the one before, its peers now Multi-Rail" sh -c \
	"'$ctl' --name ${tag}a export --backup >'$work/bk2.yaml' && sed 's/^      Multi-Rail: false$/      Multi-Rail: true/' '$work/bk1.yaml' | cmp - '$work/bk2.yaml'"
check "A's imported NIs answer B" every_pair_pings b "$b0" "$b1" -- "$a0" "$a1"
check "SIGTERM: A exits 0" stop_daemon "$pid_a"
check "SIGTERM: B exits 0" stop_daemon "$pid_b"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work'/*.err 2>/dev/null"
finish multi_ni
