#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pathd benchmarks (docs/PERFORMANCE.md, "Targets and results"): latency against
`ip monitor`, a million-route flood, fan-out to 1,000 subscribers, idle cost, start
time; a well-behaved client's latency under hostile local users, and memory with 1,024
subscribers ("Hostile local users"); `pathctl monitor --json` and the in-process engine
beside pathd, the engine's start, and where pathd's part of a change goes (readers.py;
"Start, hops, the in-process engine"); the first subscriber's line beside 1,000 more and
100 watched routes (subscribers.py); the floor, pathd-floor in pathd's place and as a
client that only copies pathd's lines ("The floor: what a reader that does the verdict's
work comes to").

Runs as root in two network namespaces it creates and always removes; only veth and
loopback traffic. Prints Markdown tables; `--json FILE` also writes the raw numbers.
Started by `make bench` through Benchmarks/run.sh.
"""

import argparse
import json
import os
import platform
import random
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gio  # noqa: E402
import hostile  # noqa: E402
import neighbours  # noqa: E402
import networks  # noqa: E402
import routebench  # noqa: E402
import routewatch  # noqa: E402
import runbench  # noqa: E402
import readers  # noqa: E402
import subscribers  # noqa: E402
import rtnl  # noqa: E402
from harness import (IP, Loop, Pathd, PipedStream, StampedSubscriber, Stream, Subscriber, Topology,  # noqa: E402
                     cpu_seconds, kib, now, summary_ms)


# MARK: predicates

def is_path(parsed):
    return parsed is not None and parsed.get("type") == "path"


def path_state(v4, v6):
    """A predicate on a path line: satisfied with exactly these families (or, with both
    False, unsatisfied)."""
    def predicate(parsed):
        if not is_path(parsed):
            return False
        if not v4 and not v6:
            return parsed["status"] == "unsatisfied"
        return (parsed["status"] == "satisfied" and parsed.get("supportsIPv4") == v4
                and parsed.get("supportsIPv6") == v6)
    return predicate


LINK_LINE = re.compile(r"^\d+: (\S+?)(?:@\S+)?: <([^>]*)>.*?state (\S+)")


def link_line(name, test):
    """A predicate on an `ip monitor` line about link `name`: test(flags, state)."""
    def predicate(text):
        match = LINK_LINE.match(text)
        return bool(match) and match.group(1) == name and test(set(match.group(2).split(",")), match.group(3))
    return predicate


def route_line(deleted, gateway):
    prefix = ("Deleted " if deleted else "") + f"default via {gateway} "
    return lambda text: text.startswith(prefix)


CARRIER_OFF = link_line("vA", lambda flags, state: "NO-CARRIER" in flags)
CARRIER_ON = link_line("vA", lambda flags, state: "NO-CARRIER" not in flags and state == "UP")
ADMIN_DOWN = link_line("vA", lambda flags, state: "UP" not in flags)
ADMIN_UP = link_line("vA", lambda flags, state: "UP" in flags)


# MARK: the change driver

class AckStream:
    """The acks of one rtnetlink socket, stamped like every other stream."""

    def __init__(self, route_socket):
        self.socket = route_socket
        self.acks = {}

    def fileno(self):
        return self.socket.fileno()

    def readable(self, stamp):
        for sequence, error in self.socket.acks():
            self.acks[sequence] = (stamp, error)


class LinkWatch:
    """The kernel's link notifications in namespace A, stamped like every other stream:
    when the kernel published a carrier change, whatever delayed it (linkwatch, RTNL)."""

    def __init__(self, namespace):
        self.socket = rtnl.socket_in_namespace(namespace, rtnl.RTMGRP_LINK)
        self.events = []  # (time, ifindex, carrier)

    def fileno(self):
        return self.socket.fileno()

    def readable(self, stamp):
        for index, flags in self.socket.links():
            self.events.append((stamp, index, bool(flags & rtnl.IFF_LOWER_UP)))

    def first(self, start, index, carrier):
        """The time of the first event at or after `start` saying link `index` has (or
        has not) carrier, or None."""
        for stamp, event_index, event_carrier in self.events:
            if stamp >= start and event_index == index and event_carrier == carrier:
                return stamp
        return None


class Driver:
    """Performs kernel changes through rtnetlink and watches pathd's subscriber and
    `ip monitor link route` in one select loop, all against one clock."""

    def __init__(self, topology, subscriber, linestamp=None):
        self.topology = topology
        self.subscriber = subscriber
        # pathd-linestamp, through which `ip monitor`'s lines are read and stamped, as
        # pathd's are (StampedSubscriber); None: stamped by this process's select loop.
        self.linestamp = linestamp
        self.stamper = None
        self.socket_a = AckStream(rtnl.socket_in_namespace(topology.a))
        self.socket_b = AckStream(rtnl.socket_in_namespace(topology.b))
        self.links = LinkWatch(topology.a)
        self.loop = Loop([subscriber, self.socket_a, self.socket_b, self.links])
        self.monitor = None
        # Other readers of the path (readers.py), timed beside pathd's line: {name: stream}.
        self.readers = {}
        self.start_monitor()

    def start_monitor(self, objects=("link", "route")):
        """Starts `ip monitor link route` (or of other `objects`) and waits until it is
        subscribed."""
        self.monitor = subprocess.Popen([IP, "-n", self.topology.a, "monitor", *objects],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if self.linestamp:
            self.stamper = subprocess.Popen([self.linestamp], stdin=self.monitor.stdout, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL)
            os.set_blocking(self.stamper.stdout.fileno(), False)
            self.monitor_lines = Stream(self.stamper.stdout.fileno(), stamped=True)
        else:
            os.set_blocking(self.monitor.stdout.fileno(), False)
            self.monitor_lines = Stream(self.monitor.stdout.fileno())
        self.loop.add(self.monitor_lines)
        self.prime()

    def stop_monitor(self):
        """Stops the reference `ip monitor` during a flood: reading its million lines in
        this process would delay the time stamps of pathd's lines (one select loop)."""
        self.loop.remove(self.monitor_lines)
        self.monitor.terminate()
        self.monitor.wait()
        self.monitor.stdout.close()
        self.monitor = None
        if self.stamper:
            self.stamper.wait()  # ends at the end of ip monitor's output
            self.stamper.stdout.close()
            self.stamper = None

    def watch(self, subscriber):
        """Reads another pathd's subscriber in the same loop."""
        self.loop.add(subscriber)

    def add_reader(self, name, stream):
        """Times `stream`'s path lines in every `measure` from now on."""
        self.readers[name] = stream
        self.loop.add(stream)

    def remove_readers(self):
        for stream in self.readers.values():
            self.loop.remove(stream)
            stream.stop()
        self.readers = {}

    def prime(self):
        """Waits until `ip monitor` is subscribed: it prints a route we add and delete."""
        for add in (True, False):
            self.change(self.socket_a, rtnl.RouteSocket.route_request(
                add, socket.AF_INET, Topology.V4_GATEWAY, self.topology.va_index, "192.0.2.99", 32))
        deadline = now() + 5_000_000_000
        self.loop.pump(lambda: self.monitor_lines.first(0, lambda e: e[1].startswith("Deleted 192.0.2.99")), deadline)

    def change(self, stream, request):
        """Sends a change; returns (t0, sequence). The ack is read by the loop."""
        kind, flags, body = request
        t0 = now()
        return t0, stream.socket.send(kind, flags, body)

    def settle(self, milliseconds):
        """Reads (and stamps) whatever arrives for a while, so that late lines of one
        change are not taken for the next one's."""
        self.loop.pump(lambda: False, now() + milliseconds * 1_000_000)

    def measure(self, name, stream, request, pathd_predicate, monitor_predicate, timeout=3.0, carrier=None):
        """Makes one change and times pathd's matching line, `ip monitor`'s (unless
        `monitor_predicate` is None) and the kernel's ack against the moment it was sent;
        for a carrier change (`carrier` is the state it sets on vA), also the kernel's
        link notification."""
        path_start = len(self.subscriber.lines)
        monitor_start = len(self.monitor_lines.lines) if monitor_predicate else 0
        reader_starts = {name: len(reader.lines) for name, reader in self.readers.items()}
        t0, sequence = self.change(stream, request)
        found = {}

        def done():
            for name, reader in self.readers.items():
                if name not in found:
                    entry = reader.first(reader_starts[name], lambda e: e[2] is not None and pathd_predicate(e[2]))
                    if entry:
                        found[name] = entry
            if "pathd" not in found:
                entry = self.subscriber.first(path_start, lambda e: pathd_predicate(e[2]))
                if entry:
                    found["pathd"] = entry
            if "monitor" not in found and monitor_predicate:
                entry = self.monitor_lines.first(monitor_start, lambda e: monitor_predicate(e[1]))
                if entry:
                    found["monitor"] = entry
            return ("pathd" in found and ("monitor" in found or not monitor_predicate)
                    and sequence in stream.acks and all(name in found for name in self.readers))

        self.loop.pump(done, t0 + int(timeout * 1e9))
        ack = stream.acks.get(sequence)
        notified = self.links.first(t0, self.topology.va_index, carrier) if carrier is not None else None
        if ack and ack[1] != 0:
            raise OSError(ack[1], f"{name}: the kernel refused the change: {os.strerror(ack[1])}")
        return {
            "change": name,
            "ack": ack[0] - t0 if ack else None,
            # When the kernel had published the change: its link notification for a
            # carrier change, else its ack (sent after the route notification).
            "kernel": (notified - t0 if notified else None) if carrier is not None else (ack[0] - t0 if ack else None),
            "pathd": found["pathd"][0] - t0 if "pathd" in found else None,
            "monitor": found["monitor"][0] - t0 if "monitor" in found else None,
            "pathd_line": found["pathd"][1] if "pathd" in found else None,
            "readers": self.reader_times(found, t0),
            "pathd_entry": found.get("pathd"),
        }

    def reader_times(self, found, t0):
        """Each reader's line against the request; a reader that stamps its lines
        itself (the in-process engine's handler) also by that stamp."""
        times = {}
        for name in self.readers:
            entry = found.get(name)
            times[name] = entry[0] - t0 if entry else None
            if entry and "stamp" in entry[2]:
                times[name + ", stamped in the handler"] = entry[2]["stamp"] - t0
        return times

    def close(self):
        self.remove_readers()
        self.loop.close()
        if self.monitor:
            self.monitor.terminate()
            self.monitor.wait()
        if self.stamper:
            self.stamper.wait()
        self.socket_a.socket.close()
        self.socket_b.socket.close()


