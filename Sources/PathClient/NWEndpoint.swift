// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import PathModel

/// Where traffic goes, as Apple's Network framework names it. pathd reports gateways as
/// `.hostPort(host: .ipv4(…) or .ipv6(…), port: 0)`.
public enum NWEndpoint: Hashable, Sendable, CustomDebugStringConvertible {
    /// A host and a port: how pathd's gateways come (port 0).
    case hostPort(host: NWEndpoint.Host, port: NWEndpoint.Port)
    /// A DNS-SD service (for code that builds endpoints; pathd reports none).
    case service(name: String, type: String, domain: String, interface: NWInterface?)
    /// A Unix domain socket.
    case unix(path: String)
    /// A URL.
    case url(URL)

    /// A host by name or address.
    public enum Host: Hashable, Sendable, CustomDebugStringConvertible, ExpressibleByStringLiteral {
        /// A name to resolve, optionally scoped to an interface.
        case name(String, NWInterface?)
        /// An IPv4 address.
        case ipv4(IPv4Address)
        /// An IPv6 address.
        case ipv6(IPv6Address)

        /// An address when the text is one, a name otherwise.
        public init(_ string: String) {
            if let v4 = IPv4Address(string) {
                self = .ipv4(v4)
            } else if let v6 = IPv6Address(string) {
                self = .ipv6(v6)
            } else {
                self = .name(string, nil)
            }
        }

        /// `init(_:)` of the literal: `"192.0.2.1"` is an address, `"example.com"` a name.
        public init(stringLiteral value: String) { self.init(value) }

        /// The interface a name or link-local address is scoped to.
        public var interface: NWInterface? {
            switch self {
            case .name(_, let interface): interface
            case .ipv4(let address): address.interface
            case .ipv6(let address): address.interface
            }
        }

        /// The name or the address's text.
        public var debugDescription: String {
            switch self {
            case .name(let name, _): name
            case .ipv4(let address): address.debugDescription
            case .ipv6(let address): address.debugDescription
            }
        }
    }

    /// A port number.
    public struct Port: Hashable, Sendable, RawRepresentable, ExpressibleByIntegerLiteral,
                        CustomDebugStringConvertible {
        /// The port number.
        public let rawValue: UInt16
        /// A port by number (never nil: every UInt16 is a port).
        public init?(rawValue: UInt16) { self.rawValue = rawValue }
        /// A port from an integer literal: `443`.
        public init(integerLiteral value: UInt16) { rawValue = value }

        /// A decimal port number ("443"); nil for anything else.
        public init?(_ string: String) {
            guard let value = UInt16(string) else { return nil }
            rawValue = value
        }

        /// The number in decimal.
        public var debugDescription: String { String(rawValue) }

        /// 0: any port (and the port of every gateway pathd reports).
        public static let any: Port = 0
        /// 22
        public static let ssh: Port = 22
        /// 25
        public static let smtp: Port = 25
        /// 80
        public static let http: Port = 80
        /// 110
        public static let pop: Port = 110
        /// 143
        public static let imap: Port = 143
        /// 443
        public static let https: Port = 443
        /// 993
        public static let imaps: Port = 993
        /// 1080
        public static let socks: Port = 1080
    }

    /// The interface the endpoint is scoped to, if any.
    public var interface: NWInterface? {
        switch self {
        case .hostPort(let host, _): host.interface
        case .service(_, _, _, let interface): interface
        case .unix, .url: nil
        }
    }

    /// "host:port" ("[v6]:port" for an IPv6 address), the service's name, type and
    /// domain, the socket path or the URL.
    public var debugDescription: String {
        switch self {
        case .hostPort(let host, let port):
            if case .ipv6 = host { return "[\(host.debugDescription)]:\(port.rawValue)" }
            return "\(host.debugDescription):\(port.rawValue)"
        case .service(let name, let type, let domain, _): return "\(name).\(type)\(domain)"
        case .unix(let path): return path
        case .url(let url): return url.absoluteString
        }
    }

    /// A gateway as a path reports it: the address, port 0.
    init(gateway: PathModel.IPAddress) {
        switch gateway {
        case .v4(let value): self = .hostPort(host: .ipv4(IPv4Address(value: value)), port: .any)
        case .v6(let high, let low): self = .hostPort(host: .ipv6(IPv6Address(high: high, low: low)), port: .any)
        }
    }
}
