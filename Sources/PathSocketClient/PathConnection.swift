// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import PathProtocol
import Synchronization
import SystemCalls

/// A blocking connection to pathd's socket: send requests, read messages one by one.
/// For command-line tools and tests; the connection owns its descriptor.
public final class PathConnection {
    /// The socket this connection was made to.
    public let socketPath: String
    private var descriptor: Int32
    private var reader: ServerLineReader
    /// The `hello` the daemon sent on connect.
    public private(set) var hello: (protocolVersion: Int, daemonVersion: String, generation: Generation)?
    /// Wakes a read blocked on this connection from another thread.
    public let interrupter = PathConnectionInterrupter()

    /// Connects to the first daemon that answers in the search order
    /// (`SocketPath.clientSearchOrder`: `socketPath` alone when given, else
    /// `$PATHD_SOCKET` alone, else the system socket, then the user's), and reads its
    /// `hello`. With a `timeout`, every wait for a line fails after that long instead of
    /// blocking forever.
    public static func connect(to socketPath: String? = nil,
                               timeout: Duration? = nil) throws(PathClientError) -> PathConnection {
        let (descriptor, path) = try openFirst(of: searchOrder(explicit: socketPath), nonBlocking: false)
        return try PathConnection(descriptor: descriptor, socketPath: path, timeout: timeout)
    }

    /// A socket connected to the first of `candidates` that accepts, and its path; a
    /// single candidate's own failure, or the failures of them all in one error.
    static func openFirst(of candidates: [String], nonBlocking: Bool) throws(PathClientError) -> (Int32, String) {
        var failures: [String] = []
        for candidate in candidates {
            do {
                return (try openSocket(at: candidate, nonBlocking: nonBlocking), candidate)
            } catch where candidates.count > 1 {
                failures.append(error.description)
            }
        }
        throw PathClientError(failures.joined(separator: "; ") + " (is pathd running?)", kind: .unreachable)
    }

    /// The sockets `connect(to:)` tries, in order, for this process's environment.
    public static func searchOrder(explicit: String? = nil) -> [String] {
        SocketPath.clientSearchOrder(explicit: explicit,
                                     environment: Environment.values(SocketPath.environmentVariables))
    }

    /// Connects to `socketPath` and reads the daemon's `hello`. With a `timeout`, every
    /// wait for a line fails after that long instead of blocking forever.
    public convenience init(socketPath: String, timeout: Duration? = nil) throws(PathClientError) {
        try self.init(descriptor: Self.openSocket(at: socketPath, nonBlocking: false), socketPath: socketPath,
                      timeout: timeout)
    }

    /// Takes over `descriptor`, connected to `socketPath`, and reads the daemon's `hello`.
    private init(descriptor: Int32, socketPath: String, timeout: Duration?) throws(PathClientError) {
        self.socketPath = socketPath
        self.descriptor = descriptor
        reader = ServerLineReader(socketPath: socketPath)
        interrupter.adopt(descriptor)
        if let timeout {
            do {
                try setTimeout(timeout)
            } catch {
                close()
                throw error
            }
        }
        do {
            var check = HelloCheck(socketPath: socketPath)
            var greeted: DaemonHello?
            while greeted == nil { greeted = try check.check(next()) }
            if let greeted { hello = (greeted.protocolVersion, greeted.daemonVersion, greeted.generation) }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// A stream socket connected to pathd at `socketPath`, close-on-exec; a non-blocking
    /// one fails at once, as unreachable, where a blocking one waits for room in the
    /// daemon's listen backlog.
    static func openSocket(at socketPath: String, nonBlocking: Bool) throws(PathClientError) -> Int32 {
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: socketPath)
        } catch {
            throw PathClientError("\(error)", kind: .unreachable)
        }
        do {
            return try UnixSocket.connect(to: address, nonBlocking: nonBlocking).rawValue
        } catch .wouldBlock {
            throw PathClientError("pathd at \(socketPath) accepts no connection now (its listen backlog is full)",
                                  kind: .unreachable)
        } catch {
            throw PathClientError("cannot connect to pathd at \(socketPath): \(error)", kind: .unreachable)
        }
    }

    /// Bounds every later wait for a line (SO_RCVTIMEO); a wait that runs out throws a
    /// `PathClientError` whose `isTimeout` is set.
    /// nil waits for ever again.
    public func setTimeout(_ timeout: Duration?) throws(PathClientError) {
        // A zero timeval means "no timeout" to the kernel (socket(7)).
        let (seconds, attoseconds) = timeout.map { max($0, .microseconds(1)) }?.components ?? (0, 0)
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw PathClientError("cannot set the receive timeout: \(Errno.current)", kind: .closed)
        }
    }

    /// Closes the connection (also done when it is released); idempotent.
    public func close() {
        // Invalidate first, under the interrupter's lock: an interrupt can then never
        // shut down a descriptor number the process has reused.
        interrupter.invalidate()
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Sends one request line.
    public func send(_ request: Request) throws(PathClientError) {
        do {
            try FileDescriptor(rawValue: descriptor).sendAll(request.encoded())
        } catch {
            throw PathClientError("cannot send to pathd: \(error)", kind: .closed)
        }
    }

    /// The next message from the daemon; blocks. A message of a type this client does
    /// not know is `.unrecognized`, for the caller to skip (the protocol grows by adding
    /// them); a line that is not JSON, or lacks what its type must carry, throws.
    public func next() throws(PathClientError) -> ServerMessage {
        try nextWithLine().message
    }

    /// The next message and the exact line it came in (for `--json` output that passes
    /// the daemon's fields through, including ones this client does not know).
    public func nextWithLine() throws(PathClientError) -> (message: ServerMessage, line: [UInt8]) {
        while true {
            if let line = reader.nextLine() { return (try ServerLineReader.decode(line), line) }
            guard try reader.receive(from: descriptor) else { throw reader.timedOut }
        }
    }
}

/// Shuts a connection's socket down from any thread, so that a read blocked on it
/// returns and the connection reports it closed. `Sendable`: the descriptor is read and
/// invalidated under one lock, so it is never used after the connection closed it.
public final class PathConnectionInterrupter: Sendable {
    private let descriptor = Mutex<Int32>(-1)

    fileprivate init() {}

    fileprivate func adopt(_ value: Int32) {
        descriptor.withLock { $0 = value }
    }

    fileprivate func invalidate() {
        descriptor.withLock { $0 = -1 }
    }

    /// Shuts the connection's socket down, so a read blocked on it returns; nothing
    /// once the connection is closed.
    public func interrupt() {
        descriptor.withLock { value in
            if value >= 0 { _ = Glibc.shutdown(value, Int32(SHUT_RDWR)) }
        }
    }
}