# MARK: 1. latency

def route_step(driver, name, add, family, v4, v6):
    """A `measure` step that adds or deletes vA's default route of `family`, after which
    the path is satisfied with exactly the families v4 and v6."""
    gateway = Topology.V4_GATEWAY if family == socket.AF_INET else Topology.V6_GATEWAY
    request = rtnl.RouteSocket.route_request(add, family, gateway, driver.topology.va_index)
    return (name, driver.socket_a, request, path_state(v4, v6), route_line(not add, gateway))


def route_steps(driver):
    """The route changes of the latency part, from and back to both default routes."""
    v4, v6 = socket.AF_INET, socket.AF_INET6
    return [route_step(driver, "IPv4 default delete", False, v4, False, True),
            route_step(driver, "IPv4 default add", True, v4, True, True),
            route_step(driver, "IPv6 default delete", False, v6, True, False),
            route_step(driver, "IPv6 default add", True, v6, True, True)]


def latency(driver, rounds, any_line=False):
    """The latency part's changes, `rounds` times; with `any_line`, the subscriber's first
    line after each change is its answer, whatever it says (the floor's)."""
    top = driver.topology
    a, b = driver.socket_a, driver.socket_b
    v4, v6 = socket.AF_INET, socket.AF_INET6
    any_path = is_path
    steps = [
        ("carrier off", b, rtnl.RouteSocket.link_request(top.vb_index, False), path_state(False, False), CARRIER_OFF),
        ("carrier on", b, rtnl.RouteSocket.link_request(top.vb_index, True), path_state(True, True), CARRIER_ON),
        ("admin down", a, rtnl.RouteSocket.link_request(top.va_index, False), path_state(False, False), ADMIN_DOWN),
        # Admin down flushed both default routes: the path stays unsatisfied, only its
        # reason may change; the first path line, if any, is what "noticed" means.
        ("admin up", a, rtnl.RouteSocket.link_request(top.va_index, True), any_path, ADMIN_UP),
        route_step(driver, "IPv4 default add", True, v4, True, False),
        route_step(driver, "IPv6 default add", True, v6, True, True),
    ] + route_steps(driver)
    results = []
    for _ in range(rounds):
        for name, stream, request, pathd_predicate, monitor_predicate in steps:
            if any_line:
                pathd_predicate = lambda parsed: True  # noqa: E731
            timeout = 1.5 if name == "admin up" else 3.0
            results.append(driver.measure(name, stream, request, pathd_predicate, monitor_predicate, timeout))
            if name == "admin up":
                # The carrier follows admin up through linkwatch; routes can only be
                # judged once it is there.
                start = len(driver.monitor_lines.lines)
                driver.loop.pump(lambda: driver.monitor_lines.first(start, lambda e: CARRIER_ON(e[1])),
                                 now() + 3_000_000_000)
            driver.settle(20)
    return results


def floor_latency(prefix, floor, linestamp, rounds):
    """The latency part's changes read by pathd-floor (Benchmarks/Floor) in place of pathd,
    in a topology of its own with no pathd, against `ip monitor` as pathd's line is: once
    reading and writing only, once asking pathd's lookups first (both families, and each
    restricted to vA, as pathd asks them for a path over vA). The second is the least any
    reader that asks the kernel what a verdict needs can come to."""
    reports = {}
    for name, lookups in (("read and write", False), ("lookups", True)):
        topology = Topology(f"{prefix}-floor")
        driver = None
        stream = None
        try:
            arguments = ["--lookups", str(topology.va_index)] if lookups else []
            stream = PipedStream([IP, "netns", "exec", topology.a, floor, *arguments], linestamp)
            driver = Driver(topology, stream, linestamp)
            # The floor subscribes as it starts: a priming change it prints says it has.
            for _ in range(10):
                driver.loop.pump(lambda: bool(stream.lines), now() + 1_000_000_000)
                if stream.lines:
                    break
                driver.prime()
            else:
                raise RuntimeError(f"pathd-floor printed nothing in 10 s: {stream.source.args}")
            driver.settle(20)
            reports[name] = latency_report(latency(driver, rounds, any_line=True))
        finally:
            if driver:
                driver.close()
            if stream:
                stream.stop()
            topology.remove()
    return reports


def latency_pair(driver, binary, directory, prefix, rounds):
    """The latency part's route changes in the usual topology (vA alone) and in a second
    one with the 4 idle uplinks (`Topology.add_idle_uplinks`), interleaved
    (`paired_latency`): the difference of the two pathds' figures is what the four
    interfaces cost (docs/PERFORMANCE.md, "Per-interface lookups")."""
    return paired_latency(driver, binary, directory, prefix + "-five", rounds, ("one", "five"),
                          Topology.add_idle_uplinks)


