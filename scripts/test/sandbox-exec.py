#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a program under the restrictions of a unit (packaging/systemd/pathd.service, or
the one --unit names) that can be applied without systemd as PID 1, then execs it:

- SystemCallFilter=, read from the unit in order as systemd reads it: the first allow
  list (@system-service), then `~` entries removing calls from it, a `~call:errno` entry
  answering that call with the errno instead (0: success without effect), built with
  libseccomp from `systemd-analyze syscall-filter`, groups expanded as systemd expands
  them. Anything else gets EPERM (SystemCallErrorNumber=EPERM) or, with --kill, kills
  the process (SIGSYS), so that any use of a denied call is seen.
- SystemCallArchitectures=native: libseccomp's filter admits the native ABI only.
- RestrictAddressFamilies=, read from the unit (AF_UNIX AF_NETLINK for pathd):
  socket(2) for other families fails with EAFNOSUPPORT (or kills, with --kill).
- MemoryDenyWriteExecute=yes: prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN), which the
  kernel keeps across execve: no writable and executable mapping, no making one executable.
- NoNewPrivileges=yes, CapabilityBoundingSet= and DynamicUser=yes: no_new_privs, then an
  unprivileged uid and gid (--user), which leaves no capability.
- LimitNOFILE=: soft and hard limit (--nofile).

Usage: sandbox-exec.py [--kill] [--user UID:GID] [--nofile N] [--unit UNIT_FILE] -- PROGRAM [ARGUMENTS...]
Run with /usr/bin/python3, whose python3-seccomp (Debian) provides `seccomp`.
"""

import argparse
import ctypes
import errno
import os
import resource
import socket
import subprocess
import sys

import seccomp

PR_SET_NO_NEW_PRIVS = 38
PR_SET_MDWE = 65
PR_MDWE_REFUSE_EXEC_GAIN = 1
PATHD_UNIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../packaging/systemd/pathd.service")


def groups():
    """Every @group of `systemd-analyze syscall-filter` and its members, as listed."""
    listing = subprocess.run(["systemd-analyze", "syscall-filter"], check=True,
                             capture_output=True, text=True).stdout
    result, current = {}, None
    for line in listing.splitlines():
        if line.startswith("@"):
            current = result.setdefault(line.strip(), [])
        elif line.startswith("    ") and not line.strip().startswith("#") and current is not None:
            current.append(line.strip())
        elif not line.strip():
            current = None
    return result


def expand(name, table):
    """The system calls of a group, nested groups included."""
    if not name.startswith("@"):
        return {name}
    return set().union(*(expand(member, table) for member in table[name]))


def unit_settings(path, key):
    """Every value of `key=` in the unit file, in order."""
    values = []
    with open(path) as file:
        for line in file:
            line = line.strip()
            if line.startswith(key + "="):
                values.append(line[len(key) + 1:])
    return values


def system_call_filter(path, table):
    """(allowed calls, {call: errno}) as the unit's SystemCallFilter= lines say, in order."""
    allowed, answered = set(), {}
    for value in unit_settings(path, "SystemCallFilter"):
        if value.startswith("~"):
            for entry in value[1:].split():
                name, _, answer = entry.partition(":")
                if answer:
                    number = int(answer) if answer.isdigit() else getattr(errno, answer)
                    answered.update({call: number for call in expand(name, table)})
                allowed -= expand(name, table)
        else:
            for entry in value.split():
                allowed |= expand(entry, table)
    if not allowed:
        sys.exit(f"sandbox-exec: {path} has no SystemCallFilter= allow list")
    return allowed, answered


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kill", action="store_true", help="kill on a denied call instead of EPERM")
    parser.add_argument("--user", help="UID:GID to run as")
    parser.add_argument("--nofile", type=int, default=4096)
    parser.add_argument("--unit", default=PATHD_UNIT, help="the unit file whose settings apply (default: pathd.service)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no program given")

    families = unit_settings(options.unit, "RestrictAddressFamilies")
    if len(families) != 1:
        parser.error(f"{options.unit}: one RestrictAddressFamilies= line expected, found {families}")
    allowed_families = tuple(getattr(socket, name) for name in families[0].split())
    table = groups()
    allowed, answered = system_call_filter(options.unit, table)
    denied = seccomp.KILL_PROCESS if options.kill else seccomp.ERRNO(errno.EPERM)

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
        sys.exit(f"sandbox-exec: PR_SET_MDWE: {os.strerror(ctypes.get_errno())}")
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        sys.exit(f"sandbox-exec: PR_SET_NO_NEW_PRIVS: {os.strerror(ctypes.get_errno())}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (options.nofile, options.nofile))
    if options.user:
        uid, gid = (int(part) for part in options.user.split(":"))
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)

    syscall_filter = seccomp.SyscallFilter(defaction=denied)
    for name in sorted(allowed - {"socket"}):
        try:
            syscall_filter.add_rule(seccomp.ALLOW, name)
        except (RuntimeError, ValueError):
            pass  # Not a system call of this architecture; systemd skips those too.
    for name, number in sorted(answered.items()):
        try:
            syscall_filter.add_rule(seccomp.ERRNO(number), name)
        except (RuntimeError, ValueError):
            pass
    for family in allowed_families:
        syscall_filter.add_rule(seccomp.ALLOW, "socket", seccomp.Arg(0, seccomp.EQ, family))
    if not options.kill:
        # libseccomp refuses a rule whose action is the default one (EACCES).
        for family in set(range(64)) - set(allowed_families):
            syscall_filter.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.EQ, family))
    syscall_filter.load()
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
