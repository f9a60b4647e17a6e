#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The peer commands as the kernel's lnetctl takes them (jt_peer_nid_common,
# jt_show_peer, jt_list_peer, set_value_helper): each option in its short,
# long and --opt=value form; --lock_prim and --force with the kernel's
# semantics (a locked primary survives a plain delete, its other NIDs go);
# "peer state" bits; peer list; the error blocks (keys, nesting, errno)
# as the only output; peer_credits clamped to credits as
# ksocklnd clamps it.
#   peers.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"

d=lnetd-peers-$$
net=127.0.$(( $$ % 200 + 20 ))
run() { "$ctl" --name "$d" "$@"; }
ctl_name=$d

# A failing command: exit status not 0, and as its only output the block
# "$1:\n    - $2:\n          errno: $3\n          descr: ..." ($4: a word of
# descr), cYAML's layout, on stderr as the kernel prints it.
fails_block() { # top item errno descr-word -- command...
	top=$1 item=$2 errno=$3 word=$4
	shift 5
	run "$@" >"$work/out" 2>"$work/err" && { echo "exit 0"; return 1; }
	[ ! -s "$work/out" ] || { echo "stdout:"; cat "$work/out"; return 1; }
	[ "$(wc -l <"$work/err")" -eq 4 ] && [ "$(sed -n 1p "$work/err")" = "$top:" ] &&
		[ "$(sed -n 2p "$work/err")" = "    - $item:" ] &&
		[ "$(sed -n 3p "$work/err")" = "          errno: $errno" ] &&
		sed -n 4p "$work/err" | grep -q "^          descr: .*$word" || { cat "$work/err"; return 1; }
}

# The netlink block 2.17's yaml_lnet_peer() prints (yaml_lnet_print_error):
# VERB ERRNO DESCR into $work/nl, as libyaml lays it out.
nl_err() {
	printf -- '---\n%s:\n-     peer:\n      errno: %s\n      descr: ! "%s"\n...\n' "$1" "$2" "$3" >"$work/nl"
}
: >"$work/empty"

nis_of() { # peer: its NIDs in peer show, space-separated
	run peer show --nid "$1" | sed -n 's/^      -     nid: //p' | tr '\n' ' '
}

state_of() { # peer: its "peer state" at -v 3
	run peer show -v 3 --nid "$1" | sed -n 's/^      peer state: //p'
}

has_stats() { # peer show options...: whether the -v 2 blocks are printed
	run peer show "$@" | grep -q '^            sent_stats:$'
}

check "daemon $d starts" start_daemon "$d"
pid_d=$pid

# ksocklnd's net tunables: peer_credits above credits is brought down to credits.
check "net add --peer-credits 16 --credits 8" run net add --nid "$net.1@tcp" \
	--peer-credits 16 --credits 8
check "net show -v: peer_credits clamped to credits (8)" sh -c \
	"'$ctl' --name '$d' net show -v --net tcp | grep -qx '                  peer_credits: 8'"
check "a peer NI gets the clamped credits" sh -c \
	"'$ctl' --name '$d' peer add --prim_nid $net.9@tcp && '$ctl' --name '$d' peer show -v --nid $net.9@tcp | grep -qx '            max_ni_tx_credits: 8'"

# add: -k/-n/-l short forms; the locked, configured Multi-Rail peer's state.
check "peer add -k P -n S1,S2 -l" run peer add -k "$net.2@tcp" -n "$net.3@tcp,$net.4@tcp" -l
check "its NIDs: primary first" [ "$(nis_of "$net.2@tcp")" = "$net.2@tcp $net.3@tcp $net.4@tcp " ]
check "peer state: MULTI_RAIL|CONFIGURED|LOCK_PRIMARY (0x100009)" [ "$(state_of "$net.2@tcp")" = 1048585 ]
nl_err del -19 'failed to del primary peer'
check "del of a NID that is not the peer's primary: lnet_del_peer_ni's -ENODEV" \
	out_err 234 "$work/empty" "$work/nl" peer del --prim_nid "$net.3@tcp"
check "plain del of a locked peer: exit 0" run peer del --prim_nid "$net.2@tcp"
check "the locked primary stays, its other NIDs are gone" [ "$(nis_of "$net.2@tcp")" = "$net.2@tcp " ]
check "--prim_nid=P --force deletes it" run peer del "--prim_nid=$net.2@tcp" --force
nl_err show -2 'cannot find peer'
check "peer show --nid of a deleted peer: lnet_peer_ni_show_dump's -ENOENT, nothing else" \
	out_err 234 "$work/empty" "$work/nl" peer show --nid "$net.2@tcp"

# --opt=value forms, --non_mr; an unlocked peer goes with a plain del.
# --non_mr: 2.17's lnet_peer_ni_cmd() drops the "Multi-Rail: False" it is
# sent (its flag is reset for the next attribute): the peer is Multi-Rail.
check "peer add --prim_nid=Q --non_mr" run peer add "--prim_nid=$net.5@tcp" --non_mr
check "--non_mr peer as 2.17 makes it: state MULTI_RAIL|CONFIGURED (9), Multi-Rail: true" sh -c \
	"[ \"\$('$ctl' --name '$d' peer show -v 3 --nid $net.5@tcp | sed -n 's/^      peer state: //p')\" = 9 ] && '$ctl' --name '$d' peer show --nid=$net.5@tcp | grep -qx '      Multi-Rail: true'"
