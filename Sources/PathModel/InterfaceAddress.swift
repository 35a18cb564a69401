// SPDX-License-Identifier: Apache-2.0
/// Address flags (`IFA_F_*`, `<linux/if_addr.h>`), only those pathd reads.
public struct AddressFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let secondary = AddressFlags(rawValue: 0x01)
    public static let noDAD = AddressFlags(rawValue: 0x02)
    public static let optimistic = AddressFlags(rawValue: 0x04)
    /// IFA_F_DADFAILED: duplicate address detection failed; never usable.
    public static let dadFailed = AddressFlags(rawValue: 0x08)
    /// IFA_F_DEPRECATED: usable, not preferred for new connections.
    public static let deprecated = AddressFlags(rawValue: 0x20)
    /// IFA_F_TENTATIVE: DAD still running; the kernel will not source traffic from it.
    public static let tentative = AddressFlags(rawValue: 0x40)
    public static let permanent = AddressFlags(rawValue: 0x80)
}

/// Scope of an address (`ifa_scope`) or a route (`rtm_scope`): `RT_SCOPE_*` in
/// `<linux/rtnetlink.h>`. A smaller value reaches farther.
public struct AddressScope: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// RT_SCOPE_UNIVERSE: global.
    public static let universe = AddressScope(rawValue: 0)
    /// RT_SCOPE_LINK.
    public static let link = AddressScope(rawValue: 253)
    /// RT_SCOPE_HOST: only this host (127.0.0.1, ::1).
    public static let host = AddressScope(rawValue: 254)

    /// Whether this scope reaches at least as far as `other` (the kernel compares the
    /// numbers: `ifa_scope <= scope`).
    public func reaches(_ other: AddressScope) -> Bool { rawValue <= other.rawValue }
}

/// One address on one interface, as RTM_NEWADDR reported it.
public struct InterfaceAddress: Hashable, Sendable {
    public var interface: InterfaceIndex
    public var address: IPAddress
    public var prefixLength: UInt8
    public var flags: AddressFlags
    public var scope: AddressScope

    public init(interface: InterfaceIndex, address: IPAddress, prefixLength: UInt8,
                flags: AddressFlags = [], scope: AddressScope = .universe) {
        self.interface = interface
        self.address = address
        self.prefixLength = prefixLength
        self.flags = flags
        self.scope = scope
    }

    /// What identifies an address to the kernel: RTM_DELADDR names it by these.
    public struct Key: Hashable, Sendable {
        public var interface: InterfaceIndex
        public var address: IPAddress
        public var prefixLength: UInt8

        public init(interface: InterfaceIndex, address: IPAddress, prefixLength: UInt8) {
            self.interface = interface
            self.address = address
            self.prefixLength = prefixLength
        }
    }

    public var key: Key { Key(interface: interface, address: address, prefixLength: prefixLength) }

    public var family: AddressFamily { address.family }

}
