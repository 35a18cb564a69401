import Foundation
import PathTestFixtures
import SystemCalls

/// A connected `AF_UNIX` stream socket, made and written through SystemCalls as pathd's
/// clients do. The descriptor is closed once, by `close()` or `deinit`.
final class UnixSocket {
    let descriptor: Int32
    private var isClosed = false

    /// Connects to the socket at `path`; throws with errno (ENOENT, ECONNREFUSED…) on failure,
    /// or when `path` does not fit in a `sockaddr_un`.
    init(connectingTo path: String) throws {
        let address = try UnixSocketAddress(path: path)
        do {
            descriptor = try SystemCalls.UnixSocket.connect(to: address).rawValue
        } catch {
            throw HarnessError.posix("connect(\(path))", errno: error.rawValue)
        }
    }

    /// Writes all of `text`. MSG_NOSIGNAL: a daemon that went away must fail the test, not SIGPIPE the runner.
    func send(_ text: String) throws {
        do {
            try FileDescriptor(rawValue: descriptor).sendAll(text.utf8)
        } catch {
            throw HarnessError.posix("send", errno: error.rawValue)
        }
    }

    /// Wakes a reader blocked in `read` (it then sees end of file).
    /// Does nothing once closed: the number may by then belong to another connection
    /// of this process (the daemon tests share it), which a stray shutdown would end.
    func shutdownBoth() {
        guard !isClosed else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    deinit {
        close()
    }
}
