#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Network namespaces for the Python tests, the benchmarks and the scripts run by hand:
the one way they make, configure, enter and remove a namespace (the Swift tests have
theirs, Tests/PathTestFixtures/NetworkNamespace.swift).

A namespace is made with `ip netns add`, with IPv6 duplicate address detection off (an
address is usable at once, so a test never waits for DAD) and `lo` up; it is removed by
killing every process still inside, then `ip netns del`. Any more sysctls a caller needs
(the benchmarks keep addresses over admin down) are passed when it is made.

From a shell:

    netns.py add NAME...       make each namespace (as above)
    netns.py remove NAME...    kill what runs in each, then delete it; a missing one is fine
"""

import os
import signal
import subprocess
import sys

IP = "/usr/sbin/ip" if os.path.exists("/usr/sbin/ip") else "ip"
# IPv6 addresses usable at once: no DAD on links made afterwards or already there.
NO_DAD = ("net.ipv6.conf.default.accept_dad=0", "net.ipv6.conf.all.accept_dad=0")


def run(*arguments, check=True):
    """Runs a command; on failure (with `check`) raises with its stderr."""
    result = subprocess.run(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"`{' '.join(arguments)}` failed ({result.returncode}): {result.stderr.strip()}")
    return result


class Namespace:
    """One network namespace, by name."""

    def __init__(self, name, sysctls=()):
        self.name = name
        run(IP, "netns", "add", name)
        try:
            self.run("sysctl", "-qw", *NO_DAD, *sysctls)
            self.ip("link", "set", "lo", "up")
        except Exception:
            run(IP, "netns", "del", name, check=False)
            raise

    def ip(self, *arguments, check=True):
        """`ip ARGUMENTS` in the namespace."""
        return run(IP, "-n", self.name, *arguments, check=check)

    def run(self, *command, check=True):
        """COMMAND in the namespace."""
        return run(*self.exec_arguments(command), check=check)

    def exec_arguments(self, command):
        """The arguments that start COMMAND in the namespace (`ip netns exec` execs it, so
        the process started is COMMAND itself)."""
        return [IP, "netns", "exec", self.name, *command]

    def veth(self, name, peer, peer_name):
        """A veth pair: NAME here, PEER_NAME in the namespace PEER (this one if None)."""
        self.ip("link", "add", name, "type", "veth", "peer", "name", peer_name,
                *(["netns", peer.name] if peer is not None else []))

    def remove(self):
        remove(self.name)


def kill_processes(name):
    """Kills every process in the namespace NAME (none if it is gone)."""
    for pid in run(IP, "netns", "pids", name, check=False).stdout.split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


def remove(name):
    """Kills every process in the namespace NAME, then deletes it; nothing if it is gone.
    Raises when it stays."""
    if not os.path.exists(f"/run/netns/{name}"):
        return
    kill_processes(name)
    run(IP, "netns", "del", name)


def main(arguments):
    if len(arguments) < 2 or arguments[0] not in ("add", "remove"):
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        return 2
    for name in arguments[1:]:
        if arguments[0] == "add":
            Namespace(name)
        else:
            remove(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
