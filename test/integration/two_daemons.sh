#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Two lnetd-pmd on one machine talking ksocklnd over TCP on 127.0.0.0/8:
# net add on each, pings both ways (the kernel's ping output shape), the
# errors of net add and of pinging nobody, and a clean SIGTERM.
#   two_daemons.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
a=lnetd-2d-a-$$ b=lnetd-2d-b-$$
# Addresses of our own on the loopback range, port 988 (root: privileged ports).
ipa=127.0.$(( $$ % 200 + 20 )).11
ipb=127.0.$(( $$ % 200 + 20 )).12
ipnobody=127.0.$(( $$ % 200 + 20 )).13

start() { start_daemon "$1"; }
stop() { stop_daemon "$1"; }

sends_of() { # daemon: its send_count (stats show)
	"$ctl" --name "$1" stats show | sed -n 's/^    send_count: //p'
}
sends_above() { [ "$(sends_of "$1")" -gt "$2" ]; } # daemon count
ping_is() { # from-name, to-ip: the kernel's ping shape
	printf 'ping:\n- primary nid: %s@tcp\n  Multi-Rail: false\n  peer_ni:\n  - nid: %s@tcp\n' \
		"$2" "$2" >"$work/want"
	"$ctl" --name "$1" ping "$2@tcp" >"$work/got" 2>&1 && cmp -s "$work/want" "$work/got" ||
		{ diff "$work/want" "$work/got"; return 1; }
}

check "daemon $a starts" start "$a"
pid_a=$pid
check "daemon $b starts" start "$b"
pid_b=$pid
check "net add on $a" "$ctl" --name "$a" net add --nid "$ipa@tcp"
check "net add on $b" "$ctl" --name "$b" net add --nid "$ipb@tcp" --peer-credits 8 --credits 256
check "net show lists the tcp NI" sh -c "'$ctl' --name '$a' net show | grep -q 'nid: $ipa@tcp'"
check "net show -v: the ksocklnd defaults" sh -c \
	"'$ctl' --name '$b' net show -v --net tcp | grep -q 'peer_timeout: 180' && '$ctl' --name '$b' net show -v --net tcp | grep -q 'credits: 256'"
check "capture on $a before any connection" "$ctl" --name "$a" capture start --file "$work/a.pcap"
check "a second capture is refused while one runs" fails_with -114 --name "$a" capture start --file "$work/x.pcap"
check "$a pings $b over TCP" ping_is "$a" "$ipb"
check "$b pings $a over TCP" ping_is "$b" "$ipa"
check "peer show lists the peer that traffic created, not Multi-Rail (as s2_01 of the kernel captures)" sh -c \
	"'$ctl' --name '$a' peer show | tr -d '\n' | grep -q 'primary nid: $ipb@tcp *Multi-Rail: false'"
check "capture show counts packets" sh -c "'$ctl' --name '$a' capture show | grep -q '    packets: [1-9]'"
check "capture stop: the totals, nothing dropped" sh -c \
	"'$ctl' --name '$a' capture stop >'$work/stop' && grep -q 'dropped: 0' '$work/stop' && grep -q '    - $ipa@tcp' '$work/stop'"
check "the file holds what stop counted" sh -c \
	"grep -q \"bytes: \$(stat -c %s '$work/a.pcap')\$\" '$work/stop'"
check "the capture parses to its last byte: 3 acceptor requests, 6 hellos, 4 messages" sh -c \
	"python3 '$(dirname "$0")/../common/pcap_check.py' '$work/a.pcap' >'$work/check' 2>&1; cat '$work/check'; grep -qx 'streams 6 connreqs 3 hellos 6 msgs 4' '$work/check'"
check "the file is pcapng by default (section header block first)" sh -c \
	"[ \"\$(od -An -tx4 -N4 '$work/a.pcap' | tr -d ' ')\" = 0a0d0d0a ]"