def paired_latency(driver, binary, directory, name, rounds, names, prepare=lambda topology: None,
                   pathd=None, trace_rounds=0):
    """The latency part's route changes made in turn, in a random order at each step, by
    `driver` (its pathd and `ip monitor`) and in a second topology `name` (made ready by
    `prepare`) watched by a pathd `binary` and an `ip monitor` of its own, whose lines are
    stamped as `driver`'s are. Both pathds live through the same moments of the machine,
    so the difference of their figures is theirs, without the drift that separates two
    runs made one after the other. Returns {names[0]: report, names[1]: report}. With
    `trace_rounds` and `driver`'s Pathd (`pathd`), that many more rounds follow under
    one `perf trace` (`readers.breakdowns`), untimed: each report's "breakdown" is its
    pathd's stages, where a difference of a few microseconds shows that the latency's
    spread hides."""
    second = Topology(name)
    other = None
    other_driver = None
    try:
        prepare(second)
        other = Pathd(binary, second.a, os.path.join(directory, f"{names[1]}.sock"),
                      os.path.join(directory, f"{names[1]}.log"))
        subscriber = other.wait_until_accepting()
        subscriber.wait_for(path_state(True, True))
        if driver.linestamp:
            subscriber.close()
            subscriber = StampedSubscriber(driver.linestamp, other.socket_path)
            subscriber.wait_for(path_state(True, True))
        other_driver = Driver(second, subscriber, driver.linestamp)
        drivers = {names[0]: driver, names[1]: other_driver}
        results = {key: [] for key in names}
        steps = {key: route_steps(each) for key, each in drivers.items()}

        def round_of_changes(record):
            for index in range(len(steps[names[0]])):
                for key in random.sample(names, 2):
                    record(key, drivers[key].measure(*steps[key][index]))
                    drivers[key].settle(20)
        for _ in range(rounds):
            round_of_changes(lambda key, result: results[key].append(result))
        reports = {key: latency_report(items) for key, items in results.items()}
        if trace_rounds and pathd is not None:
            traced = readers.breakdowns({names[0]: pathd, names[1]: other}, trace_rounds,
                                        lambda: round_of_changes(lambda key, result: None), driver.settle)
            for key in names:
                reports[key]["breakdown"] = traced[key]
        return reports
    finally:
        if other_driver:
            other_driver.close()
        if other:
            other.stop()
        second.remove()


def print_latency_pair(pair, title, labels, difference):
    """`paired_latency`'s two reports, `labels` naming its two keys, and the second's
    figures less the first's, named `difference`."""
    first, second = list(labels)
    print(f"### {title}, interleaved ({pair[first]['changes']} route changes each, ms)\n")
    print("| topology | n | pathd median | p99 | ip monitor median | pathd − ip monitor median | p99 |")
    print("|---|---|---|---|---|---|---|")
    for key, label in labels.items():
        block = pair[key]["all"]
        p, mo, d = block["pathd"], block["ip_monitor"], block["pathd_minus_monitor"]
        print(f"| {label} | {p.get('n', 0)} | {ms(p.get('median'))} | {ms(p.get('p99'))} | {ms(mo.get('median'))} | "
              f"{ms(d.get('median'))} | {ms(d.get('p99'))} |")
    one, other = pair[first]["all"], pair[second]["all"]
    print(f"\n{difference}: pathd − ip monitor median "
          f"{ms(other['pathd_minus_monitor'].get('median') - one['pathd_minus_monitor'].get('median'))}, "
          f"pathd median {ms(other['pathd'].get('median') - one['pathd'].get('median'))}.\n")


def latency_report(results):
    for result in results:
        del result["pathd_entry"]
    kinds = {}
    for result in results:
        kinds.setdefault(result["change"], []).append(result)
    report = {"changes": len(results), "by_kind": {}, "all": {}}

    def block(items):
        pathd = [r["pathd"] for r in items if r["pathd"] is not None]
        monitor = [r["monitor"] for r in items if r["monitor"] is not None]
        paired = [r["pathd"] - r["monitor"] for r in items if r["pathd"] is not None and r["monitor"] is not None]
        acks = [r["ack"] for r in items if r["ack"] is not None]
        return {"pathd": summary_ms(pathd), "ip_monitor": summary_ms(monitor),
                "pathd_minus_monitor": summary_ms(paired), "ack": summary_ms(acks),
                "pathd_missed": len(items) - len(pathd), "monitor_missed": len(items) - len(monitor)}

    for kind, items in kinds.items():
        report["by_kind"][kind] = block(items)
    # "admin up" changes the path only in its reason (both routes are gone); it is
    # reported apart and left out of the overall figures.
    report["all"] = block([r for r in results if r["change"] != "admin up"])
    report["readers"] = readers.latency_readers(results)
    return report


# MARK: 2. flood

def write_batches(directory, count, covering):
    """`ip -batch` files adding and deleting `count` routes: /32s in 10/8, which cannot
    change an answer; or, `covering`, the /24 over the IPv4 lookup destination in
    `count` tables, each of which the route filter passes (the worst case for pathd)."""
    add_path = os.path.join(directory, "routes-add.batch")
    delete_path = os.path.join(directory, "routes-del.batch")
    with open(add_path, "w") as add, open(delete_path, "w") as delete:
        for index in range(count):
            if covering:
                route = f"203.0.113.0/24 dev vA table {1000 + index}\n"
            else:
                route = f"10.{(index >> 16) & 255}.{(index >> 8) & 255}.{index & 255}/32 dev vA\n"
            add.write("route add " + route)
            delete.write("route del " + route)
    return add_path, delete_path


def link_change_after(driver, label):
    """Carrier off after a flood phase: how long until pathd and ip monitor see it; then
    carrier back on. First a second without link changes, as linkwatch wants (see
    `change_rounds`)."""
    top = driver.topology
    driver.settle(1100)
    off = driver.measure(f"carrier off after {label}", driver.socket_b,
                         rtnl.RouteSocket.link_request(top.vb_index, False), path_state(False, False),
                         CARRIER_OFF, timeout=10)
    on = driver.measure(f"carrier on after {label}", driver.socket_b,
                        rtnl.RouteSocket.link_request(top.vb_index, True), path_state(True, True),
                        CARRIER_ON, timeout=10)
    driver.settle(50)
    return off, on


def change_round(driver):
    """The changes a user notices, made once each: the IPv4 default route deleted and
    added back, then carrier off and on. Each is timed from the request to pathd's
    line, and to the kernel's ack (what the kernel itself took, e.g. waiting for the
    RTNL lock while a flood holds it)."""
    top = driver.topology

    def route(add):
        return rtnl.RouteSocket.route_request(add, socket.AF_INET, Topology.V4_GATEWAY, top.va_index)

    steps = [
        ("IPv4 default delete", driver.socket_a, route(False), path_state(False, True), None),
        ("IPv4 default add", driver.socket_a, route(True), path_state(True, True), None),
        ("carrier off", driver.socket_b, rtnl.RouteSocket.link_request(top.vb_index, False), path_state(False, False),
         False),
        ("carrier on", driver.socket_b, rtnl.RouteSocket.link_request(top.vb_index, True), path_state(True, True),
         True),
    ]
    return [driver.measure(name, stream, request, predicate, None, carrier=carrier)
            for name, stream, request, predicate, carrier in steps]


def change_rounds(driver, rounds, running=lambda: True, delay_ms=0):
    """Up to `rounds` change rounds while `running()`, after `delay_ms`. The kernel
    holds a carrier change back until a second after the previous link event
    (linkwatch), so rounds are 1.1 s apart: every carrier off is then reported at once."""
    driver.loop.pump(lambda: not running(), now() + delay_ms * 1_000_000)
    results = []
    for _ in range(rounds):
        if not running():
            break
        results += change_round(driver)
        driver.loop.pump(lambda: not running(), now() + 1_100_000_000)
    return results


