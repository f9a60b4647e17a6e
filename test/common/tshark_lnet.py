#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Wireshark's view of every LNet PDU in a capture, one line each.

  tshark_lnet.py FILE [--src IP] [--port N]
      -> "type|payload_length|portal|match_bits|offset|sink_length|src|dst"
         for each LNet message Wireshark's dissector decodes, in capture order

tshark's field output cannot be used here: with several PDUs in one TCP
segment, fields that only some message types have (offset for a PUT,
src_offset for a GET) lose their alignment. PDML keeps each PDU apart.
Fields a message type lacks print as "-". --src keeps the PDUs whose
source NID has that IPv4 address; --port decodes another port as LNet.
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET


def field(proto, name):
    for f in proto.iter("field"):
        if f.get("name") == name:
            return f.get("show")
    return None


def nid_addrs(proto):
    """lnet.nid.addr occurs twice per PDU: the destination's, then the source's."""
    return [f.get("show") for f in proto.iter("field") if f.get("name") == "lnet.nid.addr"]


def pdus(path, port):
    lua = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lnet_data_portals.lua")
    cmd = ["tshark", "-2", "-n", "-r", path, "-X", "lua_script:" + lua, "-T", "pdml",
           "-Y", "lnet.msg_type"]
    if port is not None and port != 988:
        cmd[1:1] = ["-d", "tcp.port==%d,lnet" % port]
    out = subprocess.run(cmd, check=True, capture_output=True).stdout
    for packet in ET.fromstring(out).iter("packet"):
        for proto in packet.iter("proto"):
            if proto.get("name") == "lnet" and field(proto, "lnet.msg_type") is not None:
                yield proto


def line(proto):
    mtype = int(field(proto, "lnet.msg_type"), 0)
    offset = field(proto, "lnet.offset") if mtype == 1 else field(proto, "lnet.src_offset")
    values = [mtype, field(proto, "lnet.payload_length"), field(proto, "lnet.ptl_index"),
              field(proto, "lnet.msg_dst_match_bits"), offset, field(proto, "lnet.sink_length")]
    addrs = nid_addrs(proto)
    values += [addrs[1] if len(addrs) > 1 else None, addrs[0] if addrs else None]
    return "|".join("-" if v is None else str(v) for v in values)


def main():
    args = sys.argv[1:]
    src = port = None
    if "--src" in args:
        src = args[args.index("--src") + 1]
    if "--port" in args:
        port = int(args[args.index("--port") + 1])
    for proto in pdus(args[0], port):
        text = line(proto)
        if src is None or text.split("|")[6] == src:
            print(text)


if __name__ == "__main__":
    main()
