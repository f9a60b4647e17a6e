#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lnetctl udsp add|del|show against lnetd-pmd, as the kernel's lnetctl
# (lnet/utils/lnetctl.c jt_*_udsp, liblnetconfig_udsp.c) takes and prints
# them: each rule kind, ranges, --idx insertion, del --idx/--all, show's
# cYAML byte for byte, every check with its message, stream and exit
# status, the node's refusals as the kernel's error blocks. Then the rules'
# effect in net show -v 4 and peer show -v 4 ("udsp info"), the udsp:
# section of export / import / import --del (round trip through a restart),
# malformed udsp: sections changing nothing, and --config.
# No root needed: NIs listen on a high port on 127.0.0.0/8.
#   udsp_cli.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
port=$(( 20000 + $$ % 20000 ))
n3=127.0.$(( $$ % 200 + 20 ))
ip1=$n3.41 ip2=$n3.42 peer=$n3.43 peer2=$n3.44 gw=$n3.45
a=lnetd-udsp-a-$$
ctl_name=$a

start() { sd=$1; shift; start_daemon "$sd" --accept-port "$port" --accept all "$@"; }

: >"$work/empty"
# block VERB ERRNO DESCR: the kernel's cYAML error block, into $work/block
block() { printf '%s:\n    - udsp:\n          errno: %s\n          descr: "%s"\n' "$1" "$2" "$3" >"$work/block"; }
yaml_ok() { python3 -c 'import yaml,sys; list(yaml.safe_load_all(sys.stdin))' <"$1"; }
# rule IDX KEY=VALUE... [PRIO]: one rule of show; a last bare number is its priority.
rule() {
	printf '    - idx: %s\n' "$1"
	shift
	for kv in "$@"; do
		case $kv in
		*=*) printf '      %s: %s\n' "${kv%%=*}" "${kv#*=}" ;;
		*) printf '      action:\n          priority: %s\n' "$kv" ;;
		esac
	done
}
# udsp_lines net|peer: the NI entries' nid and udsp info lines of `<what> show -v 4`.
udsp_lines() {
	"$ctl" --name "$a" "$1" show -v 4 |
		grep -E 'nid: |udsp info:|net priority:|nid priority:|Preferred|NID-[0-9]+:' | grep -v 'primary nid'
}
same_lines() { # net|peer, then the expected lines
	printf '%s\n' "$2" >"$work/want"
	udsp_lines "$1" >"$work/got" && cmp -s "$work/want" "$work/got" || { diff "$work/want" "$work/got"; return 1; }
}

check "daemon $a starts" start "$a"
pid_a=$pid
check "net add $ip1@tcp" "$ctl" --name "$a" net add --nid "$ip1@tcp"
check "net add $ip2@tcp" "$ctl" --name "$a" net add --nid "$ip2@tcp"
check "net add $ip1@tcp1" "$ctl" --name "$a" net add --nid "$ip1@tcp1"
check "peer add $peer@tcp with $peer2@tcp" "$ctl" --name "$a" peer add --prim_nid "$peer@tcp" --nid "$peer2@tcp"

# --- show, add of each kind, --idx, del ---
check "show with no rule: nothing at all, exit 0" out_err 0 "$work/empty" "$work/empty" udsp show
check "show --idx 0 with no rule: nothing, exit 0" out_err 0 "$work/empty" "$work/empty" udsp show --idx 0
check "net show -v 4 with no rule: -1 everywhere, after statistics" same_lines net "      -     nid: 0@lo
            udsp info:
                  net priority: -1
                  nid priority: -1
      -     nid: $ip1@tcp
            udsp info:
                  net priority: -1
                  nid priority: -1
      -     nid: $ip2@tcp
            udsp info:
                  net priority: -1
                  nid priority: -1
      -     nid: $ip1@tcp1
            udsp info:
                  net priority: -1
                  nid priority: -1"
check "peer show -v 4 with no rule: -1, -1 and no preferred NIDs" same_lines peer "      -     nid: $peer@tcp
            udsp info:
                  net priority: -1
                  nid priority: -1
      -     nid: $peer2@tcp
            udsp info:
                  net priority: -1
                  nid priority: -1"

check "add --src tcp --priority 3 (net priority): silent" out_err 0 "$work/empty" "$work/empty" \
	udsp add --src tcp --priority 3
check "add --src NID -p 5 (NID priority, short option)" out_err 0 "$work/empty" "$work/empty" \
	udsp add --src "$ip1@tcp" -p 5
