#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lnetctl's command line as the kernel's parser and jt_* functions take it
# (libcfs/util/parser.c, lnet/utils/lnetctl.c): help paths and their exit
# statuses, option forms (-x v, --xx v, --xx=v), the stdout/stderr split,
# error blocks byte for byte in cYAML's layout, the prompt fed from stdin,
# NID lists and ranges, debug nidlist, discover's options and its failed
# NIDs as the kernel prints them, and ping --source between two
# daemons (A with two NIs, B with one).
#   lnetctl_cli.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"

: >"$work/empty"
yaml_ok() { python3 -c 'import yaml,sys; list(yaml.safe_load_all(sys.stdin))' <"$1"; }

# --- the parser's paths, no daemon needed ---
printf '%s\n' "lnetctl: 'frob' is not a valid command. See 'lnetctl --list-commands'." >"$work/frob"
check "unknown command: one line on stderr, exit 255" out_err 255 "$work/empty" "$work/frob" frob
printf '%s\n' "lnetctl: '-h' is not a valid command. See 'lnetctl --list-commands'." >"$work/dash_h"
check "-h is no top-level word of the kernel's parser: exit 255" out_err 255 "$work/empty" "$work/dash_h" -h
"$ctl" help >"$work/usage"
check "help: three lines of usage on stdout, exit 0" sh -c \
	"[ \$(wc -l <'$work/usage') -eq 3 ] && grep -q '^usage: lnetctl \[COMMAND\] \[OPTIONS\]... \[ARGS\]$' '$work/usage'"
check "--help is help" out_err 0 "$work/usage" "$work/empty" --help
printf 'net: net {add | del | show | set | help}\n' >"$work/help_net"
check "help net: the command's line on stderr, exit 0" out_err 0 "$work/empty" "$work/help_net" help net
printf '%s\n' "lnetctl: 'netshow' is not a valid command. See 'lnetctl --list-commands'." >"$work/netshow"
check "help net show: the words joined as the kernel joins them" out_err 0 "$work/empty" "$work/netshow" help net show
"$ctl" net >"$work/net_all" 2>"$work/e"
check "net alone: every subcommand's help on stdout, exit -EINVAL (234)" sh -c \
	"[ ! -s '$work/e' ] && grep -c '^net [a-z]*: ' '$work/net_all' | grep -qx 4"
"$ctl" net >/dev/null 2>&1
check "net alone exits 234" [ $? -eq 234 ]
check "net -h: the same help, exit 1" out_err 1 "$work/net_all" "$work/empty" net -h
check "net --help: the same" out_err 1 "$work/net_all" "$work/empty" net --help
check "net --he (getopt's prefix of --help): the same" out_err 1 "$work/net_all" "$work/empty" net --he
check "net help: the usage, exit 0" out_err 0 "$work/usage" "$work/empty" net help
sed -n '/^net show: /,/^$/p' "$work/net_all" >"$work/net_show"
check "net show -h: 'net show: <help>' alone, exit 1" out_err 1 "$work/net_show" "$work/empty" net show -h
check "net show --help: the same" out_err 1 "$work/net_show" "$work/empty" net show --help
check "net frob: the parser's line, exit 255" out_err 255 "$work/empty" "$work/frob" net frob
check "stats alone: exit 234" sh -c "'$ctl' stats >/dev/null; [ \$? -eq 234 ]"
# set is the kernel's command with one subcommand per tunable.
check "set alone: the 16 tunables' help on stdout, exit 234" sh -c \
	"'$ctl' set >'$work/set_all' 2>'$work/e'; [ \$? -eq 234 ] && [ ! -s '$work/e' ] && [ \$(grep -c '^set [a-z_]*: ' '$work/set_all') -eq 16 ]"
