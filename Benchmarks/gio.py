# SPDX-License-Identifier: Apache-2.0
"""GLib processes against pathd (docs/PERFORMANCE.md, "GLib programs"): two copies of
gio-module's `gio-watch` in namespace A, one with pathd's GIO module
(GIO_EXTRA_MODULES, PATHD_SOCKET) and one forced onto GLib's own netlink backend
(GIO_USE_NETWORK_MONITOR=netlink), the backend a host without NetworkManager gets.

Measured in the same run, against the clock of bench.py's select loop:
- change -> `network-changed` latency of the module, beside pathd's own line;
- idle wake-ups (context switches of every thread) over a quiet period;
- CPU and memory of both during a million-route flood, and whether each still hears a
  carrier loss and the loss of both default routes after it.
"""

import os
import socket
import subprocess

import rtnl
from harness import IP, Stream, Topology, context_switches, cpu_seconds, kib, now, process_status, summary_ms


class GLibProcess:
    """gio-watch in namespace A (`ip netns exec` execs, so the pid is gio-watch's); its
    JSON lines are stamped by the driver's loop."""

    def __init__(self, label, namespace, gio_watch, environment, log_path):
        self.label = label
        self.log = open(log_path, "w")
        self.process = subprocess.Popen([IP, "netns", "exec", namespace, gio_watch],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                        env={**os.environ, **environment})
        self.pid = self.process.pid
        os.set_blocking(self.process.stdout.fileno(), False)
        self.stream = Stream(self.process.stdout.fileno(), parse_json=True)
        self.log_path = log_path

    def available(self, value):
        """A predicate on the stream's entries: a line saying network-available is `value`."""
        return lambda entry: entry[2] is not None and entry[2].get("available") is value

    def monitor(self):
        first = next((entry[2] for entry in self.stream.lines if entry[2] is not None), None)
        return first.get("monitor") if first else None

    def cpu_seconds(self):
        return cpu_seconds(self.pid)

    def memory(self):
        status = process_status(self.pid)
        return {"rss_kib": kib(status["VmRSS"]), "hwm_kib": kib(status["VmHWM"])}

    def stop(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        self.log.close()

    def log_text(self):
        with open(self.log_path) as log:
            return log.read()


def _both_defaults(top, add):
    """Route requests adding (or deleting) the IPv4 and IPv6 default routes of vA."""
    return [rtnl.RouteSocket.route_request(add, socket.AF_INET, Topology.V4_GATEWAY, top.va_index),
            rtnl.RouteSocket.route_request(add, socket.AF_INET6, Topology.V6_GATEWAY, top.va_index)]


def _measure(driver, processes, name, requests, stream_socket, pathd_predicate, available, timeout):
    """Sends `requests`, then waits (up to `timeout` s) for pathd's line and each GLib
    process's line saying network-available is `available`; returns ms since the first
    request for each (None: not heard in time)."""
    path_start = len(driver.subscriber.lines)
    starts = {process.label: len(process.stream.lines) for process in processes}
    t0 = now()
    for request in requests:
        driver.change(stream_socket, request)
    found = {}

    def done():
        if "pathd" not in found:
            entry = driver.subscriber.first(path_start, lambda e: pathd_predicate(e[2]))
            if entry:
                found["pathd"] = entry[0]
        for process in processes:
            if process.label not in found:
                entry = process.stream.first(starts[process.label], process.available(available))
                if entry:
                    found[process.label] = entry[0]
        return len(found) == len(processes) + 1

    driver.loop.pump(done, t0 + int(timeout * 1e9))
    return {"change": name, **{key: (found[key] - t0) / 1e6 if key in found else None
                               for key in ["pathd"] + [process.label for process in processes]}}


def _carrier(driver, processes, name, on, path_state, timeout):
    top = driver.topology
    # The kernel holds a carrier change back until a second after the last link event
    # (linkwatch): wait that out so the time measured is pathd's and GLib's, not its.
    driver.settle(1100)
    return _measure(driver, processes, name, [rtnl.RouteSocket.link_request(top.vb_index, on)], driver.socket_b,
                    path_state(on, on), on, timeout)


def _defaults(driver, processes, name, add, path_state, timeout):
    return _measure(driver, processes, name, _both_defaults(driver.topology, add), driver.socket_a,
                    path_state(add, add), add, timeout)


def _idle(processes, seconds, driver):
    before = {process.label: context_switches(process.pid) for process in processes}
    cpu_before = {process.label: process.cpu_seconds() for process in processes}
    driver.settle(seconds * 1000)
    result = {}
    for process in processes:
        after = context_switches(process.pid)
        result[process.label] = {
            "context_switches": sum(count - before[process.label].get(thread, 0) for thread, count in after.items()),
            "threads": len(after),
            "cpu_seconds": process.cpu_seconds() - cpu_before[process.label],
        }
    return result


def _flood_phase(driver, processes, path):
    """`ip -batch` in namespace A, the GLib processes' lines read meanwhile; CPU of each.
    The driver's `ip monitor` is stopped meanwhile, as in bench.py's flood: its million
    lines in the same loop would delay the stamps of the GLib processes' lines."""
    driver.stop_monitor()
    cpu_before = {process.label: process.cpu_seconds() for process in processes}
    start = now()
    batch = subprocess.Popen([IP, "-n", driver.topology.a, "-batch", path],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while batch.poll() is None:
        driver.loop.pump(lambda: batch.poll() is not None, now() + 100_000_000)
    if batch.returncode != 0:
        raise RuntimeError(f"ip -batch {path} failed: {batch.stderr.read().decode()[:500]}")
    # What the processes do for the flood itself continues after `ip` exits: the phase
    # ends when none of them used CPU for half a second (at most a minute later).
    quiet_deadline = now() + 60_000_000_000
    while now() < quiet_deadline:
        before = [process.cpu_seconds() for process in processes]
        driver.settle(500)
        if [process.cpu_seconds() for process in processes] == before:
            break
    driver.start_monitor()
    return {"seconds": (now() - start) / 1e9,
            "cpu": {process.label: process.cpu_seconds() - cpu_before[process.label] for process in processes},
            "memory": {process.label: process.memory() for process in processes}}


AFTER_FLOOD_TIMEOUT = 5


def _after_flood(driver, processes, label, path_state):
    """Carrier off and on, then both default routes deleted and added: who hears each
    within AFTER_FLOOD_TIMEOUT seconds."""
    return [
        _carrier(driver, processes, f"carrier off after {label}", False, path_state, AFTER_FLOOD_TIMEOUT),
        _carrier(driver, processes, f"carrier on after {label}", True, path_state, AFTER_FLOOD_TIMEOUT),
        _defaults(driver, processes, f"default routes deleted after {label}", False, path_state, AFTER_FLOOD_TIMEOUT),
        _defaults(driver, processes, f"default routes added after {label}", True, path_state, AFTER_FLOOD_TIMEOUT),
    ]


def glib_monitors(driver, pathd, directory, gio_watch, module_dir, rounds, idle_seconds, routes, write_batches,
                  path_state):
    """The whole GLib part; `write_batches` and `path_state` are bench.py's."""
    namespace = driver.topology.a
    module = GLibProcess("module", namespace, gio_watch,
                         {"GIO_EXTRA_MODULES": module_dir, "PATHD_SOCKET": pathd.socket_path},
                         os.path.join(directory, "gio-watch-module.log"))
    netlink = GLibProcess("netlink", namespace, gio_watch,
                          {"GIO_USE_NETWORK_MONITOR": "netlink", "GIO_EXTRA_MODULES": module_dir},
                          os.path.join(directory, "gio-watch-netlink.log"))
    processes = [module, netlink]
    try:
        for process in processes:
            driver.loop.add(process.stream)
        driver.loop.pump(lambda: all(process.monitor() for process in processes), now() + 10_000_000_000)
        monitors = {process.label: process.monitor() for process in processes}
        if not all(monitors.values()):
            raise RuntimeError(f"gio-watch printed no first line: {[process.log_text() for process in processes]}")
        results = {"monitors": monitors, "start": {process.label: process.memory() for process in processes}}

        latencies = []
        for _ in range(rounds):
            latencies.append(_carrier(driver, processes, "carrier off", False, path_state, 3))
            latencies.append(_carrier(driver, processes, "carrier on", True, path_state, 3))
            latencies.append(_defaults(driver, processes, "default routes deleted", False, path_state, 3))
            latencies.append(_defaults(driver, processes, "default routes added", True, path_state, 3))
        results["latency"] = latencies

        driver.settle(1000)
        results["idle"] = _idle(processes, idle_seconds, driver)

        if routes:
            add_path, delete_path = write_batches(directory, routes, False)
            results["flood_add"] = _flood_phase(driver, processes, add_path)
            results["routes"] = routes
            results["after_add"] = _after_flood(driver, processes, f"{routes:,} adds", path_state)
            results["flood_delete"] = _flood_phase(driver, processes, delete_path)
            results["after_delete"] = _after_flood(driver, processes, f"{routes:,} deletes", path_state)
            results["idle_after"] = _idle(processes, idle_seconds, driver)
            for path in (add_path, delete_path):
                os.remove(path)
        results["stderr"] = {process.label: process.log_text().count("\n") for process in processes}
        results["netlink_enobufs"] = "No buffer space" in netlink.log_text()
        return results
    finally:
        for process in processes:
            try:
                driver.loop.remove(process.stream)
            except (KeyError, ValueError):
                pass
            process.stop()


def _ms(value):
    return "missed" if value is None else f"{value:.1f}"


def print_glib(results):
    print("### GLib programs: pathd's GIO module against GLib's netlink backend\n")
    print(f"Monitors chosen: module process `{results['monitors']['module']}`, "
          f"netlink process `{results['monitors']['netlink']}`.\n")
    latency = results["latency"]
    print("#### Change -> network-changed (ms from the request; 'missed' = not heard within 3 s)\n")
    print("| change | n | pathd median / max | module median / max | netlink heard | netlink median |")
    print("|---|---|---|---|---|---|")
    for name in ("carrier off", "carrier on", "default routes deleted", "default routes added"):
        rows = [row for row in latency if row["change"] == name]
        pathd = summary_ms([row["pathd"] * 1e6 for row in rows if row["pathd"] is not None])
        module = summary_ms([row["module"] * 1e6 for row in rows if row["module"] is not None])
        netlink_rows = [row["netlink"] for row in rows if row["netlink"] is not None]
        netlink = summary_ms([value * 1e6 for value in netlink_rows])
        print(f"| {name} | {len(rows)} | {pathd.get('median', float('nan')):.1f} / {pathd.get('max', float('nan')):.1f} "
              f"| {module.get('median', float('nan')):.1f} / {module.get('max', float('nan')):.1f} "
              f"(heard {module['n']}) | {len(netlink_rows)} of {len(rows)} "
              f"| {netlink.get('median', float('nan')):.1f} |")
    differences = sorted(row["module"] - row["pathd"] for row in latency
                         if row["module"] is not None and row["pathd"] is not None)
    if differences:
        print(f"\nModule after pathd's own line: median {differences[len(differences) // 2]:.2f} ms, "
              f"max {differences[-1]:.2f} ms ({len(differences)} changes).\n")
    idle = results["idle"]
    print(f"#### Idle\n\n| process | context switches | threads | CPU s |\n|---|---|---|---|")
    for label, row in idle.items():
        print(f"| {label} | {row['context_switches']} | {row['threads']} | {row['cpu_seconds']:.2f} |")
    print()
    if "flood_add" in results:
        print(f"#### Flood of {results['routes']:,} /32 routes (added, then deleted)\n")
        print("| phase | process | CPU s | RSS KiB | peak RSS KiB |\n|---|---|---|---|---|")
        for phase in ("flood_add", "flood_delete"):
            for label in ("module", "netlink"):
                memory = results[phase]["memory"][label]
                print(f"| {phase.replace('flood_', '')} ({results[phase]['seconds']:.1f} s) | {label} "
                      f"| {results[phase]['cpu'][label]:.2f} | {memory['rss_kib']} | {memory['hwm_kib']} |")
        print(f"\nStart RSS: module {results['start']['module']['rss_kib']} KiB, "
              f"netlink {results['start']['netlink']['rss_kib']} KiB.\n")
        print(f"| after the flood (ms; 'missed' = not heard within {AFTER_FLOOD_TIMEOUT} s) | pathd | module | netlink |\n"
              "|---|---|---|---|")
        for row in results["after_add"] + results["after_delete"]:
            print(f"| {row['change']} | {_ms(row['pathd'])} | {_ms(row['module'])} | {_ms(row['netlink'])} |")
        after = results["idle_after"]
        print(f"\nIdle after the flood, context switches: module {after['module']['context_switches']}, "
              f"netlink {after['netlink']['context_switches']}. Netlink backend reported ENOBUFS: "
              f"{'yes' if results['netlink_enobufs'] else 'no'}.\n")