check "add -d NID --priority 4 (peer NID priority)" out_err 0 "$work/empty" "$work/empty" \
	udsp add -d "$peer@tcp" --priority 4
check "add --src NID --dst NID (NID pair: preferred source)" out_err 0 "$work/empty" "$work/empty" \
	udsp add --src "$ip2@tcp" --dst "$peer2@tcp"
check "add --dst NID -r NID (router rule: preferred gateway)" out_err 0 "$work/empty" "$work/empty" \
	udsp add --dst "$peer@tcp" -r "$gw@tcp"
check "add --dst with an address range, --priority 8" out_err 0 "$work/empty" "$work/empty" \
	udsp add --dst "$n3.[43-44]@tcp" --priority 8
check "add -s 'tcp[1-2]' -p 7 -i 0 (a net range, inserted first)" out_err 0 "$work/empty" "$work/empty" \
	udsp add -s 'tcp[1-2]' -p 7 -i 0
check "add --dst tcp without priority: the kernel makes it priority 0" out_err 0 "$work/empty" "$work/empty" \
	udsp add --dst tcp
check "add --src with a comma range '[41,42]' at --idx 2" out_err 0 "$work/empty" "$work/empty" \
	udsp add --src "$n3.[41,42]@tcp" --priority 9 --idx 2
{
	printf 'udsp:\n'
	rule 0 'src=tcp[1-2]' 7
	rule 1 src=tcp 3
	rule 2 "src=$n3.[41,42]@tcp" 9
	rule 3 "src=$ip1@tcp" 5
	rule 4 "dst=$peer@tcp" 4
	rule 5 "src=$ip2@tcp" "dst=$peer2@tcp"
	rule 6 "dst=$peer@tcp" "rte=$gw@tcp"
	rule 7 "dst=$n3.[43-44]@tcp" 8
	rule 8 dst=tcp 0
} >"$work/all"
check "show: the kernel's cYAML, rules in index order" out_err 0 "$work/all" "$work/empty" udsp show
check "that is valid YAML" yaml_ok "$work/o"
cp "$work/o" "$work/show_all"
{ printf 'udsp:\n'; rule 5 "src=$ip2@tcp" "dst=$peer2@tcp"; } >"$work/want"
check "show --idx 5: that rule only" out_err 0 "$work/want" "$work/empty" udsp show --idx 5
check "show -i 5: the same" out_err 0 "$work/want" "$work/empty" udsp show -i 5
check "show --idx -1: every rule, as the kernel's" out_err 0 "$work/all" "$work/empty" udsp show --idx -1
check "show --idx 40: no such rule, nothing, exit 0" out_err 0 "$work/empty" "$work/empty" udsp show --idx 40

# Lowest index wins: tcp1 takes 7 (rule 0), tcp 3 (rule 1); ip1@tcp 9 (rule 2 before rule 3).
check "net show -v 4: each NI's net and NID priority from the rules" same_lines net "      -     nid: 0@lo
            udsp info:
                  net priority: -1
                  nid priority: -1
      -     nid: $ip1@tcp
            udsp info:
                  net priority: 3
                  nid priority: 9
      -     nid: $ip2@tcp
            udsp info:
                  net priority: 3
                  nid priority: 9
      -     nid: $ip1@tcp1
            udsp info:
                  net priority: 7
                  nid priority: -1"
# No gateway: the router rule applies to nothing, so no "Preferred gateway NIDs".
check "peer show -v 4: priorities and the preferred source NID, right after nid" same_lines peer \
	"      -     nid: $peer@tcp
            udsp info:
                  net priority: 0
                  nid priority: 4
      -     nid: $peer2@tcp
            udsp info:
                  net priority: 0
                  nid priority: 8
                  Preferred source NIDs:
                        NID-0: $ip2@tcp"
check "peer show -v 4: udsp info comes between nid and state, as the kernel's capture" sh -c \
	"'$ctl' --name '$a' peer show -v 4 | tr -d '\\n' | grep -q 'nid: $peer2@tcp *udsp info: *net priority: 0 *nid priority: 8 *Preferred source NIDs: *NID-0: $ip2@tcp *state: NA'"