check "set -h: the same, exit 1" out_err 1 "$work/set_all" "$work/empty" set -h
printf '%s\n' "lnetctl: 'bogus' is not a valid command. See 'lnetctl --list-commands'." >"$work/bogus"
check "set bogus 1: the parser's line, exit 255" out_err 255 "$work/empty" "$work/bogus" set bogus 1
sed -n '/^set retry_count: /,/^$/p' "$work/set_all" >"$work/rc_help"
check "set retry_count (no value): its help, exit 234" out_err 234 "$work/rc_help" "$work/empty" set retry_count
check "set retry_count -h: its help, exit 1" out_err 1 "$work/rc_help" "$work/empty" set retry_count --help
printf 'debug:\n    - peer:\n          errno: -95\n          descr: "debug peer: not supported by lnetd-pmd yet"\n' >"$work/debug_peer"
check "debug peer (not built): the kernel's error block, byte for byte, exit 161" out_err 161 "$work/empty" "$work/debug_peer" debug peer --nid 10.0.0.1@tcp
check "debug peer -h: its help (2.17's), exit 1" sh -c \
	"'$ctl' debug peer -h >'$work/o'; [ \$? -eq 1 ] && head -1 '$work/o' | grep -qx 'debug peer: show peer debug info'"
check "route add -h: its help, exit 1" sh -c \
	"'$ctl' route add -h >'$work/o'; [ \$? -eq 1 ] && head -1 '$work/o' | grep -qx 'route add: add a route' && ! grep -q 'not supported' '$work/o'"
printf 'manage:\n    - setup-sysctl:\n          errno: -95\n          descr: "setup-sysctl: lnetd-pmd runs in userspace; its NIs do not use the kernel'"'"'s network sysctls"\n' >"$work/sysctl"
check "setup-sysctl: a clear reason, exit 161" out_err 161 "$work/empty" "$work/sysctl" setup-sysctl
for c in setup-mrrouting service-id; do
	check "$c: an error block that is valid YAML, exit 161" sh -c \
		"'$ctl' $c 10.0.0.1@tcp 2>'$work/e' >/dev/null; [ \$? -eq 161 ] && grep -q 'errno: -95' '$work/e'" &&
		check "$c: valid YAML" yaml_ok "$work/e"
done
# discover: the kernel's jt_discover options, before any daemon is asked.
printf 'Missing nid argument\n' >"$work/dm"
check "discover alone: the kernel's line on stdout, exit 255" out_err 255 "$work/dm" "$work/empty" discover
check "discover -f alone: the same" out_err 255 "$work/dm" "$work/empty" discover -f
check "discover --force alone: the same" out_err 255 "$work/dm" "$work/empty" discover --force
printf 'discover nid[,nid,...]\n\t --force: force discovery\n\t --help: display this help\n' >"$work/dh"
check "discover -h: the kernel's help, byte for byte, exit 0" out_err 0 "$work/dh" "$work/empty" discover -h
check "discover --help NID: the help, nothing asked, exit 0" out_err 0 "$work/dh" "$work/empty" discover --help 10.0.0.1@tcp
check "discover --bogus NID: getopt's complaint, nothing asked, exit 0 (the kernel's default: case)" sh -c \
	"'$ctl' discover --bogus 10.0.0.1@tcp >'$work/o' 2>'$work/e'; [ \$? -eq 0 ] && [ ! -s '$work/o' ] && grep -q \"unrecognized option '--bogus'\" '$work/e'"
