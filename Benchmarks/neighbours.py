# SPDX-License-Identifier: Apache-2.0
"""What network identity costs (docs/PERFORMANCE.md, "Network identity, measured").

`neighbour_storm` (`--only neighbours`): 100,000 permanent neighbour entries added and
then deleted with `ip -batch` on vN, a link in namespace A that carries no gateway (a
veth whose peer is in B), while pathd and `ip monitor neigh` run; pathd's CPU
(utime + stime) against `ip monitor`'s, and the path lines pathd published meanwhile
(none is right: no answer changes). NeighbourFilter drops these messages in the kernel,
so pathd should read none of them.

`identity_latency` (`--only identity`): the gateway's entry on vA replaced through
rtnetlink with one of two MACs in turn, REACHABLE (what the router's answer does): each
replacement is a confirmed neighbour naming another network. Timed from the request to
pathd's path line whose `network` is identified with that MAC's ID, and to `ip monitor
neigh`'s line for the entry (both stamped by pathd-linestamp, as in the latency part).
The first two replacements only learn the two IDs and are not counted.
"""

import json
import os
import subprocess
import time

import rtnl
from harness import IP, Topology, cpu_seconds, now, run

STORM_LINK, STORM_PEER = "vN", "vNB"
MACS = ("02:00:5e:10:00:01", "02:00:5e:10:00:02")


def write_neighbour_batches(directory, count):
    """`ip -batch` files adding and deleting `count` permanent IPv4 entries on vN
    (addresses in 10.64.0.0/10, one MAC each)."""
    add_path = os.path.join(directory, "neighbours-add.batch")
    delete_path = os.path.join(directory, "neighbours-del.batch")
    with open(add_path, "w") as add, open(delete_path, "w") as delete:
        for index in range(count):
            address = f"10.{64 + (index >> 16)}.{(index >> 8) & 255}.{index & 255}"
            add.write(f"neigh add {address} lladdr 02:01:00:{index >> 16:02x}:{(index >> 8) & 255:02x}:"
                      f"{index & 255:02x} dev {STORM_LINK} nud permanent\n")
            delete.write(f"neigh del {address} dev {STORM_LINK}\n")
    return add_path, delete_path


def neighbour_storm(driver, pathd, directory, count, run_batch):
    """pathd's CPU against `ip monitor neigh`'s while `count` entries are added and then
    deleted on vN (`run_batch` is bench.py's, which reads pathd's lines meanwhile)."""
    top = driver.topology
    run(IP, "-n", top.a, "link", "add", STORM_LINK, "type", "veth", "peer", "name", STORM_PEER, "netns", top.b)
    monitor = None
    try:
        run(IP, "-n", top.a, "address", "add", "10.64.0.1/10", "dev", STORM_LINK)
        run(IP, "-n", top.a, "link", "set", STORM_LINK, "up")
        run(IP, "-n", top.b, "link", "set", STORM_PEER, "up")
        add_path, delete_path = write_neighbour_batches(directory, count)
        driver.settle(300)  # vN's own link and address lines, before the count starts
        lines_before = len(driver.subscriber.lines)
        before = pathd.cpu_seconds()
        monitor_errors = open(os.path.join(directory, "ip-monitor-neigh.stderr"), "w")
        monitor = subprocess.Popen([IP, "-n", top.a, "monitor", "neigh"], stdout=subprocess.DEVNULL,
                                   stderr=monitor_errors)
        time.sleep(0.3)  # let `ip monitor` subscribe before the storm starts (not a measurement)
        add_start, add_end, _, _ = run_batch(driver, add_path)
        after_add, monitor_after_add = pathd.cpu_seconds(), cpu_seconds(monitor.pid)
        held = len(run(IP, "-n", top.a, "neigh", "show", "dev", STORM_LINK).stdout.splitlines())
        delete_start, delete_end, _, _ = run_batch(driver, delete_path)
        after, monitor_after = pathd.cpu_seconds(), cpu_seconds(monitor.pid)
        monitor.terminate()
        monitor.wait()
        monitor_errors.close()
        with open(monitor_errors.name) as errors:
            monitor_overruns = errors.read().count("No buffer space")
        lines = [entry[1] for entry in driver.subscriber.lines[lines_before:]]
        for path in (add_path, delete_path):
            os.remove(path)
    finally:
        if monitor and monitor.poll() is None:
            monitor.kill()
            monitor.wait()
        run(IP, "-n", top.a, "link", "del", STORM_LINK, check=False)
    return {"entries": count, "held_after_adds": held,
            "add_seconds": (add_end - add_start) / 1e9, "delete_seconds": (delete_end - delete_start) / 1e9,
            "pathd_cpu_add": after_add - before, "pathd_cpu_total": after - before,
            "ip_monitor_cpu_add": monitor_after_add, "ip_monitor_cpu_total": monitor_after,
            "ip_monitor_overruns": monitor_overruns, "lines_during": len(lines), "lines": lines[:5]}


