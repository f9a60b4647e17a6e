#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lnetd-pmd and lnetctl end to end: start daemons under unique names, check
# lnetctl's output byte for byte against the kernel's, every error path we
# have, a second instance beside the first, --config checks, and a clean
# SIGTERM (exit 0, no sanitizer report).
#   daemon_lnetctl.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
exp="$src/expected"
stop_daemon_named() { stop_daemon "$2"; } # name pid

same() { # command output vs file
	file=$1; shift
	"$@" >"$work/out" 2>&1 && cmp -s "$work/out" "$file" || { diff "$file" "$work/out"; return 1; }
}


a=lnetd-it-a-$$
b=lnetd-it-b-$$
check "daemon $a starts on the embedded default" start_daemon "$a"
pid_a=$pid
check "net show -v is the kernel's bytes for lo" same "$exp/net_show_v_lo.yaml" "$ctl" --name "$a" net show -v
check "net show (detail 0)" same "$exp/net_show_lo.yaml" "$ctl" --name "$a" net show
check "net show --net lo" same "$exp/net_show_lo.yaml" "$ctl" --name "$a" net show --net lo
check "global show is the kernel's bytes, then the lnet_selftest extension" same "$exp/global_show.yaml" "$ctl" --name "$a" global show
check "stats show is the kernel's bytes on a fresh node, then the stall watchdog's two keys" same "$exp/stats_show.yaml" "$ctl" --name "$a" stats show
check "net show --net tcp: no NI, lnet_net_show_dump's -ESRCH" fails_with -3 --name "$a" net show --net tcp
check "net show --net bogus99: lnet_net_show_start's -ENOENT" fails_with -2 --name "$a" net show --net bogus99
check "net show --frob: getopt's complaint and the help, exit 0" sh -c \
	"'$ctl' --name '$a' net show --frob 2>'$work/e' | grep -q '^net show: ' && grep -qx \"show: unrecognized option '--frob'\" '$work/e'"
check "stats show extra: ignored, as the kernel's" same "$exp/stats_show.yaml" "$ctl" --name "$a" stats show extra
# The kernel's parser (libcfs/util/parser.c): an unknown command is one line on
# stderr and exit status 255 (main returns -1); version and list-commands.
not_a_command() {
	"$ctl" --name "$a" frob >"$work/out" 2>"$work/err"
	[ $? -eq 255 ] && [ ! -s "$work/out" ] &&
		[ "$(cat "$work/err")" = "lnetctl: 'frob' is not a valid command. See 'lnetctl --list-commands'." ]
}
check "frob: not a valid command, the kernel's line on stderr, exit 255" not_a_command
check "--version and version: lnetctl 2.17.0" sh -c \
	"'$ctl' --version | grep -qx 'lnetctl 2.17.0 (lnet-pmd .*)' && '$ctl' version | grep -q '^lnetctl 2.17.0 '"
list_commands_are_the_kernels() { # the parser's words, its 19 commands in its order, then ours
	printf '%-19s %-19s %-19s %-19s \n' quit exit help --help version --version list-commands \
		--list-commands --ignore_errors ignore_errors lnet route net routing set import \
		export stats debug global peer ping discover service-id udsp fault \
		setup-mrrouting setup-sysctl >"$work/want"
	printf '%-19s %-19s \n' cpt-of-nid capture >>"$work/want"
	"$ctl" --list-commands >"$work/got" && cmp -s "$work/want" "$work/got" &&
		"$ctl" list-commands | cmp -s "$work/want" -
}
check "--list-commands: the kernel's list, in its layout" list_commands_are_the_kernels
for cmd in "debug peer --nid 10.0.0.1@tcp"; do
	# shellcheck disable=SC2086
	check "$cmd: not supported yet" fails_with -95 --name "$a" $cmd
done
# Health: no peer and no failure yet, so both recovery queues are empty (nothing printed,
# as the kernel's); without --local or --peer the kernel's prints nothing and fails -22.
check "debug recovery --local: an empty queue prints nothing" sh -c \
	"'$ctl' --name '$a' debug recovery --local >'$work/o' && [ ! -s '$work/o' ]"
check "debug recovery --peer: an empty queue prints nothing" sh -c \
	"'$ctl' --name '$a' debug recovery --peer >'$work/o' && [ ! -s '$work/o' ]"