# NID lists are parsed as the kernel's netlink commands do; their errors in
# its yaml_lnet_print_error layout (libyaml, indent 6, "---" to "...").
printf -- '---\nmanage:\n-     discover:\n      errno: -22\n      descr: ! "asterisk not allowed in nidstring"\n...\n' >"$work/ds"
check "discover with an asterisk: parsed and refused as the kernel's, -22" out_err 234 "$work/empty" "$work/ds" discover -f '10.0.0.*@tcp'
printf -- '---\nmanage:\n-     discover:\n      errno: -22\n      descr: ! "\\"Unable to parse nidlist: no valid NIDs in string\\""\n...\n' >"$work/ds"
check "discover notanid: the kernel's 'no valid NIDs' block, -22" out_err 234 "$work/empty" "$work/ds" discover notanid
printf -- '---\nmanage:\n-     discover:\n      errno: -22\n      descr: ! "\\"Unable to parse nidlist: invalid NID in nidstr\\""\n...\n' >"$work/ds"
check "discover 1.2.3.4@bogus: the kernel's 'invalid NID' block, -22" out_err 234 "$work/empty" "$work/ds" --name nobody-$$ discover --force 1.2.3.4@bogus
check "discover NID with no daemon: the connection's error block on stderr, nothing on stdout" sh -c \
	"'$ctl' --name nobody-$$ discover 10.0.0.1@tcp >'$work/o' 2>'$work/e'; [ \$? -ne 0 ] && [ ! -s '$work/o' ] && grep -q 'cannot reach lnetd-pmd' '$work/e'"
# A discovery that succeeded, rendered from a stand-in telemetry socket
# (fake_discover.py) until the library discovers: the kernel's netlink reply
# (s1_02/s1_04 of the kernel captures: indent 2, "primary nid", "Multi-Rail",
# "peer_ni"), failures after it under "manage:", and --force sent as force=1.
fake=fake-dc-$$
mkdir -p "$work/xdg"
python3 "$src/fake_discover.py" "$work/xdg/dpdk/$fake/dpdk_telemetry.v2" "$work/fake.log" >"$work/fake.out" 2>&1 &
pids="$pids $!"
i=0
while [ $i -lt 100 ] && ! grep -q ready "$work/fake.out"; do sleep 0.1; i=$((i + 1)); done
printf '#!/bin/sh\nXDG_RUNTIME_DIR=%s exec %s --name %s "$@"\n' "$work/xdg" "$ctl" "$fake" >"$work/fakectl"
chmod +x "$work/fakectl"
real_ctl=$ctl ctl=$work/fakectl
printf 'discover:\n- primary nid: 10.1.0.1@tcp\n  Multi-Rail: true\n  peer_ni:\n  - nid: 10.1.0.1@tcp\n  - nid: 10.1.0.2@tcp\n' >"$work/dmr"
check "discover a Multi-Rail peer: the kernel's YAML, byte for byte, exit 0" out_err 0 "$work/dmr" "$work/empty" discover 10.1.0.1@tcp
check "discover sent nid= alone" grep -qx '/lnet/discover,nid=10.1.0.1@tcp' "$work/fake.log"
check "discover -f: the same output" out_err 0 "$work/dmr" "$work/empty" discover -f 10.1.0.2@tcp
check "discover -f sent force=1" grep -qx '/lnet/discover,nid=10.1.0.2@tcp,force=1' "$work/fake.log"
printf 'discover:\n- primary nid: 10.1.0.9@tcp\n  Multi-Rail: false\n  peer_ni:\n  - nid: 10.1.0.9@tcp\n' >"$work/dnmr"
check "discover a peer that is not Multi-Rail: Multi-Rail: false" out_err 0 "$work/dnmr" "$work/empty" discover --force 10.1.0.9@tcp
{
	cat "$work/dmr"
	sed -n '2,$p' "$work/dnmr"
	printf "manage:\n- discover:\n  errno: -113\n  descr: ! 'failed to discover 10.1.0.5@tcp: No route to host'\n"
} >"$work/dmix"
check "discover two peers and a dead NID: both under discover:, the failure under manage:, exit 255" \
	out_err 255 "$work/dmix" "$work/empty" discover 10.1.0.1@tcp,10.1.0.5@tcp 10.1.0.9@tcp