check "capture --format pcap: a classic pcap, as long as stop says" sh -c \
	"'$ctl' --name '$a' capture start --file '$work/c.pcap' --format pcap && '$ctl' --name '$a' ping '$ipb@tcp' >/dev/null && '$ctl' --name '$a' capture stop >'$work/c.stop' && [ \"\$(od -An -tx4 -N4 '$work/c.pcap' | tr -d ' ')\" = a1b2c3d4 ] && grep -q \"bytes: \$(stat -c %s '$work/c.pcap')\$\" '$work/c.stop' && grep -q 'packets: [1-9]' '$work/c.stop'"
check "capture --format bogus: -22" fails_with -22 --name "$a" capture start --file "$work/d.pcap" --format bogus
check "capture stop with none running: -2" fails_with -2 --name "$a" capture stop
check "capture --max-bytes bounds the file and counts what it dropped" sh -c \
	"'$ctl' --name '$a' capture start --file '$work/small.pcap' --max-bytes 4096 && for i in 1 2 3 4 5 6 7 8; do '$ctl' --name '$a' ping '$ipb@tcp' >/dev/null; done; '$ctl' --name '$a' capture stop | grep -q 'dropped: [1-9]' && [ \$(stat -c %s '$work/small.pcap') -le 4096 ]"
check "capture start without --file: usage" fails_with -22 --name "$a" capture start
check "capture into a directory that does not exist: refused" fails_with -5 --name "$a" capture start --file /nonexistent/dir/x.pcap
check "both count the messages" sh -c \
	"'$ctl' --name '$a' stats show | grep -qx '    recv_count: [1-9][0-9]*' && '$ctl' --name '$b' stats show | grep -qx '    send_count: [1-9][0-9]*'"
check "pinging an address nobody listens on: -111, as the kernel reports a refused connect" fails_with -111 --name "$a" ping "$ipnobody@tcp"
# The failed ping's MD and response timer outlive its event queue by nothing:
# once transaction_timeout has passed the daemon still serves (it once
# crashed there, posting to the freed queue: kernel-vs-pmd/52-crash-repro).
check "transaction_timeout 2 (retry_count 0 first: the kernel wants it below)" sh -c \
	"'$ctl' --name '$a' set retry_count 0 && '$ctl' --name '$a' set transaction_timeout 2"
check "a ping to nobody, with a short timeout, fails" sh -c \
	"! '$ctl' --name '$a' ping '$ipnobody@tcp' --timeout 500 >/dev/null 2>&1"
# Part of the scenario: time passes beyond transaction_timeout (2 s) so the
# ping's response timer fires. The check after it cannot fail for timing:
# on a slow machine the timer may fire later, and the check still passes.
sleep 4
check "after transaction_timeout $a still serves pings" ping_is "$b" "$ipa"
check "$a counts no response timeout: the pings' MDs were unlinked" sh -c \
	"'$ctl' --name '$a' stats show | grep -qx '    response_timeout_count: 0'"
check "transaction_timeout back to 150" "$ctl" --name "$a" set transaction_timeout 150
# A refused net add prints as 2.17's yaml_lnet_config_ni() prints the
# kernel's refusal (yaml_lnet_print_error: "---", "add:", "-     net:",
# errno, the extack text of lnet_net_cmd(), "...") and exits with -EINVAL
# (234), as captures/kernel-routing-health/transcript.txt shows for -17.
: >"$work/empty"
nl_add_err() { # ERRNO: the block in $work/nl
	printf -- '---\nadd:\n-     net:\n      errno: %s\n      descr: ! "cannot add LNet NI"\n...\n' "$1" >"$work/nl"
}
nl_add_err -17
check "net add twice: the kernel's -17 block, exit 234" out_err 234 "$work/empty" "$work/nl" \
	--name "$a" net add --nid "$ipa@tcp"
# ksocknal_startup() answers -ENETDOWN when the LND cannot start on the interface.
nl_add_err -100
check "net add on an unknown interface: the kernel's -100 block, exit 234" out_err 234 "$work/empty" "$work/nl" \
	--name "$a" net add --net tcp --if nosuch0