def print_neighbour_storm(result):
    monitor = result["ip_monitor_cpu_total"]
    ratio = result["pathd_cpu_total"] / monitor if monitor else float("nan")
    print(f"\n### Neighbour storm: {result['entries']:,} permanent entries on a link without a gateway, added "
          f"({result['add_seconds']:.1f} s, {result['held_after_adds']:,} held) then deleted "
          f"({result['delete_seconds']:.1f} s)\n")
    print("| | pathd | ip monitor neigh |\n|---|---|---|")
    print(f"| CPU seconds, adds | {result['pathd_cpu_add']:.2f} | {result['ip_monitor_cpu_add']:.2f} |")
    print(f"| CPU seconds, adds + deletes | {result['pathd_cpu_total']:.2f} | {monitor:.2f} |")
    print(f"\npathd's CPU against ip monitor's: {ratio:.3f}x; ip monitor overruns (ENOBUFS): "
          f"{result['ip_monitor_overruns']}; lines pathd published meanwhile: {result['lines_during']} "
          f"{result['lines']}\n")


def network_named(network_id, known):
    """A predicate on a path line: its network is identified, with `network_id`, or (None)
    with an ID not in `known` (a new one)."""
    def predicate(parsed):
        if parsed is None or parsed.get("type") != "path":
            return False
        network = parsed.get("network") or {}
        if network.get("state") != "identified":
            return False
        return network.get("id") == network_id if network_id else network.get("id") not in known
    return predicate


def identity_latency(driver, pathd, rounds, latency_report):
    """`rounds` pairs of replacements of vA's gateway entry, one MAC then the other,
    each timed to pathd's line naming the network and to `ip monitor neigh`'s line; and
    pathd's CPU over all of them: what a gateway whose MAC flips costs, a flip each
    20 ms or so."""
    top = driver.topology
    router_mac = json.loads(run(IP, "-n", top.b, "-j", "link", "show", "vB").stdout)[0]["address"]
    driver.stop_monitor()
    driver.start_monitor(("link", "route", "neigh"))
    paths = [entry[2] for entry in driver.subscriber.lines if entry[2] and entry[2].get("type") == "path"]
    router_id = (paths[-1].get("network") or {}).get("id") if paths else None
    ids = {}
    results = []
    before = pathd.cpu_seconds()
    try:
        for turn in range(2 * rounds + 2):
            mac = MACS[turn % 2]
            request = rtnl.RouteSocket.neighbour_request(top.va_index, Topology.V4_GATEWAY, mac)
            result = driver.measure("gateway confirmed with another MAC", driver.socket_a, request,
                                    network_named(ids.get(mac), {router_id, *ids.values()}),
                                    lambda text: text.startswith(f"{Topology.V4_GATEWAY} dev vA lladdr {mac} "))
            if result["pathd_line"] is None:
                raise RuntimeError(f"identity: no line naming the network of {mac}")
            ids.setdefault(mac, json.loads(result["pathd_line"])["network"]["id"])
            if turn >= 2:
                results.append(result)
            driver.settle(20)
        cpu = pathd.cpu_seconds() - before
    finally:
        driver.change(driver.socket_a, rtnl.RouteSocket.neighbour_request(top.va_index, Topology.V4_GATEWAY,
                                                                         router_mac))
        driver.settle(50)
        driver.stop_monitor()
        driver.start_monitor()
    report = latency_report(results)
    report["flips"] = 2 * rounds + 2
    report["pathd_cpu"] = cpu
    return report


def print_identity_latency(report, ms):
    block = report["all"]
    p, mo, d = block["pathd"], block["ip_monitor"], block["pathd_minus_monitor"]
    print(f"\n### Neighbour confirmed → line naming the network ({report['changes']} replacements, ms)\n")
    print("| | n | min | median | p99 | max |\n|---|---|---|---|---|---|")
    for label, s in (("request → pathd's line", p), ("request → `ip monitor neigh`'s line", mo),
                     ("pathd − ip monitor", d)):
        print(f"| {label} | {s.get('n', 0)} | {ms(s.get('min'))} | {ms(s.get('median'))} | {ms(s.get('p99'))} "
              f"| {ms(s.get('max'))} |")
    print(f"\nMissed: pathd {block['pathd_missed']}, ip monitor {block['monitor_missed']}. pathd's CPU over all "
          f"{report['flips']} changes of the gateway's MAC: {report['pathd_cpu']:.2f} s, "
          f"{report['pathd_cpu'] / report['flips'] * 1e6:.0f} µs a flip.\n")
