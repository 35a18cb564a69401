// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import PathProtocol
import SystemCalls

/// The daemon's side of a connection, as a client reads it: bytes received into lines
/// (with the client's bound on a line's length), lines decoded into messages, and the
/// greeting checked. The one owner of these for the blocking `PathConnection` and the
/// non-blocking `DaemonSubscription`; neither blocks here, the caller decides whether
/// `receive` may wait (a blocking descriptor) or not (`O_NONBLOCK`).
struct ServerLineReader {
    /// The longest line a client accepts from the daemon.
    static let maximumLineLength = 1 << 20
    /// The socket the lines come from, for the errors.
    let socketPath: String
    private var framer = LineFramer(maximumLineLength: maximumLineLength)
    /// Lines framed and not yet returned, from `readyHead` on.
    private var ready: [[UInt8]] = []
    private var readyHead = 0
    /// What one `recv` fills, allocated once for the connection's life: the framer copies
    /// out of it, so it is free again after each push.
    private var receiveBuffer = [UInt8](repeating: 0, count: 16 * 1024)

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// One `recv` on `descriptor`, its lines framed. False when it would block: no data
    /// yet on a non-blocking socket, the receive timeout on a blocking one. Throws when
    /// the connection ended, broke, or sent a line over the bound.
    mutating func receive(from descriptor: Int32) throws(PathClientError) -> Bool {
        if readyHead == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
        }
        let received = receiveBuffer.withUnsafeMutableBytes { raw in
            syscallResult { recv(descriptor, raw.baseAddress, raw.count, 0) }
        }
        let count: Int
        switch received {
        case .success(let value): count = value
        case .failure(.wouldBlock): return false
        case .failure(.interrupted): return true
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
        return true
    }

    /// The next line framed and not yet returned, if any.
    mutating func nextLine() -> [UInt8]? {
        guard readyHead < ready.count else { return nil }
        defer { readyHead += 1 }
        return ready[readyHead]
    }

    /// The message a line carries. A type this client does not know is `.unrecognized`,
    /// for the caller to skip (the protocol grows by adding them); a line that is not
    /// JSON, or lacks what its type must carry, throws.
    static func decode(_ line: [UInt8]) throws(PathClientError) -> ServerMessage {
        do {
            return try ServerMessage.decode(line: line)
        } catch {
            throw PathClientError("pathd sent a line this client cannot read: \(error)")
        }
    }

    /// The error when the wait for a line ran out.
    var timedOut: PathClientError {
        PathClientError("timed out waiting for pathd at \(socketPath)", kind: .timeout, socketPath: socketPath)
    }
}

/// The daemon's `hello`, as a client checks it: the first message a connection gets.
struct DaemonHello: Hashable, Sendable {
    let protocolVersion: Int
    let daemonVersion: String
    let generation: Generation
}

/// Checks the messages a connection gets until the `hello`: the one rule for every
/// client of this module.
struct HelloCheck {
    /// How many lines of types this client does not know may come before the hello.
    static let maximumLinesBeforeHello = 64
    let socketPath: String
    private var skipped = 0

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// The hello when `message` is one this client can talk to; nil to wait for the next
    /// message (a newer daemon may send types this client does not know before its hello:
    /// a bounded number, so that a stream of them cannot stall a connect). Throws for a
    /// refusal, another protocol version, or anything else.
    mutating func check(_ message: ServerMessage) throws(PathClientError) -> DaemonHello? {
        switch message {
        case .hello(let version, let daemonVersion, let generation):
            guard version == ProtocolVersion.current else {
                // Another version changed what lines mean (docs/PROTOCOL.md, "Version rule").
                throw PathClientError("pathd \(PeerText.oneLine(daemonVersion)) at \(socketPath) "
                                      + "speaks protocol \(version); "
                                      + "this client speaks protocol \(ProtocolVersion.current)")
            }
            return DaemonHello(protocolVersion: version, daemonVersion: daemonVersion, generation: generation)
        case .error(let code, let message, _):
            // Refused before any hello: the daemon's reason, e.g. tooManyClients.
            throw .refused(code, message)
        case .unrecognized where skipped < Self.maximumLinesBeforeHello:
            skipped += 1
            return nil
        default:
            throw PathClientError("pathd at \(socketPath) did not greet with hello")
        }
    }
}