def run_batch(driver, path, rounds=0):
    """Runs `ip -batch` in namespace A while reading pathd, making up to `rounds` change
    rounds meanwhile; returns (start, end, lines, changes)."""
    first_line = len(driver.subscriber.lines)
    start = now()
    process = subprocess.Popen([IP, "-n", driver.topology.a, "-batch", path],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    running = lambda: process.poll() is None  # noqa: E731
    changes = change_rounds(driver, rounds, running, delay_ms=1000) if rounds else []
    while running():
        driver.loop.pump(lambda: not running(), now() + 100_000_000)
    end = now()
    if process.returncode != 0:
        raise RuntimeError(f"ip -batch {path} failed: {process.stderr.read().decode()[:500]}")
    # Lines pathd sent for the flood itself arrive within the flood or just after.
    driver.settle(200)
    return start, end, driver.subscriber.lines[first_line:], changes


def flood(driver, pathd, directory, count, binary, start_trials, rounds, covering, engine=None):
    """A million routes added then deleted with `ip -batch`, watched by pathd, by a
    second pathd whose receive buffer is the kernel's default (what an unprivileged
    pathd gets on a stock host) and by `ip monitor route`."""
    top = driver.topology
    add_path, delete_path = write_batches(directory, count, covering)
    rmem_default = int(run_text([IP, "netns", "exec", top.a, "sysctl", "-n", "net.core.rmem_default"]))
    small = Pathd(binary, top.a, os.path.join(directory, "pathd-small.sock"),
                  os.path.join(directory, "pathd-small.log"), arguments=["--receive-buffer", str(rmem_default)])
    try:
        small_subscriber = small.wait_until_accepting()
        small_subscriber.wait_for(path_state(True, True))
        driver.watch(small_subscriber)
        driver.settle(200)
        idle_changes = change_rounds(driver, rounds)
        before_cpu, small_before_cpu = pathd.cpu_seconds(), small.cpu_seconds()
        before = pathd.status()
        monitor_errors = open(os.path.join(directory, "ip-monitor-route.stderr"), "w")
        monitor = subprocess.Popen([IP, "-n", top.a, "monitor", "route"], stdout=subprocess.DEVNULL,
                                   stderr=monitor_errors)
        time.sleep(0.3)  # let `ip monitor` subscribe before the flood starts (not a measurement)
        driver.stop_monitor()
        lines_before = len(driver.subscriber.lines)
        small_lines_before = len(small_subscriber.lines)

        add_start, add_end, add_lines, add_changes = run_batch(driver, add_path, rounds)
        after_add_cpu, small_after_add_cpu = pathd.cpu_seconds(), small.cpu_seconds()
        after_add_monitor_cpu = cpu_seconds(monitor.pid)
        driver.start_monitor()
        add_change = link_change_after(driver, "1M adds")
        start_full = start_time(top, binary, directory, start_trials, "start-full") if start_trials else None
        resync_full = resync_time(top, binary, directory, start_trials, "resync-full") if start_trials else None
        engine_full = readers.engine_start(engine, top.a, start_trials) if start_trials and engine else None
        driver.stop_monitor()
        delete_start, delete_end, delete_lines, delete_changes = run_batch(driver, delete_path, rounds)
        after_cpu, small_after_cpu = pathd.cpu_seconds(), small.cpu_seconds()
        monitor_cpu = cpu_seconds(monitor.pid)
        driver.start_monitor()
        delete_change = link_change_after(driver, "1M deletes")
        after = pathd.status()
        monitor.terminate()
        monitor.wait()
        monitor_errors.close()
        with open(monitor_errors.name) as errors:
            monitor_overruns = errors.read().count("No buffer space")
        small_final = small_subscriber.lines[-1][2] if small_subscriber.lines else None
        small_log = small.log_text()
    finally:
        small.stop()

    during = add_changes + delete_changes
    matched = {id(change["pathd_entry"]) for change in during if change["pathd_entry"]}
    for change in during + idle_changes:
        del change["pathd_entry"]
    paths = [entry for entry in add_lines + delete_lines if is_path(entry[2])]
    unexpected = [entry[1] for entry in paths if id(entry) not in matched]

    def resyncs(lines):
        return sum(1 for entry in lines if entry[2] is not None and entry[2].get("type") == "resync")

    def overrun_lines(log):
        return sum(1 for line in log.splitlines() if "overrun" in line or "re-reading" in line)

    for path in (add_path, delete_path):
        os.remove(path)
    return {
        "routes": count,
        "covering": covering,
        "add_seconds": (add_end - add_start) / 1e9,
        "delete_seconds": (delete_end - delete_start) / 1e9,
        "pathd_cpu_add": after_add_cpu - before_cpu,
        "pathd_cpu_total": after_cpu - before_cpu,
        "ip_monitor_cpu_add": after_add_monitor_cpu,
        "ip_monitor_cpu_total": monitor_cpu,
        "ip_monitor_overruns": monitor_overruns,
        "rss_before_kib": kib(before["VmRSS"]),
        "hwm_before_kib": kib(before["VmHWM"]),
        "hwm_after_kib": kib(after["VmHWM"]),
        "rss_after_kib": kib(after["VmRSS"]),
        "path_lines_during_flood": len(paths),
        "changes_during_flood": len(during),
        "unexpected_paths": unexpected[:5],
        "unexpected_path_count": len(unexpected),
        "resync_lines": resyncs(driver.subscriber.lines[lines_before:]),
        "overrun_log_lines": overrun_lines(pathd.log_text()),
        "small_buffer": {
            "requested_bytes": rmem_default,
            "cpu_add": small_after_add_cpu - small_before_cpu,
            "cpu_total": small_after_cpu - small_before_cpu,
            "resync_lines": resyncs(small_subscriber.lines[small_lines_before:]),
            "overrun_log_lines": overrun_lines(small_log),
            "final_path_correct": bool(small_final) and path_state(True, True)(small_final),
        },
        "idle_changes": idle_changes,
        "changes_during_adds": add_changes,
        "changes_during_deletes": delete_changes,
        "after_adds": add_change,
        "after_deletes": delete_change,
        "start_full": start_full,
        "resync_full": resync_full,
        "engine_start_full": engine_full,
    }


# MARK: 3. fan-out

def fanout(driver, socket_path, count, trials):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 1000), hard))
    clients = []
    poller = select.epoll()
    for _ in range(count):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(socket_path)
        client.sendall(b'{"op":"subscribe"}\n')
        client.setblocking(False)
        clients.append(client)
        poller.register(client.fileno(), select.EPOLLIN)
    by_fd = {client.fileno(): client for client in clients}

    def collect(deadline):
        """Until every client has received a path line or the deadline: {fd: time}."""
        arrived = {}
        while len(arrived) < count:
            remaining = (deadline - now()) / 1e9
            if remaining <= 0:
                break
            for fd, _ in poller.poll(remaining):
                stamp = now()
                data = by_fd[fd].recv(65536)
                if b'"type":"path"' in data and fd not in arrived:
                    arrived[fd] = stamp
        return arrived

    initial = collect(now() + 30_000_000_000)
    if len(initial) < count:
        raise RuntimeError(f"only {len(initial)} of {count} subscribers got their first path")
    top = driver.topology
    results = []
    for trial in range(trials):
        add = trial % 2 == 1
        kind, flags, body = rtnl.RouteSocket.route_request(add, socket.AF_INET, Topology.V4_GATEWAY, top.va_index)
        t0 = now()
        driver.socket_a.socket.send(kind, flags, body)
        arrived = collect(t0 + 5_000_000_000)
        driver.socket_a.socket.acks()
        times = sorted(arrived.values())
        results.append({"received": len(times),
                        "first": (times[0] - t0) if times else None,
                        "last": (times[-1] - t0) if times else None})
    for client in clients:
        poller.unregister(client.fileno())
        client.close()
    poller.close()
    complete = [r for r in results if r["received"] == count]
    return {"subscribers": count, "trials": trials, "complete_trials": len(complete),
            "first": summary_ms([r["first"] for r in complete]),
            "last": summary_ms([r["last"] for r in complete])}


# MARK: 4. idle

def idle(pathd, seconds):
    """Context switches of every pathd thread over `seconds` with nothing changing.
    A thread that exits meanwhile takes its counts with it, so exits are reported; a
    thread that starts counts in full."""
    time.sleep(2)  # let the previous phase's writes finish (not a measurement)
    before = pathd.context_switches()
    cpu_before = pathd.cpu_seconds()
    time.sleep(seconds)
    after = pathd.context_switches()
    status = pathd.status()
    switches = sum(count - before.get(thread, 0) for thread, count in after.items())
    return {"seconds": seconds, "context_switches": switches, "threads_before": len(before),
            "threads_after": len(after), "threads_exited": len(set(before) - set(after)),
            "threads_started": len(set(after) - set(before)),
            "cpu_seconds": pathd.cpu_seconds() - cpu_before,
            "rss_kib": kib(status["VmRSS"]), "hwm_kib": kib(status["VmHWM"])}


# MARK: 5. start