check "peer add --prim_nid R --nid=S (MR)" run peer add --prim_nid "$net.6@tcp" "--nid=$net.7@tcp"
check "peer del --prim_nid R --nid S: the secondary only" sh -c \
	"'$ctl' --name '$d' peer del --prim_nid $net.6@tcp --nid $net.7@tcp"
check "R keeps its primary" [ "$(nis_of "$net.6@tcp")" = "$net.6@tcp " ]
check "peer del --prim_nid R (not locked): gone" sh -c \
	"'$ctl' --name '$d' peer del --prim_nid $net.6@tcp && ! '$ctl' --name '$d' peer show --nid $net.6@tcp 2>/dev/null"

# peer list: the primary NIDs, in the kernel's layout.
printf 'peer list:\n-     nid: %s\n-     nid: %s\n' "$net.9@tcp" "$net.5@tcp" >"$work/list_want"
check "peer list" sh -c "'$ctl' --name '$d' peer list | diff '$work/list_want' -"

# show -v: the level is the next word (-v 2); -v2 and --verbose=2 are level 1, as the kernel's.
check "peer show -v 2: the by-type and health blocks" has_stats -v 2
check "peer show --verbose 2: the same" has_stats --verbose 2
check "peer show -v2: level 1 (as the kernel's)" sh -c "! '$ctl' --name '$d' peer show -v2 | grep -q sent_stats"
check "peer show --verbose=2: level 1 (as the kernel's)" sh -c \
	"! '$ctl' --name '$d' peer show --verbose=2 | grep -q sent_stats && '$ctl' --name '$d' peer show --verbose=2 | grep -q 'max_ni_tx_credits'"
check "peer show -v 4 -n Q: udsp info before state" sh -c \
	"'$ctl' --name '$d' peer show -v 4 -n $net.5@tcp | tr -d '\\n' | grep -q 'nid: $net.5@tcp *udsp info: *net priority: -1 *nid priority: -1 *state: NA'"

# Error blocks as the kernel builds them.
check "peer del --non_mr: the kernel's parser block (peer: / - del:)" \
	fails_block peer del -22 "Unrecognized option '-m'" -- peer del --prim_nid "$net.5@tcp" --non_mr
nl_err show -17 'failed to add peer'
check "peer add --lock_prim refused: the kernel names the block by its request flags (show:)" \
	out_err 234 "$work/empty" "$work/nl" peer add --prim_nid "$net.8@tcp" --nid "$net.5@tcp" --lock_prim
nl_err add -17 'failed to add peer'
check "peer add refused without flags: add:" \
	out_err 234 "$work/empty" "$work/nl" peer add --prim_nid "$net.8@tcp" --nid "$net.5@tcp"
check "a refused NID deletes the primary the add made, as lnet_peer_ni_cmd's report_err" \
	sh -c "! '$ctl' --name '$d' peer list | grep -q '$net.8@tcp'"

# The rest of 2.17's peer add/del paths, byte for byte.
"$ctl" peer add -h >"$work/help_add"
check "peer add alone: check_cmd's help on stdout, -EINVAL" \
	out_err 234 "$work/help_add" "$work/empty" peer add
check "peer add --nid without --prim_nid: a request naming no peer, nothing done, 0" \
	out_err 0 "$work/empty" "$work/empty" peer add --nid "$net.40@tcp"
nl_err add -22 'unsupported primary NID'
check "peer add --prim_nid foobar: lnet_peer_ni_cmd's libcfs_strnid, -22" \
	out_err 234 "$work/empty" "$work/nl" peer add --prim_nid foobar
nl_err del -22 'unsupported primary NID'
check "peer del --prim_nid 1@foo: the same under del:" \
	out_err 234 "$work/empty" "$work/nl" peer del --prim_nid 1@foo
line 'can'"'"'t parse nidrange: "foobar"'
nl_err add -22 '\"Unable to parse nidlist: no valid NIDs in string\"'
check "peer add --nid foobar: lustre_lnet_parse_nid_range's line on stdout, its text in the block" \
	out_err 234 "$work/want" "$work/nl" peer add --prim_nid "$net.41@tcp" --nid foobar
nl_err add -7 'Unable to parse nidlist: specifies more NIDs than allowed'
check "peer add --nid of 254 NIDs: more than LNET_MAX_NIDS_PER_PEER, -E2BIG" \
	out_err 234 "$work/empty" "$work/nl" peer add --prim_nid "$net.41@tcp" --nid "1.1.1.[2-255]@tcp"
nl_err del -2 'failed to del primary peer'
check "peer del of no peer: -ENOENT" \
	out_err 234 "$work/empty" "$work/nl" peer del --prim_nid 1.1.1.1@o2ib