net_keys() { # the NI's keys in order, as the kernel's netlink table orders them, then ours (transport)
	got=$("$ctl" --name "$a" net show -v 4 --net tcp1 |
		sed -n 's/^      -     \(nid\):.*/\1/p; s/^            \([a-zA-Z_][a-zA-Z_ ]*\):.*/\1/p' | tr '\n' ',')
	[ "$got" = 'nid,status,statistics,udsp info,sent_stats,received_stats,dropped_stats,health stats,tunables,lnd tunables,dev cpt,CPT,transport,' ] ||
		{ echo "$got"; return 1; }
}
check "net show -v 4: udsp info after statistics, before sent_stats" net_keys
check "net show -v 3: no udsp info" sh -c "! '$ctl' --name '$a' net show -v 3 | grep -q 'udsp info'"
check "peer show -v 3: no udsp info" sh -c "! '$ctl' --name '$a' peer show -v 3 | grep -q 'udsp info'"

# --- the kernel's checks, its messages, streams and exit statuses ---
block add -22 "src and rte cannot be combined"
check "add --src --rte: refused, exit 234" out_err 234 "$work/empty" "$work/block" \
	udsp add --src tcp --rte "$gw@tcp"
block add -22 "The combination of src, dst and rte is not supported"
check "add --src --dst --rte: refused, exit 234" out_err 234 "$work/empty" "$work/block" \
	udsp add --src tcp --dst tcp --rte "$gw@tcp"
block add -22 "failed to parse src parameter"
check "add --src 1.2.3@@tcp: unparsable, exit 234" out_err 234 "$work/empty" "$work/block" \
	udsp add --src 1.2.3@@tcp --priority 1
check "add --src 'tcp;1' (';' cannot be a descriptor's): unparsable" out_err 234 "$work/empty" "$work/block" \
	udsp add --src 'tcp;1'
check "add --src '' : unparsable" out_err 234 "$work/empty" "$work/block" udsp add --src ''
block add -22 "failed to parse dst parameter"
check "add --dst 'a=b': unparsable" out_err 234 "$work/empty" "$work/block" udsp add --dst 'a=b'
check "add --dst '*@tcp' (an IP address has four parts): unparsable" out_err 234 "$work/empty" "$work/block" \
	udsp add --dst '*@tcp'
block add -22 "failed to parse rte parameter"
check "add --dst NID --rte tcpx: unparsable rte" out_err 234 "$work/empty" "$work/block" \
	udsp add --dst "$peer@tcp" --rte tcpx
block add -22 "src and rte cannot be combined"
check "add --src 'a;b' --rte NID: the combination is checked first" out_err 234 "$work/empty" "$work/block" \
	udsp add --src 'a;b' --rte "$gw@tcp"
block add 114 "cannot add udsp: Operation already in progress"
check "add of a NID pair already there: the module's EALREADY, exit 114" out_err 114 "$work/empty" "$work/block" \
	udsp add --src "$ip2@tcp" --dst "$peer2@tcp"
line 'Invalid priority "x"'
check "add --priority x: stdout, exit 234" out_err 234 "$work/want" "$work/empty" udsp add --src tcp --priority x
line 'Invalid priority "-1"'
check "add -p -1: stdout, exit 234" out_err 234 "$work/want" "$work/empty" udsp add --src tcp -p -1
line 'Invalid index "-1"'
check "add --idx -1: stdout, exit 234" out_err 234 "$work/want" "$work/empty" udsp add --src tcp --idx -1
line 'Invalid index "2x"'
check "del --idx 2x: stdout, exit 234" out_err 234 "$work/want" "$work/empty" udsp del --idx 2x
line 'Invalid index "-2"'
check "del -i -2: stdout, exit 234" out_err 234 "$work/want" "$work/empty" udsp del -i -2
check "show --idx -2: stdout, exit 234" out_err 234 "$work/want" "$work/empty" udsp show --idx -2
line 'Cannot combine --all with --idx'
check "del --all --idx 1: stdout, exit 234" out_err 234 "$work/want" "$work/empty" udsp del --all --idx 1
check "del -i 1 -a: the same" out_err 234 "$work/want" "$work/empty" udsp del -i 1 -a
line 'Must specify --idx or --all'
check "del alone: stdout, exit 234" out_err 234 "$work/want" "$work/empty" udsp del
"$ctl" udsp add >"$work/o" 2>"$work/e"
check "add without src, dst or rte: add's help on stdout, exit 0" sh -c \
	"[ $? -eq 0 ] && head -1 '$work/o' | grep -qx 'udsp add: add a udsp' && grep -q -- '--priority p' '$work/o' && [ ! -s '$work/e' ]"
