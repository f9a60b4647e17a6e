#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# import's sections other than net (global, peer, route, udsp, routing,
# numa), the order it applies them in and where it stops, and debug
# peer / debug recovery, byte for byte against 2.17's lnetctl
# (lnet/utils/lnetctl.c jt_import, handle_global_parameter,
# yaml_lnet_extract_long, handle_udsp_sequences; lnet/lnet/api-ni.c
# lnet_peer_ni_cmd and lnet_route_cmd for the netlink texts): stdout and
# stderr apart, and the exit status.
#   errshapes_import.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"

: >"$work/empty"
# nl VERB DESCR ERRNO: yaml_lnet_print_error's block under "import", in $work/want
nl() { printf -- '---\n%s:\n-     import:\n      errno: %s\n      descr: ! "%s"\n...\n' "$1" "$3" "$2" >"$work/want"; }
file() { printf "$2" >"$work/$1.yaml"; }

a=lnetd-errimp-$$
ctl_name=$a
# Small router pools: the default large pool is 1 GiB, made by the data lcore at
# set routing 1, which under ASan on a loaded machine once took past lnetctl's 60 s
check "daemon $a starts" start_daemon "$a" \
	--lnet-params tiny_router_buffers=64,small_router_buffers=32,large_router_buffers=8

# --- global: ---
file gkey 'global:\n    frob: 3\n'
nl add "invalid key 'frob'" -22
check "global: an unknown key: handle_global_parameter's block, exit 234" out_err 234 "$work/empty" "$work/want" import "$work/gkey.yaml"
file top 'frob:\n    - a: 1\n'
check "an unknown section is read as a global key: the same block" out_err 234 "$work/empty" "$work/want" import "$work/top.yaml"
nl del "invalid key 'frob'" -22
check "the same with --del: under del:" out_err 234 "$work/empty" "$work/want" import --del "$work/gkey.yaml"
file gval 'global:\n    retry_count: abc\n'
nl add "invalid value 'abc' for key 'retry_count'" -22
check "global: a value that is no number: yaml_lnet_extract_long's block" out_err 234 "$work/empty" "$work/want" import "$work/gval.yaml"
file gnone 'global:\n    retry_count:\n'
nl add "no value specified for key 'retry_count'" -22
check "global: no value: its other block" out_err 234 "$work/empty" "$work/want" import "$work/gnone.yaml"
file ghs 'global:\n    health_sensitivity: 5000\n'
check "global: a value the node refuses: nothing printed (the error tree is dropped), -ENODATA (195)" \
	out_err 195 "$work/empty" "$work/empty" import "$work/ghs.yaml"
file grt 'global:\n    response_tracking: 7\n'
check "global: a value the library refuses: nothing printed, -EINVAL (234)" \
	out_err 234 "$work/empty" "$work/empty" import "$work/grt.yaml"
check "set discovery 0" out_err 0 "$work/empty" "$work/empty" set discovery 0
file gdisc 'global:\n    discovery: 0\n    retry_count: 5\n'
check "import --del of discovery: puts discovery back on, leaves retry_count" sh -c \
	"'$ctl' --name '$a' import --del '$work/gdisc.yaml' && '$ctl' --name '$a' global show | grep -qx '    discovery: 1' && '$ctl' --name '$a' global show | grep -qx '    retry_count: 2'"

