// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import Synchronization
import SystemCalls

/// A fake pathd for client tests: a real Unix socket server that answers each
/// connection with the lines its `script` names for it, in order, then closes it or
/// holds it open. Counting the connections it accepted is how a test sees how often a
/// client reconnected; `send(_:)` reaches every connection held open, to show that a
/// client kept its connection after lines it did not know.
public final class FakeDaemon: Sendable {
    /// What one connection gets.
    public struct Reply: Sendable {
        public var lines: [String]
        /// Close right after the lines (a daemon that ends at once); else hold the
        /// connection open until `stop`.
        public var closes: Bool
        /// With `closes`: close only once the client's first request line came (at most 10 s),
        /// as a daemon that crashes while answering it: the client's request never meets
        /// a closed socket, so it always reads the lines.
        public var closesAfterRequest: Bool

        public init(_ lines: [String], closes: Bool = false, closesAfterRequest: Bool = false) {
            self.lines = lines
            self.closes = closes || closesAfterRequest
            self.closesAfterRequest = closesAfterRequest
        }
    }

    public let socketPath: String
    private let listener: Int32
    /// The reply of the `n`th connection (0 for the first).
    private let script: @Sendable (Int) -> Reply
    private let state = Mutex(State())
    private let acceptorDone = DispatchSemaphore(value: 0)
    /// Signalled once per connection accepted.
    private let acceptedOne = DispatchSemaphore(value: 0)

    private struct State {
        var accepted = 0
        var open: [Int32] = []
        var stopped = false
    }

    /// Listens at `socketPath` (which must not exist) and serves until `stop`.
    public init(socketPath: String, script: @escaping @Sendable (Int) -> Reply) throws {
        try BlockingTest.requireOwnThread("a fake pathd")
        self.socketPath = socketPath
        self.script = script
        let address = try UnixSocketAddress(path: socketPath)
        let descriptor = try UnixSocket.stream()
        do {
            try address.withSockaddr { (pointer, length) throws(Errno) in
                _ = try syscall { bind(descriptor.rawValue, pointer, length) }
            }
            _ = try syscall { listen(descriptor.rawValue, 1024) }
        } catch {
            descriptor.close()
            throw error
        }
        listener = descriptor.rawValue
        // A queue of its own: its one worker blocks in accept(2) until `stop`.
        DispatchQueue(label: "pathd.test.FakeDaemon").async { [self] in acceptLoop() }
    }

    /// Connections accepted so far.
    public var accepted: Int { state.withLock { $0.accepted } }

    /// Waits until `count` connections were accepted; false when `timeout` passed first.
    /// One waiter at a time.
    public func waitForAccepted(_ count: Int, timeout: Duration = .seconds(10)) -> Bool {
        let deadline = DispatchTime.now() + timeout.timeInterval
        while accepted < count {
            if acceptedOne.wait(timeout: deadline) == .timedOut { return accepted >= count }
        }
        return true
    }

    /// Writes `line` and a newline to every connection held open.
    public func send(_ line: String) {
        let descriptors = state.withLock { $0.open }
        for descriptor in descriptors { Self.write(line, to: descriptor) }
    }

    /// Closes every connection held open, as a daemon that crashed would, and goes on
    /// accepting (with `script`'s replies).
    public func closeOpenConnections() {
        let descriptors = state.withLock { state -> [Int32] in
            defer { state.open = [] }
            return state.open
        }
        for descriptor in descriptors { close(descriptor) }
    }

    /// Stops accepting, closes every connection and removes the socket file.
    public func stop() {
        let descriptors = state.withLock { state -> [Int32]? in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.open = [] }
            return state.open
        }
        guard let descriptors else { return }
        // shutdown(2) wakes the acceptor blocked in accept(2) (Linux: EINVAL).
        shutdown(listener, Int32(SHUT_RDWR))
        acceptorDone.wait()
        for descriptor in descriptors { close(descriptor) }
        close(listener)
        unlink(socketPath)
    }

    deinit { stop() }

    private func acceptLoop() {
        defer { acceptorDone.signal() }
        while true {
            let connection: FileDescriptor
            do {
                connection = try FileDescriptor(rawValue: listener).acceptConnection()
            } catch {
                if error == .interrupted { continue }
                return
            }
            let index = state.withLock { state -> Int? in
                guard !state.stopped else { return nil }
                defer { state.accepted += 1 }
                return state.accepted
            }
            guard let index else {
                connection.close()
                return
            }
            acceptedOne.signal()
            let reply = script(index)
            if reply.closes {
                for line in reply.lines { Self.write(line, to: connection.rawValue) }
                if reply.closesAfterRequest { Self.awaitRequest(on: connection.rawValue) }
                connection.close()
                continue
            }
            // The reply is written and the connection joins `open` under one lock: a client
            // that read its reply and had the test `send` next must be reached by that send,
            // and a send never comes between the reply's lines. (The replies are a few short
            // lines: the socket's buffer takes them without blocking.)
            let held = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                for line in reply.lines { Self.write(line, to: connection.rawValue) }
                state.open.append(connection.rawValue)
                return true
            }
            if !held { connection.close() }
        }
    }

    /// Returns once the client sent a line, closed, or 10 s passed (the connection is
    /// non-blocking: poll(2) waits).
    private static func awaitRequest(on descriptor: Int32) {
        // The whole line: unread bytes would make close(2) reset the connection, and a
        // reset can discard what the client had not read yet. A failure (the timeout, a
        // reset) ends the wait too.
        let deadline = DispatchTime.now() + .seconds(10)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while DispatchTime.now() < deadline {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&request, 1, 100) <= 0 { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 || buffer[..<count].contains(UInt8(ascii: "\n")) { return }
        }
    }

    private static func write(_ line: String, to descriptor: Int32) {
        // A client that went away already is what some tests cause: nothing to report.
        do { try FileDescriptor(rawValue: descriptor).sendAll(Array((line + "\n").utf8)) } catch {}
    }
}