"$ctl" udsp add --priority 2 >"$work/o" 2>"$work/e"
check "add --priority alone: add's help, exit 0" sh -c "[ $? -eq 0 ] && head -1 '$work/o' | grep -q '^udsp add: '"
"$ctl" udsp add --frob >"$work/o" 2>"$work/e"
check "add --frob: getopt's complaint (argv[0] is add), add's help, exit 0" sh -c \
	"[ $? -eq 0 ] && head -1 '$work/o' | grep -q '^udsp add: ' && grep -q \"^add: unrecognized option '--frob'\" '$work/e'"
"$ctl" udsp add --src tcp --frob >"$work/o" 2>"$work/e"
check "add --src tcp --frob (more than two words): the help, getopt silent" sh -c \
	"[ $? -eq 0 ] && head -1 '$work/o' | grep -q '^udsp add: ' && [ ! -s '$work/e' ]"
"$ctl" udsp show -x >"$work/o" 2>"$work/e"
check "show -x: net show's help, as the kernel's jt_show_udsp prints it, exit 0" sh -c \
	"[ $? -eq 0 ] && head -1 '$work/o' | grep -q '^net show: ' && grep -q \"invalid option -- 'x'\" '$work/e'"
"$ctl" udsp del -h >"$work/o" 2>"$work/e"
check "del -h: del's help, exit 1 (check_cmd)" sh -c "[ $? -eq 1 ] && head -1 '$work/o' | grep -qx 'udsp del: delete a udsp'"
check "refused commands changed nothing" out_err 0 "$work/show_all" "$work/empty" udsp show

# --- export and import ---
"$ctl" --name "$a" export >"$work/full.yaml"
"$ctl" --name "$a" export --backup >"$work/backup.yaml"
check "export: a udsp: section after global:, as udsp show prints it" sh -c \
	"sed -n '/^udsp:/,\$p' '$work/full.yaml' | cmp -s - '$work/show_all' && grep -n '^[a-z]' '$work/full.yaml' | cut -d: -f2 | tr '\\n' ' ' | grep -qx 'net peer global udsp '"
check "export --backup: the same udsp: section (the kernel's backup keeps it)" sh -c \
	"sed -n '/^udsp:/,\$p' '$work/backup.yaml' | cmp -s - '$work/show_all'"
check "export is valid YAML" yaml_ok "$work/full.yaml"
sed -n '/^udsp:/,$p' "$work/full.yaml" >"$work/rules.yaml"
check "del --all" out_err 0 "$work/empty" "$work/empty" udsp del --all
check "show after del --all: nothing" out_err 0 "$work/empty" "$work/empty" udsp show
check "net show -v 4 after del --all: -1 again" sh -c \
	"[ \$('$ctl' --name '$a' net show -v 4 | grep -c 'priority: -1') -eq 8 ]"
check "import of the exported rules" out_err 0 "$work/empty" "$work/empty" import "$work/rules.yaml"
check "show after import: the rules exported, same indices" out_err 0 "$work/show_all" "$work/empty" udsp show

# import --del: each idx in file order, as 2.17's handle_udsp_sequences deletes them; the
# node renumbers after each (lnet_udsp_del_policy), so 6 then 2 leave no 7, and that stops it.
printf 'udsp:\n    - idx: 6\n      dst: x\n    - idx: 2\n    - idx: 7\n      src: tcp\n      rte: x\n' >"$work/del.yaml"
check "import --del of rules 6, 2, 7: 6 and 2 go, then no 7: nothing printed, l_ioctl's -1 (255)" \
	out_err 255 "$work/empty" "$work/empty" import --del "$work/del.yaml"
{
	printf 'udsp:\n'
	rule 0 'src=tcp[1-2]' 7
	rule 1 src=tcp 3
	rule 2 "src=$ip1@tcp" 5
	rule 3 "dst=$peer@tcp" 4
	rule 4 "src=$ip2@tcp" "dst=$peer2@tcp"
	rule 5 "dst=$n3.[43-44]@tcp" 8
	rule 6 dst=tcp 0
} >"$work/left"
check "show after it: the others, renumbered" out_err 0 "$work/left" "$work/empty" udsp show
printf 'udsp:\n    - idx: 5\n' >"$work/del5.yaml"
check "import --del of rule 5" out_err 0 "$work/empty" "$work/empty" import --del "$work/del5.yaml"
{
	printf 'udsp:\n'
	rule 0 'src=tcp[1-2]' 7
	rule 1 src=tcp 3
	rule 2 "src=$ip1@tcp" 5
	rule 3 "dst=$peer@tcp" 4
	rule 4 "src=$ip2@tcp" "dst=$peer2@tcp"
	rule 5 dst=tcp 0
} >"$work/left"
check "show after import --del: the others, in order" out_err 0 "$work/left" "$work/empty" udsp show
printf 'udsp:\n    - idx: 7\n    - idx: 0\n' >"$work/del7.yaml"
check "import --del of 7 then 0: 7 first, which no rule has: nothing printed (handle_udsp_sequences drops the error), exit 255" \
	out_err 255 "$work/empty" "$work/empty" import --del "$work/del7.yaml"