# --- peer: (lnet_peer_ni_cmd) ---
file pprim 'peer:\n    - primary nid: 10.9.0.x@tcp\n'
nl add "unsupported primary NID" -22
check "peer: a primary NID that does not parse: the kernel's text, exit 234" out_err 234 "$work/empty" "$work/want" import "$work/pprim.yaml"
file psec 'peer:\n    - primary nid: 10.9.0.1@tcp\n      peer ni:\n        - nid: 10.9.0.2@@tcp\n'
nl add "unsupported secondary NID" -22
check "peer: a secondary NID that does not parse" out_err 234 "$work/empty" "$work/want" import "$work/psec.yaml"
file pmr 'peer:\n    - primary nid: 10.9.0.1@tcp\n      Multi-Rail: maybe\n'
nl add "invalid MR flag param" -22
check "peer: a Multi-Rail that is no flag" out_err 234 "$work/empty" "$work/want" import "$work/pmr.yaml"
file pdel 'peer:\n    - primary nid: 10.9.0.1@tcp\n'
nl del "failed to del primary peer" -2
check "import --del of a peer there is not: -ENOENT under del:" out_err 234 "$work/empty" "$work/want" import --del "$work/pdel.yaml"
file pfull 'peer:\n    - primary nid: 10.9.0.1@tcp\n      Multi-Rail: True\n      peer ni:\n        - nid: 10.9.0.1@tcp\n        - nid: 10.9.0.2@tcp\n        - nid: 10.9.0.3@tcp\n'
check "import of a peer with two more NIDs" out_err 0 "$work/empty" "$work/empty" import "$work/pfull.yaml"
file psub 'peer:\n    - primary nid: 10.9.0.1@tcp\n      peer ni:\n        - nid: 10.9.0.3@tcp\n'
check "import --del of a list without the primary: only that NID goes" sh -c \
	"'$ctl' --name '$a' import --del '$work/psub.yaml' && '$ctl' --name '$a' peer show >'$work/o' && grep -q 'nid: 10.9.0.2@tcp' '$work/o' && ! grep -q 'nid: 10.9.0.3@tcp' '$work/o'"
check "import --del of the export form (the list names the primary): the whole peer goes" sh -c \
	"'$ctl' --name '$a' import --del '$work/pfull.yaml' && [ -z \"\$('$ctl' --name '$a' peer show)\" ]"

# --- route: (lnet_route_cmd's texts and errnos) ---
file rgw 'route:\n    - net: tcp9\n      gateway: 1.2.3@tcp\n'
nl add "cannot parse gateway" -19
check "route: a gateway that does not parse: -ENODEV" out_err 234 "$work/empty" "$work/want" import "$work/rgw.yaml"
file rlo 'route:\n    - net: lo\n      gateway: 10.9.0.1@tcp\n'
nl add "setting @lo not allowed" -13
check "route: net lo: -EACCES" out_err 234 "$work/empty" "$work/want" import "$work/rlo.yaml"
file rnogw 'route:\n    - net: tcp9\n'
nl add "missing mandatory parameter: gateway" -19
check "route: no gateway: -ENODEV" out_err 234 "$work/empty" "$work/want" import "$work/rnogw.yaml"
file rhop 'route:\n    - net: tcp9\n      gateway: 10.9.0.1@tcp\n      hop: 300\n'
nl add "invalid hop count must be between 1 and 255" -22
check "route: hop 300" out_err 234 "$work/empty" "$work/want" import "$work/rhop.yaml"

# --- udsp: (handle_udsp_sequences) ---
file ucomb 'udsp:\n    - idx: 0\n      src: tcp\n      rte: tcp\n'
check "udsp: src with rte: the library refuses, nothing printed, exit 234" out_err 234 "$work/empty" "$work/empty" import "$work/ucomb.yaml"
file uidx 'udsp:\n    - idx: abc\n      src: tcp\n'
nl add "invalid value 'abc' for key 'idx'" -22
check "udsp: an idx that is no number: yaml_lnet_extract_long's block" out_err 234 "$work/empty" "$work/want" import "$work/uidx.yaml"
file unoidx 'udsp:\n    - src: tcp\n      action:\n          priority: 1\n'
check "udsp: a rule without idx is not added, exit 0" sh -c \
	"'$ctl' --name '$a' import '$work/unoidx.yaml' >'$work/o' 2>&1 && [ ! -s '$work/o' ] && [ -z \"\$('$ctl' --name '$a' udsp show)\" ]"
file udel 'udsp:\n    - idx: 4\n'
check "import --del of a rule there is not: nothing printed, l_ioctl's -1 (255)" out_err 255 "$work/empty" "$work/empty" import --del "$work/udel.yaml"

# --- file order (jt_import: sections applied as read; netlink replies read once, at the end) ---
has_peer() { "$ctl" --name "$a" peer show | grep -q "primary nid: $1\$"; }
hasnt_peer() { ! has_peer "$1"; }
glob() { "$ctl" --name "$a" global show | grep -qx "    $1: $2"; }
file ordA 'route:\n    - net: tcp9\n      gateway: 10.9.0.1@tcp\npeer:\n    - primary nid: 10.9.2.1@tcp\n'
nl add "No interface configured on the same net as gateway" -113
check "route: refused, then peer: the route's reply (the first netlink one), exit 234" out_err 234 "$work/empty" "$work/want" import "$work/ordA.yaml"
check "... and the peer: after it was added all the same" has_peer 10.9.2.1@tcp
file ordB 'peer:\n    - primary nid: 10.9.2.2@tcp\nroute:\n    - net: tcp9\n      gateway: 1.2.3@tcp\n'
check "peer: then a route: the kernel refuses: only the first reply is read, it says yes: nothing, exit 0" \
	out_err 0 "$work/empty" "$work/empty" import "$work/ordB.yaml"
