#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# import's sections other than net (global, peer, route, udsp) and debug
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
check "daemon $a starts" start_daemon "$a"

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