def start_time(topology, binary, directory, trials, label):
    """exec → READY=1 (sd_notify: the socket accepts and the first path is known), and
    exec → first path line at a client that polls connect() every millisecond."""
    ready_times, first_path_times = [], []
    rss, peak = [], []  # KiB, once the first path line is out
    for trial in range(trials):
        notify_path = os.path.join(directory, f"{label}-{trial}.notify")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.setblocking(False)
        socket_path = os.path.join(directory, f"{label}-{trial}.sock")
        pathd = Pathd(binary, topology.a, socket_path, os.path.join(directory, f"{label}-{trial}.log"),
                      notify_socket=notify_path)
        t0 = pathd.started
        ready = first_path = None
        client = None
        received = b""
        deadline = t0 + 60_000_000_000
        try:
            while (ready is None or first_path is None) and now() < deadline:
                if client is None:
                    try:
                        candidate = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                        candidate.connect(socket_path)
                        candidate.sendall(b'{"op":"subscribe"}\n')
                        candidate.setblocking(False)
                        client = candidate
                    except (FileNotFoundError, ConnectionRefusedError):
                        candidate.close()
                watched = [notify] + ([client] if client else [])
                readable, _, _ = select.select(watched, [], [], 0.001)
                stamp = now()
                if notify in readable and b"READY=1" in notify.recv(4096):
                    ready = stamp
                if client in readable:
                    received += client.recv(65536)
                    if first_path is None and b'"type":"path"' in received:
                        first_path = stamp
            if pathd.process.poll() is not None:
                raise RuntimeError(f"pathd exited during start: {pathd.log_text()}")
            status = pathd.status()
            rss.append(kib(status["VmRSS"]))
            peak.append(kib(status["VmHWM"]))
        finally:
            if client:
                client.close()
            pathd.stop()
            notify.close()
            os.remove(notify_path)
        if ready is not None:
            ready_times.append(ready - t0)
        if first_path is not None:
            first_path_times.append(first_path - t0)
    baseline = []
    for _ in range(trials):
        t0 = now()
        subprocess.run([IP, "netns", "exec", topology.a, "/bin/true"], check=True)
        baseline.append(now() - t0)
    return {"trials": trials, "ready": summary_ms(ready_times), "first_path": summary_ms(first_path_times),
            "ip_netns_exec_true": summary_ms(baseline), "rss_kib": sorted(rss), "hwm_kib": sorted(peak)}


def resync_time(topology, binary, directory, trials, label):
    """A forced overrun → the `resync` line at a subscriber: pathd runs with the
    smallest event-socket buffer (--receive-buffer 4096), is stopped (SIGSTOP) while 300
    address changes on a spare veth overflow it, then continued (SIGCONT). The time runs
    from SIGCONT to the resync line: the drain that meets ENOBUFS, the new generation's
    dumps and lookups, the publication."""
    burst = os.path.join(directory, f"{label}-burst.batch")
    with open(burst, "w") as commands:
        for number in range(300):
            commands.write(f"address add 10.250.{number // 250}.{number % 250 + 1}/32 dev vX\n")
    run_text([IP, "-n", topology.a, "link", "add", "vX", "type", "veth", "peer", "name", "vY"])
    run_text([IP, "-n", topology.a, "link", "set", "vX", "up"])
    times = []
    try:
        for trial in range(trials):
            pathd = Pathd(binary, topology.a, os.path.join(directory, f"{label}-{trial}.sock"),
                          os.path.join(directory, f"{label}-{trial}.log"), arguments=["--receive-buffer", "4096"])
            try:
                subscriber = pathd.wait_until_accepting(timeout=60)
                subscriber.wait_for(path_state(True, True), timeout=60)
                os.kill(pathd.pid, signal.SIGSTOP)
                run_text([IP, "-n", topology.a, "-batch", burst])
                start = len(subscriber.lines)
                t0 = now()
                os.kill(pathd.pid, signal.SIGCONT)
                line = subscriber.wait_for(lambda parsed: parsed.get("type") == "resync", timeout=60, start=start)
                times.append(line[0] - t0)
            finally:
                os.kill(pathd.pid, signal.SIGCONT)
                pathd.stop()
                run_text([IP, "-n", topology.a, "address", "flush", "dev", "vX"])
    finally:
        run_text([IP, "-n", topology.a, "link", "del", "vX"])
        os.remove(burst)
    return {"trials": trials, "resync": summary_ms(times)}


# MARK: report

def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as meminfo:
        memory = meminfo.readline().split()[1]
    return {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "nproc": os.cpu_count(), "kernel": platform.release(),
            "cpu": model, "memory_gib": round(int(memory) / 1024 / 1024, 1),
            "ip": run_text([IP, "-V"])}