check "peer add R --nid S, T; S again: the peer's own NIDs are no error" sh -c \
	"'$ctl' --name '$d' peer add --prim_nid $net.42@tcp --nid $net.43@tcp,$net.44@tcp && '$ctl' --name '$d' peer add --prim_nid $net.42@tcp --nid $net.43@tcp,$net.42@tcp"
nl_err add -17 'failed to add primary peer'
check "peer add of another peer's NID as a primary: -EEXIST, 'failed to add primary peer'" \
	out_err 234 "$work/empty" "$work/nl" peer add --prim_nid "$net.43@tcp"
nl_err del -10 'failed to del peer'
check "peer del --nid of another peer's NID: lnet_peer_del_nid's -ECHILD" \
	out_err 234 "$work/empty" "$work/nl" peer del --prim_nid "$net.42@tcp" --nid "$net.9@tcp"
nl_err del -2 'failed to del peer'
check "peer del --nid of no peer's NID: -ENOENT" \
	out_err 234 "$work/empty" "$work/nl" peer del --prim_nid "$net.42@tcp" --nid "$net.45@tcp"
nl_err show -22 'invalid NID'
check "peer show --nid foo: lnet_peer_ni_show_start's libcfs_strid, -22" \
	out_err 234 "$work/empty" "$work/nl" peer show --nid foo
"$ctl" peer show -h >"$work/help_show"
printf "show: unrecognized option '--bogus'\n" >"$work/bogus"
check "peer show --bogus: getopt's line, the help, 0" \
	out_err 0 "$work/help_show" "$work/bogus" peer show --bogus
check "peer add P --bogus: more than two words, check_cmd leaves getopt silent: the help, 0" \
	out_err 0 "$work/help_add" "$work/empty" peer add --prim_nid "$net.42@tcp" --bogus
check "peer del R: gone" run peer del --prim_nid "$net.42@tcp"
check "peer set --nid Q --health 500: peer show -v 2 gives Q health 500" sh -c \
	"'$ctl' --name '$d' peer set --nid '$net.5@tcp' --health 500 && '$ctl' --name '$d' peer show -v 2 -n '$net.5@tcp' | grep -q 'health value: 500'"
check "peer set -a -t 700: every peer NI's health is 700" sh -c \
	"'$ctl' --name '$d' peer set -a -t 700 && [ \$('$ctl' --name '$d' peer show -v 2 | grep -c 'health value: 700') -ge 2 ] && ! '$ctl' --name '$d' peer show -v 2 | grep 'health value:' | grep -qv 700"
# A refusal: yaml_lnet_peer(NLM_F_REPLACE)'s block, then set_value_helper's
# own with no text, -EINVAL. (The kernel takes 1001; lnetd-pmd does not.)
printf -- '---\nset:\n-     peer:\n      errno: -22\n      descr: ! "health value 1001: from 0 to 1000"\n...\nnet:\n    - set:\n          errno: -22\n          descr: \n' >"$work/set_err"
check "peer set --health 1001: out of range, both blocks" \
	out_err 234 "$work/empty" "$work/set_err" peer set --nid "$net.5@tcp" --health 1001
check "peer set --nid of no peer: lnet_peer_ni_set_healthv passes over it, 0" \
	out_err 0 "$work/empty" "$work/empty" peer set --nid "$net.77@tcp" --health 10
# lnet_peer_ni_cmd's reading of set_value_helper's request.
printf -- '---\nset:\n-     peer:\n      errno: -22\n      descr: ! "failed to del primary peer"\n...\nnet:\n    - set:\n          errno: -22\n          descr: \n' >"$work/set_any"
check "peer set alone: a delete of the peer LNET_ANY_NID, -22, then set_value_helper's block" \
	out_err 234 "$work/empty" "$work/set_any" peer set
check "peer set --health x: no health (parse_long), the same" \
	out_err 234 "$work/empty" "$work/set_any" peer set --health x
check "peer set --all --health x: nothing to do, 0" \
	out_err 0 "$work/empty" "$work/empty" peer set --all --health x
check "peer set --health 5 with neither --all nor --nid: no peer NI LNET_ANY_NID, nothing set" sh -c \
	"'$ctl' --name '$d' peer set --health 5 && ! '$ctl' --name '$d' peer show -v 2 | grep -q 'health value: 5\$'"
check "peer set -a -s 1: not supported" \
	fails_block set peer -95 "cannot be set" -- peer set -a -s 1
check "peer set -s: exit status 161 (-EOPNOTSUPP), as the block says" sh -c \
	"'$ctl' --name '$d' peer set -a -s 1 2>/dev/null; [ \$? -eq 161 ]"
# getopt_long's own line first, as the kernel's (opterr is on), then the block.
bogus_set() {
	run peer set --bogus >"$work/err" 2>&1 && return 1
	[ "$(sed -n 1p "$work/err")" = "set: unrecognized option '--bogus'" ] &&
		sed 1d "$work/err" | tr -d '\n' | grep -qx 'net:    - set:          errno: -22          descr: "Invalid option or missing argument"' ||
		{ cat "$work/err"; return 1; }
}
check "peer set --bogus: getopt's line, then the kernel's block (net: / - set:)" bogus_set

check "SIGTERM: exits 0" stop_daemon "$pid_d"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work/$d.err'"
finish peers
