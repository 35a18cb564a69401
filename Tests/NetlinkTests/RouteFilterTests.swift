// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel
import Testing
@testable import Netlink

/// The route filter's program, checked and run by `ClassicBPFInterpreter` over messages
/// built by hand: what it keeps, what it drops, and that it passes whatever it cannot read.
@Suite("route filter (classic BPF)")
struct RouteFilterTests {
    private let filter = Verdicts(.standard)

    @Test("drops a /32 in 100.64/10 and a /128 elsewhere, in adds and deletes")
    func dropsLongPrefixesElsewhere() throws {
        let filter = try #require(filter)
        #expect(!filter.passes(MessageBytes.route(IPAddress("100.64.3.7")!, 32)))
        #expect(!filter.passes(MessageBytes.route(IPAddress("100.64.3.7")!, 32, type: RTM_DELROUTE)))
        #expect(!filter.passes(MessageBytes.route(IPAddress("2001:db8:1::5")!, 128)))
        #expect(!filter.passes(MessageBytes.route(IPAddress("2001:db8:1::5")!, 128, type: RTM_DELROUTE)))
        #expect(!filter.passes(MessageBytes.route(IPAddress("10.0.0.0")!, 8)))
    }

    @Test("passes prefixes covering the lookup destinations: a /24 over 203.0.113.1, a /48 over 2001:db8::1")
    func passesCoveringPrefixes() throws {
        let filter = try #require(filter)
        #expect(filter.passes(MessageBytes.route(IPAddress("203.0.113.0")!, 24)))
        #expect(filter.passes(MessageBytes.route(IPAddress("203.0.113.0")!, 24, type: RTM_DELROUTE)))
        #expect(filter.passes(MessageBytes.route(IPAddress("203.0.113.1")!, 32)))
        #expect(filter.passes(MessageBytes.route(IPAddress("2001:db8::")!, 48)))
        #expect(filter.passes(MessageBytes.route(IPAddress("2001:db8::1")!, 128)))
    }

    @Test("passes 0/0, 0/1 and 128/1 of both families, as pathd tracks them")
    func passesShortPrefixes() throws {
        let filter = try #require(filter)
        #expect(filter.passes(MessageBytes.route(IPAddress("0.0.0.0")!, 0)))
        #expect(filter.passes(MessageBytes.route(IPAddress("0.0.0.0")!, 1)))
        #expect(filter.passes(MessageBytes.route(IPAddress("128.0.0.0")!, 1)))
        #expect(filter.passes(MessageBytes.route(IPAddress("::")!, 0)))
        #expect(filter.passes(MessageBytes.route(IPAddress("8000::")!, 1)))
    }

    @Test("passes source-specific routes whatever their destination")
    func passesSourceSpecificRoutes() throws {
        let filter = try #require(filter)
        #expect(filter.passes(MessageBytes.route(IPAddress("2001:db8:1::5")!, 128, sourceLength: 64)))
        #expect(filter.passes(MessageBytes.route(IPAddress("100.64.3.7")!, 32, sourceLength: 8)))
    }

    @Test("every prefix length: the prefix of a destination passes, one differing in its last bit is dropped")
    func everyPrefixLength() throws {
        let filter = try #require(filter)
        for family in AddressFamily.allCases {
            let destination = LookupDestinations.standard[family]
            let width = family == .ipv4 ? 32 : 128
            for length in 2...width {
                let covering = Self.address(destination, keepingBits: length, flippingBit: nil)
                let sibling = Self.address(destination, keepingBits: length, flippingBit: length - 1)
                #expect(filter.passes(MessageBytes.route(covering, UInt8(length))), "\(covering)/\(length)")
                #expect(!filter.passes(MessageBytes.route(sibling, UInt8(length))), "\(sibling)/\(length)")
            }
        }
    }