check "that output is valid YAML" yaml_ok "$work/o"
# A daemon that does not answer (issue 31, D1): lnetctl gives up on its own
# deadline (--timeout and 5 s for a ping; LNETCTL_REPLY_TIMEOUT seconds for
# the rest), prints a stuck ping as the kernel prints one that timed out and
# asks the next NID on a new connection. `timeout 60` turns a hang into a failure.
printf "manage:\n- ping:\n  errno: -110\n  descr: ! 'failed to ping 10.1.0.66@tcp: Connection timed out'\n- ping:\n  errno: -113\n  descr: ! 'failed to ping 10.1.0.5@tcp: No route to host'\n" >"$work/pstuck"
gives_up() { # WANT_RC WANT_STDOUT SECONDS_AT_LEAST lnetctl-args...: exit, bytes, and not before
	want_rc=$1 want_out=$2 least=$3
	shift 3
	t0=$(date +%s)
	timeout 60 "$ctl" "$@" >"$work/o" 2>"$work/e"
	got=$? took=$(($(date +%s) - t0))
	echo "exit $got after $took s"
	[ "$got" -eq "$want_rc" ] && [ "$took" -ge "$least" ] && cmp -s "$want_out" "$work/o" ||
		{ cat "$work/o" "$work/e"; return 1; }
}
check "ping -t 1 of a NID the daemon never answers: -110 after 6 s, then the next NID's -113, exit 255" \
	gives_up 255 "$work/pstuck" 5 ping -t 1 10.1.0.66@tcp 10.1.0.5@tcp
check "that ping's stderr is empty" cmp -s "$work/empty" "$work/e"
check "net show from a daemon that never answers: given up after LNETCTL_REPLY_TIMEOUT=2 s, -110 on stderr" \
	sh -c "LNETCTL_REPLY_TIMEOUT=2 timeout 60 '$ctl' net show >'$work/o' 2>'$work/e'; [ \$? -ne 0 ] && [ ! -s '$work/o' ] && grep -q 'errno: -110' '$work/e' && grep -q 'did not answer within 2 s' '$work/e' || { cat '$work/o' '$work/e'; exit 1; }"
ctl=$real_ctl
check "cpt-of-nid alone: its help, exit 234" sh -c \
	"'$ctl' cpt-of-nid >'$work/o'; [ \$? -eq 234 ] && head -1 '$work/o' | grep -q '^ cpt-of-nid: '"

printf '%-19s %-19s %-19s %-19s \n' quit exit help --help version --version list-commands \
	--list-commands --ignore_errors ignore_errors add del >"$work/nl"
printf '%-19s %-19s \n' show set >>"$work/nl"
check "net list-commands: the words of that level, as the kernel's nested parser lists them" sh -c \
	"'$ctl' net list-commands | cmp -s - '$work/nl' || { '$ctl' net list-commands | diff '$work/nl' -; exit 1; }"
# Every command not built yet: its block is valid YAML on stderr, nothing on stdout, exit 161.
for c in "debug peer --nid 1.2.3.4@tcp"; do
	# shellcheck disable=SC2086
	check "$c: not supported, valid YAML, exit 161" sh -c \
		"'$ctl' $c >'$work/o' 2>'$work/e'; [ \$? -eq 161 ] && [ ! -s '$work/o' ] && grep -q 'errno: -95' '$work/e' && python3 -c 'import yaml,sys; list(yaml.safe_load_all(sys.stdin))' <'$work/e'"
done
# debug nidlist: the kernel's plain lines
printf 'nidlist parsed to: 192.168.0.[1-3]@tcp\n192.168.0.2@tcp matches nidlist 192.168.0.[1-3]@tcp\n' >"$work/nl"
check "debug nidlist RANGE NID: parsed and matched" out_err 0 "$work/nl" "$work/empty" debug nidlist "192.168.0.[1-3]@tcp" 192.168.0.2@tcp
printf 'nidlist parsed to: 192.168.0.[1-3]@tcp\n192.168.0.9@tcp does not match nidlist 192.168.0.[1-3]@tcp\n' >"$work/nl"
check "debug nidlist RANGE other: does not match" out_err 0 "$work/nl" "$work/empty" debug nidlist "192.168.0.[1-3]@tcp" 192.168.0.9@tcp
printf 'Unable to parse nidlist from: 1.2.3@@tcp\n' >"$work/nl"
check "debug nidlist bad: stderr, exit 234" out_err 234 "$work/empty" "$work/nl" debug nidlist 1.2.3@@tcp
printf 'Missing nidlist argument\n' >"$work/nl"
check "debug nidlist alone: exit 234" out_err 234 "$work/empty" "$work/nl" debug nidlist

