# SPDX-License-Identifier: Apache-2.0
"""Pieces the benchmarks share: the namespace topology, a pathd process, line streams
read against one monotonic clock, /proc readings.

Everything made here is named with the run's prefix (`pathd-bench-<pid>`) and removed
by `Topology.remove()`; Benchmarks/run.sh removes whatever a killed run left behind.
"""

import json
import os
import selectors
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../scripts/test"))
from netns import IP, Namespace, remove  # noqa: E402
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def now():
    """The one clock every measurement uses (CLOCK_MONOTONIC, nanoseconds)."""
    return time.monotonic_ns()


def run(*arguments, check=True):
    return subprocess.run(arguments, check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Topology:
    """Namespace A (pathd) and B (the router), joined by veth vA/vB, dual stack.

        A: vA 198.51.100.2/24, fd00:db8:1::2/64; default via .1 and via fd00:db8:1::1
        B: vB 198.51.100.1/24, fd00:db8:1::1/64

    DAD and link-local addresses are off and addresses survive admin down, so a link
    change is the only thing that changes: no address turns usable a second later.
    """

    V4_GATEWAY = "198.51.100.1"
    V6_GATEWAY = "fd00:db8:1::1"

    def __init__(self, prefix):
        self.a = f"{prefix}-a"
        self.b = f"{prefix}-b"
        self.created = []
        for namespace in (self.a, self.b):
            self.created.append(Namespace(namespace, sysctls=(
                "net.ipv6.conf.default.addr_gen_mode=1", "net.ipv6.conf.default.keep_addr_on_down=1",
                "net.ipv6.conf.all.keep_addr_on_down=1")))
        self.created[0].veth("vA", self.created[1], "vB")
        run(IP, "-n", self.a, "address", "add", "198.51.100.2/24", "dev", "vA")
        run(IP, "-n", self.a, "address", "add", "fd00:db8:1::2/64", "dev", "vA", "nodad")
        run(IP, "-n", self.b, "address", "add", "198.51.100.1/24", "dev", "vB")
        run(IP, "-n", self.b, "address", "add", "fd00:db8:1::1/64", "dev", "vB", "nodad")
        run(IP, "-n", self.a, "link", "set", "vA", "up")
        run(IP, "-n", self.b, "link", "set", "vB", "up")
        self.add_default_routes()
        self.va_index = self.index(self.a, "vA")
        self.vb_index = self.index(self.b, "vB")

    def add_default_routes(self):
        for family, gateway in (("-4", self.V4_GATEWAY), ("-6", self.V6_GATEWAY)):
            if not run(IP, "-n", self.a, family, "route", "show", "default").stdout.strip():
                run(IP, "-n", self.a, family, "route", "add", "default", "via", gateway, "dev", "vA")

    IDLE_UPLINKS = 4

    def add_idle_uplinks(self):
        """Four more interfaces for pathd to ask about (5 veths, 2 tables; docs/PERFORMANCE.md,
        "Per-interface lookups"): vA1..vA4, up and addressed in both families, whose peers stay down (no
        carrier). vA1 and vA2 have default routes in main behind vA's (metrics 2001,
        2002; IPv6 defaults are 1024), vA3 and vA4 in table 100, reached by a rule after main's: every one is a
        real route through its interface, and none carries a path, so the changes of
        `latency` make the path go exactly where they do with vA alone."""
        for number in range(1, self.IDLE_UPLINKS + 1):
            near, far = f"vA{number}", f"vB{number}"
            run(IP, "-n", self.a, "link", "add", near, "type", "veth", "peer", "name", far, "netns", self.b)
            run(IP, "-n", self.a, "address", "add", f"10.10.{number}.2/24", "dev", near)
            run(IP, "-n", self.a, "address", "add", f"fd00:db8:1{number}::2/64", "dev", near, "nodad")
            run(IP, "-n", self.a, "link", "set", near, "up")
            table = ["metric", str(2000 + number)] + (["table", "100"] if number > 2 else [])
            run(IP, "-n", self.a, "route", "add", "default", "via", f"10.10.{number}.1", "dev", near, *table)
            run(IP, "-n", self.a, "-6", "route", "add", "default", "via", f"fd00:db8:1{number}::1", "dev", near,
                *table)
        for family in ("-4", "-6"):
            run(IP, "-n", self.a, family, "rule", "add", "pref", "32800", "lookup", "100")

    def remove_idle_uplinks(self):
        for family in ("-4", "-6"):
            run(IP, "-n", self.a, family, "rule", "del", "pref", "32800")
        for number in range(1, self.IDLE_UPLINKS + 1):
            run(IP, "-n", self.a, "link", "del", f"vA{number}")

    @staticmethod
    def index(namespace, name):
        listing = json.loads(run(IP, "-n", namespace, "-j", "link", "show", name).stdout)
        return listing[0]["ifindex"]

    def remove(self):
        for namespace in reversed(self.created):
            remove(namespace.name)
        self.created = []


class Pathd:
    """pathd started with `ip netns exec` (which execs, so the pid is pathd's own)."""

    def __init__(self, binary, namespace, socket_path, log_path, arguments=(), notify_socket=None,
                 extra_environment=None):
        environment = dict(os.environ)
        environment.pop("NOTIFY_SOCKET", None)
        environment.update(extra_environment or {})
        if notify_socket:
            environment["NOTIFY_SOCKET"] = notify_socket
        self.socket_path = socket_path
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.started = now()
        self.process = subprocess.Popen(
            [IP, "netns", "exec", namespace, binary, "--socket", socket_path, *arguments],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log, env=environment)
        self.pid = self.process.pid

    def wait_until_accepting(self, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pathd exited ({self.process.returncode}): {self.log_text()}")
            try:
                subscriber = Subscriber(self.socket_path)
                subscriber.wait_for(lambda line: line.get("type") == "path", timeout=deadline - time.monotonic())
                return subscriber
            except (ConnectionRefusedError, FileNotFoundError):
                time.sleep(0.005)
        raise RuntimeError(f"pathd not serving after {timeout} s: {self.log_text()}")

    def log_text(self):
        with open(self.log_path) as log:
            return log.read()

    def cpu_seconds(self):
        return cpu_seconds(self.pid)

    def status(self):
        return process_status(self.pid)

    def context_switches(self):
        return context_switches(self.pid)

    def stop(self):
        terminate(self.process, 10)
        self.log.close()


def terminate(process, timeout):
    """SIGTERM, then SIGKILL if `process` has not ended within `timeout` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def cpu_seconds(pid):
    """utime + stime of the whole process, from /proc/PID/stat (fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def process_status(pid):
    """/proc/PID/status as a dict of strings."""
    result = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            result[key] = value.strip()
    return result


def kib(value):
    return int(value.split()[0])


def context_switches(pid):
    """{thread id: voluntary + nonvoluntary context switches} for every thread (the
    process's own status file counts only its main thread)."""
    result = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            status = process_status(f"{pid}/task/{task}")
        except FileNotFoundError:
            continue
        result[int(task)] = int(status["voluntary_ctxt_switches"]) + int(status["nonvoluntary_ctxt_switches"])
    return result


class Stream:
    """Lines from one descriptor, each stamped with the clock reading taken when the
    read that delivered it returned from select."""

    def __init__(self, fd, parse_json=False, parse=None, stamped=False):
        self.fd = fd
        self.parse_json = parse_json
        # Each line comes as "NS TEXT" from pathd-linestamp, NS its own stamp (the moment
        # a blocking read returned it), which replaces the select loop's.
        self.stamped = stamped
        # Turns a line's text into what `first`'s predicates see (instead of JSON).
        self.parse = parse
        self.buffer = b""
        self.lines = []  # (time, text, parsed or None)
        self.eof = False

    def fileno(self):
        return self.fd

    def readable(self, stamp):
        try:
            data = os.read(self.fd, 1 << 20)
        except BlockingIOError:
            return
        if not data:
            self.eof = True
            return
        self.buffer += data
        *complete, self.buffer = self.buffer.split(b"\n")
        for raw in complete:
            text = raw.decode(errors="replace")
            line_stamp = stamp
            if self.stamped:
                own, _, text = text.partition(" ")
                line_stamp = int(own)
            parsed = None
            if self.parse:
                parsed = self.parse(text)
            elif self.parse_json:
                try:
                    parsed = json.loads(text)
                except ValueError:
                    parsed = None
            self.lines.append((line_stamp, text, parsed))

    def first(self, start, predicate):
        """(time, text, parsed) of the first line at or after `start` matching, or None."""
        for entry in self.lines[start:]:
            if predicate(entry):
                return entry
        return None


class ProcessStream(Stream):
    """The stdout of a process this run starts (stdin kept open: closing it ends
    pathd-engine-bench), read in the select loop like any other stream."""

    def __init__(self, command, parse_json=False, parse=None, stamped=False, stdin=subprocess.PIPE):
        self.started = now()
        self.process = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        os.set_blocking(self.process.stdout.fileno(), False)
        super().__init__(self.process.stdout.fileno(), parse_json=parse_json, parse=parse, stamped=stamped)

    def wait_for(self, predicate, timeout=10):
        deadline = now() + int(timeout * 1e9)
        found = []

        def done():
            entry = self.first(0, lambda entry: entry[2] is not None and predicate(entry[2]))
            if entry:
                found.append(entry)
            return bool(entry) or self.eof

        Loop([self]).pump(done, deadline)
        if not found:
            raise TimeoutError(f"no matching line from {self.process.args}; last lines: "
                               f"{[line[1] for line in self.lines[-5:]]}")
        return found[0]

    def stop(self):
        if self.process.poll() is None:
            if self.process.stdin:
                self.process.stdin.close()
            else:
                self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()


class PipedStream(ProcessStream):
    """A process's stdout read through pathd-linestamp (stdin mode), which stamps each
    line as its blocking read returns it; ends with the process."""

    def __init__(self, command, linestamp):
        self.source = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL)
        super().__init__([linestamp], parse_json=True, stamped=True, stdin=self.source.stdout)
        self.source.stdout.close()  # linestamp holds it
        self.started = now()

    def stop(self):
        terminate(self.source, 5)
        self.source.stdin.close()
        super().stop()


class StampedSubscriber(ProcessStream):
    """A subscription to pathd read by pathd-linestamp, which stamps each line as its
    blocking read returns it: the latency figures' reader (bench.py, "How it is measured")."""

    def __init__(self, linestamp, socket_path):
        self.socket_path = socket_path
        super().__init__([linestamp, socket_path, json.dumps({"op": "subscribe"})], parse_json=True, stamped=True,
                         stdin=subprocess.DEVNULL)

    def close(self):
        self.stop()


class Subscriber(Stream):
    """A subscription to pathd over its Unix socket."""

    def __init__(self, socket_path, criteria=None):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(socket_path)
        request = {"op": "subscribe"}
        if criteria:
            request["criteria"] = criteria
        self.socket.sendall((json.dumps(request) + "\n").encode())
        self.socket.setblocking(False)
        super().__init__(self.socket.fileno(), parse_json=True)

    def wait_for(self, predicate, timeout=10, start=0):
        deadline = now() + int(timeout * 1e9)
        loop = Loop([self])
        found = []

        def done():
            entry = self.first(start, lambda entry: entry[2] is not None and predicate(entry[2]))
            if entry:
                found.append(entry)
            return bool(entry) or self.eof

        loop.pump(done, deadline)
        if not found:
            raise TimeoutError(f"no matching line from pathd; last lines: {[l[1] for l in self.lines[-5:]]}")
        return found[0]

    def close(self):
        self.socket.close()


class Loop:
    """select(2) over streams; stamps every read with `now()` taken when select returns."""

    def __init__(self, streams):
        self.selector = selectors.DefaultSelector()
        for stream in streams:
            self.add(stream)

    def add(self, stream):
        self.selector.register(stream.fileno(), selectors.EVENT_READ, stream)

    def remove(self, stream):
        self.selector.unregister(stream.fileno())

    def pump(self, done, deadline):
        """Reads until `done()` or the deadline (monotonic ns); returns done()."""
        while not done():
            remaining = deadline - now()
            if remaining <= 0:
                return False
            for key, _ in self.selector.select(remaining / 1e9):
                stamp = now()
                key.data.readable(stamp)
        return True

    def close(self):
        self.selector.close()


def percentile(sorted_values, fraction):
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_values:
        return float("nan")
    rank = max(1, int(-(-fraction * len(sorted_values) // 1)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def summary_ms(values_ns):
    values = sorted(v / 1e6 for v in values_ns)
    if not values:
        return {"n": 0}
    return {"n": len(values), "min": values[0], "median": percentile(values, 0.5),
            "p99": percentile(values, 0.99), "max": values[-1]}


class LineClient:
    """One connection, one line at a time."""

    def __init__(self, socket_path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(socket_path)
        self.socket.settimeout(30)
        self.pending = b""
        self.next_line()  # hello

    def next_line(self):
        while b"\n" not in self.pending:
            chunk = self.socket.recv(1 << 20)
            if not chunk:
                raise RuntimeError("pathd closed the connection")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line

    def close(self):
        self.socket.close()
