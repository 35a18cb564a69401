// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import Testing

@Suite("IPAddress")
struct IPAddressTests {
    /// Texts already in canonical form (inet_ntop / RFC 5952): parse, then format back unchanged.
    @Test(arguments: [
        "0.0.0.0", "192.0.2.1", "255.255.255.255", "10.0.0.255",
        "2001:db8::1", "::", "::1", "1::", "fe80::1:2", "2001:db8::1:0:0:1",
        "2001:db8:0:1:1:1:1:1", "1:0:0:2::3", "2001:db8::2:1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:0", "0:2:3:4:5:6:7:8",
        "::ffff:192.0.2.1", "::ffff:0.0.0.0", "::fffe:c000:201", "::1:ffff:c000:201",
    ])
    func canonicalRoundTrip(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.description == text)
        #expect(IPAddress(address.description) == address)
    }

    /// Non-canonical input formats as RFC 5952 says: lower case, no leading zeros, the
    /// longest zero run (first on a tie) as "::", never "::" for one group.
    @Test(arguments: [
        ("2001:DB8::1", "2001:db8::1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:0db8:0000:0000:0001:0000:0000:0001", "2001:db8::1:0:0:1"),
        ("0:0:0:0:0:0:0:0", "::"),
        ("0:0:0:0:0:0:0:1", "::1"),
        ("1:0:0:0:0:0:0:0", "1::"),
        ("2001:db8:0:0:0:0:2:1", "2001:db8::2:1"),
        ("2001:db8::0:1", "2001:db8::1"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
        ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
        ("::0:2:3:4:5:6:7", "::2:3:4:5:6:7"),
        ("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"),
        ("FE80::A", "fe80::a"),
    ])
    func formatsCanonically(input: String, canonical: String) throws {
        let address = try #require(IPAddress(input))
        #expect(address.description == canonical)
    }

    @Test func embeddedIPv4Parses() throws {
        let mapped = try #require(IPAddress("::ffff:192.0.2.1"))
        #expect(mapped == .v6(high: 0, low: 0x0000_FFFF_C000_0201))
        #expect(mapped.family == .ipv6)
        let nat64 = try #require(IPAddress("64:ff9b::198.51.100.7"))
        #expect(nat64 == .v6(high: 0x0064_FF9B_0000_0000, low: 0x0000_0000_C633_6407))
        let full = try #require(IPAddress("0:0:0:0:0:ffff:192.0.2.1"))
        #expect(full == mapped)
    }

    @Test func ipv4MappedFormatsWithADottedTail() throws {
        // RFC 5952 section 5 and inet_ntop(3) print IPv4-mapped addresses in mixed notation.
        let mapped = try #require(IPAddress("::ffff:192.0.2.1"))
        #expect(mapped.description == "::ffff:192.0.2.1")
        #expect(IPAddress(mapped.description) == mapped)
    }

    @Test func ipv4Value() throws {
        let address = try #require(IPAddress("192.0.2.1"))
        #expect(address == .v4(0xC000_0201))
        #expect(address.family == .ipv4)
        #expect(IPAddress.v4(0x7F00_0001).description == "127.0.0.1")
    }

    @Test(arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.256", "01.1.1.1", "1.2.3.04", "1.2.3.", ".1.2.3",
        "1..2.3", " 1.2.3.4", "1.2.3.4 ", "+1.2.3.4", "1.2.3.-4", "1.2.3.4/24", "0x1.2.3.4", "1234.1.1.1",
        "\u{0661}.2.3.4",
        "1::2::3", "12345::", "g::1", ":::", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2:3:4:5:6:7:8",
        ":1::", "1:", ":1", "1::2:", "fe80::1%eth0", "::1.2.3", "::256.0.0.1", "1.2.3.4::", "::1.2.3.4:5",
        "1:2:3:4:5:6:7:1.2.3.4", "::ffff:01.2.3.4", "2001:db8::-1", "2001:db8:: 1", "[::1]",
    ])
    func rejectsInvalidText(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test(arguments: [
        ("fe80::1", true), ("fe80::", true), ("febf:ffff::1", true), ("FE9A::1", true),
        ("fec0::1", false), ("fe7f::1", false), ("2001:db8::1", false), ("::1", false), ("ff02::1", false),
        ("169.254.1.1", true), ("169.254.0.0", true), ("169.254.255.255", true), ("169.253.255.255", false),
        ("169.255.0.1", false), ("127.0.0.1", false),
    ])
    func linkLocal(text: String, isLinkLocal: Bool) throws {
        #expect(try #require(IPAddress(text)).isLinkLocal == isLinkLocal)
    }

    @Test(arguments: [
        ("0.0.0.0", "unspecified"), ("::", "unspecified"),
        ("127.0.0.1", "loopback"), ("127.255.255.254", "loopback"), ("::1", "loopback"),
        ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"), ("ff02::1", "multicast"), ("ff0e::fb",
                                                                                                 "multicast"),
        ("169.254.1.1", "linkLocal"), ("fe80::1", "linkLocal"),
        ("255.255.255.255", "broadcast"), ("::ffff:192.0.2.1", "ipv4Mapped"), ("::ffff:127.0.0.1", "ipv4Mapped"),
        ("203.0.113.1", ""), ("10.0.0.1", ""), ("1.1.1.1", ""), ("223.255.255.255", ""), ("240.0.0.1", ""),
        ("255.255.255.254", ""), ("128.0.0.1", ""), ("126.255.255.255", ""),
        ("2001:db8::1", ""), ("::2", ""), ("::ffff:0:0:1", ""), ("::fffe:c000:201", ""), ("fec0::1", ""),
        ("fc00::1", ""), ("feff::1", ""),
    ])
    func classifies(text: String, kind: String) throws {
        let address = try #require(IPAddress(text))
        let kinds = [("unspecified", address.isUnspecified), ("loopback", address.isLoopback),
                     ("multicast", address.isMulticast), ("linkLocal", address.isLinkLocal),
                     ("broadcast", address.isLimitedBroadcast), ("ipv4Mapped", address.isIPv4Mapped)]
        #expect(kinds.filter(\.1).map(\.0) == (kind.isEmpty ? [] : [kind]), "\(text)")
        #expect((address.notAnInternetHost == nil) == kind.isEmpty, "\(text)")
    }

    @Test(arguments: [
        ("0.0.0.0", "the unspecified address"), ("::", "the unspecified address"),
        ("127.0.0.1", "a loopback address (127.0.0.0/8)"), ("::1", "the loopback address"),
        ("224.0.0.1", "a multicast address (224.0.0.0/4)"), ("ff02::1", "a multicast address (ff00::/8)"),
        ("169.254.0.1", "a link-local address (169.254.0.0/16)"), ("fe80::1", "a link-local address (fe80::/10)"),
        ("255.255.255.255", "the broadcast address"), ("::ffff:203.0.113.1", "an IPv4-mapped address (::ffff:0:0/96)"),
    ])
    func saysWhyAnAddressIsNoInternetHost(text: String, words: String) throws {
        #expect(try #require(IPAddress(text)).notAnInternetHost == words)
    }

    @Test(arguments: ["192.0.2.1", "0.0.0.0", "255.0.128.1", "2001:db8::1", "::", "fe80::1:2", "ff02::fb",
                      "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::ffff:192.0.2.1"])
    func bytesRoundTrip(_ text: String) throws {
        let address = try #require(IPAddress(text))
        let bytes = address.bytes
        #expect(bytes.count == (address.family == .ipv4 ? 4 : 16))
        #expect(IPAddress(bytes: bytes) == address)
        #expect(IPAddress(bytes: bytes[...]) == address)
    }

    @Test func bytesAreInNetworkOrder() throws {
        #expect(try #require(IPAddress("192.0.2.1")).bytes == [192, 0, 2, 1])
        #expect(try #require(IPAddress("2001:db8::ff01")).bytes
            == [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0x01])
        #expect(IPAddress(bytes: [10, 1, 2, 3]) == .v4(0x0A01_0203))
        #expect(IPAddress(bytes: [UInt8](repeating: 0, count: 15) + [1]) == IPAddress("::1"))
    }

    @Test(arguments: [0, 1, 3, 5, 15, 17, 32])
    func bytesOfAnotherLengthAreRejected(count: Int) {
        #expect(IPAddress(bytes: [UInt8](repeating: 1, count: count)) == nil)
    }

    @Test("""
        traffic that stays on one link: IPv6 link-local and link-scope multicast, IPv4 link-local, 224.0.0.0/24, \
        255.255.255.255
        """,
          arguments: [
        ("fe80::1", true), ("febf::1", true), ("ff02::1", true), ("ff01::1", true), ("ff12::1:2", true),
        ("ff32::1", true), ("ff05::1", false), ("ff0e::1", false), ("ff03::1", false), ("2001:db8::1", false),
        ("::ffff:169.254.1.1", false), ("169.254.1.1", true), ("169.254.255.255", true), ("169.253.1.1", false),
        ("224.0.0.1", true), ("224.0.0.255", true), ("224.0.1.1", false), ("239.1.2.3", false),
        ("255.255.255.255", true), ("192.0.2.255", false), ("127.0.0.1", false),
    ])
    func linkScoped(text: String, isLinkScoped: Bool) throws {
        #expect(try #require(IPAddress(text)).isLinkScoped == isLinkScoped)
    }

    @Test("a socket sends to an IPv4-mapped address's IPv4 address, to ::1 for ::, to any other address itself",
          arguments: [
              ("::ffff:127.0.0.1", "127.0.0.1"), ("::ffff:198.51.100.7", "198.51.100.7"), ("::ffff:0.0.0.0", "0.0.0.0"),
              ("::ffff:c000:201", "192.0.2.1"), ("::1", "::1"), ("::198.51.100.7", "::198.51.100.7"),
              ("64:ff9b::198.51.100.7", "64:ff9b::c633:6407"), ("::fffe:1.2.3.4", "::fffe:102:304"),
              ("198.51.100.7", "198.51.100.7"), ("2001:db8::7", "2001:db8::7"),
              // The unspecified address: connect(2) and sendto(2) of an AF_INET6 socket send
              // to ::1; an AF_INET socket's 0.0.0.0 the kernel's own lookup answers (local).
              ("::", "::1"), ("0.0.0.0", "0.0.0.0"),
          ])
    func socketDestination(text: String, destination: String) throws {
        #expect(try #require(IPAddress(text)).socketDestination == IPAddress(destination))
    }

    /// The text is inet_ntop(3)'s for every address, IPv6 groups zero half of the time
    /// so that runs of zeros fall everywhere. Left out: glibc's IPv4-compatible form
    /// (`::192.0.2.1`, the first 96 bits zero), which RFC 5952 and pathd do not use.
    @Test func formattingIsInetNtops() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20_000 {
            let address: IPAddress
            if round % 4 == 0 {
                address = .v4(UInt32.random(in: .min ... .max, using: &generator))
            } else {
                var groups = (0..<8).map { _ in Bool.random(using: &generator) ? 0 : UInt64.random(in: 0...0xFFFF) }
                if groups[0..<6].allSatisfy({ $0 == 0 }) { groups[5] = round % 3 == 0 ? 0xFFFF : 1 }
                let high = groups[0..<4].reduce(0) { $0 << 16 | $1 }
                address = .v6(high: high, low: groups[4..<8].reduce(0) { $0 << 16 | $1 })
            }
            #expect(address.description == Self.inetNtop(address), "\(address.bytes)")
        }
    }

    private static func inetNtop(_ address: IPAddress) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.family == .ipv4 ? AF_INET : AF_INET6
        let bytes = address.bytes
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
