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
    private var framer = LineFramer(maximumLineLength: 1 << 20)
    /// Lines framed and not yet returned, from `readyHead` on.
    private var ready: [[UInt8]] = []
    private var readyHead = 0
    /// What one `recv` fills, allocated once for the connection's life: the framer copies
    /// out of it, so it is free again after each push.
    private var receiveBuffer = [UInt8](repeating: 0, count: 16 * 1024)
    /// The `hello` the daemon sent on connect.
    public private(set) var hello: (protocolVersion: Int, daemonVersion: String, generation: Generation)?
    /// Wakes a read blocked on this connection from another thread.
    public let interrupter = PathConnectionInterrupter()

    /// Connects to the first daemon that answers in the search order
    /// (`SocketLocation.clientSearchOrder`: `socketPath` alone when given, else
    /// `$PATHD_SOCKET` alone, else the system socket, then the user's), and reads its
    /// `hello`. With a `timeout`, every wait for a line fails after that long instead of
    /// blocking forever.
    public static func connect(to socketPath: String? = nil,
                               timeout: Duration? = nil) throws(PathClientError) -> PathConnection {
        let candidates = searchOrder(explicit: socketPath)
        var failures: [String] = []
        for candidate in candidates {
            do {
                return try PathConnection(socketPath: candidate, timeout: timeout)
            } catch where error.kind == .unreachable && candidates.count > 1 {
                failures.append(error.description)
            }
        }
        throw PathClientError(failures.joined(separator: "; ") + " (is pathd running?)",
                              kind: .unreachable)
    }

    /// The sockets `connect(to:)` tries, in order, for this process's environment.
    public static func searchOrder(explicit: String? = nil) -> [String] {
        SocketLocation.clientSearchOrder(explicit: explicit,
                                         environment: Environment.values(SocketLocation.environmentVariables))
    }

    /// Connects to `socketPath` and reads the daemon's `hello`. With a `timeout`, every
    /// wait for a line fails after that long instead of blocking forever.
    public init(socketPath: String, timeout: Duration? = nil) throws(PathClientError) {
        self.socketPath = socketPath
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: socketPath)
        } catch {
            throw PathClientError("\(error)", kind: .unreachable)
        }
        do {
            descriptor = try UnixSocket.connect(to: address).rawValue
        } catch {
            descriptor = -1
            throw PathClientError("cannot connect to pathd at \(socketPath): \(error)", kind: .unreachable)
        }
        interrupter.adopt(descriptor)
        if let timeout {
            do {
                try setTimeout(timeout)
            } catch {
                close()
                throw error
            }
        }
        var first: ServerMessage
        do {
            // A newer daemon may send messages this client does not know before its
            // hello; a bounded number, so that a stream of them cannot stall a connect.
            var skipped = 0
            repeat {
                first = try next()
                skipped += 1
            } while first.isUnrecognized && skipped <= Self.maximumLinesBeforeHello
        } catch {
            close()
            throw error
        }
        switch first {
        case .hello(let version, let daemonVersion, let generation):
            guard version == ProtocolVersion.current else {
                // Another version changed what lines mean (docs/PROTOCOL.md, "Version rule").
                close()
                throw PathClientError("pathd \(PeerText.oneLine(daemonVersion)) at \(socketPath) "
                                      + "speaks protocol \(version); "
                                      + "this client speaks protocol \(ProtocolVersion.current)")
            }
            hello = (version, daemonVersion, generation)
        case .error(let code, let message, _):
            // Refused before any hello: the daemon's reason, e.g. tooManyClients.
            close()
            throw .refused(code, message)
        default:
            close()
            throw PathClientError("pathd at \(socketPath) did not greet with hello")
        }
    }

    deinit { close() }

    /// How many lines of types this client does not know may come before the hello.
    static let maximumLinesBeforeHello = 64

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
        let line = try nextLine()
        do {
            return (try ServerMessage.decode(line: line), line)
        } catch {
            throw PathClientError("pathd sent a line this client cannot read: \(error)")
        }
    }

    private func nextLine() throws(PathClientError) -> [UInt8] {
        while readyHead == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
            let received = receiveBuffer.withUnsafeMutableBytes { raw in
                syscallResult { recv(descriptor, raw.baseAddress, raw.count, 0) }
            }
            let count: Int
            switch received {
            case .success(let value): count = value
            case .failure(.wouldBlock):
                throw PathClientError("timed out waiting for pathd at \(socketPath)", kind: .timeout,
                                      socketPath: socketPath)
            case .failure(let error):
                throw PathClientError("cannot read from pathd: \(error)", kind: .closed, socketPath: socketPath)
            }
            if count == 0 {
                throw PathClientError("pathd closed the connection", kind: .closed, socketPath: socketPath)
            }
            let fits = receiveBuffer.withUnsafeBytes { raw in
                framer.push(UnsafeRawBufferPointer(rebasing: raw[0..<count])) { ready.append($0) }
            }
            if !fits { throw PathClientError("pathd sent a line longer than 1 MiB") }
        }
        defer { readyHead += 1 }
        return ready[readyHead]
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