check "... the peer is there, no route" sh -c "'$ctl' --name '$a' peer show | grep -q 'primary nid: 10.9.2.2@tcp' && [ -z \"\$('$ctl' --name '$a' route show)\" ]"
file ordC 'route:\n    - net: tcp9\n      gateway: 10.9.0.1@tcp\nglobal:\n    frob: 1\npeer:\n    - primary nid: 10.9.2.3@tcp\n'
nl add "invalid key 'frob'" -22
check "route: refused, then a global: error: that one stops it at once, the route's reply never read" \
	out_err 234 "$work/empty" "$work/want" import "$work/ordC.yaml"
check "... the peer: after it not added" hasnt_peer 10.9.2.3@tcp
file ordD 'global:\n    retry_count: 5\n    frob: 1\n    transaction_timeout: 100\npeer:\n    - primary nid: 10.9.2.x@tcp\n'
check "global: each setting as it is read: retry_count in, then frob stops it" out_err 234 "$work/empty" "$work/want" import "$work/ordD.yaml"
check "... retry_count 5, transaction_timeout untouched" sh -c "'$ctl' --name '$a' global show | grep -qx '    retry_count: 5' && '$ctl' --name '$a' global show | grep -qx '    transaction_timeout: 150'"
file ordE 'global:\n    retry_count: 3\npeer:\n    - primary nid: 10.9.2.4@tcp\n    - primary nid: 10.9.2.x@tcp\n    - primary nid: 10.9.2.5@tcp\n'
nl add "unsupported primary NID" -22
check "a NID the kernel cannot read: after the global: and the peers ahead of it took effect" \
	out_err 234 "$work/empty" "$work/want" import "$work/ordE.yaml"
check "... retry_count 3, the first peer in, the one after the bad NID not" sh -c \
	"'$ctl' --name '$a' global show | grep -qx '    retry_count: 3' && '$ctl' --name '$a' peer show | grep -q 'primary nid: 10.9.2.4@tcp' && ! '$ctl' --name '$a' peer show | grep -q 'primary nid: 10.9.2.5@tcp'"
file ordF 'peer:\n    - primary nid: 10.9.2.6@tcp\nudsp:\n    - idx: 0\n      src: tcp\n      rte: tcp\nglobal:\n    retry_count: 4\n'
check "peer:, then a rule the udsp library refuses: nothing printed, exit 234" out_err 234 "$work/empty" "$work/empty" import "$work/ordF.yaml"
check "... the peer in, the global: after it not applied" sh -c \
	"'$ctl' --name '$a' peer show | grep -q 'primary nid: 10.9.2.6@tcp' && '$ctl' --name '$a' global show | grep -qx '    retry_count: 3'"
file topg 'discovery: 0\nretry_count: 2\n'
check "a tunable at the top level is set, as handle_global_parameter reads it" sh -c \
	"'$ctl' --name '$a' import '$work/topg.yaml' && '$ctl' --name '$a' global show | grep -qx '    discovery: 0' && '$ctl' --name '$a' global show | grep -qx '    retry_count: 2' && '$ctl' --name '$a' set discovery 1"
file ordG 'peer:\n    - primary nid: 10.9.2.1@tcp\n    - primary nid: 10.9.2.2@tcp\n    - primary nid: 10.9.2.4@tcp\n    - primary nid: 10.9.2.6@tcp\n'
check "import --del of the peers left" out_err 0 "$work/empty" "$work/empty" import --del "$work/ordG.yaml"

