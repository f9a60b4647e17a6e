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
check "net add --nid" "$ctl" --name "$a" net add --nid "$ip@tcp" --peer-credits 16 --credits 512
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
            transport: socket
" "$ctl" --name "$a" net show -v --net tcp1
check "net show -v --net tcp: credits as given" sh -c \
	"'$ctl' --name '$a' net show -v --net tcp | grep -q 'peer_credits: 16' && '$ctl' --name '$a' net show -v --net tcp | grep -q '      credits: 512'"
check "net add --ip2net matching nothing: -2" fails_with -2 --name "$a" net add --ip2net "tcp3 10.255.255.*"
check "net add --ip2net with a bad rule: -22" fails_with -22 --name "$a" net add --ip2net "tcp3(lo) 300.1.1.1"
check "net add twice: -17" fails_with -17 --name "$a" net add --nid "$ip@tcp"
# A refused net del prints as 2.17's yaml_lnet_config_ni() prints the
# kernel's refusal: yaml_lnet_print_error(0, "net", msg) with the errno
# and lnet_net_cmd()'s extack text; the command ends with -EINVAL (234).
nl_del_err() { # ERRNO DESCR: the block in $work/nl
	printf -- '---\ndel:\n-     net:\n      errno: %s\n      descr: ! "%s"\n...\n' "$1" "$2" >"$work/nl"
}
: >"$work/empty"
# net show's refusals (2.17's jt_show_net / yaml_lnet_config_ni, NLM_F_DUMP).
nl_show_err() { # ERRNO DESCR: the block in $work/nl
	printf -- '---\nshow:\n-     net:\n      errno: %s\n      descr: ! "%s"\n...\n' "$1" "$2" >"$work/nl"
}
nl_show_err -2 'cannot parse net'
check "net show --net foo: lnet_net_show_start's -ENOENT 'cannot parse net'" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net show --net foo
nl_show_err -3 'Network is down'
check "net show --net tcp9: no NI, lnet_net_show_dump's -ESRCH 'Network is down'" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net show --net tcp9
"$ctl" net show -h >"$work/sh"
printf "show: unrecognized option '--bogus'\n" >"$work/sb"
check "net show --bogus: getopt's complaint, net show's help, exit 0" \
	out_err 0 "$work/sh" "$work/sb" --name "$a" net show --bogus
printf "show: invalid option -- '2'\n" >"$work/s2"
check "net show -v2: -v takes no argument (short options n:v), -2 is unknown" \
	out_err 0 "$work/sh" "$work/s2" --name "$a" net show -v2
check "net show --net tcp --bogus: more than two words, getopt silent (check_cmd): the help, 0" \
	out_err 0 "$work/sh" "$work/empty" --name "$a" net show --net tcp --bogus
"$ctl" --name "$a" net show >"$work/plain"
check "net show foo: other words are ignored" out_err 0 "$work/plain" "$work/empty" --name "$a" net show foo
nl_del_err -19 'setting @lo not allowed'
check "net del of the loopback net: the kernel's parser refuses its net type, -19" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net del --net lo
nl_add_err() { # ERRNO DESCR: the block in $work/nl
	printf -- '---\nadd:\n-     net:\n      errno: %s\n      descr: ! "%s"\n...\n' "$1" "$2" >"$work/nl"
}
nl_add_err -34 'failed to parse lnd tunables'
check "net add --conns-per-peer 128: ksocknal_nl_set's -ERANGE" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net add --nid "$ip2@tcp4" --conns-per-peer 128
# jt_add_ni's own --tos check: its cYAML_build_error(-1, -1, "ni", "add", ...) block, -EINVAL.
printf 'ni:\n    - add:\n          errno: -1\n          descr: "Invalid ToS argument"\n' >"$work/tos"
: >"$work/empty"
check "net add --tos 300: jt_add_ni's Invalid ToS block, exit 234" \
	out_err 234 "$work/empty" "$work/tos" --name "$a" net add --nid "$ip2@tcp4" --tos 300
nl_add_err -34 'invalid CPT value'
check "net add --cpt 9 on one CPT: lnet_genl_parse_local_ni's -ERANGE" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net add --nid "$ip2@tcp4" --cpt 9
check "net add --ip2net with --net: the rules are not sent, nothing added, exit 0" \
	out_err 0 "$work/empty" "$work/empty" --name "$a" net add --net tcp4 --ip2net "tcp4 127.0.0.*"
check "refused adds changed nothing" sh -c "! '$ctl' --name '$a' net show | grep -q tcp4"
check "net add --auth-key k on a tcp net: kfilnd's, ignored" sh -c \
	"'$ctl' --name '$a' net add --nid '$ip2@tcp4' --auth-key k && '$ctl' --name '$a' net del --net tcp4"
# jt_add_ni ignores an integer option parse_long() refuses.
check "net add --peer-credits x: the value ignored, the NI added" sh -c \
	"'$ctl' --name '$a' net add --nid '$ip2@tcp4' --peer-credits x && '$ctl' --name '$a' net show -v --net tcp4 | grep -q 'peer_credits: 8' && '$ctl' --name '$a' net del --net tcp4"

