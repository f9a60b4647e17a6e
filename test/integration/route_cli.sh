#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lnetctl route add|del|show, routing show and set routing|*_buffers
# against lnetd-pmd, as the kernel's 2.17 lnetctl takes and prints them
# (lnet/utils/lnetctl.c jt_add_route/jt_del_route/jt_show_route over its
# netlink route command, jt_show_routing, jt_set_*; api-ni.c lnet_route_cmd
# and router.c lnet_add_route for the refusals): every refusal with its
# errno, words, stream and exit status; show and show -v byte for byte,
# with the kernel's filters; del; routing show as routing goes from off to
# starting (enable: 3) to on (enable: 1, with --lnet-params' short router
# intervals); the pools resized; route:, routing: and buffers: in export
# (full and --backup), import (and --del) on a fresh daemon, and --config.
# No gateway answers the first daemon: its routes are down, as the kernel
# shows them; then one daemon routes for another, whose route goes up.
# No root needed: NIs listen on a high port on 127.0.0.0/8.
#   route_cli.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
port=$(( 20000 + $$ % 20000 ))
n3=127.0.$(( $$ % 200 + 20 ))
ip1=$n3.51 gw=$n3.52 gw2=$n3.53 gw3=$n3.54 gw4=$n3.55
a=lnetd-route-a-$$ b=lnetd-route-b-$$ c=lnetd-route-c-$$ d=lnetd-route-d-$$
ctl_name=$a
# Small pools (the default large pool is 1 GiB); totals any CPT count divides.
bufs=tiny_router_buffers=64,small_router_buffers=32,large_router_buffers=8
fast=alive_router_check_interval=1,router_ping_timeout=1

start() { sd=$1; shift; start_daemon "$sd" --accept-port "$port" --accept all "$@"; }

