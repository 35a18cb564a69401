#!/usr/bin/python3
"""Runs a program under the restrictions of packaging/systemd/pathd.service (or, with
--families, pathd-probe.service) that can be applied without systemd as PID 1, then
execs it:

- SystemCallFilter=@system-service, then ~@privileged @resources: an allow list built
  with libseccomp from `systemd-analyze syscall-filter`, groups expanded as systemd
  expands them. Anything else gets EPERM (SystemCallErrorNumber=EPERM) or, with
  --kill, kills the process (SIGSYS), so that any use of a denied call is seen.
- SystemCallArchitectures=native: libseccomp's filter admits the native ABI only.
- RestrictAddressFamilies=AF_UNIX AF_NETLINK (or the unit's list given with --families):
  socket(2) for other families fails with EAFNOSUPPORT (or kills, with --kill).
- MemoryDenyWriteExecute=yes: prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN), which the
  kernel keeps across execve: no writable and executable mapping, no making one executable.
- NoNewPrivileges=yes, CapabilityBoundingSet= and DynamicUser=yes: no_new_privs, then an
  unprivileged uid and gid (--user), which leaves no capability.
- LimitNOFILE=: soft and hard limit (--nofile).

Usage: sandbox-exec.py [--kill [--eperm CALL]...] [--user UID:GID] [--nofile N] [--families "AF_X AF_Y"]
                       -- PROGRAM [ARGUMENTS...]
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
PATHD_FAMILIES = "AF_UNIX AF_NETLINK"


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kill", action="store_true", help="kill on a denied call instead of EPERM")
    parser.add_argument("--eperm", action="append", default=[], metavar="CALL",
                        help="with --kill, a denied call that still gets EPERM")
    parser.add_argument("--user", help="UID:GID to run as")
    parser.add_argument("--nofile", type=int, default=4096)
    parser.add_argument("--families", default=PATHD_FAMILIES,
                        help="RestrictAddressFamilies= of the unit, space-separated (default: pathd.service's)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no program given")

    allowed_families = tuple(getattr(socket, name) for name in options.families.split())
    table = groups()
    allowed = expand("@system-service", table) - expand("@privileged", table) - expand("@resources", table)
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
    for name in options.eperm if options.kill else []:
        if name in allowed:
            parser.error(f"--eperm {name}: the unit allows it")
        syscall_filter.add_rule(seccomp.ERRNO(errno.EPERM), name)
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
