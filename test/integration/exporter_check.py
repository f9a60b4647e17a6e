#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""What exporter.sh checks in lnetd-exporter's scrapes, read with prometheus_client's parser.

  exporter_check.py scrape URL FILE            save one scrape (HTTP 200 wanted)
  exporter_check.py families FILE NID PEER     the families, their types and label sets
  exporter_check.py moved OLD URL NID PEER     a new scrape whose counters moved past OLD's
  exporter_check.py value FILE NAME LABELS V   one sample: NAME{LABELS} == V (LABELS k=v,k=v)
  exporter_check.py peers FILE EXPORTED        lnet_exporter_peers and _omitted, peer NIs shown
  exporter_check.py down URL                   lnet_up 0 and no series of the daemon
  exporter_check.py dashboard JSON FILE...     every metric a Grafana dashboard queries is in
                                               one of the scrapes
  exporter_check.py fake PATH MODE             a telemetry socket at PATH answering as a
                                               daemon that is stopping (MODE stopping) or
                                               one with answers of another shape (odd)
"""
import json
import os
import re
import socket
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

# name -> (type, label names) of the families every scrape of a daemon with a
# tcp NI and a peer over it has.
NI = {"nid", "net", "lnd"}
PEER_NI = {"nid", "net", "primary_nid"}
LCORE = {"lcore", "role", "cpt"}
FAMILIES = {
    "lnet_up": ("gauge", set()),
    "lnet_exporter_scrape_duration_seconds": ("gauge", set()),
    "lnet_sent_messages": ("counter", set()),
    "lnet_received_messages": ("counter", set()),
    "lnet_dropped_messages": ("counter", set()),
    "lnet_sent_bytes": ("counter", set()),
    "lnet_received_bytes": ("counter", set()),
    "lnet_routed_messages": ("counter", set()),
    "lnet_messages_allocated": ("gauge", set()),
    "lnet_response_timeouts": ("counter", set()),
    "lnet_lcore_hops": ("counter", {"kind"}),
    "lnet_ni_info": ("gauge", NI | {"interface", "cpts"}),
    "lnet_ni_up": ("gauge", NI),
    "lnet_ni_sent_messages": ("counter", NI),
    "lnet_ni_received_messages": ("counter", NI),
    "lnet_ni_dropped_messages": ("counter", NI),
    "lnet_ni_messages_by_type": ("counter", NI | {"direction", "type"}),
    "lnet_ni_health_value": ("gauge", NI),
    "lnet_ni_health_events": ("counter", NI | {"kind"}),
    "lnet_ni_credits": ("gauge", NI),
    "lnet_ni_peer_credits": ("gauge", NI),
    "lnet_lnd_accepted": ("counter", NI),
    "lnet_lnd_tx_msgs": ("counter", NI),
    "lnet_lnd_rx_msgs": ("counter", NI),
    "lnet_peers": ("gauge", set()),
    "lnet_discovery_peers": ("gauge", {"state"}),
    "lnet_exporter_peers": ("gauge", set()),
    "lnet_exporter_peers_omitted": ("gauge", set()),
    "lnet_peer_ni_tx_credits": ("gauge", PEER_NI),
    "lnet_peer_ni_tx_credits_min": ("gauge", PEER_NI),
    "lnet_peer_ni_tx_credits_max": ("gauge", PEER_NI),
    "lnet_peer_ni_health_value": ("gauge", PEER_NI),
    "lnet_peer_ni_sent_messages": ("counter", PEER_NI),
    "lnet_peer_ni_received_messages": ("counter", PEER_NI),
    "lnet_peer_ni_health_events": ("counter", PEER_NI | {"kind"}),
    "lnet_route_up": ("gauge", {"net", "gateway"}),
    "lnet_route_hops": ("gauge", {"net", "gateway"}),
    "lnet_route_priority": ("gauge", {"net", "gateway"}),
    "lnet_routing_enabled": ("gauge", set()),
    "lnet_routing_state": ("gauge", set()),
    "lnet_lcore_loops": ("counter", LCORE),
    "lnet_lcore_stalls": ("counter", LCORE),
    "lnet_lcore_max_gap_seconds": ("gauge", LCORE),
    "lnet_lcore_stall_threshold_seconds": ("gauge", set()),
}
# Counters that traffic between the two daemons moves: (family, labels that pick the series).
MOVING = (
    ("lnet_sent_messages", {}),
    ("lnet_received_messages", {}),
    ("lnet_received_bytes", {}),
    ("lnet_ni_sent_messages", {"nid": "{nid}"}),
    ("lnet_ni_received_messages", {"nid": "{nid}"}),
    ("lnet_ni_messages_by_type", {"nid": "{nid}", "direction": "sent", "type": "get"}),
    ("lnet_lnd_rx_msgs", {"nid": "{nid}"}),
    ("lnet_lnd_tx_msgs", {"nid": "{nid}"}),
    ("lnet_peer_ni_sent_messages", {"nid": "{peer}"}),
    ("lnet_peer_ni_received_messages", {"nid": "{peer}"}),
    ("lnet_lcore_loops", {"lcore": "0"}),
)


def fetch(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        if r.status != 200:
            raise SystemExit("HTTP %d from %s" % (r.status, url))
        return r.read().decode()


def parse(text):
    """{family name: Metric}; a sample twice (same name and labels) fails."""
    fams = {}
    seen = set()
    for f in text_string_to_metric_families(text):
        fams[f.name] = f
        for s in f.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in seen:
                raise SystemExit("sample twice: %s %s" % key)
            seen.add(key)
    return fams


def load(path):
    with open(path) as fh:
        return parse(fh.read())


def sample(fams, family, labels):
    """The value of the one sample of FAMILY whose labels include LABELS."""
    f = fams.get(family)
    if f is None:
        raise SystemExit("no family " + family)
    hits = [s for s in f.samples if s.name in (family, family + "_total")
            and all(s.labels.get(k) == v for k, v in labels.items())]
    if len(hits) != 1:
        raise SystemExit("%s%s: %d samples, want 1: %s" % (family, labels, len(hits), f.samples))
    return hits[0].value


def check_families(path, nid, peer):
    fams = load(path)
    bad = []
    for name, (kind, labels) in FAMILIES.items():
        f = fams.get(name)
        if f is None:
            bad.append("missing " + name)
            continue
        if f.type != kind:
            bad.append("%s: type %s, want %s" % (name, f.type, kind))
        if not f.samples:
            bad.append("%s: no sample" % name)
        for s in f.samples:
            if set(s.labels) != labels:
                bad.append("%s: labels %s, want %s" % (s.name, sorted(s.labels), sorted(labels)))
            if kind == "counter" and not s.name.endswith("_total"):
                bad.append("%s: a counter's sample without _total" % s.name)
    # One label set per NI and per peer NI: the tcp NI and the peer once each.
    for family, want in (("lnet_ni_up", nid), ("lnet_peer_ni_tx_credits", peer)):
        n = [s for s in fams[family].samples if s.labels["nid"] == want] if family in fams else []
        if len(n) != 1:
            bad.append("%s{nid=%s}: %d samples, want 1" % (family, want, len(n)))
    if sample(fams, "lnet_up", {}) != 1:
        bad.append("lnet_up is not 1")
    print("\n".join(bad) or "%d families, types and labels as wanted" % len(FAMILIES))
    return not bad


def moved(old_path, url, nid, peer):
    old = load(old_path)
    new = parse(fetch(url))
    stuck = []
    for family, labels in MOVING:
        labels = {k: v.format(nid=nid, peer=peer) for k, v in labels.items()}
        a, b = sample(old, family, labels), sample(new, family, labels)
        if not b > a:
            stuck.append("%s%s: %s -> %s" % (family, labels, a, b))
    print("\n".join(stuck) or "all %d counters moved" % len(MOVING))
    return not stuck


def value(path, family, labels, want):
    labels = dict(kv.split("=", 1) for kv in labels.split(",") if kv)
    got = sample(load(path), family, labels)
    if got != float(want):
        print("%s%s = %s, want %s" % (family, labels, got, want))
    return got == float(want)


def peers(path, exported):
    fams = load(path)
    total = sample(fams, "lnet_peers", {})
    got = sample(fams, "lnet_exporter_peers", {})
    omitted = sample(fams, "lnet_exporter_peers_omitted", {})
    primaries = {s.labels["primary_nid"] for s in fams["lnet_peer_ni_tx_credits"].samples}
    ok = got == int(exported) and omitted == total - got and len(primaries) == got
    if not ok:
        print("lnet_peers %s, exported %s (want %s), omitted %s, peers shown %s" %
              (total, got, exported, omitted, sorted(primaries)))
    return ok


def down(url):
    fams = parse(fetch(url))
    daemon = sorted(n for n in fams if n.startswith("lnet_") and
                    not n.startswith("lnet_exporter_") and n != "lnet_up")
    ok = sample(fams, "lnet_up", {}) == 0 and not daemon
    if not ok:
        print("lnet_up %s, daemon's families %s" % (sample(fams, "lnet_up", {}), daemon))
    return ok


def dashboard(path, scrapes):
    """The metric names in the dashboard's queries, each a sample name of some scrape."""
    with open(path) as fh:
        panels = json.load(fh)["panels"]
    wanted = {name for p in panels for t in p.get("targets", ())
              for name in re.findall(r"\blnet_[a-z0-9_]+", t["expr"])}
    served = {s.name for f in scrapes for fam in load(f).values() for s in fam.samples}
    missing = sorted(wanted - served)
    print("missing: %s" % missing if missing else "%d metrics queried, all served" % len(wanted))
    return bool(wanted) and not missing


