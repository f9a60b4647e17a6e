#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Local nets end to end: net add (--nid, --if, --ip2net, tunables), net
# show at each detail level, net del, lnet unconfigure, set, and the nets of
# export / export --backup / import / import --del, through a restart.
# No root needed: NIs listen on a high port on 127.0.0.0/8.
#   nets.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
port=$(( 20000 + $$ % 20000 ))
ip=127.0.$(( $$ % 200 + 20 )).21
ip2=127.0.$(( $$ % 200 + 20 )).22

start() { start_daemon "$1" --accept-port "$port" --accept all; }
stop() { stop_daemon "$1"; }

same() { # expected text, then a command
	printf '%s' "$1" >"$work/want"; shift
	"$@" >"$work/got" 2>&1 && cmp -s "$work/want" "$work/got" || { diff "$work/want" "$work/got"; return 1; }
}

a=lnetd-nets-a-$$
check "daemon $a starts" start "$a"
pid_a=$pid
check "net add --nid" "$ctl" --name "$a" net add --net tcp --nid "$ip@tcp" --peer-credits 16 --credits 512
check "net add --if lo --tos 16: the interface's address" \
	"$ctl" --name "$a" net add --net tcp1 --if lo --tos 16 --peer-timeout 90
check "net show: nid, status and interfaces, the kernel's keys" same "net:
-     net type: lo
      local NI(s):
      -     nid: 0@lo
            status: up
-     net type: tcp
      local NI(s):
      -     nid: $ip@tcp
            status: up
-     net type: tcp1
      local NI(s):
      -     nid: 127.0.0.1@tcp1
            status: up
            interfaces:
                  0: lo
" "$ctl" --name "$a" net show
check "net show -v --net tcp1: tunables and lnd tunables as set" same "net:
-     net type: tcp1
      local NI(s):
      -     nid: 127.0.0.1@tcp1
            status: up
            interfaces:
                  0: lo
            statistics:
                  send_count: 0
                  recv_count: 0
                  drop_count: 0
            tunables:
                  peer_timeout: 90
                  peer_credits: 8
                  peer_buffer_credits: 0
                  credits: 256
            lnd tunables:
                  conns_per_peer: 1
                  timeout: 50
                  tos: 16
            dev cpt: -1
            CPT: \"[0]\"
" "$ctl" --name "$a" net show -v --net tcp1
check "net show -v --net tcp: credits as given" sh -c \
	"'$ctl' --name '$a' net show -v --net tcp | grep -q 'peer_credits: 16' && '$ctl' --name '$a' net show -v --net tcp | grep -q '      credits: 512'"
check "net add --ip2net matching nothing: -2" fails_with -2 --name "$a" net add --ip2net "tcp3 10.255.255.*"
check "net add --ip2net with a bad rule: -22" fails_with -22 --name "$a" net add --ip2net "tcp3(lo) 300.1.1.1"
check "net add twice: -17" fails_with -17 --name "$a" net add --net tcp --nid "$ip@tcp"
check "net del of the loopback net: -22, it lives as long as LNet" fails_with -22 --name "$a" net del --net lo
check "net add --conns-per-peer 128: out of range" fails_with -22 --name "$a" net add --net tcp4 --nid "$ip2@tcp4" --conns-per-peer 128
check "net add --tos 300: out of range" fails_with -22 --name "$a" net add --net tcp4 --nid "$ip2@tcp4" --tos 300
check "net add --peer-credits x: usage" fails_with -22 --name "$a" net add --net tcp4 --nid "$ip2@tcp4" --peer-credits x
check "net add --cpt 9 on one CPT: refused" fails_with -22 --name "$a" net add --net tcp4 --nid "$ip2@tcp4" --cpt 9
check "net add --auth-key: not supported yet" fails_with -95 --name "$a" net add --net tcp4 --nid "$ip2@tcp4" --auth-key k
check "net add --ip2net with --net: usage" fails_with -22 --name "$a" net add --net tcp4 --ip2net "tcp4 127.0.0.*"
check "refused adds changed nothing" sh -c "! '$ctl' --name '$a' net show | grep -q tcp4"

"$ctl" --name "$a" export >"$work/full.yaml"
"$ctl" --name "$a" export --backup >"$work/backup.yaml"
check "export --backup: no lo, no nid/status/statistics, no lnd timeout" sh -c \
	"! grep -q 'net type: lo' '$work/backup.yaml' && ! grep -q 'status:' '$work/backup.yaml' && ! grep -q 'statistics' '$work/backup.yaml' && ! grep -q 'timeout: 50' '$work/backup.yaml' && grep -q 'tos: 16' '$work/backup.yaml' && grep -q 'nid: $ip@tcp' '$work/backup.yaml' && [ \$(grep -c 'nid:' '$work/backup.yaml') -eq 1 ]"
check "import of what runs: each NI already configured, nothing changes" sh -c \
	"! '$ctl' --name '$a' import '$work/full.yaml' >'$work/e' 2>&1 && [ \$(grep -c 'already configured' '$work/e') -eq 1 ]"

