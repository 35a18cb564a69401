#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Sends one IPv6 router advertisement on an interface, to all nodes (ff02::1), with the
options the hints kernel tests need that radvd 2.19 cannot send: the captive portal's
URI (option 37, RFC 8910), and a DNS search list (option 31, RFC 8106) with a lifetime
of the test's choosing. The kernel fills in the ICMPv6 checksum and the source (the
interface's link-local address). Run as root in the router's namespace
(Tests/KernelTests/HintKernelTests.swift; Benchmarks/networks.py sends many with
--count); it exits once the advertisements are sent.
"""
import argparse
import socket
import struct


def search_list(domains, lifetime):
    body = b"".join(b"".join(bytes([len(label)]) + label.encode() for label in domain.split(".")) + b"\0"
                    for domain in domains)
    length = 8 + len(body)
    body += b"\0" * ((-length) % 8)
    return struct.pack("!BBHI", 31, (8 + len(body)) // 8, 0, lifetime) + body


def captive_portal(uri):
    raw = uri.encode()
    padding = (-(2 + len(raw))) % 8
    return struct.pack("!BB", 37, (2 + len(raw) + padding) // 8) + raw + b"\0" * padding


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--interface", required=True)
    parser.add_argument("--captive-portal")
    parser.add_argument("--search", nargs="*", default=[])
    parser.add_argument("--search-lifetime", type=int, default=600)
    parser.add_argument("--router-lifetime", type=int, default=1800)
    parser.add_argument("--count", type=int, default=1, help="send the advertisement this many times, back to back")
    options = parser.parse_args()
    # Type 134, code 0, checksum (the kernel's), hop limit 64, no flags, router lifetime,
    # reachable time and retransmission timer unspecified.
    advertisement = struct.pack("!BBHBBHII", 134, 0, 0, 64, 0, options.router_lifetime, 0, 0)
    if options.search:
        advertisement += search_list(options.search, options.search_lifetime)
    if options.captive_portal:
        advertisement += captive_portal(options.captive_portal)
    sender = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    # RFC 4861 §6.1.2: a host drops an advertisement whose hop limit is not 255.
    sender.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
    sender.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, options.interface.encode())
    destination = ("ff02::1", 0, 0, socket.if_nametoindex(options.interface))
    for _ in range(options.count):
        sender.sendto(advertisement, destination)


if __name__ == "__main__":
    main()
