// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Names to addresses through the system resolver, `getaddrinfo(3)`: /etc/hosts, DNS,
/// NSS modules (systemd-resolved, mDNS), in the order nsswitch.conf says. Blocking, as
/// getaddrinfo is; call it off any queue that must stay responsive.
public enum HostResolver {
    /// Why a name gave no address: `getaddrinfo`'s error, in `gai_strerror(3)`'s words.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The `EAI_*` value (`<netdb.h>`).
        public let code: Int32
        public let description: String
    }

    /// Every address of `name`, IPv6 and IPv4, each once, in the order the resolver
    /// sorts them (RFC 6724 for glibc). No AI_ADDRCONFIG: an address of a family this
    /// host cannot reach now is still one of the name's, and the caller wants to know
    /// why it cannot be reached. An address literal comes back as itself. Each address is
    /// its network-order bytes, 4 or 16 of them.
    public static func addresses(of name: String) throws(Failure) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        // One entry per address rather than one per socket type.
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0 else {
            let words = gai_strerror(status).map { String(cString: $0) } ?? "error \(status)"
            // EAI_SYSTEM puts the real reason in errno.
            let detail = status == EAI_SYSTEM ? "\(words): \(Errno.current)" : words
            throw Failure(code: status, description: detail)
        }
        defer { freeaddrinfo(list) }
        var result: [[UInt8]] = []
        var entry = list
        while let current = entry?.pointee {
            entry = current.ai_next
            guard let socketAddress = current.ai_addr else { continue }
            let bytes: [UInt8]
            switch current.ai_family {
            case AF_INET:
                bytes = UnsafeRawPointer(socketAddress).withMemoryRebound(to: sockaddr_in.self,
                                                                          capacity: 1) { address in
                    withUnsafeBytes(of: address.pointee.sin_addr) { Array($0) }
                }
            case AF_INET6:
                bytes = UnsafeRawPointer(socketAddress).withMemoryRebound(to: sockaddr_in6.self,
                                                                          capacity: 1) { address in
                    withUnsafeBytes(of: address.pointee.sin6_addr) { Array($0) }
                }
            default:
                continue
            }
            if !result.contains(bytes) { result.append(bytes) }
        }
        return result
    }
}