check "it stopped there: the 6 rules are all left" out_err 0 "$work/left" "$work/empty" udsp show
check "del --idx 5 (the last): silent" out_err 0 "$work/empty" "$work/empty" udsp del --idx 5
check "del -i 0" out_err 0 "$work/empty" "$work/empty" udsp del -i 0
{
	printf 'udsp:\n'
	rule 0 src=tcp 3
	rule 1 "src=$ip1@tcp" 5
	rule 2 "dst=$peer@tcp" 4
	rule 3 "src=$ip2@tcp" "dst=$peer2@tcp"
} >"$work/left"
check "show: the indices moved up" out_err 0 "$work/left" "$work/empty" udsp show
check "net show -v 4: tcp1's net priority back to -1 with its rule gone" sh -c \
	"'$ctl' --name '$a' net show -v 4 --net tcp1 | grep -q 'net priority: -1'"
block add -1 "cannot del udsp: No such file or directory"
check "del --idx 4 (no such rule): the kernel's block under add:, errno -1, exit 255" \
	out_err 255 "$work/empty" "$work/block" udsp del --idx 4
check "del --idx -1: every rule, as the kernel's" out_err 0 "$work/empty" "$work/empty" udsp del --idx -1
check "show: nothing" out_err 0 "$work/empty" "$work/empty" udsp show

# Malformed udsp: sections: the error where it is, the rules unchanged (the peer: ahead of it is in).
check "re-import the rules" out_err 0 "$work/empty" "$work/empty" import "$work/rules.yaml"
bad=0
# What 2.17's import says of it: yaml_lnet_extract_long's netlink block (nl:),
# nothing when its library refuses the rule (silent), else lnetd-pmd's located block.
for body in "udsp:\n    - idx: abc\n      src: tcp|nl:invalid value 'abc' for key 'idx'" \
	"udsp:\n    - idx: 0\n      src: [a, b]|5:12: udsp: src must be a NID or network descriptor" \
	"udsp:\n    - src: tcp\n      priority: -3|5:17: udsp: priority must be between 0 and 2147483647" \
	"udsp:\n    - src: tcp\n      action: 1|5:15: udsp: action must be a mapping such as \\\"priority: 0\\\"" \
	"udsp: tcp|3:7: udsp: expected a list" \
	"udsp:\n    - src: 1.2.3.4@@tcp|silent" \
	"udsp:\n    - dst: tcp\n      rte: 'tcp*[1]'|silent" \
	"udsp:\n    - src: tcp\n      rte: $gw@tcp|silent"; do
	bad=$((bad + 1))
	printf "peer:\n    - primary nid: $n3.50@tcp\n${body%%|*}\n" >"$work/bad$bad.yaml"
	case ${body#*|} in
	silent) : >"$work/block" ;;
	nl:*) printf -- '---\nadd:\n-     import:\n      errno: -22\n      descr: ! "%s"\n...\n' \
		"${body#*|nl:}" >"$work/block" ;;
	*) printf 'add:\n    - import:\n          errno: -22\n          descr: "%s:%s"\n' \
		"$work/bad$bad.yaml" "${body#*|}" >"$work/block" ;;
	esac
	check "malformed udsp ($bad: ${body#*|}): its location, exit 234" \
		out_err 234 "$work/empty" "$work/block" import "$work/bad$bad.yaml"
	# 2.17's jt_import sends the peer: section when udsp: starts, before it reads the rule
	check "malformed udsp ($bad): the rules unchanged, the peer ahead of them added" sh -c \
		"'$ctl' --name '$a' udsp show | cmp -s - '$work/show_all' && '$ctl' --name '$a' peer show --nid $n3.50@tcp >/dev/null 2>&1 && '$ctl' --name '$a' peer del --prim_nid $n3.50@tcp"