: >"$work/empty"
yaml_ok() { python3 -c 'import yaml,sys; list(yaml.safe_load_all(sys.stdin))' <"$1"; }
# nl VERB ERRNO DESCR: the kernel's netlink error block (yaml_lnet_print_error), into $work/block
nl() { printf -- '---\n%s:\n-     route:\n      errno: %s\n      descr: ! "%s"\n...\n' "$1" "$2" "$3" >"$work/block"; }
# refused ERRNO DESCR route-add-args...: nothing on stdout, the block on stderr, exit 234
refused() {
	nl add "$1" "$2"
	shift 2
	out_err 234 "$work/empty" "$work/block" route add "$@"
}
# one route of show (net gateway) or show -v (net gateway hop priority), into stdout
rt() {
	printf -- '-     net: %s\n      gateway: %s\n' "$1" "$2"
	[ $# -gt 2 ] && printf '      hop: %s\n      priority: %s\n      state: down\n      type: multi-hop\n' "$3" "$4"
	return 0
}
# routing_yaml ENABLE TINY SMALL LARGE NCPTS: routing show for these totals, into stdout
routing_yaml() {
	printf 'routing:\n'
	i=0
	while [ "$i" -lt "$5" ]; do
		printf '    - cpt[%s]:\n' "$i"
		for pool in "tiny 0 $2" "small 1 $3" "large 256 $4"; do
			name=${pool%% *} rest=${pool#* }
			pages=${rest%% *} total=${rest#* }
			per=$((total / $5))
			[ "$per" -lt 1 ] && per=1
			printf '          %s:\n              npages: %s\n              nbuffers: %s\n' "$name" "$pages" "$per"
			printf '              credits: %s\n              mincredits: %s\n' "$per" "$per"
		done
		i=$((i + 1))
	done
	printf '    - enable: %s\nbuffers:\n' "$1"
	for t in "tiny $2" "small $3" "large $4"; do
		per=$((${t#* } / $5))
		[ "$per" -lt 1 ] && per=1
		printf '    %s: %s\n' "${t%% *}" $((per * $5))
	done
}
ncpts() { "$ctl" --name "$1" routing show | grep -c 'cpt\['; }

check "daemon $a starts (small router pools)" start "$a" --lnet-params "$bufs"
pid_a=$pid

# --- nothing yet ---
check "route show with no route: nothing, exit 0" out_err 0 "$work/empty" "$work/empty" route show
check "route show -v with no route: nothing, exit 0" out_err 0 "$work/empty" "$work/empty" route show -v
check "routing show before routing was ever on: nothing, exit 0 (the kernel has no pools)" \
	out_err 0 "$work/empty" "$work/empty" routing show
check "net add $ip1@tcp" "$ctl" --name "$a" net add --nid "$ip1@tcp"

# --- route add: the kernel's checks, its lnetctl's first ---
printf "missing mandatory parameters:'net , gateway'\n" >"$work/o1"
check "route add alone: both named on stdout, exit 234" out_err 234 "$work/o1" "$work/empty" route add
printf "missing mandatory parameters:'gateway'\n" >"$work/o1"
check "route add without --gateway" out_err 234 "$work/o1" "$work/empty" route add --net tcp1 --hop 2
printf "missing mandatory parameters:'net'\n" >"$work/o1"
check "route add without --net" out_err 234 "$work/o1" "$work/empty" route add --gateway "$gw@tcp"
check "ANY gateway: its nidlist parse refuses it, -22" \
	refused -22 '\"Unable to parse nidlist: LNET_ANY_NID is unsupported\"' --net tcp1 --gateway '<?>'
check "a gateway with '*': -22" refused -22 "asterisk not allowed in nidstring" --net tcp1 --gateway "$n3.*@tcp"
check "a gateway without '@': -22" \
	refused -22 '\"Unable to parse nidlist: no valid NIDs in string\"' --net tcp1 --gateway "$gw"
check "an unparsable gateway: -22" \
	refused -22 '\"Unable to parse nidlist: invalid NID in nidstr\"' --net tcp1 --gateway 1.2.3@tcp
check "gateway 0@lo: -22 invalid settings" refused -22 "invalid settings for route creation" --net tcp1 --gateway 0@lo
check "net lo: -13" refused -13 "setting @lo not allowed" --net lo --gateway "$gw@tcp"
check "an unparsable net (read as ANY): -6" refused -6 "setting LNET_NET_ANY not allowed" --net frob --gateway "$gw@tcp"
long=tcp$(printf '%070d' 1)
check "a net longer than a NID string: -7, as the kernel's copy of it fails" \
	refused -7 "net key string is invalid" --net "$long" --gateway "$gw@tcp"
check "a gateway on the remote net itself: -22" \
	refused -22 "invalid settings for route creation" --net tcp1 --gateway "$gw@tcp1"
check "hop 0: -22" refused -22 "invalid hop count must be between 1 and 255" --net tcp1 --gateway "$gw@tcp" --hop 0
check "hop 256 (--hop-count): -22" \
	refused -22 "invalid hop count must be between 1 and 255" --net tcp1 --gateway "$gw@tcp" --hop-count 256
check "priority -5: -22" \
	refused -22 "invalid priority, must not be negative" --net tcp1 --gateway "$gw@tcp" --priority -5
check "a local remote net: -17 (the capture's words)" \
	refused -17 "Route already exists or the specified network is local" --net tcp --gateway "$gw@tcp1"
check "a gateway whose net is not local: -113" \
	refused -113 "No interface configured on the same net as gateway" --net tcp2 --gateway "$gw@tcp9"
"$ctl" route add -h >"$work/add_help"
check "--health_sensitivity: in the kernel's help, not in its getopt: the help, exit 0" \
	out_err 0 "$work/add_help" "$work/empty" route add --net tcp1 --gateway "$gw@tcp" --health_sensitivity 5
check "... and no route was added" out_err 0 "$work/empty" "$work/empty" route show

# --- adds ---
check "route add tcp1 via $gw@tcp: nothing printed, exit 0" \
	out_err 0 "$work/empty" "$work/empty" route add --net tcp1 --gateway "$gw@tcp"
check "the same again: -17" \
	refused -17 "Route already exists or the specified network is local" --net tcp1 --gateway "$gw@tcp"
check "route add tcp2 via $gw2@tcp, hop 2, priority 5" \
	out_err 0 "$work/empty" "$work/empty" route add --net tcp2 --gateway "$gw2@tcp" --hop 2 --priority 5
check "route add tcp3 via a range of two gateways, --hop-count 1" \
	out_err 0 "$work/empty" "$work/empty" route add --net tcp3 --gateway "$n3.[53-54]@tcp" --hop-count 1
check "route add tcp4 with --hop abc (not a number: left out, as the kernel's)" \
	out_err 0 "$work/empty" "$work/empty" route add --net tcp4 --gateway "$gw@tcp" --hop abc
check "two gateways, the second refused: the first is added, then -17, exit 234" sh -c \
	"'$ctl' --name '$a' route add --net tcp1 --gateway '$gw4@tcp,$gw@tcp' >/dev/null 2>'$work/e'; [ \$? -eq 234 ] && grep -q 'errno: -17' '$work/e' && '$ctl' --name '$a' route show --net tcp1 | grep -q 'gateway: $gw4@tcp'"
check "route del of that one" "$ctl" --name "$a" route del --net tcp1 --gateway "$gw4@tcp"
check "the gateways are peers now" sh -c \
	"'$ctl' --name '$a' peer show | grep -q 'primary nid: $gw@tcp' && '$ctl' --name '$a' peer show | grep -q 'primary nid: $gw3@tcp'"

# --- show ---
{ printf 'route:\n'; rt tcp1 "$gw@tcp"; rt tcp2 "$gw2@tcp"; rt tcp3 "$gw2@tcp"; rt tcp3 "$gw3@tcp"
  rt tcp4 "$gw@tcp"; } >"$work/show"
check "route show: net and gateway of each, the netlink layout" out_err 0 "$work/show" "$work/empty" route show
{ printf 'route:\n'; rt tcp1 "$gw@tcp" -1 0; rt tcp2 "$gw2@tcp" 2 5; rt tcp3 "$gw2@tcp" 1 0
  rt tcp3 "$gw3@tcp" 1 0; rt tcp4 "$gw@tcp" -1 0; } >"$work/show_v"
check "route show -v: hop (-1 unset), priority, state down, type multi-hop (no gateway answers)" \
	out_err 0 "$work/show_v" "$work/empty" route show -v
check "route show --verbose: the same" out_err 0 "$work/show_v" "$work/empty" route show --verbose
"$ctl" --name "$a" route show -v >"$work/o1"
check "route show -v is valid YAML" yaml_ok "$work/o1"
{ printf 'route:\n'; rt tcp3 "$gw2@tcp"; rt tcp3 "$gw3@tcp"; } >"$work/want"
check "show --net tcp3" out_err 0 "$work/want" "$work/empty" route show --net tcp3
{ printf 'route:\n'; rt tcp2 "$gw2@tcp"; rt tcp3 "$gw2@tcp"; } >"$work/want"
check "show --gateway $gw2@tcp" out_err 0 "$work/want" "$work/empty" route show --gateway "$gw2@tcp"
{ printf 'route:\n'; rt tcp2 "$gw2@tcp" 2 5; } >"$work/want"
check "show --net tcp2 --hop 2 -v" out_err 0 "$work/want" "$work/empty" route show --net tcp2 --hop 2 -v
check "show --net tcp2 --hop 3: nothing, exit 0" out_err 0 "$work/empty" "$work/empty" route show --net tcp2 --hop 3
check "show --net tcp2 --priority 5 -v" out_err 0 "$work/want" "$work/empty" route show --net tcp2 --priority 5 -v
check "show --hop 2 alone: every route (the kernel's lnetctl sends no filter then)" \
	out_err 0 "$work/show" "$work/empty" route show --hop 2
check "show --net frob: every route (an unparsable net reads as any)" \
	out_err 0 "$work/show" "$work/empty" route show --net frob
check "show --net tcp9: nothing, exit 0 (\"No routes found\" is kept quiet)" \
	out_err 0 "$work/empty" "$work/empty" route show --net tcp9
{ printf 'route:\n'; rt tcp2 "$gw2@tcp"; rt tcp3 "$gw2@tcp"; rt tcp3 "$gw3@tcp"; } >"$work/want"
check "show --gateway over a range: one filter per NID, in turn" \
	out_err 0 "$work/want" "$work/empty" route show --gateway "$n3.[53-54]@tcp"
nl show -22 '\"Unable to parse nidlist: LNET_ANY_NID is unsupported\"'
check "show --gateway '<?>': the block under show:, exit 234" out_err 234 "$work/empty" "$work/block" route show --gateway '<?>'
check "show --frob: its help, exit 0" sh -c "'$ctl' --name '$a' route show --frob 3 x | head -1 | grep -qx 'route show: show routes'"

# --- del ---
printf "missing mandatory parameters:'gateway'\n" >"$work/o1"
check "route del --net alone: the kernel's lnetctl wants a gateway" out_err 234 "$work/o1" "$work/empty" route del --net tcp1
printf "missing mandatory parameters:'net'\n" >"$work/o1"
check "route del --gateway alone (all routes of a gateway): the kernel's lnetctl wants a net" \
	out_err 234 "$work/o1" "$work/empty" route del --gateway "$gw@tcp"
nl del -2 "failed to delete route"
check "route del of a net with no route: -2" out_err 234 "$work/empty" "$work/block" route del --net tcp9 --gateway "$gw@tcp"
nl del -13 "setting @lo not allowed"
check "route del --net lo: -13" out_err 234 "$work/empty" "$work/block" route del --net lo --gateway "$gw@tcp"
check "route del through a gateway that routes nothing there: nothing done, exit 0" \
	out_err 0 "$work/empty" "$work/empty" route del --net tcp1 --gateway "$gw4@tcp"
check "route del of tcp3 through the range: both its routes" \
	out_err 0 "$work/empty" "$work/empty" route del --net tcp3 --gateway "$n3.[53-54]@tcp"
check "route del tcp4" out_err 0 "$work/empty" "$work/empty" route del --net tcp4 --gateway "$gw@tcp"
{ printf 'route:\n'; rt tcp1 "$gw@tcp"; rt tcp2 "$gw2@tcp"; } >"$work/want"
check "show after the deletes" out_err 0 "$work/want" "$work/empty" route show

# --- routing and its buffers ---
check "set routing 1: nothing printed, exit 0" out_err 0 "$work/empty" "$work/empty" set routing 1
n=$(ncpts "$a")
routing_yaml 3 64 32 8 "$n" >"$work/want"
check "routing show: each CPT's pools, then enable: 3 (starting, 110 s by default), then buffers" \
	out_err 0 "$work/want" "$work/empty" routing show
check "set routing 1 again: nothing to do, exit 0" out_err 0 "$work/empty" "$work/empty" set routing 1
check "set tiny_buffers 128" out_err 0 "$work/empty" "$work/empty" set tiny_buffers 128
routing_yaml 3 128 32 8 "$n" >"$work/want"
check "routing show: the tiny pools resized, buffers: tiny 128" out_err 0 "$work/want" "$work/empty" routing show
printf 'add:\n    - buf:\n          errno: -34\n          descr: "tiny, small and large must be >= 0"\n' >"$work/want"
check "set small_buffers -2: the kernel library's -ERANGE, exit 222" out_err 222 "$work/empty" "$work/want" set small_buffers -2
check "set large_buffers -1: the kernel's 'leave it', exit 0" out_err 0 "$work/empty" "$work/empty" set large_buffers -1
routing_yaml 3 128 32 8 "$n" >"$work/want"
check "... nothing changed" out_err 0 "$work/want" "$work/empty" routing show
printf 'parser:\n    - set:\n          errno: -1\n          descr: "cannot parse routing value.\n                 must be 0 for disable or 1 for enable"\n' >"$work/want"
check "set routing 2: the kernel's two lines, exit 255" out_err 255 "$work/empty" "$work/want" set routing 2
printf 'parser:\n    - set:\n          errno: -1\n          descr: "cannot parse large_buffers value"\n' >"$work/want"
check "set large_buffers x: exit 255" out_err 255 "$work/empty" "$work/want" set large_buffers x
check "routing show with options: read past, as the kernel's" sh -c \
	"'$ctl' --name '$a' routing show --frob | head -1 | grep -qx 'routing:'"

# --- export ---
"$ctl" --name "$a" export >"$work/full.yaml"
"$ctl" --name "$a" export --backup >"$work/backup.yaml"
check "export is valid YAML" yaml_ok "$work/full.yaml"
check "export --backup is valid YAML" yaml_ok "$work/backup.yaml"
check "export: net, route, peer, routing, buffers, global in the kernel's order" sh -c \
	"grep -E '^[a-z]+:' '$work/full.yaml' | tr -d '\\n' | grep -qx 'net:route:peer:routing:buffers:global:'"
{ printf 'route:\n'; rt tcp1 "$gw@tcp" -1 0; rt tcp2 "$gw2@tcp" 2 5; } >"$work/want"
check "export: route: as show -v prints it" sh -c "sed -n '/^route:/,/^peer:/p' '$work/full.yaml' | sed '\$d' | cmp -s - '$work/want'"
printf 'route:\n-     net: tcp1\n      gateway: %s@tcp\n      hop: -1\n      priority: 0\n-     net: tcp2\n      gateway: %s@tcp\n      hop: 2\n      priority: 5\n' \
	"$gw" "$gw2" >"$work/want"
check "export --backup: route: without state and type" sh -c \
	"sed -n '/^route:/,/^peer:/p' '$work/backup.yaml' | sed '\$d' | cmp -s - '$work/want'"
printf 'routing:\n    enable: 3\nbuffers:\n    tiny: %s\n    small: %s\n    large: %s\n' \
	$((128 / n * n)) $((32 / n * n)) $((8 / n * n)) >"$work/want"
check "export --backup: routing: as a mapping, then buffers:" sh -c \
	"sed -n '/^routing:/,/^global:/p' '$work/backup.yaml' | sed '\$d' | cmp -s - '$work/want'"
routing_yaml 3 128 32 8 "$n" >"$work/want"
check "export: routing: and buffers: as routing show prints them" sh -c \
	"sed -n '/^routing:/,/^global:/p' '$work/full.yaml' | sed '\$d' | cmp -s - '$work/want'"
check "SIGTERM: $a exits 0" stop_daemon "$pid_a"

# --- routing on for good, with short router intervals ---
check "daemon $b starts with --lnet-params $fast,..." start "$b" --lnet-params "$fast,$bufs"
pid_b=$pid
ctl_name=$b
check "b: import of a's backup (net, routes, peers, routing, buffers, global)" \
	out_err 0 "$work/empty" "$work/empty" import "$work/backup.yaml"
routing_on() { "$ctl" --name "$1" routing show | grep -qx '    - enable: 1'; }
check "b: routing show says enable: 1 within a few seconds (forwarding after 2 s)" eventually 10 routing_on "$b"
{ printf 'route:\n'; rt tcp1 "$gw@tcp" -1 0; rt tcp2 "$gw2@tcp" 2 5; } >"$work/want"
check "b: route show -v after import" out_err 0 "$work/want" "$work/empty" route show -v
# The file's peers are the gateways a's routes made, in order: b's route: section
# made its own for $gw and $gw2, and the first peer add of peer:, over $gw's,
# fails -EBUSY as 2.17's lnet_peer_add (a gateway's peer cannot be deleted and
# made again); the kernel stops the section there and nobody reads its reply.
# So $gw3 and $gw4 are not added, and $gw's and $gw2's stay as the routes made them.
sed 's/^    enable: 3$/    enable: 1/' "$work/backup.yaml" |
	awk -v g3="$gw3@tcp" -v g4="$gw4@tcp" '/^[a-z]/ { skip = 0 } /^-     primary nid: / { skip = ($4 == g3 || $4 == g4) } !skip' \
	>"$work/backup_on.yaml"
check "b: the peers of a's backup after the first one (a gateway of b's routes) were not added" sh -c \
	"! grep -q '$gw3@tcp' '$work/backup_on.yaml' && grep -q 'primary nid: $gw2@tcp' '$work/backup_on.yaml'"
check "b: export --backup is a's, routing on, without those peers" sh -c "'$ctl' --name '$b' export --backup | diff '$work/backup_on.yaml' -"
"$ctl" --name "$b" export --backup >"$work/backup_b.yaml"

# a fresh daemon: b's export imports back and exports the same
check "daemon $c starts with the same parameters" start "$c" --lnet-params "$fast,$bufs"
pid_c=$pid
ctl_name=$c
check "c: import of b's export --backup" out_err 0 "$work/empty" "$work/empty" import "$work/backup_b.yaml"
check "c: routing on within a few seconds" eventually 10 routing_on "$c"
check "c: export --backup is b's, byte for byte" sh -c "'$ctl' --name '$c' export --backup | diff '$work/backup_b.yaml' -"
printf 'route:\n    - net: tcp2\n      gateway: %s@tcp\n    - net: tcp1\n      gateway: %s@tcp\n' "$gw" "$gw" >"$work/dup.yaml"
printf -- '---\nadd:\n-     import:\n      errno: -17\n      descr: ! "Route already exists or the specified network is local"\n...\n' >"$work/want"
check "c: import of a route there is: the node's refusal under import:, exit 234" \
	out_err 234 "$work/empty" "$work/want" import "$work/dup.yaml"
{ printf 'route:\n'; rt tcp1 "$gw@tcp"; rt tcp2 "$gw2@tcp"; rt tcp2 "$gw@tcp"; } >"$work/want"
check "c: ... the routes before it were added (the kernel's import stops there too)" \
	out_err 0 "$work/want" "$work/empty" route show
check "c: route del of the one imported" "$ctl" --name "$c" route del --net tcp2 --gateway "$gw@tcp"
check "c: import --del of the backup: routes, peers and the NI gone; routing stays (the kernel's routing command reads no --del)" sh -c \
	"'$ctl' --name '$c' import --del '$work/backup_b.yaml' && [ -z \"\$('$ctl' --name '$c' route show)\" ] && [ \$('$ctl' --name '$c' net show | grep -c 'nid:') -eq 1 ] && '$ctl' --name '$c' routing show | grep -qx '    - enable: 1'"

# b as a router between tcp and tcp1, c with a route through it: up once b answers as one.
ctl_name=$c
check "c: net add $gw3@tcp" "$ctl" --name "$c" net add --nid "$gw3@tcp"
check "b: net add $gw4@tcp1 (b routes between tcp and tcp1)" "$ctl" --name "$b" net add --nid "$gw4@tcp1"
check "c: route add tcp1 via b ($ip1@tcp), hop 1" "$ctl" --name "$c" route add --net tcp1 --gateway "$ip1@tcp" --hop 1
route_up() {
	printf 'route:\n-     net: tcp1\n      gateway: %s@tcp\n      hop: 1\n      priority: 0\n      state: up\n      type: single-hop\n' "$ip1" >"$work/up"
	"$ctl" --name "$c" route show -v | cmp -s - "$work/up"
}
check "c: the route goes up, single-hop (b has tcp1), within a few seconds" eventually 10 route_up
check "SIGTERM: $c exits 0" stop_daemon "$pid_c"

ctl_name=$b
check "b: set routing 0: nothing printed, exit 0" out_err 0 "$work/empty" "$work/empty" set routing 0
check "b: routing show right after: enable: 2 (stopping)" sh -c \
	"'$ctl' --name '$b' routing show | grep -qx '    - enable: 2'"
check "SIGTERM: $b exits 0" stop_daemon "$pid_b"

# --- --config: route:, routing: (either form) and buffers: applied after the NIs and peers ---
printf 'net:\n    - net type: tcp\n      local NI(s):\n        - nid: %s@tcp\nroute:\n    - net: tcp1\n      gateway: %s@tcp\n      hop: 3\n      priority: 1\n      state: up\n      type: single-hop\n    - net: tcp2\n      gateway: %s@tcp\nrouting:\n    - cpt[0]:\n          tiny:\n              npages: 0\n    - enable: 1\nbuffers:\n    tiny: 32\n    small: 16\n    large: 4\n' \
	"$ip1" "$gw" "$gw2" >"$work/config.yaml"
check "daemon $d starts with --config (route:, routing: as show prints it, buffers:)" \
	start "$d" --lnet-params "$fast,$bufs" --config "$work/config.yaml"
pid_d=$pid
ctl_name=$d
{ printf 'route:\n'; rt tcp1 "$gw@tcp" 3 1; rt tcp2 "$gw2@tcp" -1 0; } >"$work/want"
check "--config: its routes (state and type of the file read past)" out_err 0 "$work/want" "$work/empty" route show -v
check "--config: routing on" eventually 10 routing_on "$d"
n=$(ncpts "$d")
# The start-up file's buffers: size the pools routing starts with (over --lnet-params,
# as module parameters would): no default pools to shrink first.
routing_yaml 1 32 16 4 "$n" >"$work/want"
check "--config: its buffers: the sizes routing starts with" \
	out_err 0 "$work/want" "$work/empty" routing show
check "SIGTERM: $d exits 0" stop_daemon "$pid_d"
printf 'net:\n    - net type: tcp\n      local NI(s):\n        - nid: %s@tcp\nroute:\n    - net: tcp1\n      gateway: %s@tcp\n      hop: 0\n' \
	"$ip1" "$gw" >"$work/badconf.yaml"
check "--config with hop 0: refused with its location, in the kernel's words" sh -c \
	"! '$daemon' -- --name bad-$$ --config '$work/badconf.yaml' 2>'$work/e' && grep -q 'badconf.yaml:8:12: route: invalid hop count must be between 1 and 255' '$work/e'"
printf 'route:\n    - net: tcp1\n      gateway: %s@tcp\n' "$gw" >"$work/badconf2.yaml"
check "--config with a route the node refuses (no NI on the gateway's net): refused with its location" sh -c \
	"! '$daemon' -- --name bad2-$$ --config '$work/badconf2.yaml' 2>'$work/e' && grep -q 'badconf2.yaml:2:7: route: ' '$work/e'"

# --- --lnet-params ---
check "--help names --lnet-params" sh -c "'$daemon' -- --help | grep -q -- '--lnet-params NAME=VALUE'"
check "--lnet-params without NAME=VALUE: refused before EAL starts, exit 2" sh -c \
	"'$daemon' -- --name bad3-$$ --lnet-params router_ping_timeout 2>'$work/e'; [ \$? -eq 2 ] && grep -q -- '--lnet-params: .router_ping_timeout.: NAME=VALUE expected' '$work/e'"
check "--lnet-params with a name lnet has not: refused, exit 1" sh -c \
	"'$daemon' -- --name bad4-$$ --lnet-params frob=1 >/dev/null 2>'$work/e'; [ \$? -eq 1 ] && grep -q -- '--lnet-params: ' '$work/e'"
check "no sanitizer report" sh -c "! cat '$work'/*.err | grep -q Sanitizer"
finish route_cli