# --- with a daemon ---
a=lnetd-cli-a-$$ b=lnetd-cli-b-$$
ipa1=127.0.$(( $$ % 200 + 20 )).31
ipa2=127.0.$(( $$ % 200 + 20 )).32
ipb=127.0.$(( $$ % 200 + 20 )).33
check "daemon $a starts" start_daemon "$a"
pid_a=$pid
check "daemon $b starts" start_daemon "$b"
pid_b=$pid

# The prompt fed from stdin: no prompt text off a terminal, prefixes, quit.
check "prompt: 'gl sh' runs global show, 'quit' ends, exit 0" sh -c \
	"printf 'gl show\nquit\nnet show\n' | '$ctl' --name '$a' >'$work/o' 2>'$work/e' && grep -q '^global:' '$work/o' && ! grep -q '^net:' '$work/o' && ! grep -q '> ' '$work/o'"
check "prompt: a script stops at its first failing line with its exit status" sh -c \
	"printf 'debug peer --nid 1.2.3.4@tcp\nglobal show\n' | '$ctl' --name '$a' >'$work/o' 2>/dev/null; [ \$? -eq 161 ] && [ ! -s '$work/o' ]"
check "prompt: ignore_errors goes on" sh -c \
	"printf 'ignore_errors\ndebug peer --nid 1.2.3.4@tcp\nglobal show\n' | '$ctl' --name '$a' >'$work/o' 2>/dev/null; [ \$? -eq 161 ] && grep -q '^global:' '$work/o'"
check "prompt: an unknown word prints the usage, EOF ends with 0" sh -c \
	"printf 'frob\n' | '$ctl' --name '$a' | grep -q '^usage: lnetctl'"
check "prompt: an ambiguous prefix is named on stderr" sh -c \
	"printf 's\n' | '$ctl' --name '$a' 2>&1 >/dev/null | grep -qx 'Ambiguous command .s.'"

check "--name=NAME works as --name NAME" sh -c "'$ctl' --name='$a' global show | grep -q '^global:'"
check "prompt: help net answers on stderr" sh -c \
	"printf 'help net\n' | '$ctl' --name '$a' 2>&1 >/dev/null | grep -qx 'net: net {add | del | show | set | help}'"
# cpt-of-nid: space-separated NIDs only; 2.17 sends each word as it is and
# its kernel (lnet_cpt_of_nid_show_start) refuses a list or a range as one
# NID it cannot read, "invalid NID", before it answers any.
check "cpt-of-nid N1 N2 N3: three NIDs" sh -c \
	"'$ctl' --name '$a' cpt-of-nid 10.0.0.1@tcp 10.0.0.2@tcp 10.0.0.3@tcp >'$work/o' && grep -c '^-   nid: 10.0.0.[1-3]@tcp$' '$work/o' | grep -qx 3"
printf -- '---\nshow:\n-     cpt-of-nid:\n      errno: -22\n      descr: ! "invalid NID"\n...\n' >"$work/cb"
check "cpt-of-nid a bad NID: the netlink error block, -22" out_err 234 "$work/empty" "$work/cb" cpt-of-nid 10.0.0.1@tcp 1.2.3@tcp
check "cpt-of-nid N1,N2: one word, no NID, -22" out_err 234 "$work/empty" "$work/cb" cpt-of-nid 10.0.0.1@tcp,10.0.0.2@tcp
check "cpt-of-nid a range: no NID, -22" out_err 234 "$work/empty" "$work/cb" cpt-of-nid '10.0.0.[4-5]@tcp'
check "that block is valid YAML" yaml_ok "$work/cb"
check "cpt-of-nid -h: help, exit 0" sh -c "'$ctl' --name '$a' cpt-of-nid -h | grep -q '^ cpt-of-nid: '"

