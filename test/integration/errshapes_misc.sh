#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lnetctl's NID-list errors and peer add --non_mr byte for byte as 2.17's
# lnetctl prints them on a kernel with netlink: the range reader of its
# netlink commands (liblnetconfig's lustre_lnet_parse_nid_range() and its
# range scanner) with each malformed form's text and errno, under ping,
# discover, route add/del --gateway and peer add/del --nid; what the kernel
# then says of a NID a range names but no one can read (ping: "cannot parse
# NID", route: "cannot parse gateway", peer: "unsupported secondary NID");
# cpt-of-nid's plain NIDs ("invalid NID"); and --non_mr, which 2.17's
# lnet_peer_ni_cmd() ignores (the peer is Multi-Rail).
#   errshapes_misc.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"

: >"$work/empty"
# yaml_lnet_print_error()'s block: VERB OBJECT ERRNO DESCR (DESCR as libyaml
# double-quotes it: pass inner quotes already escaped) into $work/blk.
blk() {
	printf -- '---\n%s:\n-     %s:\n      errno: %s\n      descr: ! "%s"\n...\n' "$1" "$2" "$3" "$4" >"$work/blk"
}
q='\"Unable to parse nidlist: '

# --- the range reader, every command that uses it; no daemon needed ---
# form | errno | text (after "Unable to parse nidlist: ")
while IFS='|' read -r form errno text; do
	[ -n "$form" ] || continue
	case $text in
	asterisk*) d=$text ;;
	*) d="$q$text\\\"" ;;
	esac
	blk manage ping "$errno" "$d"
	check "ping '$form': $text, $errno, exit 234" out_err 234 "$work/empty" "$work/blk" \
		--name nobody-$$ ping "$form"
	blk manage discover "$errno" "$d"
	check "discover '$form': the same under discover" out_err 234 "$work/empty" "$work/blk" \
		--name nobody-$$ discover "$form"
	blk add route "$errno" "$d"
	check "route add --gateway '$form': the same under add: route" out_err 234 "$work/empty" \
		"$work/blk" --name nobody-$$ route add --net tcp9 --gateway "$form"
	blk del route "$errno" "$d"
	check "route del --gateway '$form': under del: route" out_err 234 "$work/empty" \
		"$work/blk" --name nobody-$$ route del --net tcp9 --gateway "$form"
	printf 'can'"'"'t parse nidrange: "%s"\n' "$form" >"$work/pout"
	blk add peer "$errno" "$d"
	check "peer add --nid '$form': stdout's line, then the block" out_err 234 "$work/pout" \
		"$work/blk" --name nobody-$$ peer add --prim_nid 10.9.9.9@tcp --nid "$form"
	blk del peer "$errno" "$d"
	check "peer del --nid '$form': the same under del" out_err 234 "$work/pout" \
		"$work/blk" --name nobody-$$ peer del --prim_nid 10.9.9.9@tcp --nid "$form"
