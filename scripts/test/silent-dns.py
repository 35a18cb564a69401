#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A name server that never answers, for the connectivity kernel tests
(Tests/KernelTests/ConnectivityTests.swift): it reads every query sent to ADDRESS:53 over
UDP and replies to none, as a broken or filtered DNS server does, so that getaddrinfo(3)
waits out resolv.conf's timeout.

Every query appends one line to LOG_FILE ("query from ADDRESS, N bytes"). READY_FILE is
written once the socket is bound. Stops on SIGTERM, or by itself after --lifetime seconds.
"""
import argparse
import signal
import socket
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--log-file", required=True)
    parser.add_argument("--ready-file", required=True)
    parser.add_argument("--lifetime", type=float, default=300)
    options = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGALRM, lambda *_: sys.exit(0))
    signal.alarm(int(options.lifetime))
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind((options.address, 53))
    with open(options.ready_file, "w") as ready:
        ready.write("bound\n")
    while True:
        query, sender = server.recvfrom(4096)
        with open(options.log_file, "a") as log_file:
            log_file.write("query from %s, %d bytes\n" % (sender[0], len(query)))


if __name__ == "__main__":
    main()
