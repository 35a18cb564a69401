// SPDX-License-Identifier: Apache-2.0
/// A kernel interface index (`ifindex`, as in `if_nametoindex(3)` and `ifi_index` of
/// `struct ifinfomsg`). Zero is never a valid interface.
public struct InterfaceIndex: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static func < (lhs: InterfaceIndex, rhs: InterfaceIndex) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}

/// An address family as rtnetlink reports it (`AF_INET`, `AF_INET6`).
public enum AddressFamily: String, Hashable, Sendable, CaseIterable {
    case ipv4
    case ipv6

    /// The Linux `AF_*` constant (`AF_INET` = 2, `AF_INET6` = 10, from `<sys/socket.h>`).
    public var linuxValue: UInt8 {
        switch self {
        case .ipv4: 2
        case .ipv6: 10
        }
    }

    /// Bits in an address of this family: the longest prefix.
    public var addressBits: Int {
        switch self {
        case .ipv4: 32
        case .ipv6: 128
        }
    }

    public init?(linuxValue: UInt8) {
        switch linuxValue {
        case 2: self = .ipv4
        case 10: self = .ipv6
        default: return nil
        }
    }

    /// Hashed as its number, not as its name: the snapshot's tables of answers are keyed
    /// by family and read at every evaluation, and a name's hash walks its string.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(linuxValue)
    }
}

/// Some of the two address families, as two bits. Where a `Set<AddressFamily>` allocates
/// its storage (and asks the runtime for its metadata) when the first family goes in,
/// at each route message before the change's line, this is a byte.
public struct AddressFamilies: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public init(_ family: AddressFamily) {
        self.init(rawValue: family == .ipv4 ? 1 : 2)
    }

    public static var ipv4: AddressFamilies { AddressFamilies(.ipv4) }
    public static var ipv6: AddressFamilies { AddressFamilies(.ipv6) }
    public static var all: AddressFamilies { [.ipv4, .ipv6] }

    public func contains(_ family: AddressFamily) -> Bool {
        contains(AddressFamilies(family))
    }

    /// The families, IPv4 first.
    public var families: [AddressFamily] {
        AddressFamily.allCases.filter(contains)
    }
}