done <<'FORMS'
10.0.0.[1-3@tcp|-22|incomplete bracket set
10.0.0.1-3]@tcp|-22|incomplete bracket set
10.0.0.]1[@tcp|-22|improper bracket ordering
10.0.0.[3-1]@tcp|-34|range is wrong order
10.0.0.[1-4,3-2]@tcp|-34|range is wrong order
10.0.0.[1-]@tcp|-34|range needs number after -
10.0.0.[1-2/]@tcp|-34|range needs number after /
10.0.0.[1,]@tcp|-34|range needs number after ,
10.0.0.[1;2]@tcp|-22|invalid character in range
10.0.0.[1-2/0]@tcp|-12|allocation failed
1.2.3.4@bogus|-22|invalid NID in nidstr
10.0.0.1@tcp,10.0.0.256@tcp|-22|invalid NID in nidstr
notanid|-22|no valid NIDs in string
10.0.0.*@tcp|-22|asterisk not allowed in nidstring
<?>@tcp|-22|LNET_ANY_NID is unsupported
FORMS

# peer add's own checks after the reader: nothing named, too many NIDs.
printf '' >"$work/pout"
blk add peer -2 "Unable to parse nidlist: did not expand to any nids"
check "peer add --nid '10.0.0.[0]@tcp' (a 0 alone names nothing): -2, exit 234" out_err 234 \
	"$work/empty" "$work/blk" --name nobody-$$ peer add --prim_nid 10.9.9.9@tcp --nid '10.0.0.[0]@tcp'
blk add peer -7 "Unable to parse nidlist: specifies more NIDs than allowed"
check "peer add --nid of 130 NIDs: -7" out_err 234 "$work/empty" "$work/blk" \
	--name nobody-$$ peer add --prim_nid 10.9.9.9@tcp --nid '10.0.[1-2].[1-65]@tcp'

# cpt-of-nid reads no list: each word one NID (lnet_cpt_of_nid_show_start).
blk show cpt-of-nid -22 "invalid NID"
check "cpt-of-nid a range: invalid NID, exit 234" out_err 234 "$work/empty" "$work/blk" \
	--name nobody-$$ cpt-of-nid '10.0.0.[1-2]@tcp'
check "cpt-of-nid N1,N2: invalid NID" out_err 234 "$work/empty" "$work/blk" \
	--name nobody-$$ cpt-of-nid 10.0.0.1@tcp,10.0.0.2@tcp

# --- help texts: 2.17's command tables (lnetctl.c) and parser (parser.c) ---
printf '%s\n' "usage: lnetctl [COMMAND] [OPTIONS]... [ARGS]" \
	"Without any parameters, interactive mode is invoked" \
	"Try 'lnetctl help <COMMAND>', or 'lnetctl --list-commands' for a list of commands." >"$work/want"
check "help: cfs_parser_help's three lines, exit 0" out_err 0 "$work/want" "$work/empty" help
check "net help: the same" out_err 0 "$work/want" "$work/empty" net help
printf 'help: provide useful information about a command\n' >"$work/want"
check "help help: the override's text on stderr" out_err 0 "$work/empty" "$work/want" help help
printf 'ignore_errors: ignore errors that occur during script processing\n' >"$work/want"
check "help ignore_errors" out_err 0 "$work/empty" "$work/want" help ignore_errors
printf '%s\n' "set: set {tiny_buffers | small_buffers | large_buffers | routing | numa_range | max_interfaces | discovery | drop_asym_route | retry_count | transaction_timeout | health_sensitivity | recovery_interval | router_sensitivity | response_tracking | recovery_limit}" >"$work/want"
check "help set: cmd_list's line (without max_recovery_ping_interval, as 2.17)" out_err 0 \
	"$work/empty" "$work/want" help set
for w in 'stats: stats {show | help}' 'debug: debug {recovery {local | peer} | peer}' \
	'udsp: udsp {add | del | help}' 'fault: {drop | delay | help}'; do
	printf '%s\n' "$w" >"$work/want"
	check "help ${w%%:*}: '$w'" out_err 0 "$work/empty" "$work/want" help "${w%%:*}"
done
printf 'service-id: Calculate IB Lustre service ID\n\n' >"$work/want"
check "help service-id: its text and its newline" out_err 0 "$work/empty" "$work/want" help service-id
printf 'setup-mrrouting: setup linux routing tables\n\n' >"$work/want"
check "help setup-mrrouting" out_err 0 "$work/empty" "$work/want" help setup-mrrouting
printf 'capture: capture {start | stop | show} (lnetd-pmd only)\n' >"$work/want"
check "help capture: ours, and says so" out_err 0 "$work/empty" "$work/want" help capture
printf '%s\n' 'net add: add a network' '	--net: net name (e.g. tcp0)' \
	'	--if: physical interface (e.g. eth0)' \
	'	--nid: bring up NI based on the address of the specified LNet NID' \
	'	--ip2net: specify networks based on IP address patterns' \
	'	--peer-timeout: time to wait before declaring a peer dead' \
	'	--peer-credits: define the max number of inflight messages' \
	'	--peer-buffer-credits: the number of buffer credits per peer' \
	'	--credits: Network Interface credits' \
	'	--cpt: CPU Partitions configured net uses (e.g. [0,1]' \
	'	--conns-per-peer: number of connections per peer' \
	'	--skip-mr-route-setup: do not add linux route for the ni' \
	'	--auth-key: Network authorization key (kfilnd only)' \
	'	--traffic-class: Traffic class (kfilnd only)' \
	"	--tos: IP's Type of Service" '' >"$work/want"
check "net add -h: net_cmds' text byte for byte, exit 1" out_err 1 "$work/want" "$work/empty" net add -h
check "net add --help: the same" out_err 1 "$work/want" "$work/empty" net add --help
printf '%s\n' 'peer set: set peer ni specific parameter' '	--nid: Peer NI NID to set the' \
	'	--health: specify health value to set' \
	'	--all: set all peer_nis values to the one specified' \
	'	--state: set peer state (DANGEROUS: for test/debug only)' >"$work/want"
check "peer set -h: its text, no newline of its own (2.17's has none)" out_err 1 "$work/want" \
	"$work/empty" peer set -h
printf '%s\n' 'debug peer: show peer debug info' "	--nid: peer's NID" '' >"$work/want"
check "debug peer -h: 2.17's text (the command itself is not supported yet)" out_err 1 \
	"$work/want" "$work/empty" debug peer -h
printf '%s\n' 'drop add: add LNet drop rule' \
	'	--source nid:  Drop messages originating from <nid>.' \
	'	--dest nid:    Drop messages destined for <nid>.' \
	'	--rate r:      Drop messages at specified rate (1/<r>).' \
	'	--interval i:  Drop messages at specified time interval (seconds).' \
	'	--portal p:    Drop messages on specified portal.' \
	'	--message m:   Drop messages of specified type <PUT|ACK|GET|REPLY>.' \
	'	--health_error: Dropped messages simulate the specified health status' \
	'	                <local_timeout|remote_dropped|network_timeout|...>.' '' >"$work/want"
check "fault drop add -h: fault_drop_cmds' text" out_err 1 "$work/want" "$work/empty" \
	fault drop add -h
printf '%-19s %-19s %-19s %-19s \n' quit exit help --help version --version list-commands \
	--list-commands --ignore_errors ignore_errors tiny_buffers small_buffers large_buffers \
	routing numa_range max_interfaces discovery drop_asym_route retry_count \
	transaction_timeout health_sensitivity recovery_interval router_sensitivity \
	response_tracking >"$work/want"
printf '%-19s %s \n' recovery_limit max_recovery_ping_interval >>"$work/want"
check "set --list-commands: a name wider than its column as cfs_parser_list_commands prints it" \
	out_err 0 "$work/want" "$work/empty" set --list-commands

# --- net add's option combinations (jt_add_ni, yaml_lnet_config_ni) ---
# yaml_lnet_config_ni()'s kernel block for net add: ERRNO DESCR into $work/blk.
nlblk() { blk add net "$1" "$2"; }
line "--net is invalid with --nid option"
check "net add --net with --nid: jt_add_ni's line on stdout, exit 234" out_err 234 "$work/want" \
	"$work/empty" --name nobody-$$ net add --net tcp --nid 10.0.0.1@tcp
check "net add --nid with --net after it: the same (checked once options are read)" out_err 234 \
	"$work/want" "$work/empty" --name nobody-$$ net add --nid 10.0.0.1@tcp --net tcp1
check "net add --net with --if and --nid: the same" out_err 234 "$work/want" "$work/empty" \
	--name nobody-$$ net add --net tcp --if eth0 --nid 10.0.0.1@tcp
line "missing mandatory parameters in NI config: 'network'"
check "net add --nid without '@': no net, yaml_lnet_config_ni's line, exit 234" out_err 234 \
	"$work/want" "$work/empty" --name nobody-$$ net add --nid eth0
check "net add -k --net tcp: -k takes an argument (\"k:\"), --net is it: no net" out_err 234 \
	"$work/want" "$work/empty" --name nobody-$$ net add -k --net tcp --if eth0
line "creating a local NI needs at least one interface"
check "net add --net tcp alone: no interface, exit 234" out_err 234 "$work/want" "$work/empty" \
	--name nobody-$$ net add --net tcp
printf 'ni:\n    - add:\n          errno: -1\n          descr: "bad interface list"\n' >"$work/cy"
check "net add --if 'eth0[0': a bracket not closed, cYAML ni/add block, exit 234" out_err 234 \
	"$work/empty" "$work/cy" --name nobody-$$ net add --net tcp --if 'eth0[0'
check "net add --if 'eth0[x]': CPTs cfs_expr_list_parse refuses: the same" out_err 234 \
	"$work/empty" "$work/cy" --name nobody-$$ net add --net tcp --if 'eth0[x]'
printf 'ni:\n    - add:\n          errno: -1\n          descr: "bad NID list"\n' >"$work/cy"
check "net add --nid 'x[1': the NID list's block" out_err 234 "$work/empty" "$work/cy" \
	--name nobody-$$ net add --nid '10.0.0.[1@tcp'
printf 'ni:\n    - add:\n          errno: -1\n          descr: "Invalid traffic-class argument"\n' >"$work/cy"
check "net add --traffic-class '': its block" out_err 234 "$work/empty" "$work/cy" \
	--name nobody-$$ net add --net tcp --if eth0 --traffic-class ''
printf 'ni:\n    - add:\n          errno: -1\n          descr: "Invalid ToS argument"\n' >"$work/cy"
check "net add --tos 256: its block" out_err 234 "$work/empty" "$work/cy" \
	--name nobody-$$ net add --net tcp --if eth0 --tos 256
nlblk -19 "setting @lo not allowed"
check "net add --net lo: the kernel's net type check, -19" out_err 234 "$work/empty" "$work/blk" \
	--name nobody-$$ net add --net lo --if lo

# --- through a daemon ---
d=lnetd-esm-$$
net=127.0.$(( $$ % 200 + 20 ))
ctl_name=$d
check "daemon $d starts" start_daemon "$d"
check "net add tcp" "$ctl" --name "$d" net add --nid "$net.1@tcp"

# net add through the kernel's lnet_net_cmd(): what each combination asks.
line "--net is invalid with --nid option"
nlblk -42 "no configuration"
check "net add --if N@tcp alone: the net from '@', no net type sent: -ENOMSG" out_err 234 \
	"$work/empty" "$work/blk" net add --if "$net.2@tcp"
nlblk -2 "cannot parse net"
check "net add --net bogus --if lo: the kernel's LNET_NET_ANY, lnet_dyn_add_ni's -ENOENT" \
	out_err 234 "$work/empty" "$work/blk" net add --net bogus --if lo
check "net add --ip2net R --if lo: the rules cleared by the items' key, the NI under no net" \
	out_err 234 "$work/empty" "$work/blk" net add --ip2net 'tcp(lo) 127.*.*.*' --if lo
check "net add --nid N@bogus: net type <?>, its NID passed over, nothing added, exit 0" \
	out_err 0 "$work/empty" "$work/empty" net add --nid "$net.3@bogus"
check "net add --net tcp3 --ip2net R: the rules not sent, a net type alone adds nothing" \
	out_err 0 "$work/empty" "$work/empty" net add --net tcp3 --ip2net 'tcp3(lo) 127.*.*.*'
check "... so no tcp3 NI" sh -c "! '$ctl' --name '$d' net show | grep -q tcp3"
check "net add --nid N2,N3 --if lo on tcp2: three NIs" out_err 0 "$work/empty" \
	"$work/empty" net add --nid "$net.2@tcp2,$net.3@tcp2" --if lo
check "... net show lists the three" sh -c \
	"'$ctl' --name '$d' net show --net tcp2 | sed -n 's/^ *- *nid: /nid:/p' | sort | tr '\\n' ' ' | grep -qx 'nid:127.0.0.1@tcp2 nid:$net.2@tcp2 nid:$net.3@tcp2 '"
nlblk -17 "cannot add LNet NI"
check "net add --nid N4,N2 on tcp2: N4 added, N2 there already: -17 ends it" out_err 234 \
	"$work/empty" "$work/blk" net add --nid "$net.4@tcp2,$net.2@tcp2"
check "... N4 stayed" sh -c "'$ctl' --name '$d' net show --net tcp2 | grep -q 'nid: $net.4@tcp2'"
nlblk -22 "unsupported NID"
check "net add --nid N@tcp2,junk@tcp2: the second NID libcfs_strnid refuses" out_err 234 \
	"$work/empty" "$work/blk" net add --nid "$net.5@tcp2,junk@tcp2"
nlblk -34 "failed to parse lnd tunables"
check "net add --conns-per-peer 128: ksocknal_nl_set's -ERANGE" out_err 234 "$work/empty" \
	"$work/blk" net add --nid "$net.6@tcp2" --conns-per-peer 128
nlblk -34 "invalid CPT value"
check "net add --cpt 4096: lnet_genl_parse_local_ni's -ERANGE" out_err 234 "$work/empty" \
	"$work/blk" net add --nid "$net.6@tcp2" --cpt 4096
check "net add --cpt x, --credits y, --auth-key, --skip-mr-route-setup, extra words: ignored" \
	out_err 0 "$work/empty" "$work/empty" net add --nid "$net.6@tcp2" --cpt x --credits y \
	--auth-key 3 --skip-mr-route-setup extra words
check "... the NI is there with the default credits" sh -c \
	"'$ctl' --name '$d' net show -v --net tcp2 | grep -q '      credits: 256'"
check "net add --peer-credits twice: the last wins" out_err 0 "$work/empty" "$work/empty" \
	net add --nid "$net.7@tcp2" --peer-credits 5 --peer-credits 7
check "... peer_credits 7" sh -c \
	"'$ctl' --name '$d' net show -v --net tcp2 | grep -q '      peer_credits: 7'"
check "net del --net tcp2" "$ctl" --name "$d" net del --net tcp2
line "--net is invalid with --nid option"
check "net del --net with --nid: jt_del_ni's line, exit 234" out_err 234 "$work/want" \
	"$work/empty" net del --net tcp --nid "$net.1@tcp"
nlblk -2 "cannot setup ip2nets"
check "net add --ip2net matching nothing: lnet_handle_legacy_ip2nets' -ENOENT" out_err 234 \
	"$work/empty" "$work/blk" net add --ip2net 'tcp4 10.255.255.*'

# ping: a range's NIDs go as text; one the kernel cannot read fails the
# whole request before any ping (lnet_ping_show_start: "cannot parse NID").
blk manage ping -22 "cannot parse NID"
check "ping '10.0.0.[1-2]@bogus': cannot parse NID, exit 234" out_err 234 "$work/empty" \
	"$work/blk" ping '10.0.0.[1-2]@bogus'
check "ping '10.0.0.[0]@tcp': names nothing, prints nothing, exit 0" out_err 0 "$work/empty" \
	"$work/empty" ping '10.0.0.[0]@tcp'

# route add: a range's gateway the kernel cannot read (lnet_route_cmd).
blk add route -19 "cannot parse gateway"
check "route add --gateway '10.0.0.[1-2]@bogus': cannot parse gateway, -19" out_err 234 \
	"$work/empty" "$work/blk" route add --net tcp9 --gateway '10.0.0.[1-2]@bogus'

# peer add --nid with a range the kernel cannot read: the NIDs before it
# added, then "unsupported secondary NID" and the peer deleted (report_err).
blk add peer -22 "unsupported secondary NID"
check "peer add --nid '10.1.0.[1-2]@bogus': unsupported secondary NID" out_err 234 "$work/empty" \
	"$work/blk" peer add --prim_nid 10.1.0.9@tcp --nid '10.1.0.[1-2]@bogus'
check "... and no peer is left" sh -c "! '$ctl' --name '$d' peer show --nid 10.1.0.9@tcp >/dev/null 2>&1"
check "peer add --nid '10.1.0.[1-2]@tcp' (a range's NIDs as text): ok" out_err 0 "$work/empty" \
	"$work/empty" peer add --prim_nid 10.1.0.9@tcp --nid '10.1.0.[1-2]@tcp'
check "... the peer has its three NIDs" sh -c \
	"'$ctl' --name '$d' peer show --nid 10.1.0.9@tcp | grep -c '^      -     nid: 10.1.0.[129]@tcp$' | grep -qx 3"
check "peer del of it" out_err 0 "$work/empty" "$work/empty" peer del --prim_nid 10.1.0.9@tcp

# --non_mr: 2.17 sends "Multi-Rail: False", which lnet_peer_ni_cmd() drops;
# nothing printed and the peer is Multi-Rail.
check "peer add --non_mr: nothing printed, exit 0" out_err 0 "$work/empty" "$work/empty" \
	peer add --prim_nid 10.2.0.1@tcp --nid 10.2.0.2@tcp --non_mr
check "... the peer is Multi-Rail" sh -c \
	"'$ctl' --name '$d' peer show --nid 10.2.0.1@tcp | grep -qx '      Multi-Rail: true'"

finish errshapes_misc
