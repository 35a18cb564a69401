# SPDX-License-Identifier: Apache-2.0
"""`pathctl run` (docs/PERFORMANCE.md, "pathctl run"), against a pathd binary and the
pathctl beside it, as root, in namespaces of its own:

- stop latency: `pathctl run --not-expensive --restart -- COMMAND`, where COMMAND writes
  "start" when it starts and "term" the moment it has SIGTERM (it waits for it in
  sigwaitinfo, so no interpreter delay sits between the signal and the line). Each round
  a reload (SIGHUP) makes vA expensive; the time from pathd's own line to COMMAND's
  "term" is pathctl's part: reading the line, deciding, kill(2). pathd's own line is the
  earliest of its copies to four subscribers of the same criteria, two made before
  pathctl subscribed and two after: pathd sends a group's line to its subscribers in the
  order of a hash set, so one reference alone may come after pathctl's copy. Then a
  reload makes vA free again and pathctl starts COMMAND again.
- idle: pathctl's context switches (every thread) over IDLE seconds while COMMAND runs
  and nothing changes, and its RSS.

`bench.py --only run` calls `report` and `print_report`."""
import os
import signal
import subprocess
import sys
import time

from harness import Pathd, ProcessStream, Subscriber, Loop, Topology, context_switches, kib, now, \
    process_status, summary_ms

# The command pathctl runs: "start" once started, "term" once SIGTERM arrived (blocked and
# taken with sigwaitinfo), then exit 0. Unbuffered writes to the pipe the bench reads.
COMMAND = """
import os, signal
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
os.write(1, b"start\\n")
signal.sigwaitinfo({signal.SIGTERM})
os.write(1, b"term\\n")
"""

EXPENSIVE = "[Interface]\nName=vA\nExpensive=yes\n"


def report(binary, pathctl, prefix, rounds, idle_seconds, directory):
    topology = Topology(f"{prefix}-run")
    pathd = None
    runner = None
    references = []
    try:
        config = os.path.join(directory, "run-pathd.conf")
        with open(config, "w") as handle:
            handle.write("")
        pathd = Pathd(binary, topology.a, os.path.join(directory, "run.sock"), os.path.join(directory, "run.log"),
                      arguments=["--config", config])
        pathd.wait_until_accepting().close()
        def reference():
            subscriber = Subscriber(pathd.socket_path, criteria={"prohibitExpensivePaths": True})
            subscriber.wait_for(lambda line: line.get("status") == "satisfied")
            references.append(subscriber)

        reference()
        reference()
        runner = ProcessStream([pathctl, "--socket", pathd.socket_path, "run", "--not-expensive", "--restart", "--",
                                sys.executable, "-c", COMMAND], parse=lambda text: text)
        runner.wait_for(lambda text: text == "start")
        reference()
        reference()
        loop = Loop(references + [runner])

        def reload(text):
            with open(config, "w") as handle:
                handle.write(text)
            os.kill(pathd.pid, signal.SIGHUP)

        def wait(stream, start, predicate, what):
            found = []

            def done():
                entry = stream.first(start, lambda entry: entry[2] is not None and predicate(entry[2]))
                if entry:
                    found.append(entry)
                return bool(entry)

            if not loop.pump(done, now() + int(10e9)):
                raise TimeoutError(f"pathctl run: no {what}")
            return found[0]

        latencies = []
        for _ in range(rounds):
            lines, outputs = [len(subscriber.lines) for subscriber in references], len(runner.lines)
            reload(EXPENSIVE)
            stamps = [wait(subscriber, start, lambda parsed: parsed.get("unsatisfiedReason") == "expensiveExcluded",
                           "expensiveExcluded line")[0] for subscriber, start in zip(references, lines)]
            term = wait(runner, outputs, lambda text: text == "term", "SIGTERM at the command")
            latencies.append(term[0] - min(stamps))
            outputs = len(runner.lines)
            reload("")
            wait(runner, outputs, lambda text: text == "start", "start again")

        # Idle: the command runs (it started after the last free reload), nothing changes.
        pid = runner.process.pid
        time.sleep(1)  # let the restart's own work finish (not a measurement)
        before = context_switches(pid)
        time.sleep(idle_seconds)
        after = context_switches(pid)
        status = process_status(pid)
        switches = sum(count - before.get(thread, 0) for thread, count in after.items())
        return {"rounds": rounds, "sigterm_after_pathd": summary_ms(latencies),
                "idle": {"seconds": idle_seconds, "context_switches": switches, "threads": len(after),
                         "per_minute": switches * 60 / idle_seconds,
                         "rss_kib": kib(status["VmRSS"]), "hwm_kib": kib(status["VmHWM"])}}
    finally:
        if runner:
            runner.process.send_signal(signal.SIGTERM)
            try:
                runner.process.wait(10)
            except subprocess.TimeoutExpired:
                runner.process.kill()
                runner.process.wait()
        for subscriber in references:
            subscriber.close()
        if pathd:
            pathd.stop()
        topology.remove()


def print_report(r, ms):
    s = r["sigterm_after_pathd"]
    i = r["idle"]
    print(f"### pathctl run ({r['rounds']} rounds, ms)\n")
    print("| | n | min | median | p99 | max |\n|---|---|---|---|---|---|")
    print(f"| pathd's line → the command has SIGTERM | {s['n']} | {ms(s.get('min'))} | {ms(s.get('median'))} | "
          f"{ms(s.get('p99'))} | {ms(s.get('max'))} |\n")
    print(f"While the command runs ({i['seconds']} s idle): {i['context_switches']} context switches over "
          f"{i['threads']} threads ({i['per_minute']:.1f} a minute); RSS {i['rss_kib']} KiB, peak RSS "
          f"{i['hwm_kib']} KiB\n")
