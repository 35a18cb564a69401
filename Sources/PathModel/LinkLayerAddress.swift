// SPDX-License-Identifier: Apache-2.0
/// A link-layer (hardware) address as the neighbour table holds it (`NDA_LLADDR`): an
/// Ethernet or Wi-Fi MAC (6 bytes), or another medium's (InfiniBand's 20). Written as
/// `ip neigh` writes it, lowercase hexadecimal pairs joined by colons.
public struct LinkLayerAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The most bytes a link-layer address has on Linux (`MAX_ADDR_LEN`).
    public static let maximumBytes = 32

    public let bytes: [UInt8]

    /// nil for no bytes or more than `maximumBytes`.
    public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        guard (1...Self.maximumBytes).contains(bytes.count) else { return nil }
        self.bytes = Array(bytes)
    }

    /// Pairs of hexadecimal digits (either case) joined by `:` or `-`, all with the same
    /// separator: `00:00:5e:00:01:01`, `00-00-5E-00-01-01`. Each pair has two digits.
    /// nil for anything else.
    public init?(_ text: String) {
        guard let bytes = Self.pairs(text) else { return nil }
        self.init(bytes: bytes)
    }

    /// The bytes of text written as `init(_:)` reads it, of any count from 1 (an OUI
    /// prefix is 3): what `GatewayMAC=` reads too.
    public static func pairs(_ text: String) -> [UInt8]? {
        let separator: Character = text.contains("-") ? "-" : ":"
        let parts = text.split(separator: separator, omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= maximumBytes else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.utf8.count == 2, let byte = Hexadecimal.bytes(String(part)) else { return nil }
            bytes += byte
        }
        return bytes
    }

    public var description: String {
        bytes.map { Hexadecimal.text([$0]) }.joined(separator: ":")
    }

    public static func < (left: LinkLayerAddress, right: LinkLayerAddress) -> Bool {
        left.bytes.lexicographicallyPrecedes(right.bytes)
    }

    /// Whether this is a well-known virtual router's MAC, which thousands of sites share,
    /// so that it names no network alone: VRRP's `00:00:5e:00:01:XX` (IPv4) and
    /// `00:00:5e:00:02:XX` (IPv6) (RFC 5798 §7.3), HSRP version 1's `00:00:0c:07:ac:XX`
    /// and version 2's `00:00:0c:9f:fX:XX` (Cisco; the group in the last 12 bits).
    public var isVirtualRouter: Bool {
        guard bytes.count == 6 else { return false }
        let vrrp = bytes[0...3] == [0x00, 0x00, 0x5e, 0x00] && (bytes[4] == 0x01 || bytes[4] == 0x02)
        let hsrp1 = bytes[0...4] == [0x00, 0x00, 0x0c, 0x07, 0xac]
        let hsrp2 = bytes[0...3] == [0x00, 0x00, 0x0c, 0x9f] && bytes[4] & 0xF0 == 0xF0
        return vrrp || hsrp1 || hsrp2
    }
}
