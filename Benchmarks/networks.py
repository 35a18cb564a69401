# SPDX-License-Identifier: Apache-2.0
"""Memory per network remembered, and what router advertisements' hints cost
(docs/PERFORMANCE.md, "Networks remembered").

`networks_memory` starts a pathd of its own with a state directory whose
networks.jsonl holds `count` networks (NetworkRegistry's capacity, 256: each with a
32-digit ID, a name, two links, a search domain and a gateway's MAC, as a laptop's
list looks), and one with none, in turns, `trials` times each. Once it serves, a
client connects and closes, so that a second later pathd gives its free pages back
(malloc_trim, as after every close): the RSS then holds what the list keeps, not the
parse's garbage. The difference of the medians, per network, is the cost of one. That
client asks for the list (`networks`), so a file pathd skipped fails the run instead of
measuring nothing.

`advertisement_cost` starts another pathd and has namespace B send `count` identical
router advertisements, each with a DNS search list and a captive portal (two
RTM_NEWNDUSEROPT messages a pathd reads), back to back (scripts/test/ra-sender.py):
pathd's CPU per advertisement, and the path lines it published for them: none, but
for a resync (the generation's step) when the burst overruns pathd's event socket,
whose line must still carry the portal (the first advertisement brought it; the same
options again change nothing). A last advertisement with another portal marks the
end: its line is waited for.
"""

import json
import os
import shutil
import socket
import statistics
import time

from harness import IP, Pathd, kib, run

RA_SENDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "test", "ra-sender.py")


def write_networks(path, count):
    with open(path, "w") as file:
        for index in range(count):
            mac = f"02:00:00:00:{index >> 8:02x}:{index & 0xff:02x}"
            file.write(
                '{"id":"%032x","name":"network-%d","current":false,"interfaces":["wlan0","enx00e04c680001"],'
                '"domains":["site%d.example"],"firstSeen":1796150000.000,"lastSeen":%d.000,'
                '"facts":{"anchor":"gatewayMAC","gatewayMACs":["%s"],"gateways":[],"prefix":null,"kind":null,"linkKind":null}}\n'
                % (0x3f2a91c0d4e5f6a7b8c9d0e1f2a3b4c5 + index, index, index, 1796150000 + index, mac))


CAPACITY = 256  # NetworkRegistry's


def networks_held(socket_path):
    """The number of networks pathd lists, and how many of them are current (the
    `networks` request, as root): vA's own joins the list once its gateway is confirmed,
    before the request or after it, and pushes the least recently seen out of a full one."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(10)
        client.connect(socket_path)
        client.sendall(b'{"op":"networks","id":"n"}\n')
        reader = client.makefile("r")
        for line in reader:
            message = json.loads(line)
            if message.get("type") == "networks":
                networks = message["networks"]
                return len(networks), sum(1 for network in networks if network.get("current"))
            if message.get("type") == "error":
                raise RuntimeError(f"networks refused: {message}")
        raise RuntimeError("pathd closed the connection before listing its networks")


def rss_with(binary, namespace, directory, label, count):
    state = os.path.join(directory, f"{label}-state")
    shutil.rmtree(state, ignore_errors=True)
    os.mkdir(state, 0o700)
    if count:
        write_networks(os.path.join(state, "networks.jsonl"), count)
    pathd = Pathd(binary, namespace, os.path.join(directory, f"{label}.sock"), os.path.join(directory, f"{label}.log"),
                  extra_environment={"STATE_DIRECTORY": state})
    try:
        pathd.wait_until_accepting().close()
        held, current = networks_held(pathd.socket_path)
        if held != min(count + current, CAPACITY):
            raise RuntimeError(f"pathd holds {held} networks of the {count} written: {pathd.log_text()}")
        time.sleep(1.5)  # pathd trims its heap a second after a close (not a measurement)
        return kib(pathd.status()["VmRSS"])
    finally:
        pathd.stop()


def networks_memory(binary, namespace, directory, count=CAPACITY, trials=7):
    full, empty = [], []
    for trial in range(trials):
        full.append(rss_with(binary, namespace, directory, f"networks-{trial}", count))
        empty.append(rss_with(binary, namespace, directory, f"no-networks-{trial}", 0))
    delta = statistics.median(full) - statistics.median(empty)
    return {"count": count, "trials": trials, "rss_kib_with": sorted(full), "rss_kib_without": sorted(empty),
            "delta_kib": delta, "bytes_per_network": round(delta * 1024 / count)}


def print_networks(result):
    print(f"\n### Networks remembered: {result['count']} in networks.jsonl against none ({result['trials']} starts each)\n")
    print(f"RSS with them {result['rss_kib_with']} KiB, without {result['rss_kib_without']} KiB: "
          f"{result['delta_kib']} KiB more (medians), about {result['bytes_per_network']} bytes a network.")


def send_advertisements(namespace, portal, count):
    # Router lifetime 0: the options without a default route through B's link-local address.
    run(IP, "netns", "exec", namespace, "python3", RA_SENDER, "--interface", "vB", "--router-lifetime", "0",
        "--search", "hotel.example", "--captive-portal", portal, "--count", str(count))


def advertisement_cost(binary, topology, directory, count=20000):
    # The topology has no link-local addresses; a router advertises from one.
    run(IP, "-n", topology.b, "address", "replace", "fe80::1/64", "dev", "vB", "nodad")
    pathd = Pathd(binary, topology.a, os.path.join(directory, "ra.sock"), os.path.join(directory, "ra.log"))
    try:
        subscriber = pathd.wait_until_accepting()
        portal, end = "https://portal.hotel.example/api", "https://portal.hotel.example/end"
        send_advertisements(topology.b, portal, 1)
        first = subscriber.wait_for(lambda line: any(i.get("captivePortal") == portal
                                                     for i in line.get("interfaces", [])))
        before = pathd.cpu_seconds()
        send_advertisements(topology.b, portal, count)
        send_advertisements(topology.b, end, 1)
        last = subscriber.wait_for(lambda line: any(i.get("captivePortal") == end
                                                    for i in line.get("interfaces", [])), timeout=60)
        cpu = pathd.cpu_seconds() - before
        between = [line for line in subscriber.lines[subscriber.lines.index(first) + 1:subscriber.lines.index(last)]
                   if line[2] is not None and line[2].get("type") == "path"]
        subscriber.close()
        return {"count": count, "cpu_s": round(cpu, 3), "us_per_advertisement": round(cpu / (count + 1) * 1e6, 1),
                "lines_for_the_repeats": len(between), "resyncs": last[2]["generation"] - first[2]["generation"],
                "portal_kept": all(any(i.get("captivePortal") == portal for i in line[2]["interfaces"])
                                   for line in between)}
    finally:
        pathd.stop()
        run(IP, "-n", topology.b, "address", "del", "fe80::1/64", "dev", "vB", check=False)


def print_advertisements(result):
    print(f"\n### Router advertisements: {result['count']} identical ones (search list and captive portal)\n")
    print(f"pathd CPU {result['cpu_s']} s, {result['us_per_advertisement']} µs an advertisement; "
          f"path lines for the repeats: {result['lines_for_the_repeats']}, resyncs (event socket overrun): "
          f"{result['resyncs']}, the portal kept in each: {result['portal_kept']} (a line only with a resync).")
