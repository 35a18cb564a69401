// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import PathModel

/// An IP address, as Apple's Network framework models one (`IPv4Address`, `IPv6Address`):
/// `Sendable`, as Apple declares it, so that an app's own conforming type (an enum of
/// either family, say) can be stored in its `Sendable` values.
public protocol IPAddress: Sendable {
    /// The address in network byte order.
    var rawValue: Data { get }
    /// Parses the address's text; nil when it is not an address of this family.
    init?(_ string: String)
    /// Builds an address from network-order bytes of the right length.
    init?(_ rawValue: Data, _ interface: NWInterface?)
    /// The interface a link-local address is scoped to, if any.
    var interface: NWInterface? { get }
    var isLoopback: Bool { get }
    var isLinkLocal: Bool { get }
    var isMulticast: Bool { get }
}

/// An IPv4 address (Apple's `IPv4Address`).
public struct IPv4Address: IPAddress, Hashable, Sendable, CustomDebugStringConvertible {
    let value: UInt32
    /// The interface the address is scoped to; pathd's gateways carry none.
    public let interface: NWInterface?

    init(value: UInt32, interface: NWInterface? = nil) {
        self.value = value
        self.interface = interface
    }

    /// Parses dotted-quad text ("192.0.2.1"); nil for anything else.
    public init?(_ string: String) {
        guard case .v4(let value)? = PathModel.IPAddress(string) else { return nil }
        self.init(value: value)
    }

    /// The address in four network-order bytes; nil for any other length.
    public init?(_ rawValue: Data, _ interface: NWInterface? = nil) {
        guard rawValue.count == 4, case .v4(let value)? = PathModel.IPAddress(bytes: rawValue) else { return nil }
        self.init(value: value, interface: interface)
    }

    /// The four bytes, in network order.
    public var rawValue: Data { Data(PathModel.IPAddress.v4(value).bytes) }
    /// In 127.0.0.0/8.
    public var isLoopback: Bool { PathModel.IPAddress.v4(value).isLoopback }
    /// In 169.254.0.0/16.
    public var isLinkLocal: Bool { PathModel.IPAddress.v4(value).isLinkLocal }
    /// In 224.0.0.0/4.
    public var isMulticast: Bool { PathModel.IPAddress.v4(value).isMulticast }
    /// Dotted-quad text ("192.0.2.1").
    public var debugDescription: String { PathModel.IPAddress.v4(value).description }

    /// 0.0.0.0
    public static let any = IPv4Address(value: 0)
    /// 255.255.255.255
    public static let broadcast = IPv4Address(value: 0xFFFF_FFFF)
    /// 127.0.0.1
    public static let loopback = IPv4Address(value: 0x7F00_0001)
    /// 224.0.0.1
    public static let allHostsGroup = IPv4Address(value: 0xE000_0001)
    /// 224.0.0.2
    public static let allRoutersGroup = IPv4Address(value: 0xE000_0002)
    /// 224.0.0.22
    public static let allReportsGroup = IPv4Address(value: 0xE000_0016)
    /// 224.0.0.251
    public static let mdnsGroup = IPv4Address(value: 0xE000_00FB)
}

/// An IPv6 address (Apple's `IPv6Address`).
public struct IPv6Address: IPAddress, Hashable, Sendable, CustomDebugStringConvertible {
    let high: UInt64
    let low: UInt64
    /// The interface a link-local address is scoped to; pathd's gateways carry none.
    public let interface: NWInterface?

    init(high: UInt64, low: UInt64, interface: NWInterface? = nil) {
        self.high = high
        self.low = low
        self.interface = interface
    }

    /// Parses RFC 4291 text ("2001:db8::1"); nil for anything else.
    public init?(_ string: String) {
        guard case .v6(let high, let low)? = PathModel.IPAddress(string) else { return nil }
        self.init(high: high, low: low)
    }

    /// The address in sixteen network-order bytes; nil for any other length.
    public init?(_ rawValue: Data, _ interface: NWInterface? = nil) {
        guard rawValue.count == 16, case .v6(let high, let low)? = PathModel.IPAddress(bytes: rawValue) else {
            return nil
        }
        self.init(high: high, low: low, interface: interface)
    }

    /// The sixteen bytes, in network order.
    public var rawValue: Data { Data(PathModel.IPAddress.v6(high: high, low: low).bytes) }
    /// ::1
    public var isLoopback: Bool { PathModel.IPAddress.v6(high: high, low: low).isLoopback }
    /// In fe80::/10.
    public var isLinkLocal: Bool { PathModel.IPAddress.v6(high: high, low: low).isLinkLocal }
    /// In ff00::/8.
    public var isMulticast: Bool { PathModel.IPAddress.v6(high: high, low: low).isMulticast }
    /// ::ffff:a.b.c.d
    public var isIPv4Mapped: Bool { PathModel.IPAddress.v6(high: high, low: low).isIPv4Mapped }
    /// fc00::/7
    public var isUniqueLocal: Bool { high >> 57 == 0x7E }
    /// The IPv4 address of an IPv4-mapped one.
    public var asIPv4: IPv4Address? { isIPv4Mapped ? IPv4Address(value: UInt32(truncatingIfNeeded: low)) : nil }
    /// RFC 5952 text ("2001:db8::1"), with "%interface" when scoped.
    public var debugDescription: String {
        PathModel.IPAddress.v6(high: high, low: low).description + (interface.map { "%" + $0.name } ?? "")
    }

    /// ::
    public static let any = IPv6Address(high: 0, low: 0)
    /// ::1
    public static let loopback = IPv6Address(high: 0, low: 1)
    /// ff01::1
    public static let nodeLocalNodes = IPv6Address(high: 0xFF01_0000_0000_0000, low: 1)
    /// ff02::1
    public static let linkLocalNodes = IPv6Address(high: 0xFF02_0000_0000_0000, low: 1)
    /// ff02::2
    public static let linkLocalRouters = IPv6Address(high: 0xFF02_0000_0000_0000, low: 2)
}
