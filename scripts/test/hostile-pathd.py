#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A hostile stand-in for pathd on a Unix socket, for the GIO module's robustness test.
Usage: hostile-pathd.py SOCKET READY_FILE

First connection: hello and a satisfied path, then lines the module must survive and
ignore (not JSON, wrong field types, unknown types, states and fields, deep nesting, NUL,
bad UTF-8), then one real change (expensive), then a line past the module's 1 MiB bound,
which must make it drop the connection. Second connection (the module's reconnect): the
same answer again (no event), then unsatisfied (one event). Prints one line per step."""
import json
import os
import socket
import sys

HELLO = b'{"type":"hello","protocol":1,"version":"hostile","generation":1}\n'


def path(status, expensive=False, **extra):
    line = {"type": "path", "generation": 1, "sequence": 1, "status": status,
            "isExpensive": expensive, "isConstrained": False, "connectivity": {"state": "unknown"}}
    line.update(extra)
    return (json.dumps(line) + "\n").encode()


def serve(listener, name, lines):
    connection, _ = listener.accept()
    request = connection.recv(4096)
    print(f"{name}: {request.decode(errors='replace').strip()}", flush=True)
    try:
        for line in lines:
            connection.sendall(line)
    except OSError as error:
        print(f"{name}: send: {error.strerror}", flush=True)
    return connection


listener = socket.socket(socket.AF_UNIX)
listener.bind(sys.argv[1])
listener.listen(4)
open(sys.argv[2], "w").close()

hostile = [
    b"not json at all\n",
    b"\n",
    b"[1,2,3]\n",
    b'{"type":"path","status":5,"isExpensive":false,"isConstrained":false}\n',
    b'{"type":"path","status":"satisfied","isExpensive":"yes","isConstrained":false}\n',
    # An unknown status reads as unsatisfied, but not without the fields every path has.
    b'{"type":"path","status":"maybe","isExpensive":true}\n',
    b'{"type":"somethingNew","payload":{"a":[1,2,{"b":null}]}}\n',
    b'{"type":"path","status":"satisfied","isExpensive":false,"isConstrained":false,'
    b'"connectivity":{"state":"partlyCloudy"},"newField":[1e999,-0,"\\ud800"]}\n',
    b'{"type":"error","code":"somethingWrong","message":"ignored"}\n',
    b'{"type":"ignored","x":' + b"[" * 200000 + b"\n",
    b'{"type":"path","status":"unsatisfied",\x00"isExpensive":false,"isConstrained":false}\n',
    b'{"type":"path","status":"unsatisfied","isExpensive":false,"isConstrained":false,"r":"\xff\xfe"}\n',
]
first = serve(listener, "first", [HELLO, path("satisfied")] + hostile
              + [path("satisfied", expensive=True), b"x" * (2 * 1024 * 1024) + b"\n"])
second = serve(listener, "second", [HELLO, path("satisfied", expensive=True), path("unsatisfied")])
# Held until the test ends (it kills this process with the namespace's or its own kill).
second.recv(1)
first.close()
print("done", flush=True)
