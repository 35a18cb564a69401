#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A real systemd booted in a container, for the tests and benchmarks that check pathd's
packages as an administrator meets them (Tests/SystemdTests, Benchmarks/systemd.py).

    booted_systemd.py start --owner PID [--deb FILE]...   prints the container as JSON
    booted_systemd.py stop STATE_DIRECTORY                 halts it and removes everything
    booted_systemd.py sweep                                removes what a killed run left

The container is systemd-nspawn over a throw-away overlay of this machine's root (the
host is never written), in a network namespace of its own whose only link, `uplink0`
(10.77.0.2/24, fd00:77::2/64, default routes via .1 and ::1), is one end of a veth pair;
the other end, `peer0`, is in a peer namespace, so a test drops the container's carrier
from outside (`ip -n PEER link set peer0 down`) and serves it from there.

A guard process owns everything `start` makes: it sets up, boots, then waits until
`stop` asks or the owner process (the test runner) ends, however it ends, and tears it
all down: the container halted (killed after 30 s), the overlay unmounted, the
directory and both namespaces removed. A guard killed by SIGKILL leaves its directory
behind; `sweep`, which each test run calls first, removes it.

As on a real host, the image's /usr/sbin/policy-rc.d (which forbids maintainer scripts
to start services) is removed. Not as on a host, to keep a boot within seconds on two
cores: what this machine starts of its own that pathd's tests do not need is masked
(see `unrelated_units`: read from the image, not named), and man-db's trigger does not
rebuild its index on each dpkg run. As on a host, /proc/sys/net is writable (nspawn leaves
it read-only without --private-network, and dhcpcd sets the link's sysctls through it).
"""

import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402

PREFIX = "pathd-systemd-"
BASE = "/var/tmp"
# Where the image's units are enabled: the administrator's and the packages' (etc), and
# the vendor's own (lib).
ENABLED_BY_HOST = "etc/systemd/system"
ENABLED_BY_VENDOR = ("lib/systemd/system", "usr/lib/systemd/system")
CONTAINER_ADDRESS = "10.77.0.2"
PEER_ADDRESS = "10.77.0.1"
CONTAINER_ADDRESS6 = "fd00:77::2"
PEER_ADDRESS6 = "fd00:77::1"
BOOT_TIMEOUT = 90
HALT_TIMEOUT = 30


def run(*arguments, check=True, **options):
    result = subprocess.run(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options)
    if check and result.returncode != 0:
        raise RuntimeError(f"`{' '.join(arguments)}` failed ({result.returncode}): {result.stderr.strip()}")
    return result


def log(directory, message):
    with open(os.path.join(directory, "guard.log"), "a") as file:
        file.write(f"{time.strftime('%H:%M:%S')} {message}\n")


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def read_state(directory):
    with open(os.path.join(directory, "state.json")) as file:
        return json.load(file)


def write_state(directory, state):
    temporary = os.path.join(directory, ".state.json")
    with open(temporary, "w") as file:
        json.dump(state, file)
    os.rename(temporary, os.path.join(directory, "state.json"))


def mounted_below(directory):
    """Mount points at or below `directory` in this mount namespace."""
    points = []
    with open("/proc/self/mountinfo") as file:
        for line in file:
            point = line.split()[4].encode().decode("unicode_escape")
            if point == directory or point.startswith(directory + "/"):
                points.append(point)
    return points


def network(state):
    """The two namespaces and the veth pair between them."""
    made = {}
    for name in (state["namespace"], state["peerNamespace"]):
        made[name] = netns.Namespace(name)
        state.setdefault("created", []).append(name)
    container, peer = made[state["namespace"]], made[state["peerNamespace"]]
    container.veth("uplink0", peer, "peer0")
    container.ip("address", "add", f"{CONTAINER_ADDRESS}/24", "dev", "uplink0")
    container.ip("address", "add", f"{CONTAINER_ADDRESS6}/64", "dev", "uplink0", "nodad")
    peer.ip("address", "add", f"{PEER_ADDRESS}/24", "dev", "peer0")
    peer.ip("address", "add", f"{PEER_ADDRESS6}/64", "dev", "peer0", "nodad")
    container.ip("link", "set", "uplink0", "up")
    peer.ip("link", "set", "peer0", "up")
    container.ip("route", "add", "default", "via", PEER_ADDRESS)
    container.ip("-6", "route", "add", "default", "via", PEER_ADDRESS6)


def unrelated_units(root):
    """What the image starts at boot that pathd's tests do not need, read from its unit
    directories: every unit the administrator or a package enabled (a link in a `.wants`
    or `.requires` directory of /etc/systemd/system: a database, a container engine, a
    router advertisement daemon, a getty), but systemd's own units and the targets; and
    every timer, wherever enabled (apt's and man-db's first run at boot would load two
    cores for minutes). pathd's own units are never among them."""
    units = set()
    for base, vendor in [(ENABLED_BY_HOST, False)] + [(directory, True) for directory in ENABLED_BY_VENDOR]:
        directory = os.path.join(root, base)
        if not os.path.isdir(directory):
            continue
        for wants in os.listdir(directory):
            if not wants.endswith((".wants", ".requires")):
                continue
            for unit in os.listdir(os.path.join(directory, wants)):
                if unit.startswith("pathd") or unit.endswith(".target"):
                    continue
                if unit.endswith(".timer") or (not vendor and not unit.startswith("systemd-")):
                    units.add(unit)
    return sorted(units)


def prepare_root(state, debs):
    directory, root = state["directory"], state["root"]
    for name in ("upper", "work", "root"):
        os.mkdir(os.path.join(directory, name))
    # The overlay's root takes the upper directory's mode: 0755 whatever the umask this
    # process inherited (the test runner's is process-wide, and a test that changes it
    # for a moment once gave a container whose / nobody but root could search: dbus-daemon,
    # as messagebus, could not load its libraries and the boot hung).
    os.chmod(os.path.join(directory, "upper"), 0o755)
    run("mount", "-t", "overlay", "overlay", "-o",
        f"lowerdir=/,upperdir={directory}/upper,workdir={directory}/work", root)
    state["mounted"] = True
    policy = os.path.join(root, "usr/sbin/policy-rc.d")
    if os.path.lexists(policy):
        os.remove(policy)
    units = os.path.join(root, ENABLED_BY_HOST)
    for unit in unrelated_units(root):
        link = os.path.join(units, unit)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink("/dev/null", link)
    auto_update = os.path.join(root, "var/lib/man-db/auto-update")
    if os.path.lexists(auto_update):
        os.remove(auto_update)
    # The container's machine id and journal are its own, not the host's.
    with open(os.path.join(root, "etc/machine-id"), "w") as file:
        file.write(uuid.uuid4().hex + "\n")
    shutil.rmtree(os.path.join(root, "var/log/journal"), ignore_errors=True)
    packages = os.path.join(root, "var/tmp/pathd-packages")
    os.makedirs(packages, exist_ok=True)
    state["packages"] = []
    for deb in debs:
        shutil.copy(deb, packages)
        state["packages"].append("/var/tmp/pathd-packages/" + os.path.basename(deb))


def cgroup_homes(state):
    """A cgroup of this container's own in each hierarchy nspawn tracks a container with:
    the named systemd one (cgroup v1) and the unified one (v2). nspawn puts the container
    in `payload` under its own cgroup, so containers started from one cgroup would share
    /payload/system.slice/… (their units' cgroups, and what a halted one leaves there):
    each nspawn starts in `pathd-<id>` below ours instead, removed on teardown."""
    ours = {}
    with open("/proc/self/cgroup") as file:
        for line in file:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            ours["cgroup2" if controllers == "" else controllers] = path
    homes = []
    with open("/proc/self/mountinfo") as file:
        for line in file:
            fields = line.split()
            kind, options = fields[fields.index("-") + 1], fields[fields.index("-") + 3].split(",")
            key = "cgroup2" if kind == "cgroup2" else "name=systemd" if "name=systemd" in options else None
            if kind.startswith("cgroup") and key in ours:
                homes.append(os.path.join(fields[4] + ours[key], state["machine"]))
    return homes


def remove_cgroups(homes):
    """Removes each home and what the container's systemd made below it, deepest first."""
    for home in homes:
        if os.path.isdir(home):
            for directory, _, _ in sorted(os.walk(home), key=lambda entry: -entry[0].count("/")):
                os.rmdir(directory)


def boot(state):
    homes = cgroup_homes(state)
    state["cgroups"] = homes
    for home in homes:
        os.makedirs(home, exist_ok=True)

    def enter_cgroups():
        for home in homes:
            with open(os.path.join(home, "cgroup.procs"), "w") as file:
                file.write("0")

    console = open(os.path.join(state["directory"], "console.log"), "w")
    # --capability=CAP_SYS_RESOURCE: PID 1 of a host holds it, and needs it to apply a
    # unit's LimitNICE= above the hard limit it inherited; nspawn drops it by default.
    # SYSTEMD_NSPAWN_API_VFS_WRITABLE=network: /proc/sys/net writable, as nspawn makes it
    # with a network namespace of its own (--private-network) and as a host has it.
    nspawn = subprocess.Popen(
        ["systemd-nspawn", "-D", state["root"], "--register=no", "--keep-unit",
         f"--network-namespace-path=/run/netns/{state['namespace']}", "--capability=CAP_SYS_RESOURCE",
         "--machine", state["machine"], "-b", "--", "systemd.firstboot=off"],
        stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=enter_cgroups, env=dict(os.environ, SYSTEMD_NSPAWN_API_VFS_WRITABLE="network"))
    state["nspawn"] = nspawn.pid
    write_state(state["directory"], state)
    deadline = time.monotonic() + BOOT_TIMEOUT
    leader = None
    while leader is None:
        if nspawn.poll() is not None:
            raise RuntimeError(f"systemd-nspawn exited with {nspawn.returncode}: see {console.name}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"no container init within {BOOT_TIMEOUT} s")
        children = run("pgrep", "-P", str(nspawn.pid), check=False).stdout.split()
        for child in children:
            # The container's init: systemd, in a PID namespace of its own (nspawn's
            # helper children come and go, and may be gone before they are read).
            try:
                with open(f"/proc/{child}/comm") as file:
                    comm = file.read().strip()
                own = os.readlink(f"/proc/{child}/ns/pid") != os.readlink("/proc/self/ns/pid")
            except OSError:
                continue
            if comm == "systemd" and own:
                leader = int(child)
        if leader is None:
            time.sleep(0.05)  # polling for a process that has no event to wait on
    state["leader"] = leader
    # Until systemd's manager answers, systemctl fails at once ("Failed to connect to bus").
    status, answer = "", ""
    while status not in ("running", "degraded", "maintenance", "stopping"):
        remaining = int(deadline - time.monotonic())
        if remaining <= 0:
            break
        result = run("timeout", str(remaining), "nsenter", "-t", str(leader), "-a", "--",
                     "systemctl", "is-system-running", "--wait", check=False)
        status, answer = result.stdout.strip(), result.stderr.strip()
        if not status:
            time.sleep(0.1)  # the manager is not listening yet: nothing to wait on but time
    if status not in ("running", "degraded"):
        def inside(*command):
            result = run("timeout", "10", "nsenter", "-t", str(leader), "-a", "--", *command, check=False)
            return (result.stdout + result.stderr).strip()
        with open(os.path.join(state["directory"], "console.log"), errors="replace") as file:
            console = file.read()[-3000:]
        raise RuntimeError(f"the container did not boot within {BOOT_TIMEOUT} s: is-system-running says "
                           f"{status!r} ({answer}); failed units: {inside('systemctl', '--failed', '--no-legend')}; "
                           f"jobs: {inside('systemctl', 'list-jobs', '--no-legend')}; console: {console}")
    state["bootStatus"] = status
    return nspawn


def halt(state, nspawn_pid):
    """SIGTERM makes nspawn halt the container; SIGKILL to everything after HALT_TIMEOUT."""
    if nspawn_pid and alive(nspawn_pid):
        os.kill(nspawn_pid, signal.SIGTERM)
        deadline = time.monotonic() + HALT_TIMEOUT
        try:
            descriptor = os.pidfd_open(nspawn_pid)
            select.select([descriptor], [], [], HALT_TIMEOUT)
            os.close(descriptor)
        except ProcessLookupError:
            pass
        if alive(nspawn_pid) and time.monotonic() >= deadline:
            os.kill(nspawn_pid, signal.SIGKILL)
    for namespace in state.get("created", []):
        netns.kill_processes(namespace)


def teardown(directory):
    """Removes everything `start` made for `directory`; raises if something stays."""
    problems = []
    try:
        state = read_state(directory)
    except (OSError, ValueError):
        state = {}
    halt(state, state.get("nspawn"))
    # A child of the dead nspawn may still hold the mount for a moment.
    for point in reversed(mounted_below(directory)):
        result = run("umount", point, check=False)
        if result.returncode != 0:
            result = run("umount", "--lazy", point, check=False)
            if result.returncode != 0:
                problems.append(f"umount {point}: {result.stderr.strip()}")
    try:
        remove_cgroups(state.get("cgroups", []))
    except OSError as error:
        problems.append(f"cgroup: {error}")
    for namespace in state.get("created", []):
        try:
            netns.remove(namespace)
        except RuntimeError as error:
            problems.append(str(error))
    if mounted_below(directory):
        problems.append(f"still mounted below {directory}: {mounted_below(directory)}; directory kept")
    else:
        shutil.rmtree(directory, ignore_errors=False)
    if problems:
        raise RuntimeError("; ".join(problems))


def guard(directory, owner, debs, report):
    """The guard's life: set up, report, wait for `stop` or the owner's end, tear down."""
    # Whatever umask the caller had (the Swift test runner's is process-wide and briefly
    # 0111 around a daemon test's bind(2)), what the guard makes has the modes it means.
    os.umask(0o022)
    # SIGTERM (from `stop`) wakes the wait below through this pipe: Python retries a
    # select(2) that a signal interrupted, so a handler's flag alone would not end it.
    wakeup_reader, wakeup_writer = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wakeup_writer)
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    suffix = os.path.basename(directory)[len(PREFIX):]
    state = {"directory": directory, "root": os.path.join(directory, "root"), "machine": f"pathd-{suffix}",
             "namespace": f"pathd-sd-{suffix}", "peerNamespace": f"pathd-sd-{suffix}-peer", "guard": os.getpid(),
             "owner": owner, "uplink": "uplink0", "peerLink": "peer0",
             "address": CONTAINER_ADDRESS, "peerAddress": PEER_ADDRESS,
             "address6": CONTAINER_ADDRESS6, "peerAddress6": PEER_ADDRESS6}
    write_state(directory, state)
    try:
        owner_descriptor = os.pidfd_open(owner)
        network(state)
        write_state(directory, state)
        prepare_root(state, debs)
        write_state(directory, state)
        started = time.monotonic()
        boot(state)
        state["bootSeconds"] = round(time.monotonic() - started, 3)
        write_state(directory, state)
        log(directory, f"booted: {state['bootStatus']} in {state['bootSeconds']} s")
        os.write(report, (json.dumps(state) + "\n").encode())
    except Exception as error:
        log(directory, f"start failed: {error}")
        os.write(report, (json.dumps({"error": str(error), "directory": directory}) + "\n").encode())
        os.close(report)
        try:
            teardown(directory)
        except Exception as failure:
            log(directory, f"teardown failed: {failure}")
        return 1
    os.close(report)
    readable, _, _ = select.select([owner_descriptor, wakeup_reader], [], [])
    log(directory, f"owner {owner} ended" if owner_descriptor in readable else "asked to stop")
    try:
        teardown(directory)
    except Exception as failure:
        log(directory, f"teardown failed: {failure}")
        return 1
    return 0


def launch(owner, debs):
    """Starts a guard (in a session of its own) that boots a container with `debs` and
    keeps it until `stop_directory` or `owner`'s end; returns its answer: the container's
    state, or {"error", "directory"}. For the command line and Benchmarks/systemd.py."""
    directory = os.path.join(BASE, PREFIX + uuid.uuid4().hex[:8])
    os.mkdir(directory, 0o700)
    for deb in debs:
        if not os.path.isfile(deb):
            return {"error": f"no package {deb}", "directory": directory}
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(reader)
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for descriptor in (0, 1, 2):
            os.dup2(null, descriptor)
        code = 1
        try:
            code = guard(directory, owner, debs, writer)
        finally:
            os._exit(code)
    os.close(writer)
    with os.fdopen(reader) as pipe:
        line = pipe.readline()
    if not line:
        return {"error": f"the guard ended without a word; see {directory}/guard.log", "directory": directory}
    return json.loads(line)


def start(options):
    answer = launch(options.owner, options.deb)
    print(json.dumps(answer))
    return 1 if "error" in answer else 0


def stop(options):
    return stop_directory(os.path.abspath(options.directory))


def stop_directory(directory):
    """Asks the guard of `directory` to tear its container down, and waits until it has."""
    state = read_state(directory)
    guard_pid = state["guard"]
    try:
        descriptor = os.pidfd_open(guard_pid)
    except ProcessLookupError:
        teardown(directory)
        return 0
    os.kill(guard_pid, signal.SIGTERM)
    readable, _, _ = select.select([descriptor], [], [], HALT_TIMEOUT + 30)
    if not readable:
        sys.exit(f"booted-systemd: the guard {guard_pid} did not finish; see {directory}/guard.log")
    if os.path.exists(directory):
        with open(os.path.join(directory, "guard.log")) as file:
            sys.exit(f"booted-systemd: {directory} was not removed: {file.read().strip()}")
    return 0


def sweep(options):
    """Tears down every container directory whose guard no longer runs."""
    code = 0
    for name in sorted(os.listdir(BASE)):
        directory = os.path.join(BASE, name)
        if not name.startswith(PREFIX) or not os.path.isdir(directory):
            continue
        try:
            guard_pid = read_state(directory).get("guard")
        except (OSError, ValueError):
            guard_pid = None
        if guard_pid and alive(guard_pid):
            continue
        try:
            teardown(directory)
            print(f"booted-systemd: removed {directory}, left by a run that was killed")
        except Exception as error:
            print(f"booted-systemd: could not remove {directory}: {error}", file=sys.stderr)
            code = 1
    return code


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    starting = commands.add_parser("start")
    starting.add_argument("--owner", type=int, required=True, help="tear down when this process ends")
    starting.add_argument("--deb", action="append", default=[], help="a package to copy into the container")
    stopping = commands.add_parser("stop")
    stopping.add_argument("directory")
    commands.add_parser("sweep")
    options = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("booted-systemd: needs root (network namespaces, an overlay mount, systemd-nspawn)")
    return {"start": start, "stop": stop, "sweep": sweep}[options.command](options)


if __name__ == "__main__":
    sys.exit(main())