"$ctl" --name "$a" export >"$work/full.yaml"
"$ctl" --name "$a" export --backup >"$work/backup.yaml"
check "export --backup: no lo, no nid/status/statistics, no lnd timeout" sh -c \
	"! grep -q 'net type: lo' '$work/backup.yaml' && ! grep -q 'status:' '$work/backup.yaml' && ! grep -q 'statistics' '$work/backup.yaml' && ! grep -q 'timeout: 50' '$work/backup.yaml' && grep -q 'tos: 16' '$work/backup.yaml' && grep -q 'nid: $ip@tcp' '$work/backup.yaml' && [ \$(grep -c 'nid:' '$work/backup.yaml') -eq 1 ]"
# handle_net_config_sequence: the first NI the node refuses ends the import,
# yaml_lnet_config_ni's block (-17 "cannot add LNet NI") then the import's.
printf -- '---\nadd:\n-     net:\n      errno: -17\n      descr: ! "cannot add LNet NI"\n...\n---\nadd:\n-     import:\n      errno: -22\n      descr: ! "Failed to configure NI on net '"'"'tcp'"'"' rc = -22"\n...\n' >"$work/imp17"
check "import of what runs: the first NI already there ends it, both blocks, -22" \
	out_err 234 "$work/empty" "$work/imp17" --name "$a" import "$work/full.yaml"
check "import: the others stayed as they were" sh -c "'$ctl' --name '$a' export | cmp -s - '$work/full.yaml'"
# jt_import/jt_export's command lines.
printf "import: unrecognized option '--bogus'\n" >"$work/ib"
check "import --bogus: getopt's complaint, exit 0" out_err 0 "$work/empty" "$work/ib" --name "$a" import --bogus
printf "yaml:\n    - builder:\n          errno: -1\n          descr: cannot open '/nonexistent.yaml': No such file or directory\n" >"$work/inf"
check "import of no file: the builder block, its text unquoted, exit -ENOENT" \
	out_err 254 "$work/empty" "$work/inf" --name "$a" import /nonexistent.yaml
check "import with two words reads stdin (jt_import's file is argv[1] of two)" sh -c \
	"'$ctl' --name '$a' import a b <'$work/full.yaml' 2>'$work/e2'; [ \$? -eq 234 ] && cmp -s '$work/e2' '$work/imp17'"
check "export to a file it cannot open: -1, nothing printed" \
	out_err 255 "$work/empty" "$work/empty" --name "$a" export /nonexistent/dir/f.yaml
check "export FILE extra: the first word is the file" sh -c \
	"'$ctl' --name '$a' export '$work/ex.yaml' extra && cmp -s '$work/ex.yaml' '$work/full.yaml'"

# 127.0.0.1 has tcp1 on it too: NIs share an address (acceptor.sh tests their traffic).
check "net add --ip2net: the matching interface, the address tcp1 has too" "$ctl" --name "$a" net add --ip2net "tcp2(lo) 127.0.0.*"
check "net show --net tcp2: 127.0.0.1 on lo" sh -c \
	"'$ctl' --name '$a' net show --net tcp2 | grep -q 'nid: 127.0.0.1@tcp2' && '$ctl' --name '$a' net show --net tcp2 | grep -q '0: lo'"
check "net del --nid" "$ctl" --name "$a" net del --nid 127.0.0.1@tcp2
check "net del --net tcp1" "$ctl" --name "$a" net del --net tcp1
check "net show after net del: tcp only" sh -c \
	"'$ctl' --name '$a' net show >'$work/ns' && ! grep -q 'tcp1\\|tcp2' '$work/ns' && grep -q 'nid: $ip@tcp' '$work/ns'"
nl_del_err -22 'cannot del network'
check "net del of a net with no NI: lnet_dyn_del_net's -22, 'cannot del network'" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net del --net tcp9
nl_del_err -19 "LNet net doesn't exist"
check "net del --if on a net with no NI: -19, 'LNet net doesn't exist'" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net del --net tcp9 --if lo
nl_del_err -19 'cannot del LNet NI'
check "net del --if on no NI of the net: -19, 'cannot del LNet NI'" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net del --net tcp --if nosuch0
nl_del_err -2 'cannot del LNet NI'
check "net del --nid of no NI: lnet_dyn_del_ni's -2, 'cannot del LNet NI'" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net del --nid 127.0.0.99@tcp
line "missing mandatory parameters in NI config: 'network'"
check "net del --if without --net: yaml_lnet_config_ni's line on stdout, exit 234" \
	out_err 234 "$work/want" "$work/empty" --name "$a" net del --if lo
"$ctl" net del -h >"$work/dh"
printf "del: unrecognized option '--bogus'\n" >"$work/db"
check "net del --bogus: getopt's complaint, net del's help, exit 0" \
	out_err 0 "$work/dh" "$work/db" --name "$a" net del --bogus
line "--net is invalid with --nid option"
check "net del --net with --nid: jt_del_ni's line on stdout, exit 234" \
	out_err 234 "$work/want" "$work/empty" --name "$a" net del --net tcp1 --nid "$ip@tcp"
check "lnet unconfigure: only lo is left" sh -c \
	"'$ctl' --name '$a' lnet unconfigure && [ \$('$ctl' --name '$a' net show | grep -c 'nid:') -eq 1 ]"
check "a deleted NI's port is free again: net add works" "$ctl" --name "$a" net add --nid "$ip@tcp"
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
	"! '$ctl' --name '$b' import '$work/nosuch.yaml' >'$work/e' 2>&1 && grep -q 'errno: -100' '$work/e' && '$ctl' --name '$b' export --backup | diff '$work/backup.yaml' -"
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
