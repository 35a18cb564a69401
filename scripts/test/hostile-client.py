#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A hostile local client of pathd, as any unprivileged user could write one
(docs/PERFORMANCE.md, "Hostile local users").

The kernel tests run it as nobody inside their namespace (setpriv --reuid=65534) and
the benchmarks run it as the hostile mix. Each mode does one thing to the socket and
reports on stdout, one JSON object a line: progress events ({"event": "busy"}, ...)
that the caller may wait for, and a last {"event": "summary", ...} with what the
daemon answered. The caller asserts; this script only records. Nothing here sleeps to
order events: "the daemon stopped reading us" is a non-blocking send that hits EAGAIN.

Usage: hostile-client.py SOCKET MODE [options]   (see --help of each mode)
"""

import argparse
import errno
import json
import os
import re
import resource
import select
import socket
import struct
import sys
import time


def emit(event, **fields):
    print(json.dumps({"event": event, **fields}), flush=True)


class Deadline:
    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def remaining(self):
        return max(0.0, self.end - time.monotonic())

    def passed(self):
        return time.monotonic() >= self.end


def connect(path, deadline):
    """A blocking connect: when the daemon's backlog is full it waits for the daemon to
    accept (bounded by SO_SNDTIMEO, which bounds that wait for a Unix socket) instead
    of failing with EAGAIN as a socket with a Python timeout would."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    seconds = max(0.001, deadline.remaining())
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                    struct.pack("ll", int(seconds), int(seconds % 1 * 1e6)))
    sock.connect(path)
    return sock


def read_line(sock, pending, deadline):
    """(line, pending) with the first line read from a blocking socket; line is None at
    end of file."""
    while b"\n" not in pending:
        sock.settimeout(max(0.001, deadline.remaining()))
        chunk = sock.recv(65536)
        if not chunk:
            return None, pending
        pending += chunk
    line, _, rest = pending.partition(b"\n")
    return line, rest


def message_type(line):
    match = re.match(rb'\{"type":"([a-zA-Z]+)"', line)
    return match.group(1).decode() if match else "unparsable"


def error_code(line):
    match = re.match(rb'\{"type":"error","code":"([a-zA-Z]+)"', line)
    return match.group(1).decode() if match else None


def stdin_closed_or_go():
    """Whether the caller said go (a line or end of file on stdin); never blocks."""
    readable, _, _ = select.select([sys.stdin], [], [], 0)
    if not readable:
        return False
    os.read(sys.stdin.fileno(), 4096)
    return True


class Probe:
    """A second connection, opened before the work starts, that learns when the daemon
    has done what it could with the first one: the daemon serves its clients on one
    queue, so once it answers a ping sent here after the first connection went quiet
    (EAGAIN, or end of input), it has handled everything it had read there (and, had
    it a reason to drop the first connection for it, has dropped it). Then, and only
    then, the first connection starts reading: as a client that reads late."""

    def __init__(self, path, deadline):
        self.deadline = deadline
        self.sock = connect(path, deadline)
        _, self.pending = read_line(self.sock, b"", deadline)

    def round_trip(self):
        self.sock.settimeout(max(0.001, self.deadline.remaining()))
        self.sock.sendall(b'{"op":"ping","id":"probe"}\n')
        while True:
            line, self.pending = read_line(self.sock, self.pending, self.deadline)
            if line is None or line == b'{"type":"pong","id":"probe"}':
                return line is not None