check "debug recovery without --local/--peer: nothing, exit 234" sh -c \
	"'$ctl' --name '$a' debug recovery >'$work/o' 2>&1; [ \$? -eq 234 ] && [ ! -s '$work/o' ]"
check "peer set --all --health 0: no peer NI, nothing to set" "$ctl" --name "$a" peer set --all --health 0
check "peer set --nid of no peer NI: passed over silently, as lnet_peer_ni_set_healthv" sh -c \
	"'$ctl' --name '$a' peer set --nid 10.9.9.9@tcp --health 10 >'$work/o' 2>&1 && [ ! -s '$work/o' ]"
check "peer set --health 1001: out of range" sh -c \
	"'$ctl' --name '$a' peer set --all --health 1001 2>&1 | grep -q 'from 0 to 1000'"
check "peer set --state: not supported" fails_with -95 --name "$a" peer set --all --state 1
check "discover 0@lo: no peer to discover, -22 for it under manage:" sh -c \
	"'$ctl' --name '$a' discover 0@lo | grep -q 'errno: -22'"
check "net show -v 2 is the kernel's bytes for lo" same "$exp/net_show_v2_lo.yaml" "$ctl" --name "$a" net show -v 2
check "export is the kernel's bytes (lo and global)" same "$exp/export_lo.yaml" "$ctl" --name "$a" export
"$ctl" --name "$a" export "$work/exported.yaml"
check "export FILE writes the same" cmp -s "$work/exported.yaml" "$exp/export_lo.yaml"
check "import of an export succeeds" "$ctl" --name "$a" import "$work/exported.yaml"
check "import from stdin" sh -c "'$ctl' --name '$a' import <'$work/exported.yaml'"
check "export after import is identical" same "$exp/export_lo.yaml" "$ctl" --name "$a" export
check "export --backup: globals only (lo is not exported)" sh -c \
	"'$ctl' --name '$a' export --backup | head -1 | grep -qx 'global:'"

# Ten malformed files: each refused with file:line:col, nothing changes.
m="$work/bad"
mkdir -p "$m"
printf 'net:\n  - net type: lo\n   x: [\n' >"$m/01_syntax.yaml"
printf 'net: [\n' >"$m/02_unclosed.yaml"
printf -- '- a\n- b\n' >"$m/03_not_a_mapping.yaml"
printf 'net:\n    net type: lo\n' >"$m/04_net_not_list.yaml"
printf 'net:\n    - local NI(s): []\n' >"$m/05_no_net_type.yaml"
printf 'net:\n    - net type: tcp\n' >"$m/06_tcp_without_nis.yaml"
printf 'global:\n    retry_count: x\n' >"$m/07_global_not_a_number.yaml"
printf 'global:\n    bogus_knob: 1\n' >"$m/08_global_unknown.yaml"
printf 'frob:\n    x: 1\n' >"$m/09_unknown_section.yaml"
printf 'peer:\n    - primary nid: 10.0.0.300@tcp\n' >"$m/10_peer_bad_nid.yaml"
# (not YAML at all: libyaml's own words, as the kernel's import prints them)
for f in "$m"/0[12]_*.yaml; do
	check "import $(basename "$f"): refused with libyaml's location" sh -c \
		"! '$ctl' --name '$a' import '$f' >'$work/e' 2>&1 && grep -q '^Parser error: .* at line [0-9]*, column [0-9]*' '$work/e'"
done
for f in "$m"/0[3-6]_*.yaml; do
	check "import $(basename "$f"): refused with its location" sh -c \
		"! '$ctl' --name '$a' import '$f' >'$work/e' 2>&1 && grep -q 'errno: ' '$work/e' && grep -q '$(basename "$f"):[0-9]*:[0-9]*: ' '$work/e'"
done
# (what 2.17's import words itself: its netlink block, errno:/descr: (errshapes_import.sh has the bytes))
for f in "$m"/0[7-9]_*.yaml "$m"/1*.yaml; do
	check "import $(basename "$f"): refused in the kernel's words" sh -c \
		"! '$ctl' --name '$a' import '$f' >'$work/e' 2>&1 && grep -q '^      errno: -22\$' '$work/e' && grep -q '^      descr: ! \"' '$work/e'"
