// SPDX-License-Identifier: Apache-2.0
/// An IPv4 or IPv6 address as a value, with the textual forms of `inet_ntop(3)` /
/// RFC 5952 and a parser for the same. Pure: no libc, so PathModel stays I/O-free.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address as a number, most significant octet first (192.0.2.1 = 0xC000_0201).
    case v4(UInt32)
    /// The address as two numbers, most significant octet first.
    case v6(high: UInt64, low: UInt64)

    public var family: AddressFamily {
        switch self {
        case .v4: .ipv4
        case .v6: .ipv6
        }
    }

    /// Builds an address from its network-order bytes (4 or 16 of them). Inlinable, so
    /// that a caller decoding kernel messages gets it specialized for its buffer type
    /// (unspecialized, it was the costliest step of reading a lookup's reply).
    @inlinable
    public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        switch bytes.count {
        case 4:
            self = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        case 16:
            var high: UInt64 = 0
            var low: UInt64 = 0
            for (offset, byte) in bytes.enumerated() {
                if offset < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
            }
            self = .v6(high: high, low: low)
        default:
            return nil
        }
    }

    /// The network-order bytes.
    public var bytes: [UInt8] {
        switch self {
        case .v4(let value):
            return (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
        case .v6(let high, let low):
            return (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
                + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        }
    }

    /// 0.0.0.0 or :: (INADDR_ANY, in6addr_any): no address at all.
    public var isUnspecified: Bool {
        switch self {
        case .v4(let value): value == 0
        case .v6(let high, let low): high == 0 && low == 0
        }
    }

    /// In 127.0.0.0/8, or ::1: this host.
    public var isLoopback: Bool {
        switch self {
        case .v4(let value): value >> 24 == 127
        case .v6(let high, let low): high == 0 && low == 1
        }
    }

    /// In 169.254.0.0/16 (RFC 3927) or fe80::/10 (RFC 4291 §2.5.6): valid on one link
    /// only; routers do not forward it.
    public var isLinkLocal: Bool {
        switch self {
        case .v4(let value): value >> 16 == 0xA9FE
        case .v6(let high, _): high >> 54 == 0x3FA
        }
    }

    /// In 224.0.0.0/4 or ff00::/8.
    public var isMulticast: Bool {
        switch self {
        case .v4(let value): value >> 28 == 0xE
        case .v6(let high, _): high >> 56 == 0xFF
        }
    }

    /// 255.255.255.255, the limited broadcast (RFC 919): never routed.
    public var isLimitedBroadcast: Bool { self == .v4(0xFFFF_FFFF) }

    /// ::ffff:a.b.c.d (RFC 4291 §2.5.5.2): an IPv4 host written as IPv6.
    public var isIPv4Mapped: Bool {
        if case .v6(0, let low) = self { return low >> 32 == 0xFFFF }
        return false
    }

    /// Where a socket sends traffic addressed to this address, whose route is therefore
    /// the one to ask the kernel about (the kernel's lookup of the address as written
    /// would answer for a packet that is never sent):
    ///
    /// - an IPv4-mapped IPv6 address (::ffff:a.b.c.d, RFC 4291 §2.5.5.2): its IPv4
    ///   address. An AF_INET6 socket sends to it as IPv4 (net/ipv6/udp.c, tcp_ipv6.c hand
    ///   it to the IPv4 code).
    /// - the unspecified IPv6 address `::`: `::1`. connect(2) of a TCP or UDP socket and
    ///   sendto(2) of a UDP one send to the loopback address instead (tcp_v6_connect,
    ///   ip6_datagram_connect, udpv6_sendmsg: ":: means loopback (BSD'ism)"), while the
    ///   kernel's route lookup for `::` answers with the default route.
    /// - anything else, 0.0.0.0 included: itself. For 0.0.0.0 the kernel's own lookup is
    ///   what connect(2) does (`ip_route_output_key_hash_rcu` sends it to loopback, `local
    ///   0.0.0.0 dev lo`).
    public var socketDestination: IPAddress {
        if isIPv4Mapped, case .v6(_, let low) = self { return .v4(UInt32(truncatingIfNeeded: low)) }
        if self == .v6(high: 0, low: 0) { return .v6(high: 0, low: 1) }
        return self
    }

    /// Whether traffic to this address stays on one link, so that a link-local source
    /// is what the kernel uses and all it needs: IPv6 link-local unicast (fe80::/10) and
    /// multicast of interface- or link-local scope (ffx1::/16, ffx2::/16, RFC 4291
    /// §2.7); IPv4 link-local (169.254.0.0/16, RFC 3927), the local network control
    /// block (224.0.0.0/24, never forwarded, RFC 5771) and the limited broadcast
    /// 255.255.255.255. These are also the IPv6 addresses a zone ("%eth0") qualifies.
    public var isLinkScoped: Bool {
        switch self {
        case .v4(let value):
            return value >> 16 == 0xA9FE || value >> 8 == 0xE0_0000 || value == 0xFFFF_FFFF
        case .v6(let high, _):
            if isLinkLocal { return true }
            let scope = (high >> 48) & 0xF
            return isMulticast && (scope == 1 || scope == 2)
        }
    }

    /// Why this address cannot stand for a host out on the Internet, in words naming its
    /// block ("a loopback address (127.0.0.0/8)"); nil for any other unicast address,
    /// private and documentation ones included. A route lookup for such an address asks
    /// about this host, one link or a group, never about the way out.
    public var notAnInternetHost: String? {
        let v4 = family == .ipv4
        if isUnspecified { return "the unspecified address" }
        if isLoopback { return v4 ? "a loopback address (127.0.0.0/8)" : "the loopback address" }
        if isMulticast { return "a multicast address (\(v4 ? "224.0.0.0/4" : "ff00::/8"))" }
        if isLinkLocal { return "a link-local address (\(v4 ? "169.254.0.0/16" : "fe80::/10"))" }
        if isLimitedBroadcast { return "the broadcast address" }
        if isIPv4Mapped { return "an IPv4-mapped address (::ffff:0:0/96)" }
        return nil
    }

    /// As inet_ntop(3) writes it (RFC 5952 for IPv6). Written into bytes, with no string
    /// per part: every path line formats its gateways (`appendText`).
    public var description: String {
        var text: [UInt8] = []
        text.reserveCapacity(45)
        appendText(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `description`'s text, written after `text`'s bytes: what a JSON line writes in
    /// place (`JSONWriter`), with no string made only to be copied.
    public func appendText(to text: inout [UInt8]) {
        switch self {
        case .v4(let value):
            Self.appendDotted(value, to: &text)
        case .v6(0, let low) where low >> 32 == 0xFFFF:
            // IPv4-mapped: RFC 5952 section 5 and inet_ntop(3) use a dotted tail.
            text += Array("::ffff:".utf8)
            Self.appendDotted(UInt32(truncatingIfNeeded: low), to: &text)
        case .v6(let high, let low):
            let groups = (0..<8).map { UInt16(truncatingIfNeeded: ($0 < 4 ? high : low) >> (48 - 16 * ($0 % 4))) }
            Self.appendIPv6(groups: groups, to: &text)
        }
    }

    private static func appendDotted(_ value: UInt32, to text: inout [UInt8]) {
        for part in 0..<4 {
            if part > 0 { text.append(UInt8(ascii: ".")) }
            DecimalDigits.append(UInt64(truncatingIfNeeded: value >> (24 - 8 * part)) & 0xFF, to: &text)
        }
    }

    /// RFC 5952: lower case, no leading zeros, the longest run (two or more) of zero
    /// groups, the first one on a tie, shortened to "::".
    private static func appendIPv6(groups: [UInt16], to text: inout [UInt8]) {
        var bestStart = -1
        var bestLength = 0
        var index = 0
        while index < 8 {
            if groups[index] == 0 {
                var end = index
                while end < 8 && groups[end] == 0 { end += 1 }
                if end - index > bestLength && end - index >= 2 {
                    bestStart = index
                    bestLength = end - index
                }
                index = end
            } else {
                index += 1
            }
        }
        func hex(_ range: Range<Int>) {
            for index in range {
                if index > range.lowerBound { text.append(UInt8(ascii: ":")) }
                let group = groups[index]
                var shift = 12
                while shift > 0 && group >> UInt16(shift) == 0 { shift -= 4 }
                while shift >= 0 {
                    text.append(Hexadecimal.digit(UInt8(truncatingIfNeeded: group >> UInt16(shift)) & 0xF))
                    shift -= 4
                }
            }
        }
        if bestStart < 0 { return hex(0..<8) }
        hex(0..<bestStart)
        text += [UInt8(ascii: ":"), UInt8(ascii: ":")]
        hex((bestStart + bestLength)..<8)
    }

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text (with "::" and an embedded IPv4
    /// tail). Returns nil for anything else, including zone suffixes ("%eth0").
    public init?(_ text: String) {
        if text.contains(":") {
            guard let value = Self.parseIPv6(Substring(text)) else { return nil }
            self = value
        } else {
            guard let value = Self.parseIPv4(Substring(text)) else { return nil }
            self = .v4(value)
        }
    }

    private static func parseIPv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let octet = UInt32(part), octet <= 255,
                  part.count == 1 || part.first != "0" else { return nil }
            value = value << 8 | octet
        }
        return value
    }

    private static func parseIPv6(_ text: Substring) -> IPAddress? {
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring, allowIPv4Tail: Bool) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            for (offset, field) in fields.enumerated() {
                if allowIPv4Tail && offset == fields.count - 1 && field.contains(".") {
                    guard let v4 = parseIPv4(field) else { return nil }
                    result.append(UInt16(v4 >> 16))
                    result.append(UInt16(v4 & 0xFFFF))
                } else {
                    guard (1...4).contains(field.count), field.allSatisfy(\.isHexDigit),
                          let group = UInt16(field, radix: 16) else { return nil }
                    result.append(group)
                }
            }
            return result
        }
        var all: [UInt16]
        if halves.count == 2 {
            guard let head = groups(Substring(halves[0]), allowIPv4Tail: false),
                  let tail = groups(Substring(halves[1]), allowIPv4Tail: true),
                  head.count + tail.count <= 7 else { return nil }
            all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard let only = groups(text, allowIPv4Tail: true), only.count == 8 else { return nil }
            all = only
        }
        let bytes = all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        return IPAddress(bytes: bytes)
    }
}
