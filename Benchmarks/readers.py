# SPDX-License-Identifier: Apache-2.0
"""Readers of pathd's path besides a raw subscriber (docs/PERFORMANCE.md, "Start, hops,
the in-process engine"): `pathctl monitor --json` and the client library's in-process
engine (pathd-engine-bench), timed beside pathd's own line in the latency part; the
engine's start; and where pathd's own part of a change goes (`perf trace` on pathd's
system calls).
"""

import os
import re
import shutil
import signal
import subprocess

from harness import IP, PipedStream, ProcessStream, kib, process_status, summary_ms


def sibling(pathd_binary, name):
    """A binary built beside pathd (`make bench` builds them all), or None."""
    path = os.path.join(os.path.dirname(pathd_binary), name)
    return path if os.access(path, os.X_OK) else None


def engine_line(text):
    """A pathd-engine-bench line as the fields of a path line, with the stamp it took
    (CLOCK_MONOTONIC, the clock of every other measurement)."""
    fields = text.split()
    if len(fields) == 2 and fields[0] == "start":
        return {"type": "start", "stamp": int(fields[1])}
    if len(fields) == 5 and fields[0] == "path":
        return {"type": "path", "stamp": int(fields[1]), "status": fields[2],
                "supportsIPv4": fields[3] == "1", "supportsIPv6": fields[4] == "1"}
    return None


def engine(binary, namespace):
    return ProcessStream([IP, "netns", "exec", namespace, binary], parse=engine_line)


def pathctl_monitor(binary, socket_path, linestamp=None):
    """`pathctl monitor --json`, its stdout piped through pathd-linestamp as `ip monitor`'s
    is, so that its lines are stamped like pathd's own (by a blocked reader) and not by
    the bench's select loop, busy with pathd's line of the same change."""
    command = [binary, "--socket", socket_path, "monitor", "--json"]
    if linestamp:
        return PipedStream(command, linestamp)
    return ProcessStream(command, parse_json=True)


def relay_floor(floor, socket_path, linestamp):
    """`pathd-floor --relay`: pathd's lines copied to stdout as each read returns them,
    piped through pathd-linestamp as `pathctl monitor --json`'s are: the least a client
    of pathd's socket that writes the line can come to."""
    return PipedStream([floor, "--relay", socket_path], linestamp)


def engine_start(binary, namespace, trials):
    """exec → the engine's first path handler call, and inside the process: main's
    first statement → first handler call (what a program pays for `start`)."""
    exec_to_path, start_to_path, exec_to_start = [], [], []
    rss, peak = [], []  # KiB of the whole program, once the first path is out
    for _ in range(trials):
        stream = engine(binary, namespace)
        try:
            path = stream.wait_for(lambda line: line.get("type") == "path", timeout=60)
            start = stream.first(0, lambda entry: entry[2] is not None and entry[2].get("type") == "start")
            exec_to_path.append(path[2]["stamp"] - stream.started)
            start_to_path.append(path[2]["stamp"] - start[2]["stamp"])
            exec_to_start.append(start[2]["stamp"] - stream.started)
            status = process_status(stream.process.pid)
            rss.append(kib(status["VmRSS"]))
            peak.append(kib(status["VmHWM"]))
        finally:
            stream.stop()
    return {"trials": trials, "exec_to_first_path": summary_ms(exec_to_path),
            "start_to_first_path": summary_ms(start_to_path), "exec_to_main": summary_ms(exec_to_start),
            "rss_kib": sorted(rss), "hwm_kib": sorted(peak)}


def print_engine_start(title, s, ms):
    print(f"### {title} ({s['trials']} trials, ms)\n")
    print("| | min | median | max |\n|---|---|---|---|")
    for name, label in (("start_to_first_path", "in the process: `start` → first path handler call"),
                        ("exec_to_first_path", "exec → first path handler call"),
                        ("exec_to_main", "exec → main (`ip netns exec`, loading, runtime; included above)")):
        v = s[name]
        print(f"| {label} | {ms(v.get('min'))} | {ms(v.get('median'))} | {ms(v.get('max'))} |")
    print(f"\nThe whole program once its first path was out: RSS {s['rss_kib']} KiB, peak RSS {s['hwm_kib']} KiB "
          "(each trial).\n")