done
# 2.17's handle_global_parameter applies each setting as it reads it: retry_count goes in before bogus stops it
check "the first error of a file is reported (the kernel's import stops there), what came before applied" sh -c \
	"printf 'global:\\n    retry_count: 7\\n    bogus: 1\\npeer: 5\\n' >'$m/multi.yaml'; ! '$ctl' --name '$a' import '$m/multi.yaml' >'$work/e' 2>&1; [ \$(grep -c 'errno:' '$work/e') -eq 1 ] && grep -q \"invalid key 'bogus'\" '$work/e' && '$ctl' --name '$a' global show | grep -qx '    retry_count: 7' && '$ctl' --name '$a' set retry_count 2"
check "configuration unchanged after refused imports" same "$exp/export_lo.yaml" "$ctl" --name "$a" export

# Malformed command lines: each an error block and a failing exit (a
# command without its subcommand, or an unknown one, is the parser's: see
# lnetctl_cli.sh).
# jt_show_net's '?' case: getopt's complaint, the help, exit 0.
for cmd in "net show --net" "net show --frob" "net show -x"; do
	# shellcheck disable=SC2086
	check "getopt refuses: $cmd: the help, exit 0" sh -c "'$ctl' --name '$a' $cmd 2>/dev/null | grep -q '^net show: '"
done
for cmd in "export --frob" "import --frob"; do
	# shellcheck disable=SC2086
	check "getopt refuses: $cmd: exit 0, as jt_export/jt_import's default case" sh -c \
		"'$ctl' --name '$a' $cmd </dev/null >/dev/null 2>'$work/e' && grep -q 'unrecognized option' '$work/e'"
done
for cmd in "net show --net bogus9" "import /nonexistent/file.yaml"; do
	# shellcheck disable=SC2086
	check "bad command line: $cmd" sh -c "! '$ctl' --name '$a' $cmd >'$work/e' 2>&1 && grep -q 'errno: ' '$work/e'"
done
check "configuration unchanged after bad command lines" same "$exp/export_lo.yaml" "$ctl" --name "$a" export

check "cpt-of-nid on one CPT: 0" sh -c \
	"'$ctl' --name '$a' cpt-of-nid 10.0.0.1@tcp 0@lo | grep -c '^    cpt: 0$' | grep -qx 2"
check "capture on a node with only lo: nothing to capture, -2" fails_with -2 --name "$a" capture start --file "$work/lo.pcap"
check "capture show with none running: -2" fails_with -2 --name "$a" capture show
check "cpt-of-nid bad NID: refused" fails_with -22 --name "$a" cpt-of-nid 10.0.0.300@tcp
check "lnet configure: LNet is up, exit 0, no output" sh -c "[ -z \"\$('$ctl' --name '$a' lnet configure)\" ]"
check "lnet configure --bogus: getopt's complaint, exit 0 as the kernel's" sh -c \
	"'$ctl' --name '$a' lnet configure --bogus 2>'$work/e' && grep -q 'unrecognized option' '$work/e'"
check "ping 0@lo: the node's own ping target answers" same "$exp/ping_lo.yaml" "$ctl" --name "$a" ping 0@lo
check "ping a net with no local NI: errno -113" fails_with -113 --name "$a" ping 10.0.0.1@tcp
check "ping without a NID: usage" fails_with -22 --name "$a" ping
check "ping --source not a local NID: -22" fails_with -22 --name "$a" ping 0@lo --source 10.9.9.9@tcp
check "stats count the ping (GET and REPLY sent and received)" sh -c \
	"'$ctl' --name '$a' stats show | grep -qx '    send_count: [1-9][0-9]*'"
check "stats reset: silent, exit 0" sh -c "[ -z \"\$('$ctl' --name '$a' stats reset)\" ]"
check "stats show after reset is a fresh node's" same "$exp/stats_show.yaml" "$ctl" --name "$a" stats show
check "stats reset extra: ignored, as the kernel's" "$ctl" --name "$a" stats reset extra
check "set transaction_timeout 10: lnd_timeout follows ((10 - 1) / 3 = 3)" sh -c \
	"'$ctl' --name '$a' set transaction_timeout 10 && '$ctl' --name '$a' global show | grep -qx '    transaction_timeout: 10' && '$ctl' --name '$a' global show | grep -qx '    lnd_timeout: 3'"
