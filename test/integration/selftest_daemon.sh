#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The daemon's lnet_selftest service (issue 33), on 127.0.0.0/8 with a high
# port: off by default (global show says lnet_selftest: 0, and a console's
# request is dropped); on with --selftest, where a stand-in console
# (sft_console) sends the kernel's captured s4_01 requests over TCP and
# gets the kernel's captured replies byte for byte (session, brw server
# test, a brw WRITE with its bulk, session removed); turned off and on by an
# import of `global: lnet_selftest`; left out of export, whose global
# section a kernel's import must take; a daemon serving it stops cleanly.
#   selftest_daemon.sh BUILD_DIR SRC_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
console="$build/test/integration/sft_console"
net=127.0.$(( $$ % 200 + 20 )) port=$(( 20000 + $$ % 20000 ))
ips=$net.81 ipc=$net.82
a=lnetd-st-$$ b=lnetd-st-off-$$

drops() { # the daemon's LNet drop count
	"$ctl" --name "$1" stats show | sed -n 's/^ *drop_count: //p'
}
session_round() {
	"$console" --nid "$ipc@tcp" --server "$ips@tcp" --port "$port" --timeout 20 >"$work/console" 2>&1 ||
		{ cat "$work/console"; return 1; }
	[ "$(grep -c '^ok: ' "$work/console")" -eq 4 ]
}

# --- off by default ---------------------------------------------------------
check "daemon $b starts (no --selftest)" start_daemon "$b" --accept-port "$port" --accept all
pid_b=$pid
check "global show: lnet_selftest: 0, after the kernel's keys" sh -c \
	"'$ctl' --name '$b' global show | tail -n 2 | tr -d ' ' | tr '\\n' ' ' | grep -qx 'max_recovery_ping_interval:900 lnet_selftest:0 '"
check "net add $ips@tcp" "$ctl" --name "$b" net add --nid "$ips@tcp"
before=$(drops "$b")
check "a console's session request leaves" "$console" --nid "$ipc@tcp" --server "$ips@tcp" \
	--port "$port" --send-only
check "... and is dropped: no service on portal 51" eventually 20 sh -c "[ \$('$ctl' --name '$b' stats show | sed -n 's/^ *drop_count: //p') -gt $before ]"
check "daemon $b stops: exit 0" stop_daemon "$pid_b"

# --- on with --selftest -----------------------------------------------------
check "daemon $a starts with --selftest" start_daemon "$a" --accept-port "$port" --accept all --selftest
pid_a=$pid
check "global show: lnet_selftest: 1" sh -c "'$ctl' --name '$a' global show | grep -qx '    lnet_selftest: 1'"
check "net add $ips@tcp" "$ctl" --name "$a" net add --nid "$ips@tcp"
check "the kernel's requests get the kernel's replies, byte for byte" session_round
check "export leaves the extension out" sh -c \
	"'$ctl' --name '$a' export >'$work/export.yaml' && grep -q 'max_recovery_ping_interval' '$work/export.yaml' && ! grep -q lnet_selftest '$work/export.yaml'"

# --- off and on again by import -----------------------------------------------
printf 'global:\n    lnet_selftest: 0\n' >"$work/off.yaml"
printf 'global:\n    lnet_selftest: 1\n' >"$work/on.yaml"
printf 'global:\n    lnet_selftest: 2\n' >"$work/bad.yaml"
check "import lnet_selftest: 0" "$ctl" --name "$a" import "$work/off.yaml"
check "global show: lnet_selftest: 0" sh -c "'$ctl' --name '$a' global show | grep -qx '    lnet_selftest: 0'"
before=$(drops "$a")
check "a console's session request leaves" "$console" --nid "$ipc@tcp" --server "$ips@tcp" \
	--port "$port" --send-only
check "... and is dropped" eventually 20 sh -c "[ \$('$ctl' --name '$a' stats show | sed -n 's/^ *drop_count: //p') -gt $before ]"
check "import lnet_selftest: 2 is refused, nothing changed" sh -c "! '$ctl' --name '$a' import '$work/bad.yaml' >'$work/e' 2>&1 && '$ctl' --name '$a' global show | grep -qx '    lnet_selftest: 0'"
check "import lnet_selftest: 1" "$ctl" --name "$a" import "$work/on.yaml"
check "served again: the kernel's replies" session_round
check "daemon $a stops with the service on: exit 0" stop_daemon "$pid_a"
finish selftest_daemon
