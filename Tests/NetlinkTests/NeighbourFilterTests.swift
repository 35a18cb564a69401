// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel
import Testing
@testable import Netlink

extension MessageBytes {
    /// An RTM_NEWNEIGH (or `type`) of `address` on link `index`: NDA_DST first, as the
    /// kernel writes it, then NDA_LLADDR, unless `attributes` says otherwise.
    static func neighbour(_ address: IPAddress, on index: Int32, type: Int = Int(RTM_NEWNEIGH),
                          family: UInt8? = nil, attributes: [(UInt16, [UInt8])]? = nil) -> [UInt8] {
        var header = ndmsg()
        header.ndm_family = family ?? address.family.linuxValue
        header.ndm_ifindex = index
        header.ndm_state = UInt16(NUD_REACHABLE)
        let standard: [(UInt16, [UInt8])] = [(UInt16(NDA_DST), address.bytes),
                                             (UInt16(NDA_LLADDR), [2, 0, 0, 0, 0, 1])]
        return message(type: type, body: bytes(of: header), attributes: attributes ?? standard)
    }
}

/// The event filter's part for neighbour messages, run by `ClassicBPFInterpreter` over
/// messages built by hand: only the gateways' entries pass, and what it cannot read.
@Suite("neighbour filter (classic BPF)")
struct NeighbourFilterTests {
    static let gateway = IPAddress("192.168.1.1")!
    static let router = IPAddress("fe80::1")!
    static let gateways: Set<Neighbour.Key> = [Neighbour.Key(interface: InterfaceIndex(rawValue: 2), address: gateway),
                                               Neighbour.Key(interface: InterfaceIndex(rawValue: 3), address: router)]

    func verdicts(_ gateways: Set<Neighbour.Key> = gateways,
                  watching watched: Set<IPAddress> = []) throws -> (([UInt8]) -> Bool) {
        let program = RouteFilter.program(lookupDestinations: .standard, watching: watched, gateways: gateways)
        let interpreter = try ClassicBPFInterpreter(program)
        return { datagram in
            let verdict = interpreter.run(datagram)
            return verdict != 0 && verdict >= UInt32(datagram.count)
        }
    }

    @Test("a gateway's entry passes, added and deleted; its neighbours and another link's do not")
    func onlyGateways() throws {
        let passes = try verdicts()
        #expect(passes(MessageBytes.neighbour(Self.gateway, on: 2)))
        #expect(passes(MessageBytes.neighbour(Self.gateway, on: 2, type: Int(RTM_DELNEIGH))))
        #expect(passes(MessageBytes.neighbour(Self.router, on: 3)))
        #expect(!passes(MessageBytes.neighbour(IPAddress("192.168.1.2")!, on: 2)))
        #expect(!passes(MessageBytes.neighbour(Self.gateway, on: 3)))
        #expect(!passes(MessageBytes.neighbour(Self.router, on: 2)))
        #expect(!passes(MessageBytes.neighbour(IPAddress("fe80::2")!, on: 3, type: Int(RTM_DELNEIGH))))
        // A bridge's forwarding entry (AF_BRIDGE) is never a gateway.
        #expect(!passes(MessageBytes.neighbour(Self.gateway, on: 2, family: UInt8(AF_BRIDGE))))
        // With no gateway at all, no entry passes; routes are judged as before.
        let none = try verdicts([])
        #expect(!none(MessageBytes.neighbour(Self.gateway, on: 2)))
        #expect(none(MessageBytes.route(IPAddress("0.0.0.0")!, 0)))
    }

    @Test("passes what it cannot read: not alone, too short, NDA_DST late or of the wrong size")
    func passesTheUnreadable() throws {
        let passes = try verdicts()
        let other = IPAddress("192.168.1.9")!
        let message = MessageBytes.neighbour(other, on: 2)
        #expect(passes(message + message), "two messages in one datagram")
        #expect(passes(Array(message.prefix(24))), "shorter than the header")
        let late = (0..<NeighbourFilter.attributeLimit).map { _ in (UInt16(NDA_PROBES), MessageBytes.host(UInt32(1))) }
        #expect(passes(MessageBytes.neighbour(other, on: 2, attributes: late + [(UInt16(NDA_DST), other.bytes)])))
        let early = Array(late.dropLast())
        #expect(!passes(MessageBytes.neighbour(other, on: 2, attributes: early + [(UInt16(NDA_DST), other.bytes)])))
        #expect(passes(MessageBytes.neighbour(other, on: 2, attributes: [(UInt16(NDA_DST), [192, 168, 1])])))
    }

    @Test("past 64 gateways their links are covered; past 64 links every entry is")
    func coarser() throws {
        let many = Set((1...65).map { Neighbour.Key(interface: InterfaceIndex(rawValue: 2),
                                                     address: IPAddress.v4(0x0A00_0000 + UInt32($0))) })
        #expect(NeighbourFilter.coverage(of: many) == .interfaces([InterfaceIndex(rawValue: 2)]))
        let byLink = try verdicts(many)
        #expect(byLink(MessageBytes.neighbour(IPAddress("172.16.0.1")!, on: 2)))
        #expect(!byLink(MessageBytes.neighbour(IPAddress("172.16.0.1")!, on: 3)))
        let links = Set((1...65).map {
            Neighbour.Key(interface: InterfaceIndex(rawValue: Int32($0)), address: Self.gateway)
        })
        #expect(NeighbourFilter.coverage(of: links) == .everyEntry)
        let every = try verdicts(links)
        #expect(every(MessageBytes.neighbour(IPAddress("172.16.0.1")!, on: 99)))
        #expect(!every(MessageBytes.neighbour(Self.gateway, on: 2, family: UInt8(AF_BRIDGE))))
    }

    @Test("the largest program, 128 IPv6 watched routes and 64 IPv6 gateways, fits in BPF_MAXINSNS")
    func largestProgram() throws {
        let watched = Set((1...RouteFilter.maximumWatchedDestinations).map { IPAddress.v6(high: 0x2001_0db8 << 32,
                                                                                           low: UInt64($0)) })
        let gateways = Set((1...NeighbourFilter.maximumGateways).map {
            Neighbour.Key(interface: InterfaceIndex(rawValue: Int32($0)), address: Self.router)
        })
        let program = RouteFilter.program(lookupDestinations: .standard, watching: watched, gateways: gateways)
        #expect(program.count <= Int(BPF_MAXINSNS))
        let passes = try verdicts(gateways, watching: watched)
        #expect(passes(MessageBytes.neighbour(Self.router, on: 64)))
        #expect(!passes(MessageBytes.neighbour(Self.router, on: 65)))
    }
}
