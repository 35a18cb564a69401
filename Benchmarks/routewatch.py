#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Route subscriptions (docs/ARCHITECTURE.md, "Watched routes"), against a pathd binary, as root, in a namespace of its own:

  routewatch.py flood PATHD ROUTES WATCHED   pathd's CPU time while `ip -batch` adds ROUTES
      unreachable /32s in 100.64.0.0/10 (covering no watched destination), with WATCHED
      route subscriptions (half IPv4 from 198.51.100.1, half IPv6 in 2001:db8:100::/64) on
      one connection; then one route covering a watched destination, whose line must come.
  routewatch.py scale PATHD WATCHED CHANGES  pathd's RSS before and after WATCHED route
      subscriptions (10.0.0.0/8) on one connection, and its CPU time per path change over
      2 x CHANGES carrier flips, each waited for until every subscription's line came.
  routewatch.py latency PATHD ROUNDS  kernel change -> line, after `ip monitor route`'s in the
      same namespace (median and max, ms): ROUNDS times, a rejecting route over a watched
      destination added and deleted (its route line), and the default route, which carries
      both, deleted and added (the route line and the path line of the same change).

Prints one JSON object. `make bench` runs all three (`bench.py --only routewatch`, `report`
and `print_report` below); docs/PERFORMANCE.md ("Watched routes") has a run."""
import json
import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../scripts/test"))
import netns  # noqa: E402


def sh(*args, check=True):
    return subprocess.run(args, check=check, capture_output=True, text=True)


class Namespace:
    """A namespace with d0 (192.0.2.2/24, 2001:db8:1::2/64, default routes) whose veth peer
    d1 sets its carrier, and pathd in it with a client connection."""

    def __init__(self, pathd, name):
        self.name = name
        netns.remove(name)
        self.namespace = netns.Namespace(name)
        self.namespace.veth("d0", None, "d1")
        for command in (["link", "set", "d1", "up"], ["link", "set", "d0", "up"],
                        ["address", "add", "192.0.2.2/24", "dev", "d0"],
                        ["-6", "address", "add", "2001:db8:1::2/64", "dev", "d0", "nodad"],
                        ["route", "add", "default", "via", "192.0.2.1"],
                        ["-6", "route", "add", "default", "via", "2001:db8:1::1"]):
            self.ip(*command)
        self.directory = f"/tmp/{name}"
        os.makedirs(self.directory, exist_ok=True)
        self.socket_path = f"{self.directory}/pathd.sock"
        if os.path.exists(self.socket_path):
            os.unlink(self.socket_path)
        # One connection holds every subscription: as many as it needs, and room for one
        # line of each (1,000 route lines of one change are about 370 KB, more than the
        # 256 KiB of pushes after which a client that fell behind is disconnected).
        self.daemon = subprocess.Popen(self.namespace.exec_arguments([pathd, "--socket", self.socket_path,
                                                                      "--max-subscriptions-per-client", "65536",
                                                                      "--client-queue-limit", "4M"]),
                                       stderr=open(f"{self.directory}/pathd.stderr", "w"))
        deadline = time.time() + 20
        while not os.path.exists(self.socket_path):
            if time.time() > deadline:
                raise RuntimeError("pathd did not start")
            time.sleep(0.05)  # polling for the socket file, with a deadline
        self.client = socket.socket(socket.AF_UNIX)
        self.client.connect(self.socket_path)
        self.reader = self.client.makefile("r")
        if json.loads(self.reader.readline())["type"] != "hello":
            raise RuntimeError("no hello")

    def ip(self, *args):
        self.namespace.ip(*args)

    def subscribe(self, destinations):
        """Subscribes to each destination (id: its index) and checks each first answer."""
        self.client.sendall("".join(json.dumps({"op": "subscribe", "id": index, "destination": destination}) + "\n"
                                    for index, destination in enumerate(destinations)).encode())
        for _ in destinations:
            line = json.loads(self.reader.readline())
            if line["type"] != "route" or line["status"] != "satisfied":
                raise RuntimeError(f"unexpected first answer: {line}")

    def cpu_seconds(self):
        fields = open(f"/proc/{self.daemon.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self):
        for line in open(f"/proc/{self.daemon.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def close(self):
        self.daemon.terminate()
        self.daemon.wait()
        self.namespace.remove()


def flood(pathd, count, watched, prefix="pathd-routewatch"):
    namespace = Namespace(pathd, f"{prefix}-flood")
    try:
        destinations = [f"198.51.{100 + i // 250}.{i % 250 + 1}" for i in range(watched // 2)] + \
                       [f"2001:db8:100::{i + 1:x}" for i in range(watched - watched // 2)]
        namespace.subscribe(destinations)
        lines = []
        threading.Thread(target=lambda: [lines.append(json.loads(text)) for text in namespace.reader],
                         daemon=True).start()
        batch = f"{namespace.directory}/flood.batch"
        with open(batch, "w") as file:
            for i in range(count):
                file.write(f"route add unreachable 100.{64 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}/32\n")
        time.sleep(1)  # idle before the first sample (not an ordering wait)
        before = namespace.cpu_seconds()
        started = time.time()
        sh("ip", "-n", namespace.name, "-batch", batch)
        seconds = time.time() - started
        seen = None
        if not destinations:
            time.sleep(1)  # no line marks the end of pathd's reading: a second for it
            during = len(lines)
        else:
            # pathd reads in order: once the covering route's line is out, every message
            # of the flood was read, and the CPU time below holds all of it.
            namespace.ip("route", "add", "unreachable", "198.51.100.0/24")
            deadline = time.time() + 10
            def covering(line):
                return line.get("destination") == "198.51.100.1" and line["status"] == "unsatisfied"
            while not any(covering(line) for line in list(lines)):
                if time.time() > deadline:
                    raise RuntimeError("the route covering a watched destination was not seen")
                time.sleep(0.01)  # polling the reader thread's lines, with a deadline
            seen = True
            # The lines before the covering route's: those the flood itself caused.
            during = next(index for index, line in enumerate(list(lines)) if covering(line))
        cpu = namespace.cpu_seconds() - before
        return {"watched": watched, "routes": count, "flood_seconds": round(seconds, 1),
                "pathd_cpu_seconds": round(cpu, 2), "route_lines_during_flood": during, "covering_route_seen": seen}
    finally:
        namespace.close()


def scale(pathd, watched, changes, prefix="pathd-routewatch"):
    namespace = Namespace(pathd, f"{prefix}-scale")
    try:
        time.sleep(0.5)  # idle before the first sample (not an ordering wait)
        before_rss = namespace.rss_kib()
        namespace.subscribe([f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}" for i in range(1, watched + 1)])
        after_rss = namespace.rss_kib()

        def flip(state, status):
            namespace.ip("link", "set", "d1", state)  # d0's carrier: the path and every route change
            seen = set()
            while len(seen) < watched:
                line = json.loads(namespace.reader.readline())
                if line["type"] == "route" and line["status"] == status:
                    seen.add(line["id"])

        before = namespace.cpu_seconds()
        started = time.time()
        for _ in range(changes):
            flip("down", "unsatisfied")
            flip("up", "satisfied")
        elapsed = time.time() - started
        cpu = namespace.cpu_seconds() - before
        return {"watched": watched, "rss_kib_before": before_rss, "rss_kib_after": after_rss,
                "rss_kib_per_watched": round((after_rss - before_rss) / watched, 2), "changes": 2 * changes,
                "cpu_ms_per_change": round(1000 * cpu / (2 * changes), 1),
                "wall_ms_per_change": round(1000 * elapsed / (2 * changes), 1)}
    finally:
        namespace.close()


def latency(pathd, rounds, prefix="pathd-routewatch"):
    namespace = Namespace(pathd, f"{prefix}-latency")
    try:
        # IPv4's default route alone carries the path, so that deleting it changes the path.
        namespace.ip("-6", "route", "del", "default", "via", "2001:db8:1::1")
        namespace.subscribe(["198.51.100.1"])
        namespace.client.sendall(b'{"op":"subscribe","id":"path"}\n')
        lines = []  # (monotonic time, line), pathd's
        monitor_lines = []  # (monotonic time, text), ip monitor's
        condition = threading.Condition()

        def read(stream, into, parse):
            for text in stream:
                with condition:
                    into.append((time.monotonic(), parse(text)))
                    condition.notify_all()

        monitor = subprocess.Popen(["ip", "-n", namespace.name, "monitor", "route"], stdout=subprocess.PIPE,
                                   text=True, bufsize=1)
        threading.Thread(target=read, args=(namespace.reader, lines, json.loads), daemon=True).start()
        threading.Thread(target=read, args=(monitor.stdout, monitor_lines, str.strip), daemon=True).start()

        def wait(into, predicate, after):
            with condition:
                if not condition.wait_for(lambda: any(t >= after and predicate(x) for t, x in into), timeout=10):
                    raise RuntimeError("a change was not seen")
                return min(t for t, x in into if t >= after and predicate(x))

        # ip monitor is subscribed once it prints a route added after it started (retried:
        # a route added before it subscribed is never printed).
        deadline = time.monotonic() + 10
        while not any("203.0.113.255" in text for _, text in monitor_lines):
            if time.monotonic() > deadline:
                raise RuntimeError("ip monitor never printed a route")
            namespace.ip("route", "add", "unreachable", "203.0.113.255/32")
            namespace.ip("route", "del", "unreachable", "203.0.113.255/32")
            with condition:
                condition.wait_for(lambda: any("203.0.113.255" in text for _, text in monitor_lines), timeout=0.2)

        def measure(command, kernel, *line_predicates):
            started = time.monotonic()
            namespace.ip(*command)
            seen = wait(monitor_lines, kernel, started)
            return [1000 * (wait(lines, predicate, started) - seen) for predicate in line_predicates]

        def route_line(status):
            return lambda l: l.get("destination") == "198.51.100.1" and l["status"] == status

        def path_line(status):
            return lambda l: l["type"] == "path" and l["status"] == status

        # route: a rejecting route over the watched destination (the path does not move);
        # both: the default route, which carries the path and the route alike, so the two
        # lines of one change are compared.
        route, both_route, both_path = [], [], []
        for _ in range(rounds):
            route += measure(["route", "add", "unreachable", "198.51.100.0/24"],
                             lambda t: t.startswith("unreachable 198.51.100.0/24"), route_line("unsatisfied"))
            route += measure(["route", "del", "unreachable", "198.51.100.0/24"],
                             lambda t: t.startswith("Deleted unreachable 198.51.100.0/24"), route_line("satisfied"))
            for command, kernel, status in [
                (["route", "del", "default", "via", "192.0.2.1"], "Deleted default via 192.0.2.1", "unsatisfied"),
                (["route", "add", "default", "via", "192.0.2.1"], "default via 192.0.2.1", "satisfied"),
            ]:
                route_delay, path_delay = measure(command, lambda t, kernel=kernel: t.startswith(kernel),
                                                  route_line(status), path_line(status))
                both_route.append(route_delay)
                both_path.append(path_delay)
        monitor.terminate()
        monitor.wait()

        def median(values):
            ordered = sorted(values)
            return round(ordered[len(ordered) // 2], 2)
        return {"rounds": rounds,
                "covering_route_change_route_line_ms": [median(route), round(max(route), 2)],
                "default_route_change_route_line_ms": [median(both_route), round(max(both_route), 2)],
                "default_route_change_path_line_ms": [median(both_path), round(max(both_path), 2)]}
    finally:
        namespace.close()


def report(pathd, routes, prefix):
    """Every measure of the watched routes' table (docs/PERFORMANCE.md), for `make bench`."""
    return {"flood": [flood(pathd, routes, watched, prefix) for watched in (0, 100, 1000)],
            "scale": [scale(pathd, watched, 10, prefix) for watched in (100, 1000)],
            "latency": latency(pathd, 50, prefix)}