done
check "SIGTERM: $a exits 0" stop_daemon "$pid_a"

# export -> restart -> import: nets, peers and rules, and what the rules do.
b=lnetd-udsp-b-$$
check "daemon $b starts" start "$b"
pid_b=$pid
a=$b ctl_name=$b
check "import the full export (nets, peer, globals, rules)" out_err 0 "$work/empty" "$work/empty" import "$work/full.yaml"
check "show: the rules exported" out_err 0 "$work/show_all" "$work/empty" udsp show
check "export after import is the same, rules and all" sh -c \
	"'$ctl' --name '$b' export --backup | diff '$work/backup.yaml' -"
check "peer show -v 4: the same preferred source NID" sh -c \
	"'$ctl' --name '$b' peer show -v 4 | tr -d '\\n' | grep -q 'nid: $peer2@tcp *udsp info: *net priority: 0 *nid priority: 8 *Preferred source NIDs: *NID-0: $ip2@tcp'"
# 2.17's import --del, in file order: nets, peers, then the rules by the file's idx 0, 1, 2...
# while the node renumbers after each: every other rule goes, then idx 5 is no more (255).
check "import --del of the backup: nets and peers gone, then half the rules, exit 255 silent" \
	out_err 255 "$work/empty" "$work/empty" import --del "$work/backup.yaml"
{
	printf 'udsp:\n'
	rule 0 src=tcp 3
	rule 1 "src=$ip1@tcp" 5
	rule 2 "src=$ip2@tcp" "dst=$peer2@tcp"
	rule 3 "dst=$n3.[43-44]@tcp" 8
} >"$work/left"
check "... the rules left: the file's 1, 3, 5 and 7" out_err 0 "$work/left" "$work/empty" udsp show
check "... only lo, no peer" sh -c \
	"[ \$('$ctl' --name '$b' net show | grep -c 'nid:') -eq 1 ] && [ -z \"\$('$ctl' --name '$b' peer show)\" ]"
check "SIGTERM: $b exits 0" stop_daemon "$pid_b"

# --config: the rules applied after NIs and peers; a bad rule names its location.
c=lnetd-udsp-c-$$
printf 'net:\n    - net type: tcp\n      local NI(s):\n        - nid: %s@tcp\npeer:\n    - primary nid: %s@tcp\nudsp:\n    - idx: 0\n      dst: %s@tcp\n      action:\n          priority: 2\n    - src: tcp\n      priority: 6\n' \
	"$ip1" "$peer" "$peer" >"$work/config.yaml"
check "daemon $c starts with --config" start "$c" --config "$work/config.yaml"
pid_c=$pid
a=$c ctl_name=$c
{ printf 'udsp:\n'; rule 0 "dst=$peer@tcp" 2; rule 1 src=tcp 6; } >"$work/want"
check "--config: its rules" out_err 0 "$work/want" "$work/empty" udsp show
check "--config: applied to the NI and the peer" sh -c \
	"'$ctl' --name '$c' net show -v 4 --net tcp | grep -q 'net priority: 6' && '$ctl' --name '$c' peer show -v 4 | grep -q 'nid priority: 2'"
check "SIGTERM: $c exits 0" stop_daemon "$pid_c"
printf 'udsp:\n    - src: tcp\n    - dst: tcp\n      rte: 1.2.3.[4@tcp\n' >"$work/badconf.yaml"
check "--config with an unparsable rule: refused with its location" sh -c \
	"! '$daemon' -- --name bad-$$ --config '$work/badconf.yaml' 2>'$work/e' && grep -q 'badconf.yaml:4:12: udsp: failed to parse rte parameter' '$work/e'"
printf 'udsp:\n    - src: tcp\n      dst: tcp\n    - src: tcp\n      dst: tcp\n' >"$work/dupconf.yaml"
check "--config with a rule the node refuses (twice the same pair): refused with its location" sh -c \
	"! '$daemon' -- --name bad2-$$ --config '$work/dupconf.yaml' 2>'$work/e' && grep -q 'dupconf.yaml:4:7: udsp: ' '$work/e'"
check "no sanitizer report" sh -c "! cat '$work'/*.err | grep -q Sanitizer"
finish udsp_cli
