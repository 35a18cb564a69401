// SPDX-License-Identifier: Apache-2.0
import Glibc

/// sd_notify(3) for a program that does not link libsystemd (pathctl): one datagram to
/// the Unix socket `$NOTIFY_SOCKET` names, a filesystem path or, after `@`, an abstract
/// one, as sd_notify sends it. pathd itself calls libsystemd's (CSystemd).
public enum ServiceNotification {
    public static let variable = "NOTIFY_SOCKET"

    /// Sends `state`, newline-separated assignments ("READY=1\nSTATUS=…"). False when
    /// the process runs under no service manager (`NOTIFY_SOCKET` unset or empty).
    @discardableResult
    public static func send(_ state: String) throws(Errno) -> Bool {
        guard let socketName = Environment.value(variable), !socketName.isEmpty else { return false }
        var bytes = Array(socketName.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        var address = sockaddr_un()
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw Errno(rawValue: ENAMETOOLONG)
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        // An abstract name is exactly its bytes; a path ends at its NUL.
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1)
        let descriptor = FileDescriptor(rawValue: try syscall {
            socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        })
        defer { descriptor.close() }
        let message = Array(state.utf8)
        try withUnsafePointer(to: &address) { pointer throws(Errno) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(Errno) in
                _ = try syscall {
                    sendto(descriptor.rawValue, message, message.count, Int32(MSG_NOSIGNAL), address,
                           socklen_t(length))
                }
            }
        }
        return true
    }
}
