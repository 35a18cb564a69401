// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel
import Testing
@testable import Netlink

/// The neighbour decoder over messages built byte by byte, and the carrier events a
/// monitor draws from link messages: no socket, no namespace.
@Suite("neighbour decoding and carrier events")
struct NeighbourDecoderTests {
    private func decode(_ bytes: [UInt8], readAt: MonotonicInstant) -> NeighbourMessage? {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 4)
        defer { memory.deallocate() }
        bytes.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        return NeighbourDecoder.decode(memory.assumingMemoryBound(to: nlmsghdr.self), readAt: readAt)
    }

    static let gateway = IPAddress("192.168.1.1")!
    static let mac: [UInt8] = [2, 0, 0, 0, 0, 1]
    static func cacheInfo(confirmedTicks: UInt32) -> [UInt8] {
        MessageBytes.bytes(of: nda_cacheinfo(ndm_confirmed: confirmedTicks, ndm_used: 0, ndm_updated: 0,
                                             ndm_refcnt: 1))
    }

    @Test("an entry: its link-layer address, state, router flag, and its confirmation dated by its age")
    func entry() throws {
        let readAt = MonotonicInstant(sinceBoot: .seconds(100))
        let bytes = MessageBytes.neighbour(Self.gateway, on: 2, attributes: [
            (UInt16(NDA_DST), Self.gateway.bytes), (UInt16(NDA_LLADDR), Self.mac),
            (UInt16(NDA_CACHEINFO), Self.cacheInfo(confirmedTicks: 250)),
        ])
        let ticks = NeighbourDecoder.ticksPerSecond
        guard case .changed(let neighbour)? = decode(bytes, readAt: readAt) else {
            Issue.record("no entry")
            return
        }
        #expect(neighbour.key == Neighbour.Key(interface: InterfaceIndex(rawValue: 2), address: Self.gateway))
        #expect(neighbour.linkLayerAddress == LinkLayerAddress(bytes: Self.mac))
        #expect(neighbour.state == .reachable && !neighbour.isRouter)
        // The age and one tick more: the kernel truncates the age to whole ticks.
        #expect(neighbour.confirmedAt == readAt - .nanoseconds((250 + 1) * 1_000_000_000 / ticks))
    }

    @Test("a deletion is the key; another family, a missing or foreign NDA_DST is nothing")
    func others() {
        let readAt = MonotonicInstant(sinceBoot: .seconds(1))
        #expect(decode(MessageBytes.neighbour(Self.gateway, on: 2, type: Int(RTM_DELNEIGH)), readAt: readAt)
                == .removed(Neighbour.Key(interface: InterfaceIndex(rawValue: 2), address: Self.gateway)))
        #expect(decode(MessageBytes.neighbour(Self.gateway, on: 2, family: UInt8(AF_BRIDGE)), readAt: readAt) == nil)
        #expect(decode(MessageBytes.neighbour(Self.gateway, on: 2, attributes: [(UInt16(NDA_LLADDR), Self.mac)]),
                       readAt: readAt) == nil)
        #expect(decode(MessageBytes.neighbour(Self.gateway, on: 2, family: AddressFamily.ipv6.linuxValue),
                       readAt: readAt) == nil, "an IPv4 address in an IPv6 entry")
    }

    private static func link(carrier: Bool, downCount: UInt32?) -> Link {
        Link(index: InterfaceIndex(rawValue: 2), name: "eth0", flags: carrier ? [.up, .running, .lowerUp] : [.up],
             operState: carrier ? .up : .lowerLayerDown, hardwareType: .ether, type: .wiredEthernet,
             carrierDownCount: downCount)
    }

    @Test("carrier events: first sight without carrier is a loss; loss, return, and a flap seen only in the count")
    func carrierEvents() {
        var watch = NeighbourWatch()
        let index = InterfaceIndex(rawValue: 2)
        func at(_ seconds: Int) -> MonotonicInstant { MonotonicInstant(sinceBoot: .seconds(seconds)) }
        #expect(watch.carrierEvents(of: Self.link(carrier: true, downCount: 1), at: at(1)).isEmpty,
                "first seen with carrier: pathd did not see it come up")
        #expect(watch.carrierEvents(of: Self.link(carrier: true, downCount: 1), at: at(2)).isEmpty)
        #expect(watch.carrierEvents(of: Self.link(carrier: false, downCount: 2), at: at(3))
                == [.carrierLost(index, at: at(3))])
        #expect(watch.carrierEvents(of: Self.link(carrier: true, downCount: 2), at: at(4))
                == [.carrierRegained(index, at: at(4))])
        // The kernel reported a short loss and the return in one message: only the count says so.
        #expect(watch.carrierEvents(of: Self.link(carrier: true, downCount: 3), at: at(5))
                == [.carrierLost(index, at: at(5)), .carrierRegained(index, at: at(5))])
        var fresh = NeighbourWatch()
        #expect(fresh.carrierEvents(of: Self.link(carrier: false, downCount: 0), at: at(6))
                == [.carrierLost(index, at: at(6))])
    }

    @Test("a gateway that goes and comes back needs no new filter, its entry followed meanwhile; then it is dropped")
    func formerGatewayKeepsTheFilter() {
        var watch = NeighbourWatch()
        let index = InterfaceIndex(rawValue: 2)
        let key = Neighbour.Key(interface: index, address: Self.gateway)
        let route = NetworkEvent.interfaceLookup(.ipv4, index, .route(RouteAnswer(
            type: .unicast, outputInterface: index, gateway: Self.gateway)))
        let none = NetworkEvent.interfaceLookup(.ipv4, index, .noRoute)
        let entry = NetworkEvent.neighbourChanged(Neighbour(
            interface: index, address: Self.gateway, linkLayerAddress: LinkLayerAddress(bytes: Self.mac),
            state: .reachable))

        #expect(watch.noteGateways(in: [route], asked: [index]) == ([key], []))
        #expect(watch.needsNewFilter, "a new gateway the filter does not pass")
        watch.filtered = watch.keys  // as attachRouteFilter does
        #expect(!watch.needsNewFilter)
        #expect(watch.concerns(entry) && watch.concerns(.neighbourRemoved(key)))

        #expect(watch.noteGateways(in: [none], asked: [index]) == ([], [key]))
        #expect(!watch.needsNewFilter, "a former gateway stays in the filter")
        #expect(watch.concerns(entry) && watch.concerns(.neighbourRemoved(key)), "followed for its return")
        #expect(watch.concerns(.linkRemoved(index)))

        #expect(watch.noteGateways(in: [route], asked: [index]) == ([key], []))
        #expect(!watch.needsNewFilter, "back: the filter passes it already")
        #expect(watch.concerns(entry))

        // Former gateways are kept up to a bound.
        let others = (1 ... NeighbourWatch.formerGatewaysKept + 1).map {
            Neighbour.Key(interface: InterfaceIndex(rawValue: Int32(10 + $0)), address: Self.gateway)
        }
        watch.filtered.formUnion(others.dropLast())
        #expect(!watch.needsNewFilter)
        watch.filtered.formUnion(others)
        #expect(watch.needsNewFilter)

        // Gone, and no longer in the filter: its messages are not the snapshot's.
        #expect(watch.noteGateways(in: [none], asked: [index]) == ([], [key]))
        watch.filtered = watch.keys
        #expect(!watch.concerns(entry) && !watch.concerns(.neighbourRemoved(key)))
    }

    @Test("the gateways a batch adds and removes are its net change: a gateway replaced and put back is neither")
    func gatewayChangesAreNet() {
        var watch = NeighbourWatch()
        let (eth0, eth1) = (InterfaceIndex(rawValue: 2), InterfaceIndex(rawValue: 3))
        let other = IPAddress("192.168.1.254")!
        let router = IPAddress("fe80::1")!
        func route(_ index: InterfaceIndex, via gateway: IPAddress) -> NetworkEvent {
            .interfaceLookup(gateway.family, index, .route(RouteAnswer(type: .unicast, outputInterface: index,
                                                                       gateway: gateway)))
        }
        func key(_ index: InterfaceIndex, _ address: IPAddress) -> Neighbour.Key {
            Neighbour.Key(interface: index, address: address)
        }
        #expect(watch.noteGateways(in: [route(eth0, via: Self.gateway), route(eth0, via: router),
                                        route(eth1, via: other)], asked: [eth0, eth1])
                == ([key(eth0, Self.gateway), key(eth0, router), key(eth1, other)], []))
        #expect(watch.keys == [key(eth0, Self.gateway), key(eth0, router), key(eth1, other)])

        // Replaced, then put back, in one batch: no change. Another link's goes.
        #expect(watch.noteGateways(in: [route(eth0, via: other), route(eth0, via: Self.gateway),
                                        .interfaceLookup(.ipv4, eth1, .noRoute)], asked: [eth0, eth1])
                == ([], [key(eth1, other)]))
        // A link no longer asked about takes its gateways with it; one that goes is forgotten.
        #expect(watch.noteGateways(in: [route(eth1, via: other)], asked: [eth1])
                == ([key(eth1, other)], [key(eth0, Self.gateway), key(eth0, router)]))
        watch.forget(eth1)
        #expect(watch.keys.isEmpty && watch.gateways.isEmpty)
    }
}