# What the fake daemon answers every command with, by mode.
FAKE_ANSWERS = {
    "stopping": {"status": -108, "descr": "lnetd-pmd is stopping"},  # lnetd_tel_gate.c's
    "odd": {"ni0": {"nid": "10.0.0.1@tcp"}, "n0": {"nid": "10.0.0.2@tcp"}},
}


def fake(path, mode):
    """DPDK's telemetry greeting, then FAKE_ANSWERS[mode] to each request, until killed."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    srv.bind(path + ".tmp")
    srv.listen(4)
    os.rename(path + ".tmp", path)  # the path appears once it accepts
    while True:
        conn, _ = srv.accept()
        conn.send(json.dumps({"version": "fake", "pid": os.getpid(),
                              "max_output_len": 16384}).encode())
        while True:
            req = conn.recv(1024)
            if not req:
                break
            cmd = req.decode().split(",")[0]
            conn.send(json.dumps({cmd: FAKE_ANSWERS[mode]}).encode())
        conn.close()


def main(argv):
    cmd = argv[1]
    if cmd == "scrape":
        with open(argv[3], "w") as fh:
            fh.write(fetch(argv[2]))
        return True
    if cmd == "families":
        return check_families(*argv[2:5])
    if cmd == "moved":
        return moved(*argv[2:6])
    if cmd == "value":
        return value(*argv[2:6])
    if cmd == "peers":
        return peers(*argv[2:4])
    if cmd == "down":
        return down(argv[2])
    if cmd == "dashboard":
        return dashboard(argv[2], argv[3:])
    if cmd == "fake":
        return fake(argv[2], argv[3])
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv) else 1)