# --- peer: without a primary NID; route: priority and health_sensitivity (lnet_peer_ni_cmd, lnet_route_cmd) ---
file pnoprim 'peer:\n    - primary nid: 10.9.3.1@tcp\n    - Multi-Rail: True\n    - primary nid: 10.9.3.2@tcp\n'
check "peer: an item without primary nid ends the section, success: nothing, exit 0" out_err 0 "$work/empty" "$work/empty" import "$work/pnoprim.yaml"
check "... the peer before it in, the one after it not" sh -c "'$ctl' --name '$a' peer show | grep -q 'primary nid: 10.9.3.1@tcp' && ! '$ctl' --name '$a' peer show | grep -q '10.9.3.2@tcp'"
file pnifirst 'peer:\n    - peer ni:\n        - nid: 10.9.3.3@tcp\n      primary nid: 10.9.3.3@tcp\n    - primary nid: 10.9.3.4@tcp\n'
check "peer: \"peer ni\" ahead of \"primary nid\": the same (missing required primary NID, status 0)" out_err 0 "$work/empty" "$work/empty" import "$work/pnifirst.yaml"
check "... nothing added" sh -c "! '$ctl' --name '$a' peer show | grep -q '10.9.3.[34]@tcp'"
file pdel2 'peer:\n    - primary nid: 10.9.3.1@tcp\n'
check "import --del of it" out_err 0 "$work/empty" "$work/empty" import --del "$work/pdel2.yaml"
lip=127.0.$(($$ % 200 + 20)).91
check "net add --nid $lip@tcp" "$ctl" --name "$a" net add --nid "$lip@tcp"
file rprio "route:\n    - net: tcp9\n      gateway: ${lip%.*}.92@tcp\n      priority: 4294967301\n      health_sensitivity: abc\n"
check "route: a priority past 32 bits is kept modulo 2^32, health_sensitivity not read: exit 0" out_err 0 "$work/empty" "$work/empty" import "$work/rprio.yaml"
check "... route show -v: priority 5" sh -c "'$ctl' --name '$a' route show -v | grep -qx '      priority: 5'"
check "import --del of it" out_err 0 "$work/empty" "$work/empty" import --del "$work/rprio.yaml"

# --- routing: refused by the node: libnl's text for the errno (its reply has no message) ---
routing_is() { "$ctl" --name "$a" routing show | grep -qx "    - enable: $1"; }
routing_up() { routing_is 1 || routing_is 3; }
check "set routing 1" out_err 0 "$work/empty" "$work/empty" set routing 1
check "routing on" eventually 10 routing_up
check "set routing 0: stopping" sh -c "'$ctl' --name '$a' set routing 0 && '$ctl' --name '$a' routing show | grep -qx '    - enable: 2'"
file ron 'routing:\n    enable: 1\n'
nl add "Object busy" -16
check "routing: enable while it stops: -EBUSY as nl_geterror words it, exit 234" out_err 234 "$work/empty" "$work/want" import "$work/ron.yaml"

# --- numa: (lnet_numa_cmd: the numa_range tunable; it reads no --del) ---
file numa 'numa:\n    range: 5\n'
check "numa: range 5" sh -c "'$ctl' --name '$a' import '$work/numa.yaml' && '$ctl' --name '$a' global show | grep -qx '    numa_range: 5'"
file numa2 'numa:\n    range: 6\n'
check "import --del of numa: range 6 sets 6" sh -c "'$ctl' --name '$a' import --del '$work/numa2.yaml' && '$ctl' --name '$a' global show | grep -qx '    numa_range: 6'"
file numa0 'numa:\n'
check "numa: with no range: 0" sh -c "'$ctl' --name '$a' import '$work/numa0.yaml' && '$ctl' --name '$a' global show | grep -qx '    numa_range: 0'"

# --- a syntax error part-way (jt_import acts on libyaml's events as they come) ---
# yaml_parser_log_error's words, nothing else (the netlink replies are not read), -EINVAL
syn() { printf '%s error: %s\n%s\n' "$1" "$2" "$3" >"$work/want"; }
no_route() { [ -z "$("$ctl" --name "$a" route show)" ]; }
file cut1 'global:\n    retry_count: 4\npeer:\n    - primary nid: 10.9.5.1@tcp\nroute:\n    - net: tcp9\n      gateway: [bad\n'
syn Parser "while parsing a flow sequence at line 7, column 16" "did not find expected ',' or ']' at line 8, column 1"
check "cut in route:: libyaml's words only, exit 234" out_err 234 "$work/empty" "$work/want" import "$work/cut1.yaml"
check "... global: set, peer: sent when route: began, route: never sent" sh -c \
	"'$ctl' --name '$a' global show | grep -qx '    retry_count: 4' && '$ctl' --name '$a' peer show | grep -q 'primary nid: 10.9.5.1@tcp' && [ -z \"\$('$ctl' --name '$a' route show)\" ]"
