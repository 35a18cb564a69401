# SPDX-License-Identifier: Apache-2.0
"""The cost of the `route` request (docs/PROTOCOL.md): round trips one at a time and a
pipelined batch, against `ping` (the cheapest request) as the baseline, with pathd's
own CPU time per request from /proc. The destinations cycle through a /24 the default
route covers, so every lookup is a real one in the kernel."""

import threading

from harness import LineClient, now, percentile


def request(op, index):
    if op == "route":
        return b'{"op":"route","destination":"203.0.113.%d","id":%d}\n' % (index % 250 + 1, index)
    return b'{"op":"ping","id":%d}\n' % index


def check(op, line, index):
    expected = b'{"type":"route"' if op == "route" else b'{"type":"pong"'
    if not (line.startswith(expected) and line.endswith(b'"id":%d}' % index)):
        raise RuntimeError(f"wrong reply to {op} {index}: {line[:200]!r}")


def round_trips(client, op, samples):
    times = []
    for index in range(samples):
        t0 = now()
        client.socket.sendall(request(op, index))
        line = client.next_line()
        times.append(now() - t0)
        check(op, line, index)
    return times


def pipelined(client, op, count):
    """`count` requests written at once (from a thread: pathd stops reading while its
    replies wait unread), every reply read: wall time per request."""
    batch = b"".join(request(op, index) for index in range(count))
    t0 = now()
    writer = threading.Thread(target=client.socket.sendall, args=(batch,))
    writer.start()
    for index in range(count):
        check(op, client.next_line(), index)
    writer.join()
    return now() - t0


def route_cost(pathd, samples):
    client = LineClient(pathd.socket_path)
    try:
        round_trips(client, "route", 200)  # warm up both paths
        round_trips(client, "ping", 200)
        result = {"samples": samples}
        for op in ("ping", "route"):
            cpu_before = pathd.cpu_seconds()
            times = sorted(round_trips(client, op, samples))
            cpu = pathd.cpu_seconds() - cpu_before
            batch_ns = pipelined(client, op, samples)
            result[op] = {
                "median_us": percentile(times, 0.5) / 1e3, "p99_us": percentile(times, 0.99) / 1e3,
                "min_us": times[0] / 1e3, "max_us": times[-1] / 1e3,
                "pathd_cpu_us": cpu / samples * 1e6, "pipelined_us": batch_ns / samples / 1e3,
            }
        return result
    finally:
        client.close()


def print_route_cost(r):
    print(f"### The route request: {r['samples']} requests of each, one at a time, then pipelined (µs per request)\n")
    print("| request | round trip min | median | p99 | max | pathd CPU | pipelined |")
    print("|---|---|---|---|---|---|---|")
    for op in ("ping", "route"):
        s = r[op]
        print(f"| {op} | {s['min_us']:.0f} | {s['median_us']:.0f} | {s['p99_us']:.0f} | {s['max_us']:.0f} | "
              f"{s['pathd_cpu_us']:.0f} | {s['pipelined_us']:.0f} |")
    print()
