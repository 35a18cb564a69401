import CLinux
import Glibc

/// A filesystem Unix socket address (`struct sockaddr_un`, see unix(7)).
struct UnixSocketAddress {
    private(set) var storage = sockaddr_un()

    /// Fails when the path does not fit in `sun_path` (108 bytes with its NUL on Linux).
    init(path: String) throws(DaemonError) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < pathd_sun_path_size() else {
            throw DaemonError("socket path \"\(path)\" is empty or longer than \(pathd_sun_path_size() - 1) bytes")
        }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
    }

    func withSockaddr<Result, Failure: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafePointer(to: storage) { (pointer) throws(Failure) -> Result in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(Failure) -> Result in
                try body(address, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}

/// An error the daemon reports and exits on, with a message for a person.
public struct DaemonError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