def print_report(results):
    print("### Watched routes\n")
    print("| flood of routes covering no watched destination | routes | pathd CPU (s) | route lines "
          "| covering route seen |\n|---|---|---|---|---|")
    for run in results["flood"]:
        print(f"| {run['watched']} watched | {run['routes']:,} | {run['pathd_cpu_seconds']} | "
              f"{run['route_lines_during_flood']} | {run['covering_route_seen']} |")
    print("\n| watched on one connection | RSS growth (KiB) | per watched (KiB) | CPU per path change (ms) |"
          "\n|---|---|---|---|")
    for run in results["scale"]:
        print(f"| {run['watched']} | {run['rss_kib_after'] - run['rss_kib_before']} | {run['rss_kib_per_watched']} | "
              f"{run['cpu_ms_per_change']} |")
    lat = results["latency"]
    print(f"\n| line after ip monitor's ({lat['rounds']} rounds), median / max ms | |\n|---|---|")
    for key, label in (("covering_route_change_route_line_ms", "route line, a covering route changes"),
                       ("default_route_change_route_line_ms", "route line, the default route changes"),
                       ("default_route_change_path_line_ms", "path line, the default route changes")):
        print(f"| {label} | {lat[key][0]} / {lat[key][1]} |")
    print()


if __name__ == "__main__":
    measures = {"flood": (flood, 5), "scale": (scale, 5), "latency": (latency, 4)}
    if len(sys.argv) < 2 or sys.argv[1] not in measures or len(sys.argv) != measures[sys.argv[1]][1]:
        sys.exit(__doc__)
    print(json.dumps(measures[sys.argv[1]][0](sys.argv[2], *map(int, sys.argv[3:]))))
