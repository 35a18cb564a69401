import Foundation

/// A connected `AF_UNIX` stream socket; the one place the harness calls the socket API.
/// The descriptor is closed once, by `close()` or `deinit`.
final class UnixSocket {
    let descriptor: Int32
    private var isClosed = false

    /// Connects to the socket at `path`; throws with errno (ENOENT, ECONNREFUSED…) on failure.
    init(connectingTo path: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw HarnessError("socket path longer than \(capacity - 1) bytes: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError.posix("socket(AF_UNIX)", errno: errno) }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw HarnessError.posix("connect(\(path))", errno: code)
        }
        descriptor = fd
    }

    /// Writes all of `text`. MSG_NOSIGNAL: a daemon that went away must fail the test, not SIGPIPE the runner.
    func send(_ text: String) throws {
        var remaining = Array(text.utf8)[...]
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw HarnessError.posix("send", errno: errno)
            }
            remaining = remaining.dropFirst(written)
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