line "creating a local NI needs at least one interface"
check "net add without --if or --nid: yaml_lnet_config_ni's line on stdout, exit 234" \
	out_err 234 "$work/want" "$work/empty" --name "$a" net add --net tcp
line "missing mandatory parameters in NI config: 'network'"
check "net add without --net: yaml_lnet_config_ni's line on stdout, exit 234" \
	out_err 234 "$work/want" "$work/empty" --name "$a" net add --if nosuch0
# The o2ib LND is in the build; kiblnd_startup() answers -ENETDOWN where no RDMA device
# carries the interface (none carries nosuch0, nor an address no interface has).
nl_add_err -100
check "net add o2ib on an interface no RDMA device carries: the kernel's -100 block, exit 234" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net add --net o2ib --if nosuch0
check "net add --nid 10.0.0.1@o2ib (no such address here): the same" \
	out_err 234 "$work/empty" "$work/nl" --name "$a" net add --nid 10.0.0.1@o2ib
check "net add gni3: not supported either" sh -c \
	"! '$ctl' --name '$a' net add --nid 12@gni3 >'$work/e' 2>&1 && grep -q 'errno: -95' '$work/e' && grep -q 'net type gni is not supported' '$work/e'"
check "net add --net with --nid: jt_add_ni's line on stdout, exit 234" sh -c \
	"'$ctl' --name '$a' net add --net tcp1 --nid '$ipa@tcp' >'$work/o'; [ \$? -eq 234 ] && [ \"\$(cat '$work/o')\" = '--net is invalid with --nid option' ]"
"$ctl" net add -h >"$work/nh"
printf "add: unrecognized option '--bogus'\n" >"$work/nb"
check "net add --bogus: getopt's complaint, net add's help, exit 0 (jt_add_ni's '?' case)" \
	out_err 0 "$work/nh" "$work/nb" --name "$a" net add --bogus
: >"$work/nb3"
check "net add --bogus 1: more than two words, check_cmd leaves getopt silent: the help only" \
	out_err 0 "$work/nh" "$work/nb3" --name "$a" net add --bogus 1
# net del while $b keeps pinging $a: the NI goes, every ping ends (no hang),
# and a new NI on the same address serves again.
sent0=$(sends_of "$b")
( i=0; while [ $i -lt 40 ]; do "$ctl" --name "$b" ping "$ipa@tcp" --timeout 2 >/dev/null 2>&1; i=$((i + 1)); done ) &
flood=$!
check "$b's pings to $a under way" eventually 20 sends_above "$b" "$sent0"
check "net del on $a under traffic" "$ctl" --name "$a" net del --net tcp
check "$a shows no tcp net" sh -c "! '$ctl' --name '$a' net show | grep -q '@tcp'"
check "pinging the deleted NI fails with an error" sh -c "! '$ctl' --name '$b' ping '$ipa@tcp' --timeout 2 >/dev/null 2>&1"
wait "$flood"
check "$a pings nothing over tcp: no local NI, -113" fails_with -113 --name "$a" ping "$ipb@tcp"
check "net add again on $a" "$ctl" --name "$a" net add --nid "$ipa@tcp"
# $b backs off from the address that failed it (ksocklnd's reconnect backoff);
# the first EOF from the deleted NI closed all of $b's connections to it
# (ksocknal_close_conn_and_siblings), so none of the old life is left.
check "$a reaches $b again" ping_is "$a" "$ipb"
check "$b reaches the new NI over $a's connections" ping_is "$b" "$ipa"
check "$b closed its other connections to $a at the first EOF" sh -c \
	"python3 '$(dirname "$0")/../common/bad_peer.py' telemetry '$b' /lnet/lnd_stats | grep -q '\"sibling_closes\": [1-9]'"
