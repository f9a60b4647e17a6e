# SPDX-License-Identifier: BSD-3-Clause
# Outside-in cases against the userspace stack (drivers/net) with scapy:
# crafted frames from an address no kernel holds, on the interface given,
# each case bounded by its timeouts. Ends with "N passed, N failed".
#   net_scapy.py IFACE OUR_IP STACK_IP ECHO_PORT CLOSED_PORT
import random
import sys
import threading

from scapy.all import ARP, ICMP, IP, TCP, AsyncSniffer, Ether, Raw, conf, get_if_hwaddr, sendp

conf.verb = 0
iface, me, stack, echo_port, closed_port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
mac = get_if_hwaddr(iface)
passed = failed = 0
stack_mac = None


def case(name, ok):
    global passed, failed
    if ok:
        passed += 1
        print("ok: " + name)
    else:
        failed += 1
        print("FAIL: " + name)


def exchange(frame, match, timeout=3, count=1):
    """Send frame; the first count frames matching match within timeout."""
    up = threading.Event()
    sn = AsyncSniffer(iface=iface, lfilter=match, count=count, timeout=timeout, store=True,
                      started_callback=up.set)
    sn.start()
    up.wait(5)
    sendp(frame, iface=iface)
    sn.join()
    return list(sn.results or [])


def exchange1(frame, match, timeout=3):
    r = exchange(frame, match, timeout)
    return r[0] if r else None


def l2(pkt):
    return Ether(src=mac, dst=stack_mac) / pkt


def tcp_reply(pkt, sport, timeout=3, bare=False):
    """Send pkt, return the stack's first TCP answer to our port sport (or None); bare: without data."""
    r = exchange1(l2(pkt), lambda p: TCP in p and p[IP].src == stack and p[TCP].dport == sport
                  and (not bare or len(p[TCP].payload) == 0), timeout)
    return r[TCP] if r is not None else None


def handshake(sport, opts):
    isn = random.randrange(1 << 32)
    sa = tcp_reply(IP(src=me, dst=stack) / TCP(sport=sport, dport=echo_port, flags="S", seq=isn, options=opts), sport)
    if sa is None or sa.flags != "SA":
        return None
    sendp(l2(IP(src=me, dst=stack) / TCP(sport=sport, dport=echo_port, flags="A", seq=isn + 1, ack=sa.seq + 1)),
          iface=iface)
    return isn + 1, sa.seq + 1, sa


# ARP: the stack answers a request for its address (and learns ours from it).
r = exchange1(Ether(src=mac, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=mac, psrc=me, pdst=stack),
              lambda p: ARP in p and p[ARP].op == 2 and p[ARP].psrc == stack)
case("ARP request answered", r is not None)
if r is None:
    print("%d passed, %d failed" % (passed, failed + 1))
    sys.exit(1)
stack_mac = r[ARP].hwsrc

# ICMP echo.
r = exchange1(l2(IP(src=me, dst=stack) / ICMP(id=7, seq=1) / Raw(b"net_scapy")),
              lambda p: ICMP in p and p[IP].src == stack)
case("ICMP echo answered with the same payload",
     r is not None and r[ICMP].type == 0 and r[ICMP].id == 7 and bytes(r[ICMP].payload) == b"net_scapy")

# A SYN to a closed port: RST, ACK of the SYN.
r = tcp_reply(IP(src=me, dst=stack) / TCP(sport=40001, dport=closed_port, flags="S", seq=1000), 40001)
case("SYN to a closed port gets RST+ACK (ack 1001)", r is not None and "R" in r.flags and r.ack == 1001)

# MSS 536, no timestamps, no window scale: the SYN-ACK offers none the peer did not.
h = handshake(40002, [("MSS", 536)])
case("a peer without timestamps or window scale: SYN-ACK without them",
     h is not None and all(o[0] not in ("Timestamp", "WScale", "SAckOK") for o in h[2].options))
if h is not None:
    seq, ack, _ = h
    data = bytes(range(256)) * 5  # 1280 bytes: one frame from us, three back at MSS 536
    got = exchange(l2(IP(src=me, dst=stack) / TCP(sport=40002, dport=echo_port, flags="PA", seq=seq, ack=ack)
                      / Raw(data)),
                   lambda p: TCP in p and p[IP].src == stack and p[TCP].dport == 40002 and len(p[TCP].payload) > 0,
                   timeout=3, count=0)
    lens = [len(p[TCP].payload) for p in got]
    case("MSS 536: the echo comes back in segments of 536 bytes at most (%s)" % lens,
         len(lens) > 0 and max(lens) <= 536)
    # The same connection (the echo takes one client a run), established
    # without timestamps (its echo not acknowledged: data retransmissions are
    # left out of the replies). RFC 5961: an RST out of the window is dropped
    # silently, one in the window but not at rcv_nxt and a SYN each get a
    # challenge ACK at rcv_nxt, and the connection stays.
    seq += len(data)
    ip = IP(src=me, dst=stack)
    r = tcp_reply(ip / TCP(sport=40002, dport=echo_port, flags="R", seq=seq + 10000000), 40002, 1, True)
    case("an out-of-window RST is dropped without an answer", r is None)
    r = tcp_reply(ip / TCP(sport=40002, dport=echo_port, flags="R", seq=seq + 100), 40002, 3, True)
    case("an in-window RST not at rcv_nxt gets a challenge ACK", r is not None and r.flags == "A" and r.ack == seq)
    r = tcp_reply(ip / TCP(sport=40002, dport=echo_port, flags="S", seq=seq + 5), 40002, 3, True)
    case("a SYN in ESTABLISHED gets a challenge ACK", r is not None and r.flags == "A" and r.ack == seq)
    sendp(l2(IP(src=me, dst=stack) / TCP(sport=40002, dport=echo_port, flags="R", seq=seq)), iface=iface)

# Window scale 14 with timestamps: the SYN-ACK offers scaling and timestamps back
# (the echo then resets this second client: one a run).
h = handshake(40003, [("MSS", 1460), ("SAckOK", b""), ("Timestamp", (1, 0)), ("NOP", None), ("WScale", 14)])
opts = dict((o[0], o[1]) for o in h[2].options) if h is not None else {}
case("window scale 14 and timestamps: SYN-ACK has WScale and echoes TSval 1",
     "WScale" in opts and "Timestamp" in opts and opts["Timestamp"][1] == 1)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
