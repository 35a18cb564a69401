# SPDX-License-Identifier: Apache-2.0
"""Hostile local users in numbers (docs/PERFORMANCE.md, "Hostile local users"): what
they cost a well-behaved client.

`hostile_latency` measures, idle and then under the hostile mix, how long a root
client waits for a `status` reply and how long a route change takes to reach a root
subscriber. The mix is scripts/test/hostile-client.py (the kernel tests' client) run
as two unprivileged users: nobody pipelines interfaces and status requests, spams
subscriptions and streams empty lines; uid 65533 holds as many connections as it may
(and is refused 896 more). Finished workloads are started again, so the load lasts.

`subscription_memory` measures pathd's RSS with 1,024 connections holding 64
subscriptions each, with ids of 256 bytes (the longest allowed), and after they close.
"""

import json
import os
import resource
import select
import socket
import subprocess
import time

from harness import IP, LineClient, Pathd, kib, now, summary_ms

HOSTILE_CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "test", "hostile-client.py")
SETPRIV = "/usr/bin/setpriv"
NICE = "/usr/bin/nice"
PYTHON = "/usr/bin/python3"


class HostileProcess:
    """One hostile-client.py as `uid`; with `respawn`, started again when it ends."""

    def __init__(self, namespace, uid, socket_path, mode, arguments, respawn=False, hold=True, niceness=0):
        self.command = [IP, "netns", "exec", namespace, NICE, "-n", str(niceness), SETPRIV, f"--reuid={uid}",
                        f"--regid={uid}", "--clear-groups", PYTHON, HOSTILE_CLIENT, "--deadline", "600", socket_path,
                        mode, *arguments]
        self.description = [mode, *arguments]
        self.respawn = respawn
        self.hold = hold
        self.runs = 0
        self.summaries = []
        self.start()

    def start(self):
        # A held client waits for its stdin to close; the others get /dev/null.
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE if self.hold else subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        os.set_blocking(self.process.stdout.fileno(), False)
        self.buffer = b""
        self.events = []
        self.runs += 1

    def read_events(self):
        try:
            data = os.read(self.process.stdout.fileno(), 65536)
        except BlockingIOError:
            return
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            event = json.loads(line)
            self.events.append(event)
            if event["event"] == "summary":
                self.summaries.append(event)

    def wait_for(self, name, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(event["event"] == name for event in self.events):
                return
            select.select([self.process.stdout], [], [], 0.1)
            self.read_events()
            if self.process.poll() is not None and not any(event["event"] == name for event in self.events):
                self.read_events()
                if not any(event["event"] == name for event in self.events):
                    raise RuntimeError(f"{self.description} ended before {name}: {self.events}")
        raise RuntimeError(f"{self.description}: no {name} within {timeout} s")

    def tend(self):
        """Reads what it printed; starts it again if it ended and should go on."""
        self.read_events()
        if self.respawn and self.process.poll() is not None:
            self.read_events()
            self.start()

    def stop(self):
        if self.hold and self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.read_events()


class HostileMix:
    def __init__(self, namespace, socket_path, streams=4):
        self.streams = [HostileProcess(namespace, 65534, socket_path, "empty-lines", ["--cap", str(1 << 40)])
                        for _ in range(streams)]
        for stream in self.streams:
            stream.wait_for("streaming")
        self.crowd = HostileProcess(namespace, 65533, socket_path, "connections", ["--count", "1024"])
        self.crowd.wait_for("connected")
        self.workers = [
            HostileProcess(namespace, 65534, socket_path, "pipeline", ["--op", "interfaces", "--count", "400"],
                           respawn=True, hold=False),
            HostileProcess(namespace, 65534, socket_path, "pipeline", ["--op", "status", "--count", "20000"],
                           respawn=True, hold=False),
            HostileProcess(namespace, 65534, socket_path, "subscribe-spam",
                           ["--subscribes", "20000", "--unsubscribes", "5000"], respawn=True, hold=False),
        ]

    def tend(self):
        for process in self.workers + self.streams + [self.crowd]:
            process.tend()

    def stop(self):
        for process in self.workers:
            process.respawn = False
        for process in self.streams + [self.crowd] + self.workers:
            process.stop()
        return {
            "crowd_first_lines": self.crowd.events[-1].get("firstLines") if self.crowd.events else None,
            "stream_bytes": sum(summary.get("sent", 0) for stream in self.streams for summary in stream.summaries),
            "streams_answered": all(summary.get("answered") for stream in self.streams for summary in stream.summaries),
            "worker_runs": {" ".join(worker.description[:3]): worker.runs for worker in self.workers},
            "worker_problems": [summary.get("problem") for worker in self.workers for summary in worker.summaries
                                if summary.get("problem") or summary.get("endOfFile")],
        }


class StatusClient(LineClient):
    """A root client asking `status` one request at a time."""

    def __init__(self, socket_path):
        super().__init__(socket_path)
        self.sequence = 0

    def round_trip(self):
        self.sequence += 1
        t0 = now()
        self.socket.sendall(b'{"op":"status","id":%d}\n' % self.sequence)
        line = self.next_line()
        elapsed = now() - t0
        if not (line.startswith(b'{"type":"path"') and line.endswith(b',"id":%d}' % self.sequence)):
            raise RuntimeError(f"wrong reply to status {self.sequence}: {line[:200]!r}")
        return elapsed

    def close(self):
        self.socket.close()


def measure_phase(driver, status_client, samples, changes, tend, route_request, states):
    """`samples` status round trips and `changes` route changes (IPv4 default deleted,
    then added), interleaved; `tend` runs between them."""
    status_times, change_times, missed = [], [], 0
    top = driver.topology
    for index in range(max(samples, changes)):
        if index < samples:
            tend()
            status_times.append(status_client.round_trip())
        if index < changes:
            tend()
            add = index % 2 == 1
            result = driver.measure("hostile route " + ("add" if add else "delete"), driver.socket_a,
                                    route_request(add), states[add], lambda text: True, timeout=10)
            if result["pathd"] is None:
                missed += 1
            else:
                change_times.append(result["pathd"])
        time.sleep(0.005)  # spacing between samples, not an ordering
    return {"status": summary_ms(status_times), "route_change": summary_ms(change_times), "missed": missed}


def hostile_latency(driver, pathd, namespace, samples, changes, route_request, states):
    """Idle, then under the hostile mix: status round trips and route changes."""
    status_client = StatusClient(pathd.socket_path)
    try:
        idle = measure_phase(driver, status_client, samples, changes, lambda: None, route_request, states)
        mix = HostileMix(namespace, pathd.socket_path)
        cpu_before, wall_before = pathd.cpu_seconds(), time.monotonic()
        try:
            loaded = measure_phase(driver, status_client, samples, changes, mix.tend, route_request, states)
        finally:
            cpu = pathd.cpu_seconds() - cpu_before
            wall = time.monotonic() - wall_before
            hostile = mix.stop()
        loaded["pathd_cpu_share"] = cpu / wall
        loaded["seconds"] = wall
        return {"idle": idle, "hostile": loaded, "mix": hostile, "samples": samples, "changes": changes}
    finally:
        status_client.close()


def route_limit_latency(driver, pathd, namespace, changes, gaps_ms, route_request, states, held=256):
    """What one unprivileged user's route subscriptions cost everyone else's path line:
    the root subscriber's path line after an IPv4 default-route change, against the
    kernel's ack (sent after its route notification: pathd − ack is pathd's own part,
    both read by the same loop), with no route subscription anywhere and then with
    nobody holding `held` of them: as many as `MaxRoutesPerUser=` lets it by default
    (256, on four connections of 64, read as they come; 10.1.x.y, every one carried by
    the default route, so that each change moves all of them; its reader runs at nice
    19, so that what is measured is what pathd does for it, not the CPU its own process
    takes from the others on two cores). Four phases alternate
    (none, limit, none, limit), `changes` changes each, `gap_ms` apart: for each gap in
    `gaps_ms`."""
    results = {}
    for gap_ms in gaps_ms:
        phases = {"none": [], "limit": []}
        totals = {"none": [], "limit": []}
        cpu = {"none": [0.0, 0], "limit": [0.0, 0]}
        for phase in ("none", "limit", "none", "limit"):
            user = None
            if phase == "limit":
                user = HostileProcess(namespace, 65534, pathd.socket_path, "route-burst",
                                      ["--held", str(held), "--burst", "0"], niceness=19)
                user.wait_for("answered")
                taken = next(event["types"] for event in user.events if event["event"] == "held")
                if taken != {"route": held}:
                    user.stop()
                    raise RuntimeError(f"nobody's route subscriptions: {taken}")
            before = pathd.cpu_seconds()
            try:
                for index in range(changes):
                    time.sleep(gap_ms / 1000)  # the spacing of the changes, not an ordering
                    add = index % 2 == 1
                    result = driver.measure(f"route limit {phase} " + ("add" if add else "delete"), driver.socket_a,
                                            route_request(add), states[add], None, timeout=10)
                    if result["pathd"] is None or result["ack"] is None:
                        raise RuntimeError(f"a change was not seen ({phase}, gap {gap_ms} ms)")
                    phases[phase].append(result["pathd"] - result["ack"])
                    totals[phase].append(result["pathd"])
            finally:
                cpu[phase][0] += pathd.cpu_seconds() - before
                cpu[phase][1] += changes
                if user:
                    user.stop()
                    # pathd forgets the closed connections' routes, and a second later returns
                    # their pages: not inside the next phase's first change.
                    time.sleep(1.5)
        results[gap_ms] = {
            "own_part": {phase: summary_ms(values) for phase, values in phases.items()},
            "request_to_line": {phase: summary_ms(values) for phase, values in totals.items()},
            "cpu_ms_per_change": {phase: 1000 * seconds / count for phase, (seconds, count) in cpu.items()},
        }
    return {"changes": changes, "held": held, "gaps": results}


def subscription_memory(binary, namespace, directory, clients, subscriptions):
    """RSS of a pathd of its own with `clients` connections × `subscriptions`
    subscriptions with 256-byte ids, then after they all closed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < clients + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, clients + 1000), hard))
    socket_path = os.path.join(directory, "memory.sock")
    pathd = Pathd(binary, namespace, socket_path, os.path.join(directory, "memory.log"),
                  arguments=["--max-clients", str(clients + 64)])
    try:
        first = pathd.wait_until_accepting()
        first.close()
        time.sleep(1)  # let the start settle before the idle reading (not a measurement)
        idle = pathd.status()
        idle_descriptors = len(os.listdir(f"/proc/{pathd.pid}/fd"))
        # An id of exactly 256 bytes of JSON: the quotes and 254 characters.
        connections = []
        poller = select.epoll()
        for index in range(clients):
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(socket_path)
            requests = b"".join(b'{"op":"subscribe","id":"%s"}\n' % (b"%06d-%04d-" % (index, number)).ljust(254, b"x")
                                for number in range(subscriptions))
            connection.sendall(requests)
            connection.setblocking(False)
            connections.append(connection)
            poller.register(connection.fileno(), select.EPOLLIN)
        by_fd = {connection.fileno(): connection for connection in connections}
        lines = {fd: 0 for fd in by_fd}
        expected = subscriptions + 1  # hello, then one path line per subscription
        done = 0
        deadline = time.monotonic() + 120
        while done < clients and time.monotonic() < deadline:
            for fd, _ in poller.poll(1):
                data = by_fd[fd].recv(1 << 20)
                if not data:
                    raise RuntimeError("pathd closed a subscriber during the memory measurement")
                before = lines[fd]
                lines[fd] += data.count(b"\n")
                if before < expected <= lines[fd]:
                    done += 1
        if done < clients:
            raise RuntimeError(f"only {done} of {clients} subscribers were answered in full")
        loaded = pathd.status()
        for connection in connections:
            poller.unregister(connection.fileno())
            connection.close()
        poller.close()
        deadline = time.monotonic() + 60
        while len(os.listdir(f"/proc/{pathd.pid}/fd")) > idle_descriptors and time.monotonic() < deadline:
            time.sleep(0.05)  # polling /proc until pathd closed them all (not a measurement)
        closed = pathd.status()
        # pathd returns free pages to the kernel a second after connections closed.
        time.sleep(2)
        settled = pathd.status()
        return {"clients": clients, "subscriptions": subscriptions, "id_bytes": 256,
                "idle_kib": kib(idle["VmRSS"]), "loaded_kib": kib(loaded["VmRSS"]),
                "peak_kib": kib(loaded["VmHWM"]), "closed_kib": kib(closed["VmRSS"]),
                "settled_kib": kib(settled["VmRSS"])}
    finally:
        pathd.stop()


def print_report(results, ms):
    if "hostile" in results:
        h = results["hostile"]
        print(f"### Hostile local users: a well-behaved client, idle and under the mix "
              f"({h['samples']} status round trips and {h['changes']} route changes each, ms)\n")
        print("| | phase | n | min | median | p99 | max |\n|---|---|---|---|---|---|---|")
        for key, label in (("status", "root's `status` round trip"),
                           ("route_change", "IPv4 default route change → root subscriber's line")):
            for phase in ("idle", "hostile"):
                s = h[phase][key]
                print(f"| {label} | {phase} | {s.get('n', 0)} | {ms(s.get('min'))} | {ms(s.get('median'))} | "
                      f"{ms(s.get('p99'))} | {ms(s.get('max'))} |")
        m = h["mix"]
        print()
        print(f"Under the mix ({h['hostile']['seconds']:.1f} s): pathd used {h['hostile']['pathd_cpu_share'] * 100:.0f}% "
              f"of a CPU; route changes missed: idle {h['idle']['missed']}, hostile {h['hostile']['missed']}. "
              f"Empty lines streamed: {m['stream_bytes'] / 1e6:.1f} MB (every stream's last ping answered: "
              f"{m['streams_answered']}); uid 65533's 1,024 connections: {m['crowd_first_lines']}; "
              f"workloads run: {m['worker_runs']}; problems: {m['worker_problems'] or 'none'}\n")
    if "route_limit" in results:
        r = results["route_limit"]
        print(f"### One user holding {r['held']} route subscriptions (MaxRoutesPerUser= is 256) against none: the "
              f"root subscriber's path line ({r['changes']} changes a phase, two phases each, ms)\n")
        print("| gap between changes | phase | n | pathd − ack median | p99 | max | request → line median "
              "| pathd CPU per change |\n|---|---|---|---|---|---|---|---|")
        for gap, g in r["gaps"].items():
            for phase in ("none", "limit"):
                own, total = g["own_part"][phase], g["request_to_line"][phase]
                print(f"| {gap} ms | {phase} | {own.get('n', 0)} | {ms(own.get('median'))} | {ms(own.get('p99'))} "
                      f"| {ms(own.get('max'))} | {ms(total.get('median'))} | {g['cpu_ms_per_change'][phase]:.2f} |")
            difference = g["own_part"]["limit"].get("median", float("nan")) - g["own_part"]["none"].get(
                "median", float("nan"))
            print(f"| {gap} ms | limit − none | | {ms(difference)} | | | | |")
        print()
    if "memory" in results:
        m = results["memory"]
        print(f"### Memory: {m['clients']} connections × {m['subscriptions']} subscriptions, ids of {m['id_bytes']} bytes\n")
        print("| idle | all subscribed | peak | all closed | 2 s later |\n|---|---|---|---|---|")
        print(f"| {m['idle_kib']} KiB | {m['loaded_kib']} KiB | {m['peak_kib']} KiB | {m['closed_kib']} KiB "
              f"| {m['settled_kib']} KiB |\n")