class Conversation:
    """Pipelined requests on one connection, each expected to get exactly one reply,
    in order: `expect(i, line)` says whether line is the right reply to request i.

    Phase 1 writes without reading until a non-blocking send hits EAGAIN (the daemon
    stopped reading us: its replies wait for us) or everything is sent; with `filler`
    (index -> request line) it then goes on writing filler requests until EAGAIN, so
    that the daemon is certainly behind. Phase 2 writes and reads both ways until every
    request is answered, the daemon closes, or the deadline passes. With `hold_last`,
    the last request is held back until stdin says go (a line or end of file)."""

    def __init__(self, sock, requests, expect, pending=b"", hold_last=False, filler=None, probe=None, push=None):
        self.sock = sock
        self.probe = probe
        self.push = push or (lambda line: False)
        self.pushes = 0
        self.requests = list(requests)
        self.expect = expect
        self.hold_last = hold_last
        self.filler = filler
        self.outgoing = bytearray()
        self.queued = 0  # requests copied into `outgoing`
        self.sent = 0  # requests whose last byte left
        self.replies = 0
        self.problem = None
        self.end_of_file = False
        self.send_error = None
        self.stalled_after = None
        self.replies_when_released = None
        self.pending = pending
        self.largest_reply = 0
        self.types = {}
        self.codes = {}

    def send_some(self, limit):
        """Sends until EAGAIN or nothing below `limit` is left; True on EAGAIN."""
        while True:
            while len(self.outgoing) < 65536 and self.queued < limit:
                self.outgoing += self.requests[self.queued]
                self.queued += 1
            if not self.outgoing or self.send_error:
                return False
            try:
                count = self.sock.send(self.outgoing)
            except BlockingIOError:
                return True
            except OSError as error:
                self.send_error = errno.errorcode.get(error.errno, str(error.errno))
                return False
            del self.outgoing[:count]
            self.sent = self.queued - self.outgoing.count(b"\n")

    def receive(self):
        try:
            chunk = self.sock.recv(1 << 20)
        except BlockingIOError:
            return
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            self.end_of_file = True
            return
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            self.largest_reply = max(self.largest_reply, len(line) + 1)
            kind = message_type(line)
            self.types[kind] = self.types.get(kind, 0) + 1
            code = error_code(line)
            if code:
                self.codes[code] = self.codes.get(code, 0) + 1
            if self.push(line):
                self.pushes += 1
                continue
            if self.problem is None:
                if self.replies >= self.sent:
                    self.problem = f"line {self.replies} answers nothing we sent: {line[:200]!r}"
                elif not self.expect(self.replies, line):
                    self.problem = f"reply {self.replies} is wrong: {line[:200]!r}"
            self.replies += 1

    def run(self, deadline, on_busy=None):
        self.sock.setblocking(False)
        limit = len(self.requests) - (1 if self.hold_last else 0)
        own = len(self.requests)
        stalled = self.send_some(limit)
        while not stalled and self.filler and not self.send_error and len(self.requests) < 10_000_000:
            start = len(self.requests)
            self.requests += [self.filler(index) for index in range(start, start + 1024)]
            limit = len(self.requests)
            stalled = self.send_some(limit)
        if len(self.requests) > own:
            del self.requests[max(own, self.queued):]
            limit = len(self.requests)
        if stalled:
            self.stalled_after = self.sent
            if on_busy:
                on_busy(self)
        if self.probe:
            self.probe.round_trip()
        released = not self.hold_last
        while not deadline.passed() and not self.end_of_file:
            if self.replies >= len(self.requests):
                break
            if not released and stdin_closed_or_go():
                released = True
                self.replies_when_released = self.replies
                limit = len(self.requests)
            self.send_some(limit)
            writing = bool(self.outgoing) or self.queued < limit
            watch_read = [self.sock] + ([] if released else [sys.stdin])
            readable, _, _ = select.select(watch_read, [self.sock] if writing and not self.send_error else [], [],
                                           min(0.5, deadline.remaining()))
            if self.sock in readable:
                self.receive()
        return self

    def summary(self):
        return {"requests": len(self.requests), "sent": self.sent, "replies": self.replies, "pushes": self.pushes,
                "problem": self.problem, "endOfFile": self.end_of_file, "sendError": self.send_error,
                "stalledAfter": self.stalled_after, "largestReply": self.largest_reply, "types": self.types,
                "codes": self.codes, "repliesWhenReleased": self.replies_when_released,
                "timedOut": self.replies < len(self.requests) and not self.end_of_file}


