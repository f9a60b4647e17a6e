#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lnetctl fault drop|delay add|del|reset|show against lnetd-pmd, as the
# kernel's lnetctl (lnet/utils/lnetctl.c jt_fault_*, liblnetconfig.c
# yaml_lnet_fault_rule) takes and prints them: show's YAML byte for byte
# (newest rule first, wildcards as the kernel prints them, paged past one
# telemetry reply), nothing printed on success, each of its checks with its
# message and exit status, the node's refusals as "failed to ...", reset's
# need for a word after it, del by source and destination and --all, the
# daemon's telemetry commands. Traffic through the rules is the core's test.
#   fault.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
tel="python3 $src/../common/bad_peer.py telemetry"
a=lnetd-fault-$$
ctl_name=$a

: >"$work/empty"
yaml_ok() { python3 -c 'import yaml,sys; list(yaml.safe_load_all(sys.stdin))' <"$1"; }

# rule KIND SRC DST PTL MSG RATE INTERVAL [LATENCY]: one rule of show, counters zero.
rule() {
	printf -- '-     rule_type: %s\n      fa_src: %s\n      fa_dst: %s\n' "$1" "$2" "$3"
	printf '      fa_ptl_mask: %s\n      fa_msg_mask: %s\n' "$4" "$5"
	if [ "$1" = drop ]; then
		printf '      da_rate: %s\n      da_interval: %s\n      ds_dropped: 0\n' "$6" "$7"
	else
		printf '      la_rate: %s\n      la_interval: %s\n      la_latency: %s\n      ls_delayed: 0\n' \
			"$6" "$7" "$8"
	fi
	printf '      fs_count: 0\n      fs_put: 0\n      fs_ack: 0\n      fs_get: 0\n      fs_reply: 0\n'
}

check "daemon $a starts" start_daemon "$a"

# --- show, add, del, reset ---
check "drop show with no rule: nothing at all, exit 0" out_err 0 "$work/empty" "$work/empty" fault drop show
check "delay show with no rule: the same" out_err 0 "$work/empty" "$work/empty" fault delay show
check "drop add -s -d -r -m -m -p: silent, exit 0" out_err 0 "$work/empty" "$work/empty" \
	fault drop add -s 10.0.0.1@tcp -d '*@tcp1' -r 5 -m put -m GET -p 4
check "drop add --source --dest --interval --health_error --random (long forms)" \
	out_err 0 "$work/empty" "$work/empty" fault drop add --source '*' --dest=10.0.0.2@tcp \
	--interval 3 --health_error local_error --random
check "drop add --local_nid --drop_all, a portal with every type" out_err 0 "$work/empty" "$work/empty" \
	fault drop add -s 10.0.0.3@tcp -d 10.0.0.4@tcp -o 10.0.0.4@tcp -r 1 -x -p 63
{
	printf 'fault:\n'
	rule drop 10.0.0.3@tcp 10.0.0.4@tcp 9223372036854775808 6 1 0
	rule drop '<?>' 10.0.0.2@tcp 0 15 0 3
	rule drop 10.0.0.1@tcp 255.255.255.255@tcp1 16 6 5 0
} >"$work/drops"
check "drop show: the kernel's YAML, newest first, wildcards as it prints them" \
	out_err 0 "$work/drops" "$work/empty" fault drop show
check "that is valid YAML" yaml_ok "$work/o"
check "delay add -s '*@lo' -d NID -r 2 -l 4" out_err 0 "$work/empty" "$work/empty" \
	fault delay add -s '*@lo' -d 10.0.0.2@tcp -r 2 -l 4
check "delay add --interval (long only: -i is not a delay letter) --latency" \
	out_err 0 "$work/empty" "$work/empty" fault delay add -s 10.0.0.5@tcp -d 10.0.0.6@tcp \
	--interval 7 --latency 1 -m reply
{
	printf 'fault:\n'
	rule delay 10.0.0.5@tcp 10.0.0.6@tcp 0 8 0 7 1
	rule delay 4294967295@lo 10.0.0.2@tcp 0 15 2 0 4
} >"$work/delays"
check "delay show: the kernel's keys for delay rules" out_err 0 "$work/delays" "$work/empty" fault delay show
check "drop show is unchanged by delay rules" out_err 0 "$work/drops" "$work/empty" fault drop show