def run_text(arguments):
    return subprocess.run(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout.strip()


def ms(value):
    return "—" if value is None or value != value else f"{value:.3f}"


def print_floor(floor, latency):
    """`floor_latency`'s two runs, beside pathd's own headline when it ran too."""
    print("### The floor: pathd-floor in pathd's place, alone with `ip monitor` (all changes but admin up, ms)\n")
    print("| reader | n | median | p99 | ip monitor median | reader − ip monitor median | p99 |")
    print("|---|---|---|---|---|---|---|")
    rows = [(f"pathd-floor, {name}", report) for name, report in floor.items()]
    if latency:
        rows.append(("pathd (the latency part)", latency))
    for label, report in rows:
        block = report["all"]
        p, mo, d = block["pathd"], block["ip_monitor"], block["pathd_minus_monitor"]
        print(f"| {label} | {p.get('n', 0)} | {ms(p.get('median'))} | {ms(p.get('p99'))} | {ms(mo.get('median'))} | "
              f"{ms(d.get('median'))} | {ms(d.get('p99'))} |")
    print()


def print_report(results):
    m = results["machine"]
    print(f"\n## pathd benchmarks — {m['date']}")
    print(f"{m['nproc']} CPUs ({m['cpu']}), {m['memory_gib']} GiB, Linux {m['kernel']}, {m['ip']}\n")
    for key, title in (("latency", "Latency: kernel change → line"),
                       ("latency5",
                        "Latency with 5 interfaces (vA and 4 idle uplinks, 2 tables): kernel change → line")):
        if key not in results:
            continue
        report = results[key]
        print(f"### {title} ({report['changes']} changes, ms)\n")
        print("| change | n | pathd min | median | p99 | max | ip monitor min | median | p99 | max "
              "| pathd − ip monitor median | p99 | missed pathd / ip monitor |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for kind, block in list(report["by_kind"].items()) + [("all but admin up", report["all"])]:
            p, mo, d = block["pathd"], block["ip_monitor"], block["pathd_minus_monitor"]
            print(f"| {kind} | {p.get('n', 0)} | {ms(p.get('min'))} | {ms(p.get('median'))} | {ms(p.get('p99'))} | "
                  f"{ms(p.get('max'))} | {ms(mo.get('min'))} | {ms(mo.get('median'))} | {ms(mo.get('p99'))} | "
                  f"{ms(mo.get('max'))} | {ms(d.get('median'))} | {ms(d.get('p99'))} | "
                  f"{block['pathd_missed']} / {block['monitor_missed']} |")
        print()
    if "floor" in results:
        print_floor(results["floor"], results.get("latency"))
    if "readers" in results:
        readers.print_latency_readers(results["readers"], ms)
    if "latency_pair" in results:
        print_latency_pair(results["latency_pair"], "One interface against five",
                           {"one": "vA alone", "five": "vA and 4 idle uplinks, 2 tables"}, "Five over one")
    if "identity_pair" in results:
        print_latency_pair(results["identity_pair"], "Network identity on against a pathd without it",
                           {"identity": "pathd (--pathd)", "baseline": "baseline (--baseline)"},
                           "Baseline over identity")
        readers.print_breakdown_pair(results["identity_pair"], {"identity": "pathd", "baseline": "baseline"}, ms)
    if "identity" in results:
        neighbours.print_identity_latency(results["identity"], ms)
    if "neighbours" in results:
        neighbours.print_neighbour_storm(results["neighbours"])
    if "breakdown" in results:
        readers.print_breakdown(results["breakdown"], ms)
    if "subscribers" in results:
        subscribers.print_first_subscriber(results["subscribers"], ms)
    if "fanout" in results:
        f = results["fanout"]
        print(f"### Fan-out: {f['subscribers']} subscribers, {f['complete_trials']}/{f['trials']} complete trials (ms)\n")
        print("| | min | median | p99 | max |\n|---|---|---|---|---|")
        for key in ("first", "last"):
            s = f[key]
            print(f"| change → {key} subscriber's line | {ms(s.get('min'))} | {ms(s.get('median'))} | "
                  f"{ms(s.get('p99'))} | {ms(s.get('max'))} |")
        print()
    if "idle" in results:
        i = results["idle"]
        print(f"### Idle ({i['seconds']} s)\n")
        print(f"context switches, all threads: {i['context_switches']} (threads {i['threads_before']} → "
              f"{i['threads_after']}; {i['threads_exited']} exited, {i['threads_started']} started); CPU {i['cpu_seconds']:.2f} s; "
              f"RSS {i['rss_kib']} KiB; peak RSS so far {i['hwm_kib']} KiB\n")
    for key, title in (("start", "Start, topology routes only"), ("start_full", "Start, 1,000,000 routes in the table")):
        s = results.get(key) or results.get("flood", {}).get(key)
        if not s:
            continue
        print(f"### {title} ({s['trials']} trials, ms)\n")
        print("| | min | median | max |\n|---|---|---|---|")
        for name, label in (("ready", "exec → READY=1"), ("first_path", "exec → first path line at a client"),
                            ("ip_netns_exec_true", "`ip netns exec NS /bin/true` (included above)")):
            v = s[name]
            print(f"| {label} | {ms(v.get('min'))} | {ms(v.get('median'))} | {ms(v.get('max'))} |")
        if s.get("hwm_kib"):
            print(f"\nOnce the first path line was out: RSS {s['rss_kib']} KiB, peak RSS {s['hwm_kib']} KiB (each trial).")
        print()
    for key, title in (("resync", "Resync after a forced overrun, topology routes only"),
                       ("resync_full", "Resync after a forced overrun, 1,000,000 routes in the table")):
        s = results.get(key) or results.get("flood", {}).get(key)
        if s:
            v = s["resync"]
            print(f"### {title} ({s['trials']} trials, ms)\n")
            print("| | min | median | max |\n|---|---|---|---|")
            print(f"| SIGCONT → resync line at a subscriber | {ms(v.get('min'))} | {ms(v.get('median'))} | "
                  f"{ms(v.get('max'))} |\n")
    for key, title in (("engine_start", "In-process engine start, topology routes only"),
                       ("engine_start_full", "In-process engine start, 1,000,000 routes in the table")):
        s = results.get(key) or results.get("flood", {}).get(key)
        if s:
            readers.print_engine_start(title, s, ms)
    hostile.print_report(results, ms)
    if "route" in results:
        routebench.print_route_cost(results["route"])
    if "flood" in results:
        print_flood(results["flood"])
    if "gio" in results:
        gio.print_glib(results["gio"])
    if "routewatch" in results:
        routewatch.print_report(results["routewatch"])
    if "run" in results:
        runbench.print_report(results["run"], ms)
    if "networks" in results:
        networks.print_networks(results["networks"])
    if "advertisements" in results:
        networks.print_advertisements(results["advertisements"])


def print_flood(f):
    small = f["small_buffer"]
    kind = "203.0.113.0/24 routes, one per table," if f["covering"] else "/32 routes in 10/8"
    print(f"### Flood: {f['routes']:,} {kind} added ({f['add_seconds']:.1f} s) then deleted "
          f"({f['delete_seconds']:.1f} s)\n")
    print(f"| | pathd | pathd, --receive-buffer {small['requested_bytes']} (rmem_default) | ip monitor route |")
    print("|---|---|---|---|")
    print(f"| CPU seconds, adds | {f['pathd_cpu_add']:.2f} | {small['cpu_add']:.2f} | {f['ip_monitor_cpu_add']:.2f} |")
    print(f"| CPU seconds, adds + deletes | {f['pathd_cpu_total']:.2f} | {small['cpu_total']:.2f} "
          f"| {f['ip_monitor_cpu_total']:.2f} |")
    print(f"| overruns (ENOBUFS) | {f['overrun_log_lines']} log lines, {f['resync_lines']} resync lines "
          f"| {small['overrun_log_lines']} log lines, {small['resync_lines']} resync lines | {f['ip_monitor_overruns']} |")
    print()
    monitor = f["ip_monitor_cpu_total"]
    ratio = f["pathd_cpu_total"] / monitor if monitor else float("nan")
    print(f"pathd's CPU against ip monitor's, adds + deletes: {ratio:.3f}x. The default-buffer pathd ended on "
          f"the right path: {'yes' if small['final_path_correct'] else 'NO'}.")
    print(f"RSS before {f['rss_before_kib']} KiB (peak {f['hwm_before_kib']} KiB); peak after {f['hwm_after_kib']} KiB "
          f"(growth {f['hwm_after_kib'] - f['rss_before_kib']} KiB from idle RSS); RSS after {f['rss_after_kib']} KiB.")
    print(f"Path lines published during the flood: {f['path_lines_during_flood']}, for "
          f"{f['changes_during_flood']} changes made during it; other lines: {f['unexpected_path_count']} "
          f"{f['unexpected_paths']}\n")

    print("#### Changes during the flood against the same changes idle (ms)\n")
    print("From the request to pathd's line; from the request to the kernel's notification (a carrier "
          "change) or ack (a route change); and the difference, pathd's own part.\n")
    print("| change | n idle / flood | request → pathd, idle median / flood median | request → kernel, idle / flood "
          "median | kernel → pathd, idle median (max) | flood median (max) | flood − idle, kernel → pathd median "
          "| missed idle / flood |")
    print("|---|---|---|---|---|---|---|---|")
    during = f["changes_during_adds"] + f["changes_during_deletes"]
    for kind in dict.fromkeys(change["change"] for change in f["idle_changes"] + during):
        idle = [c for c in f["idle_changes"] if c["change"] == kind]
        busy = [c for c in during if c["change"] == kind]

        def stats(changes, key):
            return summary_ms([c[key] for c in changes if c[key] is not None])

        def own(changes):
            return summary_ms([c["pathd"] - c["kernel"] for c in changes
                               if c["pathd"] is not None and c["kernel"] is not None])

        total_i, total_b = stats(idle, "pathd"), stats(busy, "pathd")
        kernel_i, kernel_b = stats(idle, "kernel"), stats(busy, "kernel")
        own_i, own_b = own(idle), own(busy)
        difference = own_b.get("median", float("nan")) - own_i.get("median", float("nan"))
        print(f"| {kind} | {len(idle)} / {len(busy)} | {ms(total_i.get('median'))} / {ms(total_b.get('median'))} "
              f"| {ms(kernel_i.get('median'))} / {ms(kernel_b.get('median'))} "
              f"| {ms(own_i.get('median'))} ({ms(own_i.get('max'))}) | {ms(own_b.get('median'))} ({ms(own_b.get('max'))}) "
              f"| {ms(difference)} | {len(idle) - total_i['n']} / {len(busy) - total_b['n']} |")
    print()
    for key, label in (("after_adds", "the adds"), ("after_deletes", "the deletes")):
        off, on = f[key]
        print(f"Carrier off after {label}: pathd {ms(off['pathd'] and off['pathd'] / 1e6)} ms, "
              f"ip monitor {ms(off['monitor'] and off['monitor'] / 1e6)} ms; carrier on: pathd "
              f"{ms(on['pathd'] and on['pathd'] / 1e6)} ms, ip monitor {ms(on['monitor'] and on['monitor'] / 1e6)} ms")
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pathd", required=True, help="the pathd binary (a release build)")
    parser.add_argument("--prefix", default=f"pathd-bench-{os.getpid()}", help="namespace name prefix")
    parser.add_argument("--rounds", type=int, default=24, help="latency rounds of 10 changes each")
    parser.add_argument("--routes", type=int, default=1_000_000)
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--fanout-trials", type=int, default=20)
    parser.add_argument("--watched-routes", type=int, default=100,
                        help="subscribers part: route subscriptions beside the --subscribers path subscribers")
    parser.add_argument("--subscribers-phases", type=int, default=4,
                        help="subscribers part: alternating phases, solo first")
    parser.add_argument("--subscribers-rounds", type=int, default=12,
                        help="subscribers part: rounds of 4 route changes per phase")
    parser.add_argument("--idle-seconds", type=int, default=60)
    parser.add_argument("--start-trials", type=int, default=5)
    parser.add_argument("--covering-flood", action="store_true",
                        help="flood with routes the route filter passes (203.0.113.0/24, one per table) "
                             "instead of /32s in 10/8")
    parser.add_argument("--change-rounds", type=int, default=5,
                        help="rounds of 4 changes (default route, carrier) idle and during each flood phase")
    parser.add_argument("--hostile-samples", type=int, default=1000, help="status round trips, idle and hostile")
    parser.add_argument("--hostile-changes", type=int, default=40, help="route changes, idle and hostile (even)")
    parser.add_argument("--route-limit-changes", type=int, default=40,
                        help="route changes per phase of route-limit (even; four phases per gap)")
    parser.add_argument("--route-limit-held", type=int, default=256,
                        help="route subscriptions the user holds in route-limit (at most MaxRoutesPerUser=, 256)")
    parser.add_argument("--memory-clients", type=int, default=1024)
    parser.add_argument("--route-samples", type=int, default=5000, help="route and ping requests, each way")
    parser.add_argument("--pathctl", help="pathctl, timed through `monitor --json` in the latency part "
                                          "(default: beside --pathd, if there)")
    parser.add_argument("--engine", help="pathd-engine-bench, the in-process engine (default: beside --pathd, if there)")
    parser.add_argument("--neighbour-entries", type=int, default=100_000,
                        help="neighbours: entries added and deleted on a link without a gateway")
    parser.add_argument("--identity-rounds", type=int, default=50,
                        help="identity: pairs of gateway MAC changes, each timed to the line naming the network")
    parser.add_argument("--baseline", help="identity-pair: a pathd without network identity, whose latency is "
                                           "measured interleaved with --pathd's")
    parser.add_argument("--breakdown-rounds", type=int, default=10, help="rounds of 4 route changes under perf trace")
    parser.add_argument("--pair-trace-rounds", type=int, default=25,
                        help="identity-pair: rounds of its 4 route changes each, after the timed ones, under one "
                             "perf trace of both pathds: each one's stages (0: none)")
    parser.add_argument("--only",
                        default="start,resync,engine,latency,floor,readers,latency5,latency-pair,identity,identity-pair,"
                                "neighbours,breakdown,subscribers,fanout,idle,hostile,route-limit,memory,route,flood,"
                                "start-full,gio,routewatch,run,networks",
                        help="comma-separated subset of start,resync,engine,latency,floor,readers,latency5,latency-pair,"
                             "identity,identity-pair,neighbours,breakdown,subscribers,fanout,idle,hostile,route-limit,"
                             "memory,route,flood,start-full,gio,routewatch,run,networks "
                             "(floor: the latency part read by pathd-floor, which only reads and writes, or asks "
                             "pathd's lookups and writes: the least a reader that asks them can come to; "
                             "identity: a confirmed gateway entry to the line naming the network; identity-pair: "
                             "latency against --baseline, interleaved; neighbours: pathd's CPU while --neighbour-entries "
                             "entries come and go on a link without a gateway; neighbours.py; "
                             "subscribers: the first subscriber's line alone and beside --subscribers more and "
                             "--watched-routes watched routes, subscribers.py; "
                             "networks: memory per network remembered and router advertisements' cost, networks.py; "
                             "run: pathctl run, runbench.py; route-limit: a path line with one user at "
                             "MaxRoutesPerUser= and none; start-full runs inside "
                             "flood, for pathd, its resync and the in-process engine; latency5 is latency with 4 more "
                             "interfaces; readers: `pathctl monitor --json`, `pathd-floor --relay` and the in-process engine, each in a "
                             "latency run of its own beside pathd's line (latency is pathd and ip monitor alone); latency-pair the route changes in turn in a topology with one interface and "
                             "one with five, each with its own pathd; routewatch: the watched routes, routewatch.py); "
                             "--only flood measures what the route "
                             "filter changes: flood CPU, the default-size buffer, changes during the flood; "
                             "--only hostile,memory runs the hostile local users' part alone")
    parser.add_argument("--gio-watch", help="gio-module's gio-watch (the GLib part needs it and --gio-modules)")
    parser.add_argument("--gio-modules", help="the directory holding the built libgiopathd.so")
    parser.add_argument("--gio-rounds", type=int, default=5,
                        help="GLib part: rounds of 4 changes (carrier, both default routes)")
    parser.add_argument("--gio-idle-seconds", type=int, default=10)
    parser.add_argument("--gio-routes", type=int, help="GLib part's flood (default --routes; 0: no flood)")
    parser.add_argument("--run-rounds", type=int, default=20,
                        help="pathctl run: rounds of the path turning expensive (the command stopped) and free again")
    parser.add_argument("--run-idle-seconds", type=int, default=60, help="pathctl run: idle while its command runs")
    parser.add_argument("--json", help="also write the raw results here")
    arguments = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: needs root (network namespaces)")
    only = set(arguments.only.split(","))
    binary = os.path.abspath(arguments.pathd)
    pathctl = arguments.pathctl or readers.sibling(binary, "pathctl")
    engine = arguments.engine or readers.sibling(binary, "pathd-engine-bench")
    linestamp = readers.sibling(binary, "pathd-linestamp")
    results = {"machine": machine()}
    directory = tempfile.mkdtemp(prefix="pathd-bench-")
    topology = None
    pathd = None
    driver = None
    try:
        topology = Topology(arguments.prefix)
        if "start" in only:
            print("bench: start time", file=sys.stderr, flush=True)
            results["start"] = start_time(topology, binary, directory, arguments.start_trials, "start")
        if "resync" in only:
            print("bench: resync after a forced overrun", file=sys.stderr, flush=True)
            results["resync"] = resync_time(topology, binary, directory, arguments.start_trials, "resync")
        if "engine" in only and engine:
            print("bench: in-process engine start", file=sys.stderr, flush=True)
            results["engine_start"] = readers.engine_start(engine, topology.a, arguments.start_trials)
        # Room for the fan-out's and the subscribers part's crowds beside the bench's own
        # connections (MaxClients= is 1,024 by default).
        pathd = Pathd(binary, topology.a, os.path.join(directory, "pathd.sock"), os.path.join(directory, "pathd.log"),
                      arguments=["--max-clients", str(max(1024, arguments.subscribers + 64))])
        subscriber = pathd.wait_until_accepting()
        subscriber.wait_for(path_state(True, True))
        if linestamp:
            # The changes' lines, pathd's and ip monitor's, are stamped by pathd-linestamp.
            subscriber.close()
            subscriber = StampedSubscriber(linestamp, pathd.socket_path)
            subscriber.wait_for(path_state(True, True))
        else:
            print("bench: pathd-linestamp not found beside pathd: lines are stamped by this process's select loop, "
                  "whose own time lands in pathd − ip monitor", file=sys.stderr, flush=True)
        results["stamped_by"] = "pathd-linestamp" if linestamp else "bench.py's select loop"
        driver = Driver(topology, subscriber, linestamp)
        if "latency" in only:
            # The headline alone: pathd's subscriber and `ip monitor`, no other reader (on
            # two cores a third process slows `ip monitor` more than pathd and hides
            # pathd's cost; issue 36).
            print(f"bench: latency, {arguments.rounds * 10} changes, pathd and ip monitor alone",
                  file=sys.stderr, flush=True)
            results["latency"] = latency_report(latency(driver, arguments.rounds))
        floor = readers.sibling(binary, "pathd-floor")
        if "floor" in only and not (floor and linestamp):
            print("bench: floor skipped: no pathd-floor and pathd-linestamp beside pathd", file=sys.stderr, flush=True)
        elif "floor" in only:
            print(f"bench: floor, {arguments.rounds * 10} changes twice, pathd-floor and ip monitor alone",
                  file=sys.stderr, flush=True)
            results["floor"] = floor_latency(arguments.prefix, floor, linestamp, arguments.rounds)
        if "readers" in only:
            # Every other reader in a run of its own, against pathd's line of the same run.
            makers = []
            if pathctl:
                makers.append(("pathctl monitor --json",
                               lambda: readers.pathctl_monitor(pathctl, pathd.socket_path, linestamp)))
            if floor and linestamp:
                makers.append(("pathd-floor --relay (the floor of a client)",
                               lambda: readers.relay_floor(floor, pathd.socket_path, linestamp)))
            if engine:
                makers.append(("in-process engine", lambda: readers.engine(engine, topology.a)))
            results["readers"] = {}
            for name, make in makers:
                print(f"bench: latency of {name}, {arguments.rounds * 10} changes", file=sys.stderr, flush=True)
                driver.add_reader(name, make())
                driver.readers[name].wait_for(path_state(True, True))
                report = latency_report(latency(driver, arguments.rounds))
                driver.remove_readers()
                results["readers"].update(report["readers"])
        if "latency5" in only:
            print(f"bench: latency with 5 interfaces, {arguments.rounds * 10} changes", file=sys.stderr, flush=True)
            topology.add_idle_uplinks()
            try:
                results["latency5"] = latency_report(latency(driver, arguments.rounds))
            finally:
                topology.remove_idle_uplinks()
        if "latency-pair" in only:
            print(f"bench: one interface against five, interleaved, {arguments.rounds * 4} route changes each",
                  file=sys.stderr, flush=True)
            results["latency_pair"] = latency_pair(driver, binary, directory, arguments.prefix, arguments.rounds)
        if "identity" in only:
            print(f"bench: neighbour confirmed → line naming the network, {2 * arguments.identity_rounds} changes",
                  file=sys.stderr, flush=True)
            results["identity"] = neighbours.identity_latency(driver, pathd, arguments.identity_rounds,
                                                                  latency_report)
        if "identity-pair" in only and not arguments.baseline:
            print("bench: identity-pair skipped: no --baseline", file=sys.stderr, flush=True)
        elif "identity-pair" in only:
            print(f"bench: identity against --baseline, interleaved, {arguments.rounds * 4} route changes each",
                  file=sys.stderr, flush=True)
            results["identity_pair"] = paired_latency(driver, os.path.abspath(arguments.baseline), directory,
                                                      arguments.prefix + "-baseline", arguments.rounds,
                                                      ("identity", "baseline"), pathd=pathd,
                                                      trace_rounds=arguments.pair_trace_rounds)
        if "neighbours" in only:
            print(f"bench: {arguments.neighbour_entries:,} neighbour entries on a link without a gateway",
                  file=sys.stderr, flush=True)
            results["neighbours"] = neighbours.neighbour_storm(driver, pathd, directory, arguments.neighbour_entries,
                                                               run_batch)
        if "breakdown" in only:
            print("bench: where pathd's part goes (perf trace)", file=sys.stderr, flush=True)
            results["breakdown"] = readers.breakdown(driver, pathd, arguments.breakdown_rounds, change_round)
        if "subscribers" in only:
            print(f"bench: the first subscriber alone and beside {arguments.subscribers} subscribers and "
                  f"{arguments.watched_routes} watched routes", file=sys.stderr, flush=True)
            results["subscribers"] = subscribers.first_subscriber(
                driver, pathd.socket_path, arguments.subscribers_phases, arguments.subscribers_rounds,
                arguments.subscribers, arguments.watched_routes, route_steps(driver), pathd.cpu_seconds)
        if "fanout" in only:
            print(f"bench: fan-out to {arguments.subscribers}", file=sys.stderr, flush=True)
            results["fanout"] = fanout(driver, pathd.socket_path, arguments.subscribers, arguments.fanout_trials)
        if "idle" in only:
            print(f"bench: idle {arguments.idle_seconds} s", file=sys.stderr, flush=True)
            results["idle"] = idle(pathd, arguments.idle_seconds)
        if "hostile" in only:
            print("bench: a well-behaved client, idle and under hostile users", file=sys.stderr, flush=True)
            # The hostile clients run as nobody and uid 65533: they must reach the socket.
            os.chmod(directory, 0o755)
            top = topology
            results["hostile"] = hostile.hostile_latency(
                driver, pathd, top.a, arguments.hostile_samples, arguments.hostile_changes,
                lambda add: rtnl.RouteSocket.route_request(add, socket.AF_INET, Topology.V4_GATEWAY, top.va_index),
                {False: path_state(False, True), True: path_state(True, True)})
        if "route-limit" in only:
            print("bench: a path line with one user at MaxRoutesPerUser= and with none", file=sys.stderr, flush=True)
            os.chmod(directory, 0o755)  # nobody's client must reach the socket
            top = topology
            results["route_limit"] = hostile.route_limit_latency(
                driver, pathd, top.a, arguments.route_limit_changes, (50, 5),
                lambda add: rtnl.RouteSocket.route_request(add, socket.AF_INET, Topology.V4_GATEWAY, top.va_index),
                {False: path_state(False, True), True: path_state(True, True)}, arguments.route_limit_held)
        if "memory" in only:
            print(f"bench: memory with {arguments.memory_clients} subscribers", file=sys.stderr, flush=True)
            results["memory"] = hostile.subscription_memory(binary, topology.a, directory, arguments.memory_clients, 64)
        if "route" in only:
            print(f"bench: route requests, {arguments.route_samples} each way", file=sys.stderr, flush=True)
            results["route"] = routebench.route_cost(pathd, arguments.route_samples)
        if "flood" in only:
            print(f"bench: flood of {arguments.routes:,} routes", file=sys.stderr, flush=True)
            start_trials = arguments.start_trials if "start-full" in only else 0
            results["flood"] = flood(driver, pathd, directory, arguments.routes, binary, start_trials,
                                     arguments.change_rounds, arguments.covering_flood, engine)
        if "gio" in only and not (arguments.gio_watch and arguments.gio_modules):
            print("bench: GLib part skipped: no --gio-watch and --gio-modules", file=sys.stderr, flush=True)
        elif "gio" in only:
            routes = arguments.routes if arguments.gio_routes is None else arguments.gio_routes
            print(f"bench: GLib programs, module against netlink, flood of {routes:,} routes",
                  file=sys.stderr, flush=True)
            results["gio"] = gio.glib_monitors(driver, pathd, directory, os.path.abspath(arguments.gio_watch),
                                               os.path.abspath(arguments.gio_modules), arguments.gio_rounds,
                                               arguments.gio_idle_seconds, routes, write_batches, path_state)
        if "routewatch" in only:
            print("bench: watched routes (routewatch.py)", file=sys.stderr, flush=True)
            results["routewatch"] = routewatch.report(binary, arguments.routes, arguments.prefix)
        if "run" in only and not pathctl:
            print("bench: pathctl run skipped: no pathctl beside pathd (--pathctl)", file=sys.stderr, flush=True)
        elif "run" in only:
            print(f"bench: pathctl run, {arguments.run_rounds} stops, idle {arguments.run_idle_seconds} s "
                  "(runbench.py)", file=sys.stderr, flush=True)
            results["run"] = runbench.report(binary, os.path.abspath(pathctl), arguments.prefix, arguments.run_rounds,
                                             arguments.run_idle_seconds, directory)
        if "networks" in only:
            print("bench: memory per network remembered", file=sys.stderr, flush=True)
            results["networks"] = networks.networks_memory(binary, topology.a, directory)
            print("bench: router advertisements' hints", file=sys.stderr, flush=True)
            results["advertisements"] = networks.advertisement_cost(binary, topology, directory)
        results["pathd_log_tail"] = pathd.log_text().splitlines()[-10:]
    finally:
        if driver:
            driver.close()
        if pathd:
            pathd.stop()
        if topology:
            topology.remove()
        subprocess.run(["rm", "-rf", directory])
    print_report(results)
    if arguments.json:
        with open(arguments.json, "w") as output:
            json.dump(results, output, indent=2)


if __name__ == "__main__":
    main()
