// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathProtocol
import PathTestFixtures
import SystemCalls
import Testing

/// A client that writes arbitrary bytes, for input no well-behaved client sends, and
/// reads the daemon's lines decoded. Reads fail after 10 s instead of hanging the test.
///
/// `@unchecked Sendable` so that one thread may write while another reads: `write`
/// touches only the connection's immutable descriptor, `next` only the framer and the lines.
public final class RawClient: @unchecked Sendable {
    public struct Closed: Error {}
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    private let connection: UnixConnection
    private var framer = LineFramer(maximumLineLength: 1 << 20)
    private var lines: [[UInt8]] = []

    /// Connects; with `expectHello`, reads the daemon's `hello` and fails without one.
    public init(path: String, expectHello: Bool = true) throws {
        connection = try UnixConnection(connectingTo: path)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        let length = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(connection.descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, length) == 0 else {
            throw Failure(description: "setsockopt(SO_RCVTIMEO): \(Errno.current)")
        }
        if expectHello {
            guard case .hello = try next() else { throw Failure(description: "no hello") }
        }
    }

    /// Closes the connection now, unread data and all (the peer then sees EPIPE).
    public func closeNow() { connection.shutdownBoth() }

    /// Ends the requests (end of input), keeping the reading side open.
    public func finishWriting() { connection.shutdownWriting() }

    public func write(_ bytes: [UInt8]) throws {
        try connection.send(bytes)
    }

    public func next() throws -> ServerMessage {
        while lines.isEmpty {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(connection.descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { throw Closed() }
            if count < 0 && errno == ECONNRESET { throw Closed() }
            guard count > 0 else { throw Failure(description: "recv: errno \(errno) (timeout?)") }
            for output in framer.push(buffer[0..<count]) {
                guard case .line(let line) = output else { throw Failure(description: "overlong line") }
                lines.append(line)
            }
        }
        return try ServerMessage.decode(line: lines.removeFirst())
    }
}