"$ctl" --name "$a" fault drop reset >"$work/o" 2>"$work/e"
check "drop reset alone: its help on stdout, exit 234 (the kernel's check_cmd wants two words)" \
	sh -c "[ $? -eq 234 ] && head -1 '$work/o' | grep -q '^drop reset: ' && [ ! -s '$work/e' ]"
check "drop reset with a word after it: silent, exit 0" out_err 0 "$work/empty" "$work/empty" fault drop reset now
check "delay reset now: silent, exit 0" out_err 0 "$work/empty" "$work/empty" fault delay reset now
check "the rules are still there" out_err 0 "$work/drops" "$work/empty" fault drop show

line "failed to delete drop rule: Object not found"
check "drop del of no rule: the kernel's line on stdout, exit 254" out_err 254 "$work/want" "$work/empty" \
	fault drop del -s 10.0.0.9@tcp -d 10.0.0.4@tcp
check "drop del -s -d: silent, exit 0" out_err 0 "$work/empty" "$work/empty" \
	fault drop del -s 10.0.0.3@tcp -d 10.0.0.4@tcp
check "del --source '*' --dest NID: the rule added with a wildcard source" \
	out_err 0 "$work/empty" "$work/empty" fault drop del --source '*' --dest 10.0.0.2@tcp
{
	printf 'fault:\n'
	rule drop 10.0.0.1@tcp 255.255.255.255@tcp1 16 6 5 0
} >"$work/drops"
check "drop show: the one rule left" out_err 0 "$work/drops" "$work/empty" fault drop show
check "drop del -a: silent, exit 0" out_err 0 "$work/empty" "$work/empty" fault drop del -a
check "drop show: empty again" out_err 0 "$work/empty" "$work/empty" fault drop show
check "delay del --all" out_err 0 "$work/empty" "$work/empty" fault delay del --all
check "delay show: empty" out_err 0 "$work/empty" "$work/empty" fault delay show
line "failed to delete delay rule: Object not found"
check "delay del --all with no rule: Object not found, exit 254" out_err 254 "$work/want" "$work/empty" \
	fault delay del --all

# 40 rules: more than one telemetry reply (16 a page), all listed, newest first.
i=1
while [ $i -le 40 ]; do
	"$ctl" --name "$a" fault drop add -s "10.1.0.$i@tcp" -d 10.2.0.1@tcp -r "$i" || break
	i=$((i + 1))
done
"$ctl" --name "$a" fault drop show >"$work/many"
check "40 rules: show lists them all" sh -c "[ \$(grep -c '^-     rule_type: drop$' '$work/many') -eq 40 ]"
check "newest first" sh -c "grep '      fa_src: ' '$work/many' | head -1 | grep -q '10.1.0.40@tcp' &&
	grep '      fa_src: ' '$work/many' | tail -1 | grep -q '10.1.0.1@tcp'"
check "del -a removes the 40" out_err 0 "$work/empty" "$work/empty" fault drop del -a

# --- the kernel's checks, its messages, its exit statuses ---
s="-s 10.0.0.1@tcp -d 10.0.0.2@tcp"
line "please provide either drop rate or interval but not both at the same time."
# shellcheck disable=SC2086
check "drop add without rate or interval: exit 255" out_err 255 "$work/empty" "$work/want" fault drop add $s
# shellcheck disable=SC2086
check "drop add with both: the same" out_err 255 "$work/empty" "$work/want" fault drop add $s -r 2 -i 3
# shellcheck disable=SC2086
check "drop add -r 0: the same" out_err 255 "$work/empty" "$work/want" fault drop add $s -r 0
line "please provide an interval to randomize"
# shellcheck disable=SC2086
check "drop add --random with a rate" out_err 255 "$work/empty" "$work/want" fault drop add $s -r 2 -n
line "please provide either delay rate or interval but not both at the same time."
# shellcheck disable=SC2086
check "delay add without rate or interval" out_err 255 "$work/empty" "$work/want" fault delay add $s -l 1
line "latency cannot be zero"
# shellcheck disable=SC2086
check "delay add without latency" out_err 255 "$work/empty" "$work/want" fault delay add $s -r 1
line "Please provide both source and destination of drop rule"
check "drop add without -s" out_err 255 "$work/empty" "$work/want" fault drop add -d 10.0.0.2@tcp -r 1
line "Please provide both source and destination of delay rule"
check "delay add without -d" out_err 255 "$work/empty" "$work/want" fault delay add -s 10.0.0.2@tcp -r 1 -l 1
line "Invalid NID: 10.0.0@tcp"
check "a bad source NID: exit 234" out_err 234 "$work/empty" "$work/want" \
	fault drop add -s 10.0.0@tcp -d 10.0.0.2@tcp -r 1
