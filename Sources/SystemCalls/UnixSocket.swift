// SPDX-License-Identifier: Apache-2.0
import CSystemCalls
import Glibc

/// Unix stream sockets (unix(7)), for the daemon's listener and for clients.
public enum UnixSocket {
    /// A new stream socket, close-on-exec, non-blocking on request. The corresponding C
    /// function is `socket`.
    public static func stream(nonBlocking: Bool = false) throws(Errno) -> FileDescriptor {
        var type = SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue
        if nonBlocking { type |= SOCK_NONBLOCK.rawValue }
        return FileDescriptor(rawValue: try syscall { socket(AF_UNIX, Int32(type), 0) })
    }

    /// A new stream socket connected to `address`; closed again on failure. A
    /// non-blocking one fails with `.wouldBlock` at once where a blocking one would wait
    /// for room in the listener's backlog (unix(7): no connection stays in progress).
    public static func connect(to address: UnixSocketAddress,
                               nonBlocking: Bool = false) throws(Errno) -> FileDescriptor {
        let descriptor = try stream(nonBlocking: nonBlocking)
        do {
            try address.withSockaddr { (pointer, length) throws(Errno) in
                _ = try syscall { Glibc.connect(descriptor.rawValue, pointer, length) }
            }
        } catch {
            descriptor.close()
            throw error
        }
        return descriptor
    }
}