# Two NIs on A (same net), one on B; ping from each of A's NIs with --source.
check "net add on $a: $ipa1" "$ctl" --name "$a" net add --nid "$ipa1@tcp"
check "net add on $a: $ipa2" "$ctl" --name "$a" net add --nid "$ipa2@tcp"
check "net add on $b: $ipb" "$ctl" --name "$b" net add --nid "$ipb@tcp"
check "ping -s $ipa2@tcp (short option)" sh -c \
	"'$ctl' --name '$a' ping -s '$ipa2@tcp' '$ipb@tcp' 2>'$work/e' | grep -q 'primary nid: $ipb@tcp' && [ ! -s '$work/e' ]"
check "B knows A by $ipa2 only: the GET left from that NI" sh -c \
	"'$ctl' --name '$b' peer show >'$work/o' && grep -q '$ipa2@tcp' '$work/o' && ! grep -q '$ipa1@tcp' '$work/o'"
check "ping --source=$ipa1@tcp --timeout=2 (the = forms)" sh -c \
	"'$ctl' --name '$a' ping --source='$ipa1@tcp' --timeout=2 '$ipb@tcp' | grep -q 'primary nid: $ipb@tcp'"
check "B now knows $ipa1 too" sh -c "'$ctl' --name '$b' peer show | grep -q '$ipa1@tcp'"
check "ping --source NID --timeout S (separate words)" sh -c \
	"'$ctl' --name '$a' ping --source '$ipa1@tcp' --timeout 2 '$ipb@tcp' | grep -q 'primary nid: $ipb@tcp'"
# The kernel's ping prints its failures with its results on stdout, under
# "manage:", one document, and returns -1 when a NID failed.
check "ping -t 1 a dead NID: its failure on stdout, nothing on stderr, exit 255" sh -c \
	"'$ctl' --name '$a' ping -t 1 127.0.0.254@tcp >'$work/o' 2>'$work/e'; [ \$? -eq 255 ] && [ ! -s '$work/e' ] && grep -qx 'manage:' '$work/o' && grep -qx -- '- ping:' '$work/o' && grep -qx \"  descr: ! 'failed to ping 127.0.0.254@tcp: Connection refused'\" '$work/o'"
check "that output is valid YAML" yaml_ok "$work/o"
check "ping a range and a NID: the reply under ping:, both failures under manage:, one document" sh -c \
	"'$ctl' --name '$a' ping -t 1 '127.0.0.[253-254]@tcp' '$ipb@tcp' >'$work/o' 2>'$work/e'; [ \$? -eq 255 ] && [ ! -s '$work/e' ] && [ \$(grep -c '^ping:' '$work/o') -eq 1 ] && [ \$(grep -c '^manage:' '$work/o') -eq 1 ] && [ \$(grep -c '^- ping:' '$work/o') -eq 2 ] && [ \$(grep -c '^- primary nid: $ipb@tcp' '$work/o') -eq 1 ] && [ \$(sed -n '/^manage:/=' '$work/o') -gt \$(sed -n '/^ping:/=' '$work/o') ]"
