# SPDX-License-Identifier: Apache-2.0
"""The first subscriber's line with a crowd beside it (docs/PERFORMANCE.md, "The first
subscriber with 1,000 beside it"; issue 36): bench.py's stamped subscriber, which
subscribed before everyone else, times its path line against `ip monitor`'s for the
latency part's route changes, alone and with `CROWD` (this file run as a program) holding
1,000 more path subscriptions and 100 watched routes. The phases alternate (solo, crowd,
solo, crowd) so that both live through the same moments of a shared machine.

    subscribers.py crowd SOCKET PATHS ROUTES

connects PATHS subscribers of the default path and ROUTES route subscriptions (on
connections of 50, `MaxSubscriptionsPerClient=` being 64), half to 10.1.0.x and half to
2001:db8:1::x, all carried by the default routes the changes move; prints "ready" once
every subscription has its first line, then reads and drops every line until stdin
closes, and prints "lines PATH ROUTE" (what it read after "ready").
"""

import os
import select
import socket
import subprocess
import sys
import time

from harness import summary_ms

ROUTES_PER_CONNECTION = 50


def destinations(count):
    """`count` destinations, half IPv4 and half IPv6, each carried by a default route."""
    return [f"10.1.{index // 250}.{index % 250 + 1}" if index % 2 == 0 else f"2001:db8:1::{index // 2 + 1:x}"
            for index in range(count)]


def crowd(socket_path, paths, routes):
    connections = []
    expected = {}  # fd: first lines still to come
    for _ in range(paths):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(socket_path)
        client.sendall(b'{"op":"subscribe"}\n')
        connections.append(client)
        expected[client.fileno()] = 1
    targets = destinations(routes)
    for start in range(0, routes, ROUTES_PER_CONNECTION):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(socket_path)
        part = targets[start:start + ROUTES_PER_CONNECTION]
        client.sendall(b"".join(b'{"op":"subscribe","destination":"%s","id":%d}\n' % (d.encode(), start + n)
                                for n, d in enumerate(part)))
        connections.append(client)
        expected[client.fileno()] = len(part)
    by_fd = {client.fileno(): client for client in connections}
    poller = select.epoll()
    for client in connections:
        client.setblocking(False)
        poller.register(client.fileno(), select.EPOLLIN)
    pending = {fd: b"" for fd in by_fd}
    counts = {"path": 0, "route": 0}
    ready = False
    stdin = sys.stdin.fileno()
    poller.register(stdin, select.EPOLLIN)
    deadline = time.monotonic() + 60
    while True:
        if not ready and time.monotonic() > deadline:
            sys.exit(f"crowd: {sum(1 for left in expected.values() if left)} connections lack their first lines")
        for fd, _ in poller.poll(1.0):
            if fd == stdin:
                print(f"lines {counts['path']} {counts['route']}", flush=True)
                return
            data = by_fd[fd].recv(1 << 20)
            if not data:
                sys.exit("crowd: pathd closed a connection")
            *lines, pending[fd] = (pending[fd] + data).split(b"\n")
            for line in lines:
                kind = "route" if line.startswith(b'{"type":"route"') else "path"
                if b'"type":"error"' in line[:20]:
                    sys.exit(f"crowd: {line.decode(errors='replace')}")
                if ready:
                    counts[kind] += 1
                elif line.startswith(b'{"type":"path"') or line.startswith(b'{"type":"route"'):
                    expected[fd] -= 1
        if not ready and not any(expected.values()):
            ready = True
            print("ready", flush=True)


def first_subscriber(driver, socket_path, phases, rounds, paths, routes, steps, cpu_seconds):
    """`phases` alternating phases (solo first), each `rounds` rounds of `steps` (the
    latency part's route changes); per phase, pathd − `ip monitor` of the stamped
    subscriber's line, and pathd's CPU per change."""
    differences = {"solo": [], "crowd": []}
    lines = {"solo": [], "crowd": []}
    monitor = {"solo": [], "crowd": []}
    cpu = {"solo": [0.0, 0], "crowd": [0.0, 0]}
    crowd_lines = []
    missed = {"solo": 0, "crowd": 0}
    for number in range(phases):
        phase = "solo" if number % 2 == 0 else "crowd"
        process = None
        if phase == "crowd":
            # At nice 19: what is measured is what pathd does for the crowd, not the CPU
            # its reader takes from the others on two cores.
            process = subprocess.Popen([sys.executable, os.path.abspath(__file__), "crowd", socket_path, str(paths),
                                        str(routes)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       preexec_fn=lambda: os.nice(19), text=True)
            if process.stdout.readline().strip() != "ready":
                process.kill()
                raise RuntimeError("the crowd did not get its first lines")
        driver.settle(200)
        before = cpu_seconds()
        try:
            for _ in range(rounds):
                for name, stream, request, pathd_predicate, monitor_predicate in steps:
                    result = driver.measure(name, stream, request, pathd_predicate, monitor_predicate)
                    driver.settle(20)
                    if result["pathd"] is None or result["monitor"] is None:
                        missed[phase] += 1
                        continue
                    differences[phase].append(result["pathd"] - result["monitor"])
                    lines[phase].append(result["pathd"])
                    monitor[phase].append(result["monitor"])
        finally:
            cpu[phase][0] += cpu_seconds() - before
            cpu[phase][1] += rounds * len(steps)
            if process:
                process.stdin.close()
                counted = process.stdout.readline().split()
                process.wait()
                if len(counted) == 3:
                    crowd_lines.append((int(counted[1]), int(counted[2])))
                # pathd forgets the closed connections (and their routes) in its own time:
                # not inside the next phase's first change.
                driver.settle(1500)
    return {"paths": paths, "routes": routes, "phases": phases, "rounds": rounds, "missed": missed,
            "minus_monitor": {phase: summary_ms(values) for phase, values in differences.items()},
            "line": {phase: summary_ms(values) for phase, values in lines.items()},
            "monitor": {phase: summary_ms(values) for phase, values in monitor.items()},
            "cpu_ms_per_change": {phase: 1000 * seconds / count for phase, (seconds, count) in cpu.items() if count},
            "crowd_lines_per_change": [(p / (rounds * len(steps)), r / (rounds * len(steps))) for p, r in crowd_lines]}


def print_first_subscriber(report, ms):
    print(f"### The first subscriber, alone and beside {report['paths']} subscribers and {report['routes']} watched "
          f"routes ({report['phases']} alternating phases, route changes, ms)\n")
    print("| phase | n | line median | ip monitor median | pathd − ip monitor, paired median | p99 | max "
          "| pathd CPU per change | missed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for phase in ("solo", "crowd"):
        d = report["minus_monitor"][phase]
        cpu = report["cpu_ms_per_change"].get(phase)
        print(f"| {phase} | {d.get('n', 0)} | {ms(report['line'][phase].get('median'))} "
              f"| {ms(report['monitor'][phase].get('median'))} | {ms(d.get('median'))} | {ms(d.get('p99'))} "
              f"| {ms(d.get('max'))} | {ms(cpu)} | {report['missed'][phase]} |")
    solo, loaded = report["minus_monitor"]["solo"].get("median"), report["minus_monitor"]["crowd"].get("median")
    if solo is not None and loaded is not None:
        print(f"\nThe crowd's cost to the first subscriber (difference of the paired medians): {ms(loaded - solo)} ms.")
    for path_lines, route_lines in report["crowd_lines_per_change"]:
        print(f"The crowd read {path_lines:.0f} path lines and {route_lines:.0f} route lines per change.")
    print()


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "crowd":
    crowd(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