sent0=$(sends_of "$b")
( i=0; while [ $i -lt 30 ]; do "$ctl" --name "$b" ping "$ipa@tcp" --timeout 1 >/dev/null 2>&1; "$ctl" --name "$a" ping "$ipb@tcp" --timeout 1 >/dev/null 2>&1; i=$((i + 1)); done ) &
flood=$!
check "the pings between $b and $a under way" eventually 20 sends_above "$b" "$sent0"
check "SIGTERM: $a exits 0 under traffic, connections up" stop "$pid_a"
wait "$flood"
check "$b notices and keeps serving" sh -c "'$ctl' --name '$b' net show >/dev/null"

# ksocklnd module parameters: a daemon C with one untyped connection per peer.
c=lnetd-2d-c-$$ ipc=127.0.$(( $$ % 200 + 20 )).14
refused() { # what stderr says, then daemon options: exit 2 (bad options), that line
	want=$1; shift
	"$daemon" -- --name "x$$" "$@" >"$work/refused" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && grep -qF -e "$want" "$work/refused" || { echo "exit $rc:"; cat "$work/refused"; return 1; }
}
check "--socklnd nscheds=2: not supported, with the reason" \
	refused '--socklnd: socklnd parameter nscheds is not supported: no scheduler threads' --socklnd nscheds=2
check "--socklnd typed_conns=5: out of range" \
	refused 'lnetd-pmd: --socklnd: socklnd parameter typed_conns: 5 is out of range 0-1' --socklnd typed_conns=5
check "--socklnd bogus=1: no such parameter" refused 'no socklnd parameter bogus' --socklnd bogus=1
check "--socklnd nagle=yes: not a number" refused 'nagle: "yes" is not a number' --socklnd nagle=yes
check "--lnd-params tcp:typed_conns=5: the same, through the generic option" \
	refused 'lnetd-pmd: --lnd-params: socklnd parameter typed_conns: 5 is out of range 0-1' \
	--lnd-params tcp:typed_conns=5
check "--lnd-params o2ib:peercredits_hiw=4: the o2iblnd has no such parameter (ko2iblnd's is peer_credits_hiw)" \
	refused 'lnetd-pmd: --lnd-params: no o2iblnd parameter peercredits_hiw' \
	--lnd-params o2ib:peercredits_hiw=4
check "--lnd-params o2ib:peer_credits_hiw=300: out of range" \
	refused 'lnetd-pmd: --lnd-params: o2iblnd parameter peer_credits_hiw: 300 is out of range 0-255' \
	--lnd-params o2ib:peer_credits_hiw=300
check "--lnd-params nosuch:...: not a net type" refused '"nosuch" is not a net type' --lnd-params nosuch:x=1
check "--accept maybe: the socklnd says which values" \
	refused 'accept: "maybe" is not one of secure, all, none' --accept maybe
check "--accept-port 0: out of range" refused 'accept_port: 0 is out of range 1-65535' --accept-port 0
printf 'net:\n    - net type: o2ib\n      local NI(s):\n        - nid: 10.0.0.1@o2ib\n' >"$work/o2ib.yaml"
check "--config with an o2ib NI on an address no RDMA device carries: refused, the network down" sh -c \
	"! '$daemon' -- --name x$$ --config '$work/o2ib.yaml' >'$work/e' 2>&1 && grep -q 'cannot add 10.0.0.1@o2ib: Network is down' '$work/e'"
check "daemon $c with --socklnd typed_conns=0,keepalive=0,nagle=1,sock_timeout=20" \
	start_daemon "$c" --socklnd typed_conns=0,keepalive=0,nagle=1,sock_timeout=20
pid_c=$pid
check "/lnet/socklnd_params shows them" sh -c \
	"telemetry() { python3 '$(dirname "$0")/../common/bad_peer.py' telemetry \"\$@\"; }; telemetry '$c' /lnet/socklnd_params | grep -q '\"typed_conns\": 0, \"nagle\": 1'"