def ends_with_id(line, identifier):
    return line.endswith(b',"id":' + identifier + b"}")


# MARK: modes

def pipeline(arguments):
    """`count` requests of `op`, written without reading (a batch that fits the socket
    goes in one write). Every `marker_every`-th request is a ping with its index as id,
    the others carry no id, so that requests are as short as a real client's and the
    order of the replies is still checked. If the batch fits, pings follow until the
    daemon stops reading us (EAGAIN). Then every reply must come, in order."""
    deadline = Deadline(arguments.deadline)
    sock = connect(arguments.socket, deadline)
    hello, pending = read_line(sock, b"", deadline)
    op = arguments.op.encode()
    every = arguments.marker_every

    def marker(index):
        return b'{"op":"ping","id":%d}\n' % index

    requests = [marker(index) if index % every == every - 1 else b'{"op":"%s"}\n' % op
                for index in range(arguments.count)]
    reply = b'{"type":"%s"' % {b"status": b"path", b"interfaces": b"interfaces", b"ping": b"pong"}[op]

    def expect(index, line):
        if index >= arguments.count or index % every == every - 1:
            return line == b'{"type":"pong","id":%d}' % index
        return line.startswith(reply) and not line.endswith(b'"}') and b',"id":' not in line[-40:]

    conversation = Conversation(sock, requests, expect, pending=pending, filler=marker,
                                probe=Probe(arguments.socket, deadline))
    conversation.run(deadline)
    emit("summary", hello=message_type(hello) if hello else None, **conversation.summary())


def half_close(arguments):
    """`count` status requests, then optionally a ping without its newline, then
    shutdown(SHUT_WR); once a probe shows the daemon handled that, read to end of file."""
    deadline = Deadline(arguments.deadline)
    sock = connect(arguments.socket, deadline)
    hello, pending = read_line(sock, b"", deadline)
    probe = Probe(arguments.socket, deadline)
    # As short as requests get, so that one read of the daemon's holds a thousand.
    data = b'{"op":"status"}\n' * arguments.count
    if arguments.last_without_newline:
        data += b'{"op":"ping","id":"last"}'
    sock.settimeout(max(0.001, deadline.remaining()))
    sock.sendall(data)
    sock.shutdown(socket.SHUT_WR)
    probe.round_trip()
    replies, in_order, problem, pong, end_of_file = 0, True, None, False, False
    while not deadline.passed():
        line, pending = read_line(sock, pending, deadline)
        if line is None:
            end_of_file = True
            break
        if replies < arguments.count:
            if not line.startswith(b'{"type":"path"'):
                in_order = False
                problem = problem or f"reply {replies}: {line[:200]!r}"
        elif line == b'{"type":"pong","id":"last"}':
            pong = True
        else:
            problem = problem or f"unexpected line {line[:200]!r}"
        replies += 1
    emit("summary", hello=message_type(hello) if hello else None, replies=replies, inOrder=in_order,
         problem=problem, lastAnswered=pong, endOfFile=end_of_file, trailingBytes=len(pending))