line "Invalid NID: *@bogus"
check "a wildcard on no network" out_err 234 "$work/empty" "$work/want" \
	fault drop add -s 10.0.0.1@tcp -d '*@bogus' -r 1
line "Invalid NID: <?>"
check "<?> is not a NID lnetctl takes" out_err 234 "$work/empty" "$work/want" \
	fault drop add -s 10.0.0.1@tcp -d 10.0.0.2@tcp -o '<?>' -r 1
line "unknown message type bogus"
# shellcheck disable=SC2086
check "-m bogus: exit 255" out_err 255 "$work/empty" "$work/want" fault drop add $s -r 1 -m bogus
line "invalid portal: 64"
# shellcheck disable=SC2086
check "-p 64: exit 255" out_err 255 "$work/empty" "$work/want" fault drop add $s -r 1 -p 64
# shellcheck disable=SC2086
check "-e bogus: nothing printed, exit 255 (as the kernel's)" out_err 255 "$work/empty" "$work/empty" \
	fault drop add $s -r 1 -e bogus
line "failed to add drop rule: Invalid input data or parameter"
# shellcheck disable=SC2086
check "a portal with only ACKs: the node refuses, exit 234" out_err 234 "$work/want" "$work/empty" \
	fault drop add $s -r 1 -p 4 -m ack
printf 'Unrecognized option ?\nplease provide either delay rate or interval but not both at the same time.\n' >"$work/want"
# shellcheck disable=SC2086
check "delay add -i: not a delay letter, as the kernel's" out_err 255 "$work/empty" "$work/want" \
	fault delay add $s -i 2 -l 1
line "Failed, please provide source and destination of rule"
check "drop del -s alone" out_err 255 "$work/empty" "$work/want" fault drop del -s 10.0.0.1@tcp
line "'-s' or '-d' cannot be combined with '-a'"
check "drop del -a -s" out_err 255 "$work/empty" "$work/want" fault drop del -a -s 10.0.0.1@tcp
line "Invalid NID: x"
check "drop del -s x -d NID" out_err 234 "$work/empty" "$work/want" fault drop del -s x -d 10.0.0.2@tcp
check "nothing was added by any of them" out_err 0 "$work/empty" "$work/empty" fault drop show

# --- the parser's levels ---
"$ctl" --name "$a" fault drop -h >"$work/o"
check "fault drop -h: the four verbs' help, exit 1" sh -c \
	"[ $? -eq 1 ] && [ \$(grep -c '^drop [a-z]*: ' '$work/o') -eq 4 ]"
"$ctl" --name "$a" fault drop add >"$work/o"
check "fault drop add alone: its help, exit 234" sh -c \
	"[ $? -eq 234 ] && head -1 '$work/o' | grep -q '^drop add: ' && grep -q -- '--health_error' '$work/o'"
"$ctl" --name "$a" fault >"$work/o"
check "fault alone: drop and delay, exit 234" sh -c \
	"[ $? -eq 234 ] && grep -q '^fault drop: ' '$work/o' && grep -q '^fault delay: ' '$work/o'"
printf "lnetctl: 'frob' is not a valid command. See 'lnetctl --list-commands'.\n" >"$work/want"
check "fault drop frob: the parser's line, exit 255" out_err 255 "$work/empty" "$work/want" fault drop frob

# --- the daemon's commands ---
check "telemetry: /lnet/fault_drop_add with a bad NID is refused -22" sh -c \
	"$tel '$a' '/lnet/fault_drop_add,src=nonsense,dst=*,rate=1' | grep -q '\"status\": -22'"
check "telemetry: /lnet/fault_delay_add and show with its counters" sh -c \
	"$tel '$a' '/lnet/fault_delay_add,src=*@tcp,dst=*,interval=2,latency=3' | grep -q '\"status\": 0' &&
	$tel '$a' /lnet/fault_delay_show | grep -q '\"delayed\": 0'"
check "telemetry: /lnet/fault_delay_del says how many went" sh -c \
	"$tel '$a' '/lnet/fault_delay_del' | grep -q '\"deleted\": 1'"

check "SIGTERM: $a exits 0" stop_daemon "$pid"
finish fault.sh