check "that output is valid YAML too" yaml_ok "$work/o"
printf -- '---\nmanage:\n-     ping:\n      errno: -22\n      descr: ! "source NID 10.9.9.9@tcp is not a NID of this node"\n...\n' >"$work/src"
check "ping --source a NID not local: the request fails, its block on stderr, exit 234" out_err 234 "$work/empty" "$work/src" --name "$a" ping --source 10.9.9.9@tcp "$ipb@tcp"
# jt_ping's help text and its getopt loop: a --source that libcfs_strnid
# refuses ends the command with its -EINVAL and prints nothing.
printf 'ping nid[,nid,...]\n\t --source: source nid\n\t --timeout: ping timeout\n\t --help: display this help\n' >"$work/ph"
check "ping -h: jt_ping's help, byte for byte, exit 0" out_err 0 "$work/ph" "$work/empty" ping -h
check "ping -s notanid NID: nothing printed, exit 234 (jt_ping returns libcfs_strnid's -EINVAL)" \
	out_err 234 "$work/empty" "$work/empty" --name "$a" ping -s notanid "$ipb@tcp"
check "ping -t 0 NID: the kernel's default timeout (180 s), the reply at once" sh -c \
	"'$ctl' --name '$a' ping -t 0 '$ipb@tcp' | grep -q 'primary nid: $ipb@tcp'"
check "ping a NID with an asterisk: -22" fails_with -22 --name "$a" ping '10.0.0.*@tcp'
# discover through the daemon with discovery off: as the kernel's
# lnet_discover, it still pings the peer once (no push) and prints it, not
# Multi-Rail since this node does not discover; a NID nobody answers is
# printed as the kernel prints a failed lnet_discover(), on stdout under
# "manage:" with "failed to discover NID: <strerror>", and the command
# returns -1 (255).
check "set discovery 0 on $a" "$ctl" --name "$a" set discovery 0
printf 'discover:\n- primary nid: %s\n  Multi-Rail: false\n  peer_ni:\n  - nid: %s\n' "$ipb@tcp" "$ipb@tcp" >"$work/dn"
check "discover NID (discovery off): one ping, the peer on stdout, byte for byte, exit 0" out_err 0 "$work/dn" "$work/empty" --name "$a" discover "$ipb@tcp"
check "discover -f NID: the same" out_err 0 "$work/dn" "$work/empty" --name "$a" discover -f "$ipb@tcp"
check "discover --force NID: the same" out_err 0 "$work/dn" "$work/empty" --name "$a" discover --force "$ipb@tcp"
# Nobody at 127.0.0.253-254: their pings fail at once (connection refused).
discover_range_and_peer() {
	"$ctl" --name "$a" discover "127.0.0.[253-254]@tcp0,$ipb@tcp" >"$work/o" 2>"$work/e"
	rc=$?
	failed=$(sed -n "s/.*descr: ! 'failed to discover \([^:]*\):.*/\1/p" "$work/o" | tr '\n' ' ')
	[ "$rc" -eq 255 ] && [ ! -s "$work/e" ] && [ "$(sed -n 1p "$work/o")" = discover: ] &&
		grep -qx -- "- primary nid: $ipb@tcp" "$work/o" && [ "$(grep -c '^manage:' "$work/o")" -eq 1 ] &&
		[ "$failed" = "127.0.0.253@tcp 127.0.0.254@tcp " ] ||
		{ echo "exit $rc"; cat "$work/o" "$work/e"; return 1; }
}
check "discover RANGE,NID (tcp0 printed tcp): the peer under discover:, each dead NID under manage:, exit 255" \
	discover_range_and_peer
check "that output is valid YAML" yaml_ok "$work/o"
check "set discovery 1 on $a" "$ctl" --name "$a" set discovery 1
check "capture start --file=F --net=tcp (the = forms), then stop" sh -c \
	"'$ctl' --name '$a' capture start --file='$work/c.pcapng' --net=tcp && '$ctl' --name '$a' capture stop | grep -q 'file: $work/c.pcapng'"
check "capture start --bogus: -22" fails_with -22 --name "$a" capture start --file "$work/d.pcapng" --bogus
check "SIGTERM: $b exits 0" stop_daemon "$pid_b"
check "SIGTERM: $a exits 0" stop_daemon "$pid_a"
finish lnetctl_cli
