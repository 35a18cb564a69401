// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemCalls

/// A connected `AF_UNIX` stream socket, made and written through SystemCalls as pathd's
/// clients do: the tests' one raw client, for bytes no well-behaved client sends. The
/// kernel tests read its lines with `LineReader`; DaemonTestSupport's `RawClient` decodes
/// them. The descriptor is closed once, by `close()` or `deinit`.
///
/// `@unchecked Sendable` so that one thread may write while another reads the descriptor:
/// `send` and the shutdowns touch only the immutable descriptor; `close` is for the owner.
public final class UnixConnection: @unchecked Sendable {
    public let descriptor: Int32
    private var isClosed = false

    /// Connects to the socket at `path`; throws with errno (ENOENT, ECONNREFUSED…) on failure,
    /// or when `path` does not fit in a `sockaddr_un`.
    public init(connectingTo path: String) throws {
        let address = try UnixSocketAddress(path: path)
        do {
            descriptor = try UnixSocket.connect(to: address).rawValue
        } catch {
            throw HarnessError.posix("connect(\(path))", errno: error.rawValue)
        }
    }

    /// Writes all of `text`.
    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Writes all of `bytes`. MSG_NOSIGNAL: a daemon that went away must fail the test, not SIGPIPE the runner.
    public func send(_ bytes: [UInt8]) throws {
        do {
            try FileDescriptor(rawValue: descriptor).sendAll(bytes)
        } catch {
            throw HarnessError.posix("send", errno: error.rawValue)
        }
    }

    /// Wakes a reader blocked in `read` (it then sees end of file); the peer sees the
    /// connection closed, unread data and all.
    /// Does nothing once closed: the number may by then belong to another connection
    /// of this process (the daemon tests share it), which a stray shutdown would end.
    public func shutdownBoth() {
        guard !isClosed else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Ends the requests (end of input), keeping the reading side open.
    public func shutdownWriting() {
        guard !isClosed else { return }
        shutdown(descriptor, Int32(SHUT_WR))
    }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    deinit {
        close()
    }
}