file cut2 'global:\n    retry_count: 5\npeer:\n    - primary nid: 10.9.5.2@tcp\n  bad: x\n'
syn Parser "while parsing a block mapping at line 1, column 1" "did not find expected key at line 5, column 3"
check "cut after a whole peer: with no key after it" out_err 234 "$work/empty" "$work/want" import "$work/cut2.yaml"
check "... retry_count 5, the peer never sent" sh -c \
	"'$ctl' --name '$a' global show | grep -qx '    retry_count: 5' && ! '$ctl' --name '$a' peer show | grep -q '10.9.5.2@tcp'"
file cut3 'peer:\n    - primary nid: 10.9.5.3@tcp\nglobal:\n    retry_count: 6\n    discovery: 0\n    transaction_timeout: "10\n'
printf 'Scanner error: while scanning a quoted scalar at line 6, column 26\nfound unexpected end of stream at line 7, column 1\n' >"$work/want"
check "cut in a global: value: the settings before it set" out_err 234 "$work/empty" "$work/want" import "$work/cut3.yaml"
check "... peer in, retry_count 6, discovery 0, transaction_timeout untouched" sh -c \
	"'$ctl' --name '$a' peer show | grep -q 'primary nid: 10.9.5.3@tcp' && '$ctl' --name '$a' global show | grep -qx '    retry_count: 6' && '$ctl' --name '$a' global show | grep -qx '    discovery: 0' && '$ctl' --name '$a' global show | grep -qx '    transaction_timeout: 150' && '$ctl' --name '$a' set discovery 1"
file cut4 'peer:\n    - primary nid: 10.9.5.4@tcp\nglobal:\n    frob: [\n'
nl add "invalid key 'frob'" -22
check "cut after an unknown global: key: handle_global_parameter's block comes first" out_err 234 "$work/empty" "$work/want" import "$work/cut4.yaml"
check "... the peer sent" has_peer 10.9.5.4@tcp
file cut5 'udsp:\n    - idx: 0\n      src: tcp\n      action:\n          priority: 1\n    - idx: 1\n      src: o2ib\n      bad: [\n'
syn Parser "while parsing a flow node at line 9, column 1" "did not find expected node content at line 9, column 1"
check "cut in the second udsp: rule" out_err 234 "$work/empty" "$work/want" import "$work/cut5.yaml"
check "... the first rule added, not the second" sh -c \
	"'$ctl' --name '$a' udsp show | grep -q 'src: tcp' && ! '$ctl' --name '$a' udsp show | grep -q o2ib && '$ctl' --name '$a' udsp del --idx 0"

printf "net:\n    - net type: tcp5\n      local NI(s):\n        - nid: ${lip%.*}.93@tcp5\n    - net type: tcp6\n      local NI(s):\n        - nid: ${lip%.*}.94@tcp6\n          bad: [\n" >"$work/cut6.yaml"
syn Parser "while parsing a flow node at line 9, column 1" "did not find expected node content at line 9, column 1"
check "cut in the second net: item" out_err 234 "$work/empty" "$work/want" import "$work/cut6.yaml"
check "... the first NI configured (handle_net_config_sequence at its mapping's end), not the second" sh -c \
	"'$ctl' --name '$a' net show | grep -q 'nid: ${lip%.*}.93@tcp5' && ! '$ctl' --name '$a' net show | grep -q '@tcp6' && '$ctl' --name '$a' net del --net tcp5"

# --- a top-level key after a netlink section goes into its message (yaml_netlink_write_handler) ---
printf 'Writer error: Netlink group does not exist\n' >"$work/want"
file wr1 'peer:\n    - primary nid: 10.9.5.5@tcp\nretry_count: 1\n'
check "peer: then a tunable: the message cannot be written, exit 234" out_err 234 "$work/empty" "$work/want" import "$work/wr1.yaml"
check "... neither the peer nor retry_count" sh -c \
	"! '$ctl' --name '$a' peer show | grep -q '10.9.5.5@tcp' && '$ctl' --name '$a' global show | grep -qx '    retry_count: 6'"
