#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Sets a link's RFC 2863 operstate the way an 802.1X supplicant does: RTM_SETLINK
with IFLA_OPERSTATE (Documentation/networking/operstates.rst). iproute2 has no verb
for it. Usage: set-operstate.py IFNAME dormant|up (run inside the namespace)."""
import socket
import struct
import sys

RTM_SETLINK = 19
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
IFLA_OPERSTATE = 16
STATES = {"up": 6, "dormant": 5}

name, state = sys.argv[1], sys.argv[2]
index = socket.if_nametoindex(name)
attribute = struct.pack("HHB3x", 5, IFLA_OPERSTATE, STATES[state])
body = struct.pack("BxHiII", socket.AF_UNSPEC, 0, index, 0, 0) + attribute
header = struct.pack("IHHII", 16 + len(body), RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, 1, 0)
with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as sock:
    sock.sendto(header + body, (0, 0))
    reply = sock.recv(4096)
    error = struct.unpack_from("i", reply, 16)[0]
    if error != 0:
        sys.exit(f"RTM_SETLINK {name} operstate {state}: errno {-error}")
