#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One acceptor address for several NIs, as the kernel's single acceptor
# allows: daemon A has tcp and tcp1 on one address (their listeners share
# it with SO_REUSEPORT) and tcp2 on another; B the same. Pings on both
# nets of the shared address work whichever listener the kernel hands a
# connection to; a connection request that names A's tcp NI but arrives at
# its tcp2 address is handed over and answered by the tcp NI (counted in
# handed_off); deleting tcp1 leaves tcp serving, and tcp1 comes back.
#   acceptor.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
net=127.0.$(( $$ % 200 + 20 ))
ipa=$net.61 ipa2=$net.62 ipb=$net.63 ipb2=$net.64
port=$(( 20000 + $$ % 20000 ))
a=lnetd-acc-a-$$ b=lnetd-acc-b-$$

ping_is() { # from to-nid
	"$ctl" --name "$1" ping "$2" >"$work/ping" 2>&1 && grep -q "nid: $2" "$work/ping" || { cat "$work/ping"; return 1; }
}

counter() { # daemon key: summed over its NIs
	python3 "$src/../common/bad_peer.py" telemetry "$1" /lnet/lnd_stats |
		python3 -c "import json,sys; d=json.load(sys.stdin); print(sum(v['$2'] for v in d.values()))"
}

# A raw peer connects to @addr with a request for @target: the hello back must come from @target.
hello_from() { # addr target
	python3 - "$src/../common" "$1" "$port" "$2" "$ipb@tcp" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import bad_peer as bp
s = bp.connect(sys.argv[2], int(sys.argv[3]))
s.sendall(bp.connreq(sys.argv[4]) + bp.hello_v3(sys.argv[5], sys.argv[4]))
got = b""
while len(got) < 56:
    chunk = s.recv(56 - len(got))
    if not chunk:
        sys.exit("closed before the hello")
    got += chunk
src_nid = struct.unpack_from("<Q", got, 8)[0]
sys.exit(0 if src_nid == bp.nid4(sys.argv[4]) else "hello from %x" % src_nid)
PY
}

check "daemon $a" start_daemon "$a" --accept-port "$port" --accept all
pid_a=$pid
check "daemon $b" start_daemon "$b" --accept-port "$port" --accept all
pid_b=$pid
for n in tcp tcp1; do
	check "$a: $ipa@$n (one address, two nets)" "$ctl" --name "$a" net add --nid "$ipa@$n"
	check "$b: $ipb@$n" "$ctl" --name "$b" net add --nid "$ipb@$n"
done
check "$a: $ipa2@tcp2" "$ctl" --name "$a" net add --nid "$ipa2@tcp2"
check "$b: $ipb2@tcp2" "$ctl" --name "$b" net add --nid "$ipb2@tcp2"
for n in tcp tcp1; do
	check "$b pings $ipa@$n" ping_is "$b" "$ipa@$n"
	check "$a pings $ipb@$n" ping_is "$a" "$ipb@$n"
done
check "$b pings $ipa2@tcp2" ping_is "$b" "$ipa2@tcp2"
check "a request for $ipa@tcp arriving at $ipa2 is answered by $ipa@tcp" hello_from "$ipa2" "$ipa@tcp"
check "... handed over from one NI to the other" [ "$(counter "$a" handed_off)" -ge 1 ]
check "a request for a NID that is not here is refused" python3 "$src/../common/bad_peer.py" attack other-nid "$ipa" "$port" "$ipa@tcp" "$ipb@tcp" 2
check "net del tcp1 on $a" "$ctl" --name "$a" net del --net tcp1
check "tcp on the shared address still serves" ping_is "$b" "$ipa@tcp"
check "tcp1 added back on the same address" "$ctl" --name "$a" net add --nid "$ipa@tcp1"
check "... and reachable again" sh -c "i=0; while [ \$i -lt 10 ]; do '$ctl' --name '$b' ping '$ipa@tcp1' 2>/dev/null | grep -q 'nid: $ipa@tcp1' && exit 0; sleep 1; i=\$((i+1)); done; exit 1"
check "SIGTERM: $a exits 0" stop_daemon "$pid_a"
check "SIGTERM: $b exits 0" stop_daemon "$pid_b"
check "no sanitizer report" sh -c "! grep -q Sanitizer '$work'/*.err 2>/dev/null"
finish acceptor
