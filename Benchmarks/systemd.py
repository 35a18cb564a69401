#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""pathd under a real systemd, booted in a container (scripts/test/booted_systemd.py) with
the package installed by dpkg, as docs/PERFORMANCE.md reports it:

- start: `systemctl start pathd.service` with pathd.socket listening → READY=1, as systemd
  records it (the start job's InactiveExitTimestamp to ActiveEnterTimestamp, both
  CLOCK_MONOTONIC), over --trials restarts; and the same through socket activation, from
  a client's start to READY=1;
- pathd-wait-online.service with the path satisfied: its pathctl's run (exec to exit);
- memory: pathd's resident set (VmRSS) and its cgroup's memory.current, idle after start;
- stop: `systemctl stop pathd.service` with --subscribers clients subscribed, each of which
  must read the documented `shuttingDown` error line before its connection ends;
- a job bound to pathd-path@not-expensive.service (pathd(8)'s backup example): from the
  start of `systemctl reload pathd` whose pathd.conf marks the uplink expensive to the
  template's end and to the job's stop, as systemd logs them ("Deactivated
  successfully", "Stopped"), by the journal's CLOCK_MONOTONIC receive times;
- the same job when a phone's hotspot takes over, with no reload and no carrier loss: the
  router behind the uplink changes its MAC to one a `[Network]` section names expensive,
  the container's entry for it is deleted, and a datagram to it (a host's next packet)
  learns the new MAC; from just before that datagram to the same two journal lines.

Usage: Benchmarks/systemd.py --deb build/pathd_VERSION_ARCH.deb [--trials N] [--subscribers N]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../scripts/test"))
import booted_systemd  # noqa: E402

# Runs inside the container: N subscriptions, then waits for each one's end and reports
# what each read last before the daemon closed it.
SUBSCRIBERS = r"""
import json, socket, sys, time
count = int(sys.argv[1])
clients = []
for _ in range(count):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("/run/pathd/pathd.sock")
    s.sendall(b'{"op":"subscribe"}\n')
    clients.append([s, b""])
for client in clients:
    while client[1].count(b"\n") < 2:
        data = client[0].recv(65536)
        if not data:
            sys.exit("pathd closed a subscription before its first path")
        client[1] += data
print("subscribed", flush=True)
sys.stdin.readline()
lines = []
for client in clients:
    while True:
        data = client[0].recv(65536)
        if not data:
            break
        client[1] += data
    lines.append(client[1].decode().strip().split("\n")[-1])
print(json.dumps(lines), flush=True)
"""


def inside(state, script, **options):
    result = subprocess.run(["nsenter", "-t", str(state["leader"]), "-a", "--", "/bin/sh", "-c", script],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options)
    if result.returncode != 0:
        raise RuntimeError(f"`{script}` in the container failed ({result.returncode}): {result.stderr.strip()}")
    return result


# Prints CLOCK_MONOTONIC in nanoseconds inside the container, the clock of systemd's
# timestamps and of the journal's: the moment just before the command after it.
CLOCK = "python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'"

# Twenty starts within seconds would hit the unit's start limit (StartLimitBurst=5 in 10 s).
RESTART = "systemctl stop pathd.service && systemctl reset-failed pathd.service"


def show(state, unit, *names):
    output = inside(state, f"systemctl show {unit} " + " ".join(f"-p {name}" for name in names)).stdout
    return dict(line.split("=", 1) for line in output.splitlines())


def millis(microseconds):
    return int(microseconds) / 1000


def start_to_ready(state, trials):
    """systemctl start → READY=1, and a client's connect → READY=1 (socket activation)."""
    direct, activated = [], []
    for _ in range(trials):
        inside(state, f"{RESTART} && systemctl start pathd.service")
        times = show(state, "pathd.service", "InactiveExitTimestampMonotonic", "ActiveEnterTimestampMonotonic")
        direct.append(millis(times["ActiveEnterTimestampMonotonic"]) - millis(times["InactiveExitTimestampMonotonic"]))
    for _ in range(trials):
        inside(state, RESTART)
        # The client's connect: the clock read just before `pathctl status` runs.
        connected = inside(state, f"{CLOCK} && pathctl status >/dev/null").stdout.split()[0]
        times = show(state, "pathd.service", "ActiveEnterTimestampMonotonic")
        activated.append(millis(times["ActiveEnterTimestampMonotonic"]) - int(connected) / 1e6)
    return direct, activated


def wait_online(state, trials):
    """pathd-wait-online.service with a satisfied path: its pathctl's run, exec to exit."""
    durations = []
    for _ in range(trials):
        inside(state, "systemctl reset-failed pathd-wait-online.service; systemctl restart pathd-wait-online.service")
        times = show(state, "pathd-wait-online.service", "ExecMainStartTimestampMonotonic",
                     "ExecMainExitTimestampMonotonic")
        exited, started = times["ExecMainExitTimestampMonotonic"], times["ExecMainStartTimestampMonotonic"]
        durations.append(millis(exited) - millis(started))
    return durations


def memory(state):
    values = show(state, "pathd.service", "MainPID", "MemoryCurrent")
    # MainPID is the container's PID: read its status there.
    status = inside(state, f"cat /proc/{values['MainPID']}/status").stdout
    rss = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
    current = values["MemoryCurrent"]
    return int(rss), (int(current) // 1024 if current.isdigit() else None)


def stop_with_subscribers(state, count):
    with open(os.path.join(state["root"], "var/tmp/subscribers.py"), "w") as file:
        file.write(SUBSCRIBERS)
    inside(state, "systemctl start pathd.service")
    client = subprocess.Popen(["nsenter", "-t", str(state["leader"]), "-a", "--", "python3",
                               "/var/tmp/subscribers.py", str(count)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if client.stdout.readline().strip() != "subscribed":
        raise RuntimeError("the subscribers did not subscribe")
    client.stdin.write("go\n")
    client.stdin.flush()
    started = time.monotonic()
    inside(state, "systemctl stop pathd.service")
    elapsed = (time.monotonic() - started) * 1000
    lines = json.loads(client.stdout.readline())
    client.wait(timeout=30)
    codes = [json.loads(line).get("code") for line in lines]
    return elapsed, codes


def wait_for(what, predicate, seconds=30):
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"not within {seconds} s: {what}")
        time.sleep(0.05)  # polling systemd's and pathd's state, with a deadline (not a measurement)


def job_is(wanted, state):
    """Whether the bound job's state (`systemctl is-active`) is `wanted` now."""
    return inside(state, "systemctl is-active bound-job.service || true").stdout.strip() == wanted


def logged_after(state, unit, words, since):
    """The journal's CLOCK_MONOTONIC receive time (s) of `unit`'s first line after `since`
    (s) that holds `words`: systemd unloads an inactive, unneeded unit with its timestamps."""
    lines = inside(state, f"journalctl -o json --no-pager -u {unit}").stdout.splitlines()
    times = [int(entry["__MONOTONIC_TIMESTAMP"]) / 1e6 for entry in map(json.loads, lines)
             if words in entry.get("MESSAGE", "") and int(entry["__MONOTONIC_TIMESTAMP"]) / 1e6 > since]
    if not times:
        raise RuntimeError(f"no \"{words}\" line of {unit} after {since:.6f}")
    return min(times)


BOUND_JOB = """[Unit]
BindsTo=pathd-path@not-expensive.service
After=pathd-path@not-expensive.service
[Service]
ExecStart=/bin/sleep infinity
"""


def bound_job_stop(state, trials, uplink):
    """pathd-path@not-expensive and a job bound to it: reload (expensive) → the template's
    pathctl exits, and → the job is stopped."""
    with open(os.path.join(state["root"], "etc/systemd/system/bound-job.service"), "w") as file:
        file.write(BOUND_JOB)
    config = os.path.join(state["root"], "etc/pathd/pathd.conf")
    inside(state, "systemctl daemon-reload")
    to_exit, to_stopped = [], []
    for _ in range(trials):
        with open(config, "w") as file:
            file.write("")
        # reset-failed: twenty starts within seconds would hit the units' start limit.
        inside(state, "systemctl reset-failed pathd-path@not-expensive.service bound-job.service; "
                      "systemctl reload pathd.service && systemctl start bound-job.service")
        with open(config, "w") as file:
            file.write(f"[Interface]\nName={uplink}\nExpensive=yes\n")
        started = int(inside(state, f"{CLOCK} && systemctl reload pathd.service").stdout.split()[0]) / 1e9
        wait_for("the bound job stopped", lambda: job_is("inactive", state))
        # systemd unloads both units once inactive and unneeded, and their timestamps with
        # them: its own journal lines about them carry the times instead.
        to_exit.append(1000 * (logged_after(state, "pathd-path@not-expensive.service", "Deactivated successfully",
                                            started) - started))
        to_stopped.append(1000 * (logged_after(state, "bound-job.service", "Stopped", started) - started))
    with open(config, "w") as file:
        file.write("")
    inside(state, "systemctl reload pathd.service")
    return to_exit, to_stopped


# Two networks behind the same uplink and gateway address, told apart by the router's MAC
# alone (pathd.conf(5), [Network] GatewayMAC=): the second is a phone's hotspot.
HOME_MAC, HOTSPOT_MAC = "02:00:00:00:0b:01", "02:00:00:00:0b:02"
TWO_NETWORKS = f"""[Network]
GatewayMAC={HOME_MAC}
Name=home
[Network]
GatewayMAC={HOTSPOT_MAC}
Name=hotspot
Expensive=yes
"""


def router_becomes(state, mac):
    """The router answers with `mac` from now on; the container's entry for it is deleted
    (or the kernel would keep the old MAC until it fails) and the next packet learns it.
    Returns the CLOCK_MONOTONIC time just before that packet, in seconds."""
    subprocess.run(["ip", "-n", state["peerNamespace"], "link", "set", state["peerLink"], "address", mac],
                   check=True)
    deleted = subprocess.run(["ip", "-n", state["namespace"], "neigh", "del", state["peerAddress"],
                              "dev", state["uplink"]], stderr=subprocess.PIPE, text=True)
    if deleted.returncode != 0 and "No such file or directory" not in deleted.stderr:
        raise RuntimeError(f"ip neigh del {state['peerAddress']}: {deleted.stderr.strip()}")
    # pathd.service holds no CAP_NET_ADMIN, so it cannot resolve the gateway itself: the
    # datagram is the packet any program on the host would send.
    sent = inside(state, f"{CLOCK} && bash -c 'echo x > /dev/udp/{state['peerAddress']}/9'").stdout.split()[0]
    return int(sent) / 1e9


def hotspot_job_stop(state, trials):
    """The job bound to pathd-path@not-expensive (bound_job_stop wrote it) on `home`; the
    router becomes the hotspot's → the template's pathctl exits, and → the job is stopped."""
    with open(os.path.join(state["root"], "etc/pathd/pathd.conf"), "w") as file:
        file.write(TWO_NETWORKS)
    inside(state, "systemctl reload pathd.service")

    def network():
        return json.loads(inside(state, "pathctl status --json").stdout).get("network", {}).get("name")
    to_exit, to_stopped = [], []
    for _ in range(trials):
        router_becomes(state, HOME_MAC)
        wait_for("pathd names the uplink's network home", lambda: network() == "home")
        inside(state, "systemctl reset-failed pathd-path@not-expensive.service bound-job.service; "
                      "systemctl start bound-job.service")
        sent = router_becomes(state, HOTSPOT_MAC)
        wait_for("the bound job stopped on the hotspot", lambda: job_is("inactive", state))
        to_exit.append(1000 * (logged_after(state, "pathd-path@not-expensive.service", "Deactivated successfully",
                                            sent) - sent))
        to_stopped.append(1000 * (logged_after(state, "bound-job.service", "Stopped", sent) - sent))
    router_becomes(state, HOME_MAC)
    with open(os.path.join(state["root"], "etc/pathd/pathd.conf"), "w") as file:
        file.write("")
    inside(state, "systemctl reload pathd.service")
    return to_exit, to_stopped


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--deb", required=True)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--subscribers", type=int, default=100)
    options = parser.parse_args()
    booted_systemd.sweep(options)
    state = booted_systemd.launch(os.getpid(), [options.deb])
    if "error" in state:
        sys.exit(f"systemd bench: {state['error']}")
    try:
        inside(state, f"dpkg -i {state['packages'][0]} >/dev/null")
        direct, activated = start_to_ready(state, options.trials)
        online = wait_online(state, options.trials)
        rss, cgroup = memory(state)
        to_exit, to_stopped = bound_job_stop(state, options.trials, state["uplink"])
        hotspot_exit, hotspot_stopped = hotspot_job_stop(state, options.trials)
        elapsed, codes = stop_with_subscribers(state, options.subscribers)
    finally:
        booted_systemd.stop_directory(state["directory"])
    print(f"### pathd under systemd 252 (container boot {state['bootSeconds']} s, {options.trials} trials, ms)")
    print()
    print("| measure | median | min | max |")
    print("|---|---|---|---|")
    for name, values in [("`systemctl start pathd` → READY=1", direct),
                         ("`pathctl status` started, socket activation → READY=1", activated),
                         ("pathd-wait-online.service, path satisfied: its pathctl's run", online),
                         ("`systemctl reload pathd` (uplink now expensive) → pathd-path@not-expensive's pathctl "
                          "exits", to_exit),
                         ("the same → the job bound to it is stopped", to_stopped),
                         ("the router becomes a hotspot's (a `[Network]` section: expensive), the host's next "
                          "packet → pathd-path@not-expensive's pathctl exits", hotspot_exit),
                         ("the same → the job bound to it is stopped", hotspot_stopped)]:
        print(f"| {name} | {statistics.median(values):.1f} | {min(values):.1f} | {max(values):.1f} |")
    print()
    print(f"Memory idle after start: VmRSS {rss} KiB, cgroup memory.current "
          f"{f'{cgroup} KiB' if cgroup is not None else 'not accounted'}.")
    print(f"`systemctl stop pathd` with {options.subscribers} subscribers: {elapsed:.1f} ms; "
          f"{codes.count('shuttingDown')} of {len(codes)} read the `shuttingDown` line last.")
    return 0 if codes.count("shuttingDown") == len(codes) else 1


if __name__ == "__main__":
    sys.exit(main())