    @Test("RTA_DST is found after other attributes, up to the bound; past it the route passes")
    func destinationAfterOtherAttributes() throws {
        let filter = try #require(filter)
        let others: [(UInt16, [UInt8])] = (0..<(RouteFilter.attributeLimit - 1)).map { index in
            index % 2
                == 0 ? (MessageBytes.priority, MessageBytes.host(UInt32(index))) : (UInt16(RTA_GATEWAY.rawValue),
                                                                                    [100, 64, 0, 1])
        }
        func route(_ destination: String, _ length: UInt8, after attributes: [(UInt16, [UInt8])]) -> [UInt8] {
            MessageBytes.route(IPAddress(destination)!, length,
                               attributes: attributes + [(MessageBytes.destinationType, IPAddress(destination)!.bytes)])
        }
        #expect(!filter.passes(route("100.64.3.7", 32, after: others)))
        #expect(filter.passes(route("203.0.113.0", 24, after: others)))
        // One attribute more and RTA_DST is beyond the walk: passed, for userspace to judge.
        let tooMany = others + [(MessageBytes.priority, MessageBytes.host(UInt32(9)))]
        #expect(filter.passes(route("100.64.3.7", 32, after: tooMany)))
    }

    @Test("an RTA_DST whose type carries NLA_F_NET_BYTEORDER is still RTA_DST, as nla_type() reads it")
    func attributeTypeFlagsAreMasked() throws {
        let filter = try #require(filter)
        let flagged = UInt16(MessageBytes.destinationType) | UInt16(NLA_F_NET_BYTEORDER)
        #expect(!filter.passes(MessageBytes.route(IPAddress("100.64.3.7")!, 32,
                                                  attributes: [(flagged, [100, 64, 3, 7])])))
    }

    @Test("passes what it cannot read: truncated, malformed, or not alone in its datagram")
    func passesWhatItCannotRead() throws {
        let filter = try #require(filter)
        let dropped = MessageBytes.route(IPAddress("100.64.3.7")!, 32)
        // Cut inside the rtmsg, inside an attribute, and with nlmsg_len beyond the data.
        #expect(filter.passes(Array(dropped.prefix(20))))
        #expect(filter.passes(Array(dropped.prefix(dropped.count - 6))))
        #expect(filter.passes(MessageBytes.message(type: RTM_NEWROUTE, body: Array(dropped[16..<28]),
                                                   attributes: [(MessageBytes.destinationType, [100, 64, 3, 7])],
                                                   length: dropped.count + 8)))
        // Two messages in one datagram: the verdict would be the first one's alone.
        #expect(filter.passes(dropped + dropped))
        // A prefix longer than the address, an RTA_DST of the wrong size, none at all.
        #expect(filter.passes(MessageBytes.route(IPAddress("100.64.3.7")!, 33)))
        #expect(filter.passes(MessageBytes.route(IPAddress("100.64.3.7")!, 32,
                                                 attributes: [(MessageBytes.destinationType,
                                                               IPAddress("2001:db8:1::5")!.bytes)])))
        #expect(filter.passes(MessageBytes.route(IPAddress("100.64.3.7")!, 32,
                                                 attributes: [(MessageBytes.table, MessageBytes.host(UInt32(254)))])))
        // An attribute claiming fewer bytes than its own header.
        var broken = dropped
        broken[28] = 2
        broken[29] = 0
        #expect(filter.passes(broken))
        #expect(filter.passes([]))
    }

    @Test("passes every link, address and rule message, and types it does not know")
    func passesOtherMessages() throws {
        let filter = try #require(filter)
        var link = ifinfomsg()
        link.ifi_index = 2
        #expect(filter.passes(MessageBytes.message(type: RTM_NEWLINK, body: MessageBytes.bytes(of: link),
                                                   attributes: [(UInt16(IFLA_IFNAME), Array("vA\0".utf8))])))
        #expect(filter.passes(MessageBytes.message(type: RTM_DELLINK, body: MessageBytes.bytes(of: link))))
        var address = ifaddrmsg()
        address.ifa_family = AddressFamily.ipv4.linuxValue
        address.ifa_prefixlen = 32
        address.ifa_index = 2
        #expect(filter.passes(MessageBytes.message(type: RTM_NEWADDR, body: MessageBytes.bytes(of: address),
                                                   attributes: [(UInt16(IFA_LOCAL), [100, 64, 3, 7])])))
        #expect(filter.passes(MessageBytes.message(type: RTM_DELADDR, body: MessageBytes.bytes(of: address))))
        // A rule's header starts like a route's (family, dst_len, src_len): a /32 selector.
        var rule = fib_rule_hdr()
        rule.family = AddressFamily.ipv4.linuxValue
        rule.dst_len = 32
        #expect(filter.passes(MessageBytes.message(type: RTM_NEWRULE, body: MessageBytes.bytes(of: rule),
                                                   attributes: [(UInt16(FRA_DST), [100, 64, 3, 7])])))
        #expect(filter.passes(MessageBytes.message(type: RTM_DELRULE, body: MessageBytes.bytes(of: rule))))
        // A type no part judges (neighbour messages have a part of their own: NeighbourFilterTests).
        #expect(filter.passes(MessageBytes.message(type: Int(RTM_NEWNDUSEROPT),
                                                   body: [UInt8](repeating: 0, count: 16))))
    }

    @Test("the program follows the configured destinations")
    func configuredDestinations() throws {
        let filter = try #require(Verdicts(LookupDestinations(ipv4: IPAddress("10.1.2.3")!,
                                                              ipv6: IPAddress("2001:db8:7::1")!)))
        #expect(filter.passes(MessageBytes.route(IPAddress("10.1.0.0")!, 16)))
        #expect(!filter.passes(MessageBytes.route(IPAddress("203.0.113.0")!, 24)))
        #expect(!filter.passes(MessageBytes.route(IPAddress("2001:db8::")!, 48)))
        #expect(filter.passes(MessageBytes.route(IPAddress("2001:db8:7::")!, 48)))
        #expect(filter.passes(MessageBytes.route(IPAddress("::")!, 0)))
        #expect(filter.passes(MessageBytes.route(IPAddress("2001:db8:1::5")!, 128, sourceLength: 64)))
        #expect(filter.passes(MessageBytes.route(IPAddress("0.0.0.0")!, 1)))
    }

    /// `destination` with only its first `keepingBits` bits, and bit `flippingBit`
    /// (counted from the most significant) inverted.
    private static func address(_ destination: IPAddress, keepingBits length: Int,
                                flippingBit flipped: Int?) -> IPAddress {
        var bytes = destination.bytes
        for bit in 0..<bytes.count * 8 {
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            if bit >= length { bytes[bit / 8] &= ~mask }
            if bit == flipped { bytes[bit / 8] ^= mask }
        }
        return IPAddress(bytes: bytes)!
    }

    @Test("watched destinations: a route covering any of them passes, the lookups' still do, others are dropped")
    func watchedDestinations() throws {
        let watched: Set<IPAddress> = [IPAddress("198.51.100.7")!, IPAddress("192.0.2.200")!,
                                       IPAddress("2001:db8:aa::1")!]
        let filter = try #require(Verdicts(.standard, watching: watched))
        #expect(filter.passes(MessageBytes.route(IPAddress("198.51.100.0")!, 24)))
        #expect(filter.passes(MessageBytes.route(IPAddress("198.51.100.7")!, 32, type: RTM_DELROUTE)))
        #expect(filter.passes(MessageBytes.route(IPAddress("192.0.2.128")!, 25)))
        #expect(filter.passes(MessageBytes.route(IPAddress("2001:db8:aa::")!, 48)))
        #expect(filter.passes(MessageBytes.route(IPAddress("203.0.113.0")!, 24)), "the lookup destination's")
        #expect(!filter.passes(MessageBytes.route(IPAddress("192.0.2.0")!, 25)), "covers 192.0.2.0-127 only")
        #expect(!filter.passes(MessageBytes.route(IPAddress("198.51.101.0")!, 24)))
        #expect(!filter.passes(MessageBytes.route(IPAddress("2001:db8:ab::")!, 48)))
    }

    @Test("the most watched destinations fit one program; past them their networks are covered, more, never fewer")
    func watchedBound() throws {
        let most = Set((0..<RouteFilter.maximumWatchedDestinations).map { index in
            IPAddress(bytes: [0x20, 0x01, 0x0d, 0xb8, 0xee, UInt8(index)] + [UInt8](repeating: 0, count: 9) + [1])!
        })
        let program = RouteFilter.program(lookupDestinations: .standard, watching: most)
        #expect(program.count <= Int(BPF_MAXINSNS))
        let prefixes = RouteFilter.coveredPrefixes(most)
        #expect(prefixes.allSatisfy { $0.isAddress })
        let filter = try #require(Verdicts(.standard, watching: most))
        for destination in most {
            #expect(filter.passes(MessageBytes.route(destination, 128)), "\(destination)")
        }
        #expect(!filter.passes(MessageBytes.route(IPAddress("2001:db8:ef::1")!, 128)))
        let everything = try ClassicBPFInterpreter(RouteFilter.passEverything)
        #expect(everything.run(MessageBytes.route(IPAddress("100.64.3.7")!, 32)) != 0)
    }

    @Test("a thousand watched destinations: covered by networks, every route covering one still passes")
    func aggregated() throws {
        // 10.0.0.1 to 10.0.1.244 (2 /24s) and 2001:db8:0:1::1 to 2001:db8:0:1f4::1 (500 /64s, 1 /48).
        let ipv4 = (1...500).map { IPAddress.v4(0x0A00_0000 + UInt32($0)) }
        let ipv6 = (1...500).map { IPAddress.v6(high: 0x2001_0DB8_0000_0000 + UInt64($0), low: 1) }
        let watched = Set(ipv4 + ipv6)
        let prefixes = RouteFilter.coveredPrefixes(watched)
        #expect(prefixes.count == 2 + 1, "IPv4 by its /24s, IPv6 past its /64s by its /48: \(prefixes)")
        #expect(prefixes.contains(RouteFilter.CoveredPrefix(IPAddress("10.0.1.0")!, length: 24)))
        #expect(prefixes.contains(RouteFilter.CoveredPrefix(IPAddress("2001:db8::")!, length: 48)))
        let filter = try #require(Verdicts(.standard, watching: watched))
        // Every route covering a watched destination, at any length, passes.
        for destination in [ipv4[0], ipv4[499], ipv6[0], ipv6[499]] {
            for length in [8, 16, 24, 28, 32, 48, 64, 96, 128] where length <= destination.family.addressBits {
                let route = Self.address(destination, keepingBits: length, flippingBit: nil)
                #expect(filter.passes(MessageBytes.route(route, UInt8(length))), "\(route)/\(length)")
            }
        }
        // Inside a covered network, also what covers no watched address; outside, nothing.
        #expect(filter.passes(MessageBytes.route(IPAddress("10.0.1.250")!, 32)))
        #expect(filter.passes(MessageBytes.route(IPAddress("2001:db8:0:ffff::")!, 64)))
        #expect(!filter.passes(MessageBytes.route(IPAddress("10.0.9.1")!, 32)))
        #expect(!filter.passes(MessageBytes.route(IPAddress("2001:db9::")!, 32)))
        #expect(!filter.passes(MessageBytes.route(IPAddress("100.64.3.7")!, 32)))
        #expect(RouteFilter.program(lookupDestinations: .standard, watching: watched).count <= Int(BPF_MAXINSNS))
    }
}

/// The route filter for some destinations, checked as the kernel checks it at attach.
private struct Verdicts {
    let interpreter: ClassicBPFInterpreter

    init?(_ destinations: LookupDestinations, watching watched: Set<IPAddress> = []) {
        do {
            interpreter = try ClassicBPFInterpreter(RouteFilter.program(lookupDestinations: destinations,
                                                                        watching: watched))
        } catch {
            Issue.record("the kernel would refuse the program: \(error)")
            return nil
        }
    }

    func passes(_ datagram: [UInt8]) -> Bool {
        // 0 drops; any other verdict keeps that many bytes, and must keep them all.
        let verdict = interpreter.run(datagram)
        return verdict != 0 && verdict >= UInt32(datagram.count)
    }
}