check "import restores transaction_timeout 150 (and lnd_timeout 49)" sh -c \
	"printf 'global:\\n    transaction_timeout: 150\\n' >'$work/tt.yaml' && '$ctl' --name '$a' import '$work/tt.yaml'"
check "global show is the kernel's bytes again" same "$exp/global_show.yaml" "$ctl" --name "$a" global show
check "set retry_count 3: stored (then 2 again)" sh -c \
	"'$ctl' --name '$a' set retry_count 3 && '$ctl' --name '$a' global show | grep -qx '    retry_count: 3' && '$ctl' --name '$a' set retry_count 2"
check "unreachable daemon: one line on stderr, exit 1" sh -c \
	"! '$ctl' --name nobody-$$ net show >'$work/o' 2>'$work/e' && [ ! -s '$work/o' ] && [ \$(wc -l <'$work/e') -eq 1 ]"
check "interactive prompt runs commands until quit" sh -c \
	"printf 'global show\nquit\nnet show\n' | '$ctl' --name '$a' >'$work/o' && grep -q 'max_interfaces: 200' '$work/o' && ! grep -q 'net:' '$work/o'"

check "second daemon $b beside the first" start_daemon "$b"
pid_b=$pid
check "both answer" sh -c "'$ctl' --name '$a' net show >/dev/null && '$ctl' --name '$b' net show >/dev/null"
check "SIGTERM: $b exits 0" stop_daemon_named "$b" "$pid_b"
check "$a still serves after $b left" same "$exp/global_show.yaml" "$ctl" --name "$a" global show
check "SIGTERM: $a exits 0" stop_daemon_named "$a" "$pid_a"
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' '$work/$a.err' '$work/$b.err'"

# --config: errors name file:line:column; nothing starts.
printf 'net:\n    - net type: tcp\n      local NI(s):\n        - interfaces:\n              0: nosuch0\n' >"$work/tcp.yaml"
printf 'net:\n  - net type: lo\n   bad: [\n' >"$work/broken.yaml"
printf 'global:\n    retry_count: 5\n    bogus: 1\n' >"$work/global.yaml"
check "config with a NI on an interface that does not exist: exit 1, its location" sh -c \
	"! '$daemon' -- --name c-$$ --config '$work/tcp.yaml' 2>'$work/e' && grep -q 'tcp.yaml:4:11: interface nosuch0' '$work/e'"
check "malformed YAML: libyaml's line and column, exit 1" sh -c \
	"! '$daemon' -- --name c-$$ --config '$work/broken.yaml' 2>'$work/e' && grep -q 'broken.yaml: Parser error: .* at line 2, column 3' '$work/e'"
check "an unknown global: refused with its location" sh -c \
	"! '$daemon' -- --name c-$$ --config '$work/global.yaml' 2>'$work/e' && grep -q \"global.yaml:3:5: invalid key 'bogus'\" '$work/e'"
# Up means its telemetry answers, which it registers once the config is
# applied (start_daemon waits for that); then SIGTERM ends it with exit 0.
check "the shipped default.yaml loads" start_daemon "d-$$" --config "$src/../../config/default.yaml"
check "... and SIGTERM ends it: exit 0" stop_daemon "$pid"

# The shipped examples run in examples_netns.sh, on interfaces named as they name them.
printf 'peer:\n    - primary nid: 10.0.0.1@tcp\n      peer ni:\n        - nid: 10.0.0.2@tcp\n    - primary nid: 10.0.0.2@tcp\n' >"$work/dup.yaml"
check "config: a NID owned twice is refused with its location" sh -c \
	"! '$daemon' -- --name dup-$$ --config '$work/dup.yaml' 2>'$work/e' && grep -q 'dup.yaml:5:.*peer: ' '$work/e'"
check "--cpu-pattern: the daemon starts" start_daemon "cpt-$$" --cpu-pattern '0[0] 1[1]'
check "... with two CPTs, and NIDs spread over them" sh -c \
	"'$ctl' --name cpt-$$ net show -v | grep -q 'CPT: \"\\[0,1\\]\"' && '$ctl' --name cpt-$$ cpt-of-nid 10.0.0.1@tcp 10.0.0.2@tcp 10.0.0.3@tcp 10.0.0.4@tcp | grep -q 'cpt: 1'"
