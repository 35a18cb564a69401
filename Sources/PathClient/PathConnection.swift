import CLinux
import Glibc
import PathModel
import PathProtocol
import Synchronization

/// Why talking to the daemon failed, in words for a person.
public struct PathClientError: Error, CustomStringConvertible, Sendable {
    public let description: String
    /// The wait for a line ran out (the connection's timeout), rather than failing.
    public let isTimeout: Bool
    /// The daemon answered with an `error` line instead of `hello` (e.g. `tooManyClients`):
    /// it was reached and refused, as opposed to not reached at all.
    public let refusal: (code: ErrorCode, message: String)?

    public init(_ description: String, isTimeout: Bool = false, refusal: (code: ErrorCode, message: String)? = nil) {
        self.description = description
        self.isTimeout = isTimeout
        self.refusal = refusal
    }
}

/// A blocking connection to pathd's socket: send requests, read messages one by one.
/// For command-line tools and tests; the connection owns its descriptor.
public final class PathConnection {
    public let socketPath: String
    private var descriptor: Int32
    private var framer = LineFramer(maximumLineLength: 1 << 20)
    private var ready: [[UInt8]] = []
    /// What one `recv` fills, allocated once for the connection's life: the framer copies
    /// out of it, so it is free again after each push.
    private var receiveBuffer = [UInt8](repeating: 0, count: 16 * 1024)
    /// The `hello` the daemon sent on connect.
    public private(set) var hello: (protocolVersion: Int, daemonVersion: String, generation: Generation)?
    /// Wakes a read blocked on this connection from another thread.
    public let interrupter = PathConnectionInterrupter()

    /// Connects and reads the daemon's `hello`. With a `timeout`, every wait for a line
    /// fails after that long instead of blocking forever.
    public init(socketPath: String, timeout: Duration? = nil) throws(PathClientError) {
        self.socketPath = socketPath
        let bytes = Array(socketPath.utf8)
        guard !bytes.isEmpty, bytes.count < pathd_sun_path_size() else {
            throw PathClientError("socket path \"\(socketPath)\" is empty or too long")
        }
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw PathClientError("cannot create a socket: \(Self.lastError())") }
        interrupter.adopt(descriptor)
        if let timeout {
            do {
                try setTimeout(timeout)
            } catch {
                close()
                throw error
            }
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = Self.lastError()
            close()
            throw PathClientError("cannot connect to pathd at \(socketPath): \(reason) (is pathd running?)")
        }
        let first = try next()
        guard case .hello(let version, let daemonVersion, let generation) = first else {
            close()
            if case .error(let code, let message, _) = first {
                throw PathClientError("pathd at \(socketPath) refused the connection: \(message) [\(code.rawValue)]",
                                      refusal: (code, message))
            }
            throw PathClientError("pathd at \(socketPath) did not greet with hello")
        }
        hello = (version, daemonVersion, generation)
    }

    deinit { close() }

    /// The socket pathd listens on by default for this process's user, as
    /// `SocketLocation.defaultPath` decides it from `getuid()` and `XDG_RUNTIME_DIR`;
    /// nil when a user other than root has no `XDG_RUNTIME_DIR`.
    public static func defaultSocketPath() -> String? {
        var environment: [String: String] = [:]
        if let runtime = getenv("XDG_RUNTIME_DIR") { environment["XDG_RUNTIME_DIR"] = String(cString: runtime) }
        return SocketLocation.defaultPath(userID: getuid(), environment: environment)
    }

    /// Bounds every later wait for a line (SO_RCVTIMEO); a wait that runs out throws a
    /// `PathClientError` whose `isTimeout` is set.
    public func setTimeout(_ timeout: Duration) throws(PathClientError) {
        let (seconds, attoseconds) = max(timeout, .microseconds(1)).components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw PathClientError("cannot set the receive timeout: \(Self.lastError())")
        }
    }

    public func close() {
        // Invalidate first, under the interrupter's lock: an interrupt can then never
        // shut down a descriptor number the process has reused.
        interrupter.invalidate()
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }



    /// Sends one request line.
    public func send(_ request: Request) throws(PathClientError) {
        var line = request.encoded()[...]
        while !line.isEmpty {
            let sent = line.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw PathClientError("cannot send to pathd: \(Self.lastError())")
            }
            line = line.dropFirst(sent)
        }
    }

    /// The next message from the daemon; blocks. Lines of a type this client does not
    /// know are skipped (the protocol grows by adding them).
    public func next() throws(PathClientError) -> ServerMessage {
        try nextWithLine().message
    }

    /// The next message and the exact line it came in (for `--json` output that passes
    /// the daemon's fields through, including ones this client does not know).
    public func nextWithLine() throws(PathClientError) -> (message: ServerMessage, line: [UInt8]) {
        while true {
            let line = try nextLine()
            do {
                return (try ServerMessage.decode(line: line), line)
            } catch {
                if error.isUnknownType { continue }
                throw PathClientError("pathd sent a line this client cannot read: \(error)")
            }
        }
    }

    private func nextLine() throws(PathClientError) -> [UInt8] {
        while ready.isEmpty {
            let count = receiveBuffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { throw PathClientError("timed out waiting for pathd at \(socketPath)", isTimeout: true) }
                throw PathClientError("cannot read from pathd: \(Self.lastError())")
            }
            if count == 0 { throw PathClientError("pathd closed the connection") }
            for output in framer.push(receiveBuffer[0..<count]) {
                switch output {
                case .line(let line): ready.append(line)
                case .overflow: throw PathClientError("pathd sent a line longer than 1 MiB")
                }
            }
        }
        return ready.removeFirst()
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
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

    public func interrupt() {
        descriptor.withLock { value in
            if value >= 0 { _ = Glibc.shutdown(value, Int32(SHUT_RDWR)) }
        }
    }
}
