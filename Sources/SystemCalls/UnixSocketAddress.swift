// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A filesystem Unix socket address (`struct sockaddr_un`, see unix(7)).
public struct UnixSocketAddress: Sendable {
    /// Bytes of `sun_path`, its terminating NUL included (108 on Linux).
    public static let pathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    public let path: String
    private var storage = sockaddr_un()

    /// Fails when the path is empty or does not fit in `sun_path` with its NUL.
    public init(path: String) throws(AddressError) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < Self.pathCapacity, !bytes.contains(0) else {
            throw AddressError(path: path)
        }
        self.path = path
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
    }

    public func withSockaddr<Result, Failure: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafePointer(to: storage) { (pointer) throws(Failure) -> Result in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(Failure) -> Result in
                try body(address, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// A path that cannot be a Unix socket address.
    public struct AddressError: Error, Sendable, CustomStringConvertible {
        public let path: String
        public var description: String {
            "socket path \"\(path)\" is empty, contains a NUL or is longer than "
                + "\(UnixSocketAddress.pathCapacity - 1) bytes"
        }
    }
}
