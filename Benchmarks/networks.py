# SPDX-License-Identifier: Apache-2.0
"""Memory per network remembered (docs/PERFORMANCE.md, "Networks remembered").

`networks_memory` starts a pathd of its own with a state directory whose
networks.jsonl holds `count` networks (NetworkRegistry's capacity, 256: each with a
32-digit ID, a name, two links, a search domain and a gateway's MAC, as a laptop's
list looks), and one with none, in turns, `trials` times each. Once it serves, a
client connects and closes, so that a second later pathd gives its free pages back
(malloc_trim, as after every close): the RSS then holds what the list keeps, not the
parse's garbage. The difference of the medians, per network, is the cost of one. That
client asks for the list (`networks`), so a file pathd skipped fails the run instead of
measuring nothing.
"""

import json
import os
import shutil
import socket
import statistics
import time

from harness import Pathd, kib


def write_networks(path, count):
    with open(path, "w") as file:
        for index in range(count):
            mac = f"02:00:00:00:{index >> 8:02x}:{index & 0xff:02x}"
            file.write(
                '{"id":"%032x","name":"network-%d","current":false,"interfaces":["wlan0","enx00e04c680001"],'
                '"domains":["site%d.example"],"firstSeen":1796150000.000,"lastSeen":%d.000,'
                '"facts":{"anchor":"gatewayMAC","gatewayMACs":["%s"],"gateways":[],"prefix":null,"linkKind":null}}\n'
                % (0x3f2a91c0d4e5f6a7b8c9d0e1f2a3b4c5 + index, index, index, 1796150000 + index, mac))


def networks_held(socket_path):
    """The number of networks pathd lists (the `networks` request, as root)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(10)
        client.connect(socket_path)
        client.sendall(b'{"op":"networks","id":"n"}\n')
        reader = client.makefile("r")
        for line in reader:
            message = json.loads(line)
            if message.get("type") == "networks":
                return len(message["networks"])
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
        held = networks_held(pathd.socket_path)
        if held != count:
            raise RuntimeError(f"pathd holds {held} networks of the {count} written: {pathd.log_text()}")
        time.sleep(1.5)  # pathd trims its heap a second after a close (not a measurement)
        return kib(pathd.status()["VmRSS"])
    finally:
        pathd.stop()


def networks_memory(binary, namespace, directory, count=256, trials=7):
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