def subscribe_spam(arguments):
    """`subscribes` subscriptions (ids "s0"…) then `unsubscribes` unsubscribes of ids
    never subscribed ("u0"…), pipelined; prints "busy" once the daemon stopped reading
    us, and holds back a last ping until stdin says go."""
    deadline = Deadline(arguments.deadline)
    sock = connect(arguments.socket, deadline)
    hello, pending = read_line(sock, b"", deadline)
    requests = [b'{"op":"subscribe","id":"s%d"}\n' % index for index in range(arguments.subscribes)]
    requests += [b'{"op":"unsubscribe","id":"u%d"}\n' % index for index in range(arguments.unsubscribes)]
    requests.append(b'{"op":"ping","id":"end"}\n')
    subscribed = []
    refused = []
    subscribed_ids = set()

    def push(line):
        """A path or resync line of a subscription made earlier: sent unasked, when the
        path changes."""
        if line.startswith(b'{"type":"resync"'):
            return True
        match = re.search(rb',"id":"(s\d+)"\}$', line)
        return line.startswith(b'{"type":"path"') and match is not None and match.group(1) in subscribed_ids

    def expect(index, line):
        if index < arguments.subscribes:
            ident = b'"s%d"' % index
            if line.startswith(b'{"type":"path"') and ends_with_id(line, ident):
                subscribed.append(index)
                subscribed_ids.add(b"s%d" % index)
                return True
            if line.startswith(b'{"type":"error","code":"limitExceeded"') and ends_with_id(line, ident):
                refused.append(index)
                return True
            return False
        if index < arguments.subscribes + arguments.unsubscribes:
            ident = b'"u%d"' % (index - arguments.subscribes)
            return line.startswith(b'{"type":"error","code":"unknownSubscription"') and ends_with_id(line, ident)
        return line == b'{"type":"pong","id":"end"}'

    conversation = Conversation(sock, requests, expect, pending=pending, hold_last=True, push=push)
    conversation.run(deadline, on_busy=lambda c: emit("busy", sent=c.sent, replies=c.replies))
    emit("summary", hello=message_type(hello) if hello else None, subscribed=len(subscribed),
         firstRefused=refused[0] if refused else None, lastSubscribed=subscribed[-1] if subscribed else None,
         refused=len(refused), **conversation.summary())


def long_ids(arguments):
    """`count` subscribes, each with an id of `id_bytes` bytes, pipelined; reads every
    reply; prints "answered", then holds the connection until stdin closes."""
    deadline = Deadline(arguments.deadline)
    sock = connect(arguments.socket, deadline)
    hello, pending = read_line(sock, b"", deadline)
    identifier = b"x" * arguments.id_bytes
    request = b'{"op":"subscribe","id":"' + identifier + b'"}\n'
    requests = [request] * arguments.count

    def expect(index, line):
        # The id is too long to echo: the error carries none.
        return line.startswith(b'{"type":"error","code":"limitExceeded"') and b'"id"' not in line

    conversation = Conversation(sock, requests, expect, pending=pending)
    conversation.run(deadline)
    emit("answered", **conversation.summary())
    sys.stdin.read()
    sock.close()
    emit("summary", hello=message_type(hello) if hello else None, **conversation.summary())


