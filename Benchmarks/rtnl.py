# SPDX-License-Identifier: Apache-2.0
"""A minimal rtnetlink client for the benchmarks: set a link up or down, add or
delete a route, set a neighbour entry, in a chosen network namespace, and wait for the
kernel's ack.

The benchmark changes the kernel itself, through one of these sockets, so that the
moment of a change and the moments pathd and `ip monitor` notice it are read from one
monotonic clock in one process (no fork/exec of `ip` in the measured interval).
"""

import ctypes
import os
import socket
import struct

CLONE_NEWNET = 0x40000000

NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_REPLACE = 0x100
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
NLMSG_ERROR = 2

RTM_NEWLINK = 16
RTM_NEWROUTE = 24
RTM_DELROUTE = 25
RTM_NEWNEIGH = 28

IFF_UP = 0x1
IFF_LOWER_UP = 0x10000
RTMGRP_LINK = 0x1
RTA_DST = 1
RTA_OIF = 4
RTA_GATEWAY = 5
RT_TABLE_MAIN = 254
RTPROT_BOOT = 3
RT_SCOPE_UNIVERSE = 0
RTN_UNICAST = 1
NDA_DST = 1
NDA_LLADDR = 2
NUD_REACHABLE = 0x02

_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, "setns: " + os.strerror(error))


def socket_in_namespace(name, groups=0):
    """An rtnetlink socket bound in namespace `name` (to the multicast `groups`, a
    RTMGRP_* mask); the calling thread returns to its own namespace afterwards (a
    socket keeps the namespace it was created in)."""
    own = os.open("/proc/self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        _setns(target)
        try:
            return RouteSocket(groups)
        finally:
            _setns(own)
    finally:
        os.close(target)
        os.close(own)


def _attribute(kind, payload):
    length = 4 + len(payload)
    padding = (4 - length % 4) % 4
    return struct.pack("=HH", length, kind) + payload + b"\0" * padding


class RouteSocket:
    def __init__(self, groups=0):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        self.sock.bind((0, groups))
        self.sequence = 0

    def close(self):
        self.sock.close()

    def fileno(self):
        return self.sock.fileno()

    def send(self, kind, flags, body):
        """Sends one request with NLM_F_ACK and returns its sequence number at once;
        `acks` reads the answer when the socket is readable."""
        self.sequence += 1
        header = struct.pack("=IHHII", 16 + len(body), kind, flags | NLM_F_REQUEST | NLM_F_ACK, self.sequence, 0)
        self.sock.send(header + body)
        return self.sequence

    def messages(self):
        """Reads once; yields (type, datagram, offset of the payload) per message."""
        data = self.sock.recv(65536)
        offset = 0
        while offset + 16 <= len(data):
            length, kind = struct.unpack_from("=IH", data, offset)
            yield kind, data, offset + 16
            offset += (length + 3) & ~3

    def acks(self):
        """Reads once; returns [(sequence, errno)] of the acks and errors received."""
        result = []
        for kind, data, payload in self.messages():
            if kind == NLMSG_ERROR:
                (error,) = struct.unpack_from("=i", data, payload)
                (sequence,) = struct.unpack_from("=I", data, payload - 8)
                result.append((sequence, -error))
        return result

    def links(self):
        """Reads once; returns [(ifindex, ifi_flags)] of the RTM_NEWLINK messages received."""
        return [struct.unpack_from("=BxHiII", data, payload)[2:4]
                for kind, data, payload in self.messages() if kind == RTM_NEWLINK]

    @staticmethod
    def link_request(index, up):
        """(kind, flags, body) that sets link `index` administratively up or down."""
        body = struct.pack("=BxHiII", socket.AF_UNSPEC, 0, index, IFF_UP if up else 0, IFF_UP)
        return RTM_NEWLINK, 0, body

    @staticmethod
    def route_request(add, family, gateway, oif, destination=None, prefix_length=0):
        """(kind, flags, body) that adds or deletes a unicast route in the main table
        (the default route unless `destination` is given)."""
        body = struct.pack("=BBBBBBBBI", family, prefix_length, 0, 0, RT_TABLE_MAIN,
                           RTPROT_BOOT if add else 0, RT_SCOPE_UNIVERSE, RTN_UNICAST, 0)
        if destination is not None:
            body += _attribute(RTA_DST, socket.inet_pton(family, destination))
        body += _attribute(RTA_GATEWAY, socket.inet_pton(family, gateway))
        body += _attribute(RTA_OIF, struct.pack("=i", oif))
        if add:
            return RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, body
        return RTM_DELROUTE, 0, body

    @staticmethod
    def neighbour_request(index, address, mac):
        """(kind, flags, body) that creates or replaces link `index`'s entry for `address`
        (IPv4) with `mac`, REACHABLE: confirmed now, as by an answer from the neighbour
        (`ip neigh replace ADDRESS lladdr MAC dev LINK nud reachable`)."""
        body = struct.pack("=BxxxiHBB", socket.AF_INET, index, NUD_REACHABLE, 0, RTN_UNICAST)
        body += _attribute(NDA_DST, socket.inet_pton(socket.AF_INET, address))
        body += _attribute(NDA_LLADDR, bytes(int(part, 16) for part in mac.split(":")))
        return RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE, body