# 127.0.0.1 has tcp1 on it too: NIs share an address (acceptor.sh tests their traffic).
check "net add --ip2net: the matching interface, the address tcp1 has too" "$ctl" --name "$a" net add --ip2net "tcp2(lo) 127.0.0.*"
check "net show --net tcp2: 127.0.0.1 on lo" sh -c \
	"'$ctl' --name '$a' net show --net tcp2 | grep -q 'nid: 127.0.0.1@tcp2' && '$ctl' --name '$a' net show --net tcp2 | grep -q '0: lo'"
check "net del --nid" "$ctl" --name "$a" net del --nid 127.0.0.1@tcp2
check "net del --net tcp1" "$ctl" --name "$a" net del --net tcp1
check "net show after net del: tcp only" sh -c \
	"'$ctl' --name '$a' net show >'$work/ns' && ! grep -q 'tcp1\\|tcp2' '$work/ns' && grep -q 'nid: $ip@tcp' '$work/ns'"
check "net del --net lo: refused" fails_with -22 --name "$a" net del --net lo
check "net del of a net with no NI: -2" fails_with -2 --name "$a" net del --net tcp9
check "net del --if without --net: usage" fails_with -22 --name "$a" net del --if lo
check "net del --nid off --net: usage" fails_with -22 --name "$a" net del --net tcp1 --nid "$ip@tcp"
check "lnet unconfigure: only lo is left" sh -c \
	"'$ctl' --name '$a' lnet unconfigure && [ \$('$ctl' --name '$a' net show | grep -c 'nid:') -eq 1 ]"
check "a deleted NI's port is free again: net add works" "$ctl" --name "$a" net add --net tcp --nid "$ip@tcp"
check "set discovery 0: stored" sh -c \
	"'$ctl' --name '$a' set discovery 0 && '$ctl' --name '$a' global show | grep -qx '    discovery: 0'"
check "set discovery 7: stored as 1, as the kernel's" sh -c \
	"'$ctl' --name '$a' set discovery 7 && '$ctl' --name '$a' global show | grep -qx '    discovery: 1'"
# As the kernel's parser: an unknown tunable is its one line (exit 255), a tunable
# without its value prints the tunable's help (exit 234, -EINVAL).
check "set frob 1: no such tunable" sh -c "'$ctl' --name '$a' set frob 1 2>&1 | grep -q \"'frob' is not a valid command\"; '$ctl' --name '$a' set frob 1 2>/dev/null; [ \$? -eq 255 ]"
check "set health_sensitivity: value missing" sh -c "'$ctl' --name '$a' set health_sensitivity | grep -q '^set health_sensitivity: '; '$ctl' --name '$a' set health_sensitivity >/dev/null; [ \$? -eq 234 ]"
check "SIGTERM: $a exits 0" stop "$pid_a"

# export -> restart -> import -> export, with tcp NIs; then import --del.
b=lnetd-nets-b-$$
check "daemon $b starts" start "$b"
pid_b=$pid
check "import the full export" "$ctl" --name "$b" import "$work/full.yaml"
check "export after import is the same, nets and all" sh -c \
	"'$ctl' --name '$b' export >'$work/full2.yaml' && diff '$work/full.yaml' '$work/full2.yaml'"
check "import --del of the backup: only lo is left" sh -c \
	"'$ctl' --name '$b' import --del '$work/backup.yaml' && [ \$('$ctl' --name '$b' net show | grep -c 'nid:') -eq 1 ]"
check "import --del again: nothing to delete, -22" fails_with -22 --name "$b" import --del "$work/backup.yaml"
check "import of the backup restores the nets" sh -c \
	"'$ctl' --name '$b' import '$work/backup.yaml' && '$ctl' --name '$b' export --backup | diff '$work/backup.yaml' -"
printf 'net:\n    - net type: tcp5\n      local NI(s):\n        - interfaces:\n              0: nosuch0\n' >"$work/nosuch.yaml"
check "import of a NI whose interface is missing: refused, nothing changes" sh -c \
	"! '$ctl' --name '$b' import '$work/nosuch.yaml' >'$work/e' 2>&1 && grep -q 'errno: -19' '$work/e' && '$ctl' --name '$b' export --backup | diff '$work/backup.yaml' -"
check "SIGTERM: $b exits 0" stop "$pid_b"

# --config with tcp NIs: applied at start-up; a bad one names its location.
cp "$work/backup.yaml" "$work/config.yaml"
c=lnetd-nets-c-$$
"$daemon" -- --name "$c" --accept-port "$port" --accept all --config "$work/config.yaml" >"$work/$c.out" 2>"$work/$c.err" &
pid_c=$!
pids="$pids $pid_c"
check "--config with tcp NIs: they run" \
	eventually 30 sh -c "'$ctl' --name '$c' export --backup | diff '$work/config.yaml' -"
check "SIGTERM: $c exits 0" stop "$pid_c"
check "--config with a NI on a missing interface: refused with its location" sh -c \
	"! '$daemon' -- --name bad-$$ --config '$work/nosuch.yaml' 2>'$work/e' && grep -q 'nosuch.yaml:4:11: interface nosuch0' '$work/e'"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work/$a.err' '$work/$b.err' '$work/$c.err'"
finish nets