def route_burst(arguments):
    """`held` route subscriptions made one at a time (each waited for) over connections
    of `per_connection` each, then `burst` more connections that each send one route
    subscription at once, all written before any reply is read: the requests a budget
    must count while their kernel lookups are out. Prints "held" after the first part
    (with the replies' types), "sent" once the burst is written, a "reply" per burst
    connection's answer (type, error code) as it comes, and "answered" once every one
    came; then holds every connection (and so its subscriptions), reading the lines they
    bring, until stdin closes. Destinations: 10.1.x.y for the held ones, 10.2.x.y for the burst."""
    deadline = Deadline(arguments.deadline)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    total = -(-arguments.held // arguments.per_connection) + arguments.burst
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, total + 64)), hard))

    def subscribe(network, index):
        destination = f"10.{network}.{index >> 8}.{index & 255}"
        return json.dumps({"op": "subscribe", "id": index, "destination": destination}).encode() + b"\n"

    held_types = {}
    sockets = []
    for start in range(0, arguments.held, arguments.per_connection):
        sock = connect(arguments.socket, deadline)
        _, pending = read_line(sock, b"", deadline)
        sockets.append(sock)
        for index in range(start, min(arguments.held, start + arguments.per_connection)):
            sock.sendall(subscribe(1, index))
            line, pending = read_line(sock, pending, deadline)
            if line is None:
                kind = "endOfFile"
            else:
                kind = (error_code(line) or "error") if message_type(line) == "error" else message_type(line)
            held_types[kind] = held_types.get(kind, 0) + 1
    emit("held", types=held_types)
    burst = [connect(arguments.socket, deadline) for _ in range(arguments.burst)]
    pending = {}
    for sock in burst:
        _, pending[sock.fileno()] = read_line(sock, b"", deadline)
    for index, sock in enumerate(burst):
        sock.sendall(subscribe(2, index))
    emit("sent", connections=len(burst))
    answers = {}
    by_fd = {sock.fileno(): sock for sock in burst}
    for fd, rest in pending.items():
        if b"\n" in rest:
            answers[fd] = rest.split(b"\n", 1)[0]
    poller = select.epoll()
    for fd in by_fd:
        if fd not in answers:
            poller.register(fd, select.EPOLLIN)
    for fd, line in answers.items():
        emit("reply", type=message_type(line), code=error_code(line))
    while len(answers) < len(burst) and not deadline.passed():
        for fd, _ in poller.poll(min(0.5, deadline.remaining())):
            chunk = by_fd[fd].recv(65536)
            pending[fd] += chunk
            if b"\n" in pending[fd] or not chunk:
                line = pending[fd].split(b"\n", 1)[0] if chunk else b""
                answers[fd] = line
                poller.unregister(fd)
                emit("reply", type=message_type(line) if line else "endOfFile", code=error_code(line))
    types, codes = {}, {}
    for line in answers.values():
        kind = message_type(line) if line else "endOfFile"
        types[kind] = types.get(kind, 0) + 1
        if error_code(line):
            codes[error_code(line)] = codes.get(error_code(line), 0) + 1
    emit("answered", types=types, codes=codes, unanswered=len(burst) - len(answers))
    # Reads (and drops) the lines the subscriptions bring, as a client that follows them,
    # until stdin closes.
    pushed = 0
    every = {sock.fileno(): sock for sock in sockets + burst}
    for sock in every.values():
        sock.setblocking(False)
    while True:
        readable, _, _ = select.select([sys.stdin] + list(every.values()), [], [])
        if sys.stdin in readable and not os.read(sys.stdin.fileno(), 4096):
            break
        for sock in readable:
            if sock is not sys.stdin:
                try:
                    chunk = sock.recv(1 << 20)
                except (BlockingIOError, ConnectionResetError):
                    continue
                if not chunk:
                    del every[sock.fileno()]
                pushed += chunk.count(b"\n")
    for sock in sockets + burst:
        sock.close()
    emit("summary", held=held_types, types=types, codes=codes, unanswered=len(burst) - len(answers), pushed=pushed)


def stream_empty_lines(arguments):
    """Empty lines as fast as the daemon takes them, until `cap` bytes or stdin closes;
    "streaming" once the daemon is behind (EAGAIN). Then a ping, which must be answered."""
    deadline = Deadline(arguments.deadline)
    sock = connect(arguments.socket, deadline)
    hello, pending = read_line(sock, b"", deadline)
    sock.setblocking(False)
    chunk = b"\n" * 65536
    sent = 0
    announced = False
    stopped = False
    while sent < arguments.cap and not deadline.passed():
        try:
            sent += sock.send(chunk[:min(len(chunk), arguments.cap - sent)])
            continue
        except BlockingIOError:
            if not announced:
                announced = True
                emit("streaming", sent=sent)
        readable, _, _ = select.select([sys.stdin], [sock], [], min(0.5, deadline.remaining()))
        if sys.stdin in readable:
            os.read(sys.stdin.fileno(), 4096)
            stopped = True
            break
    cap_reached = sent >= arguments.cap
    sock.setblocking(True)
    sock.settimeout(max(0.001, deadline.remaining()))
    pong = False
    try:
        sock.sendall(b'{"op":"ping","id":"end"}\n')
        while True:
            line, pending = read_line(sock, pending, deadline)
            if line is None:
                break
            if line == b'{"type":"pong","id":"end"}':
                pong = True
                break
    except OSError as error:
        emit("error", message=str(error))
    emit("summary", hello=message_type(hello) if hello else None, sent=sent, announced=announced,
         stoppedByCaller=stopped, capReached=cap_reached, answered=pong)