# MARK: where pathd's part goes

# perf trace's lines: a call that returned at once; the entry of one that blocked
# (ending in "...") and, later, its return ("... [continued]: name())"), which
# carries the entry's time and the duration.
COMPLETE = re.compile(r"^\s*([\d.]+) \(\s*([\d.]+) ms\): \S+/(\d+) (\w+)\((.*)\)\s+= (-?\d+)")
ENTERED = re.compile(r"^\s*([\d.]+) \(\s*\): \S+/(\d+) (\w+)\((.*)\)\s+\.\.\.\s*$")
CONTINUED = re.compile(r"^\s*([\d.]+) \(\s*([\d.]+) ms\): \S+/(\d+)\s+\.\.\. \[continued\]: (\w+)\(\)\)\s+= (-?\d+)")
FD = re.compile(r"\bfd: (\d+)")


def socket_fds(pid):
    """{fd: "netlink" | "unix" | ...} of a process, from /proc/PID/fd and /proc/net."""
    inodes = {}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        match = re.match(r"socket:\[(\d+)\]", target)
        if match:
            inodes[match.group(1)] = int(fd)
    kinds = {}
    for kind in ("netlink", "unix"):
        with open(f"/proc/{pid}/net/{kind}") as table:
            for line in table.readlines()[1:]:
                for inode, fd in inodes.items():
                    if line.split()[-1 if kind == "netlink" else 6] == inode:
                        kinds[fd] = kind
    return kinds


def breakdown(driver, pathd, rounds, changes):
    """Changes with `perf trace` watching pathd's system calls: per change, from the
    read of the kernel's event to the line's send(2), the time in each stage. perf
    adds a few microseconds per traced call, so the stages are a breakdown, not the
    latency (the latency part measures that untraced). What happens before the read
    (libdispatch's epoll thread handing the read source to a worker) is not split."""
    return breakdowns({"pathd": pathd}, rounds, lambda: changes(driver), settle=driver.settle)["pathd"]


