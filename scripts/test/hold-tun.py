#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Attaches to the tun device IFNAME (made with `ip tuntap add`) and holds it open until
stdin closes, so that it has carrier as a VPN client's tunnel does. Prints "attached"
once it is. Usage: hold-tun.py IFNAME (run inside the namespace)."""
import fcntl
import os
import struct
import sys

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000

descriptor = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(descriptor, TUNSETIFF, struct.pack("16sH", sys.argv[1].encode(), IFF_TUN | IFF_NO_PI))
print("attached", flush=True)
sys.stdin.read()
