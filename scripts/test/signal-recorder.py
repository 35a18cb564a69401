#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A command for `pathctl run` tests: appends "start PID" to LOGFILE, then one line
"signal N" per signal it receives (HUP, INT, QUIT, TERM, USR1, USR2), and waits for the
next without polling. SIGTERM ends it with status 0 once recorded, unless --ignore-term
(a command that ignores SIGTERM); SIGKILL ends it as always.
Usage: signal-recorder.py LOGFILE [--ignore-term]"""
import os
import signal
import sys

log_path = sys.argv[1]
ignore_term = "--ignore-term" in sys.argv[2:]


def record(line):
    with open(log_path, "a") as log:
        log.write(line + "\n")


def received(number, _frame):
    record(f"signal {number}")
    if number == signal.SIGTERM and not ignore_term:
        sys.exit(0)


for number in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2):
    signal.signal(number, received)
record(f"start {os.getpid()}")
while True:
    signal.pause()
