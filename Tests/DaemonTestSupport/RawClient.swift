import Glibc
import PathProtocol
import SystemCalls
import Testing

/// A client that writes arbitrary bytes, for input no well-behaved client sends. Reads
/// fail after 10 s instead of hanging the test.
///
/// `@unchecked Sendable` so that one thread may write while another reads: `write`
/// touches only the immutable descriptor, `next` only the framer and the lines.
public final class RawClient: @unchecked Sendable {
    public struct Closed: Error {}
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    private let descriptor: Int32
    private var framer = LineFramer(maximumLineLength: 1 << 20)
    private var lines: [[UInt8]] = []

    /// Connects; with `expectHello`, reads the daemon's `hello` and fails without one.
    public init(path: String, expectHello: Bool = true) throws {
        do {
            descriptor = try UnixSocket.connect(to: UnixSocketAddress(path: path)).rawValue
        } catch {
            throw Failure(description: "connect \(path): \(error)")
        }
        // From here a throw closes the descriptor: deinit runs once every property is set.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw Failure(description: "setsockopt(SO_RCVTIMEO): \(Errno.current)")
        }
        if expectHello {
            guard case .hello = try next() else { throw Failure(description: "no hello") }
        }
    }

    deinit { close(descriptor) }

    /// Closes the connection now, unread data and all (the peer then sees EPIPE).
    public func closeNow() { shutdown(descriptor, Int32(SHUT_RDWR)) }

    /// Ends the requests (end of input), keeping the reading side open.
    public func finishWriting() { shutdown(descriptor, Int32(SHUT_WR)) }

    public func write(_ bytes: [UInt8]) throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            let sent = rest.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
            rest = rest.dropFirst(sent)
        }
    }

    public func next() throws -> ServerMessage {
        while lines.isEmpty {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
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