def breakdowns(pathds, rounds, round_of_changes, settle):
    """`breakdown` of several pathds under one `perf trace`, `round_of_changes()` made
    `rounds` times (each pathd's changes in turn, as `identity-pair` makes them, so
    that every pathd lives through the same moments): {name: its stages, or why it was
    skipped}. `pathds` is {name: Pathd}; `settle(ms)` waits."""
    if not shutil.which("perf"):
        return {name: {"skipped": "perf is not installed (linux-perf)"} for name in pathds}
    sockets = {}
    for name, pathd in pathds.items():
        kinds = socket_fds(pathd.pid)
        netlink = sorted(fd for fd, kind in kinds.items() if kind == "netlink")
        if len(netlink) < 2:
            return {name: {"skipped": f"expected two netlink sockets in pathd, found {netlink}"} for name in pathds}
        # The monitor opens its event socket first, then its request socket.
        sockets[name] = (netlink[-2], netlink[-1])
    first = next(iter(pathds.values()))
    output = os.path.join(os.path.dirname(first.log_path), "perf-trace.txt")
    # System-wide: `-p` follows only the threads that exist when perf attaches, and
    # libdispatch starts its workers on demand. pathd's threads are told apart by their
    # ids, read after every round (an idle worker lives on for seconds).
    tracer = subprocess.Popen(["perf", "trace", "-a", "-o", output,
                               "-e", "recvfrom,recvmmsg,sendmsg,sendto"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    threads = {name: set() for name in pathds}

    def note_threads():
        for name, pathd in pathds.items():
            threads[name] |= {int(thread) for thread in os.listdir(f"/proc/{pathd.pid}/task")}
    try:
        # perf prints nothing when it is attached: give it a moment (not a measurement).
        settle(1000)
        note_threads()
        for _ in range(rounds):
            round_of_changes()
            note_threads()
    finally:
        tracer.send_signal(signal.SIGINT)  # perf writes out what it buffered on SIGINT only
        tracer.wait()
    with open(output) as trace:
        lines = trace.read().splitlines()
    os.remove(output)
    return {name: stages(lines, threads[name], *sockets[name]) for name in pathds}


def stages(lines, threads, event_fd, request_fd):
    """Splits the trace into cycles, each from an event-socket read that returned data
    to the next send(2) to a client, and times the stages of each."""
    calls = []  # (start ms, end ms, thread, name, fd, result)
    entered = {}  # thread: fd of the call it blocked in
    for line in lines:
        match = COMPLETE.match(line)
        if match and int(match.group(3)) in threads:
            start, duration = float(match.group(1)), float(match.group(2))
            fd = FD.search(match.group(5))
            calls.append((start, start + duration, int(match.group(3)), match.group(4), int(fd.group(1)) if fd else -1,
                          int(match.group(6))))
            continue
        match = ENTERED.match(line)
        if match and int(match.group(2)) in threads:
            fd = FD.search(match.group(4))
            entered[int(match.group(2))] = int(fd.group(1)) if fd else -1
            continue
        match = CONTINUED.match(line)
        if match and int(match.group(3)) in threads:
            start, duration = float(match.group(1)), float(match.group(2))
            thread = int(match.group(3))
            calls.append((start, start + duration, thread, match.group(4), entered.pop(thread, -1), int(match.group(5))))
    calls.sort()
    cycles = []
    current = None
    for start, end, thread, name, fd, result in calls:
        if name == "recvfrom" and fd == event_fd and result > 0 and current is None:
            current = {"thread": thread, "read_start": start, "lookup_start": None, "lookup_end": None}
        elif current is not None and fd == request_fd:
            # libnl sends a batch of lookups with sendto(2) (nl_sendto), one request with sendmsg(2).
            if current["lookup_start"] is None and name in ("sendto", "sendmsg"):
                current["lookup_start"] = start
            # The replies are read with recvmmsg(2), all of a batch's at once.
            if name in ("recvfrom", "recvmmsg"):
                current["lookup_end"] = end
        elif current is not None and name == "sendto" and fd not in (event_fd, request_fd):
            current["send_start"], current["send_end"] = start, end
            current["same_thread"] = thread == current["thread"]
            cycles.append(current)
            current = None
    names = {
        "read": "event read, decode, drain to EAGAIN",
        "lookups": "route lookups (one request batch: its send and the replies' reads)",
        "evaluate": "lookups done → send(2) begins (to the state queue, snapshot, evaluation, encoding)",
        "send": "send(2) of the line",
        "total": "event read → line sent",
    }
    values = {key: [] for key in names}
    complete = [c for c in cycles if c["lookup_start"] is not None and c["lookup_end"] is not None]
    for c in complete:
        values["read"].append(c["lookup_start"] - c["read_start"])
        values["lookups"].append(c["lookup_end"] - c["lookup_start"])
        values["evaluate"].append(c["send_start"] - c["lookup_end"])
        values["send"].append(c["send_end"] - c["send_start"])
        values["total"].append(c["send_end"] - c["read_start"])
    if not complete:
        # An instrument that measures nothing says so: the trace's calls did not form one
        # cycle (read, lookups, send), so the pattern above no longer matches pathd.
        raise RuntimeError(f"breakdown: no complete change in the trace ({len(calls)} calls of pathd's threads, "
                           f"{len(cycles)} reads followed by a send, event fd {event_fd}, request fd {request_fd})")
    return {"cycles": len(complete), "labels": names, "same_thread": sum(1 for c in complete if c["same_thread"]),
            "stages": {key: summary_ms([v * 1e6 for v in items]) for key, items in values.items()}}


def print_breakdown(b, ms):
    if "skipped" in b:
        print(f"### Where pathd's part goes: skipped ({b['skipped']})\n")
        return
    print(f"### Where pathd's part goes: {b['cycles']} changes under `perf trace` (ms)\n")
    print(f"The line was sent by the thread that read the event in {b['same_thread']} of {b['cycles']} changes "
          "(else a second thread was woken for it). perf adds a few microseconds to each traced call.\n")
    print("| stage | n | min | median | p99 | max |\n|---|---|---|---|---|---|")
    for key, label in b["labels"].items():
        s = b["stages"][key]
        print(f"| {label} | {s.get('n', 0)} | {ms(s.get('min'))} | {ms(s.get('median'))} | {ms(s.get('p99'))} "
              f"| {ms(s.get('max'))} |")
    print()


def print_breakdown_pair(pair, labels, ms):
    """Both pathds' `breakdown` from `paired_latency`'s traced rounds, stage by stage,
    with the second's medians less the first's; `labels` names the two keys."""
    first, second = list(labels)
    one, other = pair[first].get("breakdown"), pair[second].get("breakdown")
    if one is None or other is None:
        return
    if "skipped" in one or "skipped" in other:
        print(f"Stages under `perf trace`: skipped ({one.get('skipped') or other.get('skipped')})\n")
        return
    print(f"Stages under `perf trace`, the same changes after the timed ones ({one['cycles']} and "
          f"{other['cycles']} changes, medians, ms; perf adds a few microseconds to each traced call):\n")
    print(f"| stage | {labels[first]} | {labels[second]} | difference |\n|---|---|---|---|")
    for key, label in one["labels"].items():
        a, b = one["stages"][key].get("median"), other["stages"][key].get("median")
        difference = None if a is None or b is None else b - a
        print(f"| {label} | {ms(a)} | {ms(b)} | {ms(difference)} |")
    print()


def latency_readers(results):
    """{reader: summary} of each extra reader's time (with "pathd, raw subscriber" when
    there was one), its paired difference with `ip monitor` and with pathd's own line."""
    names = sorted({name for r in results for name in r.get("readers", {})})
    if names:
        names = [f"pathd beside {' and '.join(name for name in names if ', stamped' not in name)}"] + names
    items = [dict(r, readers=dict(r.get("readers", {}), **({names[0]: r["pathd"]} if names else {})))
             for r in results if r["change"] != "admin up"]
    report = {}
    for name in names:
        values = [r["readers"][name] for r in items if r["readers"].get(name) is not None]
        over_monitor = [r["readers"][name] - r["monitor"] for r in items
                        if r["readers"].get(name) is not None and r["monitor"] is not None]
        over_pathd = [r["readers"][name] - r["pathd"] for r in items
                      if r["readers"].get(name) is not None and r["pathd"] is not None]
        report[name] = {"line": summary_ms(values), "minus_monitor": summary_ms(over_monitor),
                        "minus_pathd": summary_ms(over_pathd), "missed": len(items) - len(values)}
    return report


def print_latency_readers(report, ms):
    if not report:
        return
    print("### Latency of other readers, each in a run of its own beside pathd's line (all but admin up, ms)\n")
    print("| reader | n | line median | p99 | − ip monitor, paired median | p99 | − pathd's line, paired median "
          "| p99 | missed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in report.items():
        line, mon, own = r["line"], r["minus_monitor"], r["minus_pathd"]
        print(f"| {name} | {line.get('n', 0)} | {ms(line.get('median'))} | {ms(line.get('p99'))} "
              f"| {ms(mon.get('median'))} | {ms(mon.get('p99'))} | {ms(own.get('median'))} | {ms(own.get('p99'))} "
              f"| {r['missed']} |")
    print()

