// SPDX-License-Identifier: Apache-2.0
/// A link-layer (hardware) address as the neighbour table holds it (`NDA_LLADDR`): an
/// Ethernet or Wi-Fi MAC (6 bytes), or another medium's (InfiniBand's 20). Written as
/// `ip neigh` writes it, lowercase hexadecimal pairs joined by colons.
public struct LinkLayerAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The most bytes a link-layer address has on Linux (`MAX_ADDR_LEN`).
    public static let maximumBytes = 32

    /// The bytes in place: four big-endian words holding them from the first word's most
    /// significant byte on, zeros after them, and their count. A gateway's neighbour
    /// entry and its network's facts each hold one, read cold before each change's line,
    /// and an array would be a heap object of its own. Zeros after the bytes keep
    /// equality and hashing by the stored values; order is the bytes' (`<`).
    private let word0: UInt64, word1: UInt64, word2: UInt64, word3: UInt64
    private let count: UInt8

    public var bytes: [UInt8] {
        let count = Int(count)
        return [word0, word1, word2, word3].enumerated().flatMap { index, word in
            BigEndianWords.bytes(of: word, count: max(0, min(8, count - 8 * index)))
        }
    }

    /// nil for no bytes or more than `maximumBytes`.
    public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        guard (1...Self.maximumBytes).contains(bytes.count) else { return nil }
        let bytes = Array(bytes)
        func word(_ index: Int) -> UInt64 {
            BigEndianWords.word(bytes[min(8 * index, bytes.count)..<min(8 * index + 8, bytes.count)])
        }
        (word0, word1, word2, word3) = (word(0), word(1), word(2), word(3))
        count = UInt8(bytes.count)
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

    /// The bytes' lexicographic order: the words padded with zeros decide, and where
    /// they tie, the shorter address (a prefix of the other) comes first.
    public static func < (left: LinkLayerAddress, right: LinkLayerAddress) -> Bool {
        (left.word0, left.word1, left.word2, left.word3, left.count)
            < (right.word0, right.word1, right.word2, right.word3, right.count)
    }

    /// Whether this is a well-known virtual router's MAC, which thousands of sites share,
    /// so that it names no network alone: VRRP's `00:00:5e:00:01:XX` (IPv4) and
    /// `00:00:5e:00:02:XX` (IPv6) (RFC 5798 §7.3), HSRP version 1's `00:00:0c:07:ac:XX`
    /// and version 2's `00:00:0c:9f:fX:XX` (Cisco; the group in the last 12 bits).
    public var isVirtualRouter: Bool {
        guard count == 6 else { return false }
        // The six bytes are word0's top 48 bits: the first four, then the fifth.
        let (first4, fifth) = (word0 >> 32, UInt8(truncatingIfNeeded: word0 >> 24))
        let vrrp = first4 == 0x0000_5e00 && (fifth == 0x01 || fifth == 0x02)
        let hsrp1 = first4 == 0x0000_0c07 && fifth == 0xac
        let hsrp2 = first4 == 0x0000_0c9f && fifth & 0xF0 == 0xF0
        return vrrp || hsrp1 || hsrp2
    }
}
