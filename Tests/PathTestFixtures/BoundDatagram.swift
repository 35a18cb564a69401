// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel

/// Real traffic from a program bound to one interface (SO_BINDTODEVICE, socket(7)), as
/// NWPathMonitor's `requiredInterface` or `IP_UNICAST_IF` bind it: what decides which
/// interfaces can carry a path (docs/ARCHITECTURE.md, "Which interfaces can carry
/// traffic"). A `Receiver` in the peer namespace tells which interface it arrived by.
public enum BoundDatagram {
    /// Sends one UDP datagram to `destination`:`port` from a socket in `namespace` bound
    /// to `interface` ("" for an unbound socket). Returns nil when sendto(2) took it,
    /// else the errno it failed with (ENETUNREACH, EHOSTUNREACH, EACCES, EINVAL: the
    /// route refused it).
    public static func send(in namespace: NetworkNamespace, through interface: String, to destination: IPAddress,
                            port: UInt16) throws -> Int32? {
        try namespace.onJoinedThread {
            let socket = try Self.socket(for: destination.family, boundTo: interface)
            defer { close(socket) }
            let sent = Self.withAddress(destination, port: port) { address, length in
                sendto(socket, "pathd", 5, 0, address, length)
            }
            return sent < 0 ? errno : nil
        }
    }

    /// A UDP socket in a namespace, bound to an address and port and to one interface:
    /// it receives only what arrives by that interface.
    public final class Receiver {
        private let socket: Int32

        public init(in namespace: NetworkNamespace, on interface: String, address: IPAddress, port: UInt16) throws {
            socket = try namespace.onJoinedThread {
                let socket = try BoundDatagram.socket(for: address.family, boundTo: interface)
                let bound = BoundDatagram.withAddress(address, port: port) { bind(socket, $0, $1) }
                guard bound == 0 else {
                    let error = errno
                    close(socket)
                    throw HarnessError.posix("bind(\(address) port \(port))", errno: error)
                }
                return socket
            }
        }

        deinit { close(socket) }

        /// Waits for one datagram, at most `seconds`; false when none arrived by then.
        public func receivesDatagram(within seconds: Int32 = 5) -> Bool {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, seconds * 1000) == 1 else { return false }
            var byte: UInt8 = 0
            return recv(socket, &byte, 1, 0) >= 0
        }
    }

    fileprivate static func socket(for family: AddressFamily, boundTo interface: String) throws -> Int32 {
        let socket = Glibc.socket(family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_DGRAM.rawValue), 0)
        guard socket >= 0 else { throw HarnessError.posix("socket(SOCK_DGRAM)", errno: errno) }
        guard !interface.isEmpty else { return socket }
        let result = interface.withCString {
            setsockopt(socket, SOL_SOCKET, SO_BINDTODEVICE, $0, socklen_t(strlen($0) + 1))
        }
        guard result == 0 else {
            let error = errno
            close(socket)
            throw HarnessError.posix("setsockopt(SO_BINDTODEVICE, \(interface))", errno: error)
        }
        return socket
    }

    fileprivate static func withAddress<Result>(_ address: IPAddress, port: UInt16,
                                                _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        switch address.family {
        case .ipv4:
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin_addr) { $0.copyBytes(from: address.bytes) }
            return withGeneric(&socketAddress, body)
        case .ipv6:
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin6_addr) { $0.copyBytes(from: address.bytes) }
            return withGeneric(&socketAddress, body)
        }
    }

    /// A `sockaddr_in` or `sockaddr_in6` as the `struct sockaddr *` and length the calls take.
    private static func withGeneric<Address, Result>(_ address: inout Address,
                                                     _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }
}
