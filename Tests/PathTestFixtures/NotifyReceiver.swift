// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemCalls

/// A service manager's notification socket, as systemd gives one in `$NOTIFY_SOCKET`: a
/// Unix datagram socket the test binds, from which it reads what a program under test
/// sent with sd_notify(3) ("READY=1\nSTATUS=…").
public final class NotifyReceiver {
    public let path: String
    private let socket: Int32

    public init(path: String) throws {
        self.path = path
        socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw HarnessError.posix("socket(AF_UNIX, SOCK_DGRAM)", errno: errno) }
        do {
            let address = try UnixSocketAddress(path: path)
            try address.withSockaddr { (pointer, length) throws(Errno) in
                _ = try syscall { bind(socket, pointer, length) }
            }
        } catch {
            close(socket)
            throw error
        }
    }

    deinit {
        close(socket)
        unlink(path)
    }

    /// The next notification, or nil when none came within `seconds`.
    public func next(within seconds: Int32 = 10) -> String? {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, seconds * 1000) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(socket, &buffer, buffer.count, 0)
        return count < 0 ? nil : String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}