check "/lnet/lnd_params,lnd=tcp: the same, with the acceptor's (accept by name)" sh -c \
	"telemetry() { python3 '$(dirname "$0")/../common/bad_peer.py' telemetry \"\$@\"; }; telemetry '$c' /lnet/lnd_params,lnd=tcp | grep '\"typed_conns\": 0, \"nagle\": 1' | grep -q '\"accept_port\": 988, \"accept\": \"secure\"'"
check "/lnet/lnd_params,lnd=o2ib: ko2iblnd's parameters with their defaults" sh -c \
	"telemetry() { python3 '$(dirname "$0")/../common/bad_peer.py' telemetry \"\$@\"; }; telemetry '$c' /lnet/lnd_params,lnd=o2ib | grep '\"service\": 987' | grep -q '\"peer_credits_hiw\": 0'"
check "$c's tcp NI takes sock_timeout 20 as its lnd timeout" sh -c \
	"'$ctl' --name '$c' net add --nid '$ipc@tcp' && '$ctl' --name '$c' net show -v --net tcp | grep -q '      timeout: 20'"
check "$c pings $b" ping_is "$c" "$ipb"
check "... over one connection of type ANY" sh -c \
	"telemetry() { python3 '$(dirname "$0")/../common/bad_peer.py' telemetry \"\$@\"; }; telemetry '$c' /lnet/lnd_stats | grep -q '\"connects\": 1,'"
# Replies read as the kernel's lnet_ping() reads them: at max_interfaces 16
# $c asks 16 + 24 * 16 = 400 bytes. $b with 15 NIs sends 272 (0@lo and 15
# entries of 16): 16 entries, not fewer than 16, so lnet_ping() wants the
# buffer full, and the ping fails -EPROTO (the kernel's quirk). With 25 NIs
# $b sends 432; the 24 entries that came whole are at least 16, so the
# ping stands with the 23 NIDs after 0@lo.
more_nis() { # first last: $b's NIs .(100 + first) to .(100 + last)
	i=$1
	while [ $i -le $2 ]; do
		"$ctl" --name "$b" net add --nid "${ipb%.*}.$((100 + i))@tcp" || return 1
		i=$((i + 1))
	done
}
ping_cut() {
	{
		printf 'ping:\n- primary nid: %s@tcp\n  Multi-Rail: false\n  peer_ni:\n  - nid: %s@tcp\n' \
			"$ipb" "$ipb"
		i=1
		while [ $i -le 22 ]; do
			printf '  - nid: %s.%d@tcp\n' "${ipb%.*}" $((100 + i))
			i=$((i + 1))
		done
	} >"$work/want"
	"$ctl" --name "$c" ping "$ipb@tcp" >"$work/got" 2>&1 && cmp -s "$work/want" "$work/got" ||
		{ diff "$work/want" "$work/got"; return 1; }
}
check "$b gets 14 more NIs on tcp" more_nis 1 14
check "$c: max_interfaces 16" "$ctl" --name "$c" set max_interfaces 16
check "$c pings $b: 16 entries in a reply that leaves the 400 bytes unfilled, -71 as the kernel" \
	sh -c "! '$ctl' --name '$c' ping '$ipb@tcp' >'$work/got' 2>&1 && grep -qx '  errno: -71' '$work/got' && grep -qx \"  descr: ! 'failed to ping $ipb@tcp: Protocol error'\" '$work/got' && grep -qx 'manage:' '$work/got' || { cat '$work/got'; exit 1; }"
check "$b gets 10 more NIs on tcp" more_nis 15 24
check "$c pings $b: the reply cut at 400 bytes lists the 23 NIDs that came whole" ping_cut
check "$c: max_interfaces 200 again" "$ctl" --name "$c" set max_interfaces 200
check "SIGTERM: $c exits 0" stop "$pid_c"
check "SIGTERM: $b exits 0" stop "$pid_b"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work/$a.err' '$work/$b.err'"
finish two_daemons
