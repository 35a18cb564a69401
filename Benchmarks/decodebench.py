#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pathd's rtnetlink decoders against libnl-route-3's objects, on the same messages.

Builds a namespace holding what a busy host's kernel describes (links, addresses,
policy rules, 10,000 neighbours, 100,000 routes), captures its dumps once with
pathd-decode-bench, then times each decoder on the captured messages (no kernel in
the loop), counts each decoder's allocations under valgrind, and measures the heap
that libnl's cache of every route and neighbour holds. Prints Markdown: the tables of
docs/ARCHITECTURE.md, "Why not libnl-route's objects". Root (a network namespace).

    Benchmarks/decodebench.py --bench .build/release/pathd-decode-bench [--allocations]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../scripts/test"))
from netns import IP, Namespace  # noqa: E402

PAIRS = 100            # veth pairs: 200 links besides lo
NEIGHBOURS = 10_000    # half IPv4, half IPv6, on the first ends of the pairs
ROUTES = 100_000       # IPv4 /24s through the pairs' far ends
RULES = 150            # fwmark rules: 100 IPv4, 50 IPv6
KINDS = ("link", "address", "rule", "neighbour", "route")
DECODERS = ("pathd", "libnl", "libnl-msg")


def batch(namespace, lines, *options):
    """`ip OPTIONS -batch -` in the namespace: thousands of changes in one process."""
    subprocess.run([IP, "-n", namespace.name, *options, "-batch", "-"], input="\n".join(lines) + "\n", text=True,
                   check=True, stdout=subprocess.DEVNULL)


def populate(namespace):
    batch(namespace, [f"link add v{i} type veth peer name w{i}" for i in range(PAIRS)])
    lines = []
    for i in range(PAIRS):
        for end, host in (("v", 1), ("w", 2)):
            lines += [f"link set {end}{i} up",
                      f"address add 10.1.{i}.{host}/24 dev {end}{i}",
                      f"address add 10.2.{i}.{host}/24 dev {end}{i}",
                      f"address add fd01:{i:x}::{host}/64 dev {end}{i} nodad",
                      f"address add fd02:{i:x}::{host}/64 dev {end}{i} nodad"]
    lines += [f"rule add fwmark {i + 1} table {100 + i}" for i in range(100)]
    batch(namespace, [f"rule add fwmark {i + 1} table {100 + i}" for i in range(RULES - 100)], "-6")
    # Permanent entries: the kernel exempts them from its neighbour garbage collection
    # (gc_thresh3 is 1,024 entries), and the message is the same as for any state.
    for n in range(NEIGHBOURS // 2):
        link, host = n % PAIRS, 10 + n // PAIRS
        mac = f"02:00:00:{link:02x}:{host // 256:02x}:{host % 256:02x}"
        lines += [f"neigh add 10.1.{link}.{host} lladdr {mac} dev v{link} nud permanent",
                  f"neigh add fd01:{link:x}::{host:x} lladdr {mac} dev v{link} nud permanent"]
    lines += [f"route add {11 + n // 65536}.{(n // 256) % 256}.{n % 256}.0/24 via 10.1.{n % PAIRS}.2"
              for n in range(ROUTES)]
    batch(namespace, lines)


def heap_allocations(command):
    """valgrind's "total heap usage: N allocs" of COMMAND."""
    result = subprocess.run(["valgrind", "--leak-check=no", *command], check=True, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    match = re.search(r"total heap usage: ([\d,]+) allocs", result.stderr)
    if not match:
        raise RuntimeError(f"no heap summary from valgrind: {result.stderr[-500:]}")
    return int(match.group(1).replace(",", ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True, help="the built pathd-decode-bench")
    parser.add_argument("--netns", default=f"pathd-decodebench-{os.getpid()}", help="the namespace's name")
    parser.add_argument("--rounds", type=int, default=21, help="timed passes per decoder and kind (median)")
    parser.add_argument("--allocations", action="store_true", help="also count allocations under valgrind")
    parser.add_argument("--capture", help="keep the captured messages in this file; an existing one is reused")
    options = parser.parse_args()
    bench = os.path.abspath(options.bench)

    with tempfile.TemporaryDirectory() as directory:
        capture = os.path.abspath(options.capture) if options.capture else os.path.join(directory, "messages")
        if not os.path.exists(capture):
            namespace = Namespace(options.netns)
            try:
                populate(namespace)
                namespace.run(bench, "capture", capture)
            finally:
                namespace.remove()

        timed = subprocess.run([bench, "time", capture, str(options.rounds)], check=True, text=True,
                               stdout=subprocess.PIPE).stdout
        counts, nanoseconds = {}, {}
        for line in timed.splitlines():
            fields = line.split()
            if fields[0] == "time":
                counts[fields[1]] = int(fields[3])
                nanoseconds[(fields[1], fields[2])] = float(fields[4])

        allocations = {}
        if options.allocations:
            baseline = heap_allocations([bench, "parse", capture, "neighbour", "pathd", "0"])
            for kind in KINDS[:-1]:
                for decoder in DECODERS:
                    if (kind, decoder) in nanoseconds:
                        total = heap_allocations([bench, "parse", capture, kind, decoder, "1"])
                        allocations[(kind, decoder)] = (total - baseline) / counts[kind]

        cached = subprocess.run([bench, "cache", capture], check=True, text=True, stdout=subprocess.PIPE).stdout

    def cell(kind, decoder):
        if (kind, decoder) not in nanoseconds:
            return "—"
        text = f"{nanoseconds[(kind, decoder)]:.0f} ns"
        if (kind, decoder) in allocations:
            text += f", {allocations[(kind, decoder)]:.1f} allocs"
        return text

    print("| messages | count | pathd's decoder | libnl parser | libnl `nl_msg_parse` |")
    print("|---|---:|---:|---:|---:|")
    for kind in KINDS:
        if kind in counts:
            print(f"| {kind} | {counts[kind]} | " + " | ".join(cell(kind, d) for d in DECODERS) + " |")
    print()
    print("| libnl cache | messages | objects kept | heap per message | time to fill |")
    print("|---|---:|---:|---:|---:|")
    for line in cached.splitlines():
        _, kind, messages, objects, per_message, elapsed = line.split()
        print(f"| {kind} | {messages} | {objects} | {float(per_message):.0f} B | {int(elapsed) / 1e6:.0f} ms |")


if __name__ == "__main__":
    main()