def many_connections(arguments):
    """`count` connections, each read until its first line; reports the first lines by
    type and error code, then holds the connections open until stdin closes."""
    deadline = Deadline(arguments.deadline)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, arguments.count + 64)), hard))
    sockets = []
    for _ in range(arguments.count):
        sockets.append(connect(arguments.socket, deadline))
    first = {}
    pending = {sock.fileno(): b"" for sock in sockets}
    by_fd = {sock.fileno(): sock for sock in sockets}
    for sock in sockets:
        sock.setblocking(False)
    poller = select.epoll()
    for fd in by_fd:
        poller.register(fd, select.EPOLLIN)
    closed_after_refusal = 0
    waiting = set(by_fd)
    while waiting and not deadline.passed():
        for fd, _ in poller.poll(min(0.5, deadline.remaining())):
            try:
                chunk = by_fd[fd].recv(65536)
            except (BlockingIOError, ConnectionResetError):
                chunk = None
            if chunk is None:
                continue
            if not chunk:
                if fd not in first:
                    first[fd] = "endOfFile"
                elif first[fd] != "hello":
                    closed_after_refusal += 1
                waiting.discard(fd)
                poller.unregister(fd)
                continue
            pending[fd] += chunk
            if fd not in first and b"\n" in pending[fd]:
                line = pending[fd].split(b"\n", 1)[0]
                kind = message_type(line)
                first[fd] = error_code(line) if kind == "error" else kind
                if first[fd] == "hello":
                    waiting.discard(fd)
                    poller.unregister(fd)
    counts = {}
    for kind in first.values():
        counts[kind] = counts.get(kind, 0) + 1
    emit("connected", firstLines=counts, closedAfterRefusal=closed_after_refusal, unanswered=len(waiting))
    sys.stdin.read()
    for sock in sockets:
        sock.close()
    emit("summary", firstLines=counts, closedAfterRefusal=closed_after_refusal, unanswered=len(waiting))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("socket")
    parser.add_argument("--deadline", type=float, default=60, help="seconds before giving up and reporting")
    modes = parser.add_subparsers(dest="mode", required=True)
    mode = modes.add_parser("pipeline", help=pipeline.__doc__)
    mode.add_argument("--op", choices=["status", "interfaces", "ping"], required=True)
    mode.add_argument("--count", type=int, required=True)
    mode.add_argument("--marker-every", type=int, default=100, help="every n-th request is a ping with an id")
    mode.set_defaults(run=pipeline)
    mode = modes.add_parser("half-close", help=half_close.__doc__)
    mode.add_argument("--count", type=int, required=True)
    mode.add_argument("--last-without-newline", action="store_true")
    mode.set_defaults(run=half_close)
    mode = modes.add_parser("subscribe-spam", help=subscribe_spam.__doc__)
    mode.add_argument("--subscribes", type=int, required=True)
    mode.add_argument("--unsubscribes", type=int, required=True)
    mode.set_defaults(run=subscribe_spam)
    mode = modes.add_parser("long-ids", help=long_ids.__doc__)
    mode.add_argument("--count", type=int, required=True)
    mode.add_argument("--id-bytes", type=int, required=True)
    mode.set_defaults(run=long_ids)
    mode = modes.add_parser("empty-lines", help=stream_empty_lines.__doc__)
    mode.add_argument("--cap", type=int, required=True, help="bytes at most")
    mode.set_defaults(run=stream_empty_lines)
    mode = modes.add_parser("route-burst", help=route_burst.__doc__)
    mode.add_argument("--held", type=int, default=0, help="route subscriptions made first, one at a time")
    mode.add_argument("--per-connection", type=int, default=64, help="of those, per connection")
    mode.add_argument("--burst", type=int, required=True, help="connections sending one subscribe each, at once")
    mode.set_defaults(run=route_burst)
    mode = modes.add_parser("connections", help=many_connections.__doc__)
    mode.add_argument("--count", type=int, required=True)
    mode.set_defaults(run=many_connections)
    arguments = parser.parse_args()
    arguments.run(arguments)


if __name__ == "__main__":
    main()
