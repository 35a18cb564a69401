// SPDX-License-Identifier: Apache-2.0
/// A network prefix, `192.168.1.0/24` or `2001:db8::/64`: an address with the bits past
/// `length` cleared. What `[Network] Prefix=` names and a virtual router's network ID
/// includes (`NetworkFacts`).
public struct IPPrefix: Hashable, Sendable, CustomStringConvertible {
    public let address: IPAddress
    public let length: UInt8

    /// The prefix of `length` bits holding `address` (its bits past `length` cleared);
    /// nil when `length` is longer than the address.
    public init?(_ address: IPAddress, length: UInt8) {
        guard Int(length) <= address.family.addressBits else { return nil }
        var bytes = address.bytes
        for index in bytes.indices {
            let kept = min(max(Int(length) - 8 * index, 0), 8)
            bytes[index] &= kept == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
        }
        guard let masked = IPAddress(bytes: bytes) else { return nil }
        self.address = masked
        self.length = length
    }

    /// `ADDRESS/LENGTH`, the address's bits past the length allowed (`192.168.1.7/24`
    /// is `192.168.1.0/24`, as `ip route` takes it); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let address = IPAddress(String(parts[0])),
              parts[1].utf8.count <= 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
              let length = UInt8(parts[1]) else { return nil }
        self.init(address, length: length)
    }

    /// Whether `other` lies in this prefix (same family, the first `length` bits agree).
    public func contains(_ other: IPAddress) -> Bool {
        other.family == address.family && IPPrefix(other, length: length)?.address == address
    }

    public var description: String { "\(address)/\(length)" }
}