file wr2 'global:\n    retry_count: 7\nroute:\n    - net: tcp9\n      gateway: 10.9.0.1@tcp\nfrob: 1\nglobal:\n    discovery: 0\n'
check "route:, an unknown key, then global:: the same when global: begins" out_err 234 "$work/empty" "$work/want" import "$work/wr2.yaml"
check "... the global: before in, the one after not" sh -c \
	"'$ctl' --name '$a' global show | grep -qx '    retry_count: 7' && '$ctl' --name '$a' global show | grep -qx '    discovery: 1'"
check "... no route" no_route
file cutdel 'peer:\n    - primary nid: 10.9.5.1@tcp\n    - primary nid: 10.9.5.3@tcp\n    - primary nid: 10.9.5.4@tcp\n'
check "import --del of the peers left" out_err 0 "$work/empty" "$work/empty" import --del "$work/cutdel.yaml"

# --- import --exec (jt_import, cmd 'e': find_command_mapping knows ping: and discover: only) ---
file ex1 'global:\n    retry_count: 3\n    discovery: 0\nudsp:\n    - idx: 0\n      src: tcp\n      action:\n          priority: 1\n'
check "--exec: global: read, not set; udsp: added, as handle_udsp_sequences with NLM_F_CREATE" sh -c \
	"'$ctl' --name '$a' import --exec '$work/ex1.yaml' >'$work/o' 2>&1 && [ ! -s '$work/o' ] && '$ctl' --name '$a' global show | grep -qx '    retry_count: 7' && '$ctl' --name '$a' global show | grep -qx '    discovery: 1' && '$ctl' --name '$a' udsp show | grep -q 'src: tcp'"
check "-d -e: the flags of -d stay: udsp: deleted by idx" sh -c \
	"'$ctl' --name '$a' import -d -e '$work/ex1.yaml' && [ -z \"\$('$ctl' --name '$a' udsp show)\" ]"
file ex2 'retry_count: 4\npeer:\n    - primary nid: 10.9.5.6@tcp\n'
nl add "invalid key 'peer'" -22
check "--exec: peer: is one more global key: handle_global_parameter's block" out_err 234 "$work/empty" "$work/want" import --exec "$work/ex2.yaml"
check "... no peer, retry_count not set" sh -c \
	"! '$ctl' --name '$a' peer show | grep -q '10.9.5.6@tcp' && '$ctl' --name '$a' global show | grep -qx '    retry_count: 7'"
file ex3 'global:\n    retry_count: x\n'
nl add "invalid value 'x' for key 'retry_count'" -22
check "--exec: a value that is no number: yaml_lnet_extract_long's block all the same" out_err 234 "$work/empty" "$work/want" import --exec "$work/ex3.yaml"
file ex4 'ping:\n    - primary nid: 10.9.5.6@tcp\nretry_count: 3\n'
printf 'Writer error: Netlink group does not exist\n' >"$work/want"
check "--exec: a key after ping:: into its message, as after a netlink section" out_err 234 "$work/empty" "$work/want" import --exec "$work/ex4.yaml"

# --- debug peer (jt_show_peer_debug_info) and debug recovery ---
printf 'debug:\n    - peer:\n          errno: -22\n          descr: --nid must be specified\n' >"$work/want"
check "debug peer without --nid: the library's block, descr unquoted, exit 234" out_err 234 "$work/empty" "$work/want" debug peer
printf 'debug:\n    - peer:\n          errno: -22\n          descr: "badly formatted primary NID: 1.2.3@tcp"\n' >"$work/want"
check "debug peer --nid of a bad NID" out_err 234 "$work/empty" "$work/want" debug peer --nid 1.2.3@tcp
printf 'debug:\n    - peer:\n          errno: -95\n          descr: "debug peer: not supported by lnetd-pmd yet"\n' >"$work/want"
check "debug peer --nid NID: not built, in the same block shape, exit 161" out_err 161 "$work/empty" "$work/want" debug peer --nid 1.2.3.4@tcp
check "debug recovery without --local/--peer: nothing, -EINVAL" out_err 234 "$work/empty" "$work/empty" debug recovery
check "debug recovery --local with an empty queue: nothing, 0" out_err 0 "$work/empty" "$work/empty" debug recovery --local

finish errshapes_import