check "... and SIGTERM ends it: exit 0" stop_daemon "$pid"
check "--cpu-pattern out of range: refused" sh -c \
	"! '$daemon' -- --name cpt2-$$ --cpu-pattern '0[99]' 2>'$work/e' && grep -q 'CPU list' '$work/e'"

# Peers: add/del rules, export -> restart -> import -> export, 100,000 peers.
e=lnetd-it-e-$$
check "daemon $e starts" start_daemon "$e"
pid_e=$pid
check "peer add MR with a NID range" "$ctl" --name "$e" peer add --prim_nid 192.0.2.12@tcp --nid "198.51.100.[12-13]@tcp"
# --non_mr as 2.17's netlink path takes it: lnet_peer_ni_cmd() drops the
# "Multi-Rail: False" it is sent, so the peer is Multi-Rail.
check "peer add --non_mr" "$ctl" --name "$e" peer add --prim_nid 10.0.0.1@tcp --non_mr
check "peer add: a NID already owned" fails_with -17 --name "$e" peer add --prim_nid 10.9.9.9@tcp --nid 198.51.100.13@tcp
check "... it is Multi-Rail: a NID added to it is taken, and deleted again" sh -c \
	"'$ctl' --name '$e' peer show --nid 10.0.0.1@tcp | grep -qx '      Multi-Rail: true' && '$ctl' --name '$e' peer add --prim_nid 10.0.0.1@tcp --nid 10.0.0.2@tcp && '$ctl' --name '$e' peer del --prim_nid 10.0.0.1@tcp --nid 10.0.0.2@tcp"
check "peer add: bad NID list (2.17's range reader: -ERANGE)" fails_with -34 --name "$e" peer add --prim_nid 10.0.0.5@tcp --nid "10.0.0.[5-1]@tcp"
check "peer add: no --prim_nid names no peer: nothing done, 0" "$ctl" --name "$e" peer add --nid 10.0.0.5@tcp
check "peer del: unknown peer" fails_with -2 --name "$e" peer del --prim_nid 10.0.0.77@tcp
check "peer del: one secondary NID" "$ctl" --name "$e" peer del --prim_nid 192.0.2.12@tcp --nid 198.51.100.13@tcp
check "peer show lists both, kernel keys" sh -c \
	"'$ctl' --name '$e' peer show >'$work/ps' && grep -c 'primary nid' '$work/ps' | grep -qx 2 && ! grep -q 'Multi-Rail: false' '$work/ps' && grep -q 'peer ni:' '$work/ps' && ! grep -q '198.51.100.13' '$work/ps'"
check "peer show -v --nid: one peer with credits and statistics" sh -c \
	"'$ctl' --name '$e' peer show -v --nid 198.51.100.12@tcp >'$work/ps' && grep -c 'primary nid' '$work/ps' | grep -qx 1 && grep -q 'available_tx_credits: ' '$work/ps' && grep -q 'send_count: 0' '$work/ps'"
"$ctl" --name "$e" export "$work/e1.yaml"
check "SIGTERM: $e exits 0" stop_daemon_named "$e" "$pid_e"
f=lnetd-it-f-$$
check "daemon $f starts fresh" start_daemon "$f"
pid_f=$pid
check "import the export into the new daemon" "$ctl" --name "$f" import "$work/e1.yaml"
"$ctl" --name "$f" export "$work/e2.yaml"
check "export -> restart -> import -> export is identical" cmp -s "$work/e1.yaml" "$work/e2.yaml"
awk 'BEGIN { print "peer:"; for (i = 0; i < 100000; i++) {
	a = 201326592 + i; ip = int(a / 16777216) "." int(a / 65536) % 256 "." int(a / 256) % 256 "." a % 256;
	printf "    - primary nid: %s@tcp\n      Multi-Rail: True\n      peer ni:\n        - nid: %s@tcp\n", ip, ip } }' >"$work/100k.yaml"
check "import 100,000 peers" "$ctl" --name "$f" import "$work/100k.yaml"
check "peer show lists all of them (paged)" sh -c \
	"[ \$('$ctl' --name '$f' peer show | grep -c 'primary nid') -eq 100002 ]"
check "SIGTERM with 100,000 peers: $f exits 0" stop_daemon_named "$f" "$pid_f"
check "no sanitizer report (peers)" sh -c "! grep -q 'Sanitizer' '$work/$e.err' '$work/$f.err'"

finish daemon_lnetctl
