// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathModel
import PathTestFixtures
import Testing
@testable import Netlink

/// An interface's own lookup (RTA_OIF with RTM_F_FIB_MATCH), batched, against the
/// kernel: the facts docs/ARCHITECTURE.md ("Which interfaces can carry traffic") relies on.
@Suite(.enabled(if: namespaceSupport.isAvailable, "needs root and ip netns: \(namespaceSupport.reason)"), .blocking)
struct InterfaceLookupKernelTests {
    static let destinations = LookupDestinations.standard

    /// a0 (default metric 100) and b0 (default metric 600), both families, to a peer.
    final class TwoUplinks {
        let namespace: NetworkNamespace
        let peer: NetworkNamespace
        let a0: InterfaceIndex
        let b0: InterfaceIndex

        init() throws {
            namespace = try NetworkNamespace()
            peer = try NetworkNamespace()
            for (name, peerName, subnet) in [("a0", "a1", 1), ("b0", "b1", 2)] {
                try namespace.ip("link", "add", name, "type", "veth", "peer", "name", peerName, "netns", peer.name)
                try namespace.ip("link", "set", name, "up")
                try peer.ip("link", "set", peerName, "up")
                try namespace.ip("addr", "add", "10.\(subnet).0.1/24", "dev", name)
                try namespace.ip("-6", "addr", "add", "2001:db8:\(subnet)::1/64", "dev", name, "nodad")
            }
            try namespace.ip("link", "set", "lo", "up")
            try namespace.ip("route", "add", "default", "via", "10.1.0.2", "metric", "100")
            try namespace.ip("route", "add", "default", "via", "10.2.0.2", "metric", "600")
            try namespace.ip("-6", "route", "add", "default", "via", "2001:db8:1::2", "metric", "100")
            try namespace.ip("-6", "route", "add", "default", "via", "2001:db8:2::2", "metric", "600")
            a0 = try Self.index(of: "a0", in: namespace)
            b0 = try Self.index(of: "b0", in: namespace)
        }

        deinit {
            teardown("remove namespace \(namespace.name)") { try namespace.remove() }
            teardown("remove namespace \(peer.name)") { try peer.remove() }
        }

        /// `ip -o link show NAME` begins "INDEX: NAME".
        static func index(of name: String, in namespace: NetworkNamespace) throws -> InterfaceIndex {
            let line = try namespace.ip("-o", "link", "show", "dev", name)
            guard let number = Int32(line.prefix { $0 != ":" }) else {
                throw HarnessError("no index in `ip -o link show dev \(name)`: \(line)")
            }
            return InterfaceIndex(rawValue: number)
        }

        /// Asks `requests` in one batch on a request socket opened in the namespace.
        func ask(_ requests: [RouteLookupRequest]) throws -> [RouteLookup] {
            try namespace.onJoinedThread {
                let socket = try NetlinkSocket(role: "request socket")
                defer { socket.close() }
                try socket.setReceiveTimeout(seconds: 5)
                _ = try socket.setOption(SO_RCVBUF, RouteLookupRequest.receiveBufferBytes).get("SO_RCVBUF")
                return try RouteLookupRequest.perform(requests, on: socket, buffer: ReceiveBuffer())
            }
        }

        func through(_ interface: InterfaceIndex, _ family: AddressFamily) -> RouteLookupRequest {
            RouteLookupRequest(destination: destinations[family], outputInterface: interface, matchesWholeEntry: true)
        }
    }

    static func answer(_ lookup: RouteLookup?) -> RouteAnswer? {
        if case .route(let answer) = lookup { return answer }
        return nil
    }

    @Test("each interface gets its own best entry: b0's higher-metric default, not hidden by a0's longer route")
    func higherMetricAndLongerRoutes() throws {
        let host = try TwoUplinks()
        let plain = AddressFamily.allCases.map { RouteLookupRequest(destination: Self.destinations[$0]) }
        let perInterface = AddressFamily.allCases.flatMap { [host.through(host.a0, $0), host.through(host.b0, $0)] }
        let answers = try host.ask(plain + perInterface)
        #expect(answers.count == 6)
        // The plain lookups name a0, with the kernel's source and no entry.
        #expect(Self.answer(answers[0])?.outputInterface == host.a0 && Self.answer(answers[0])?.entry == nil)
        #expect(Self.answer(answers[0])?.preferredSource == IPAddress("10.1.0.1"))
        #expect(answers[2] == .route(RouteAnswer(type: .unicast, outputInterface: host.a0,
                                                  gateway: IPAddress("10.1.0.2"), table: 254,
                                                  entry: RouteEntry(prefixLength: 0, metric: 100))))
        #expect(answers[3] == .route(RouteAnswer(type: .unicast, outputInterface: host.b0,
                                                  gateway: IPAddress("10.2.0.2"), table: 254,
                                                  entry: RouteEntry(prefixLength: 0, metric: 600))))
        #expect(Self.answer(answers[5])?.outputInterface == host.b0)
        #expect(Self.answer(answers[5])?.gateway == IPAddress("2001:db8:2::2"))
        #expect(Self.answer(answers[5])?.entry == RouteEntry(prefixLength: 0, metric: 600))

        // A longer route through a0 covering the destination hides nothing through b0.
        try host.namespace.ip("route", "add", "203.0.113.0/24", "via", "10.1.0.2")
        try host.namespace.ip("-6", "route", "add", "2001:db8::/48", "via", "2001:db8:1::2")
        let longer = try host.ask(perInterface)
        #expect(Self.answer(longer[0])?.entry?.prefixLength == 24)
        #expect(Self.answer(longer[1])?.entry == RouteEntry(prefixLength: 0, metric: 600))
        #expect(Self.answer(longer[2])?.entry?.prefixLength == 48)
        #expect(Self.answer(longer[3])?.outputInterface == host.b0)
        #expect(Self.answer(longer[3])?.entry?.prefixLength == 0)
    }

    @Test("a reject route: IPv4 refuses every interface, IPv6 passes over it through an interface; down is refused")
    func rejectRoutesAndDownInterfaces() throws {
        let host = try TwoUplinks()
        try host.namespace.ip("route", "add", "unreachable", "203.0.113.0/24")
        try host.namespace.ip("-6", "route", "add", "unreachable", "2001:db8::/48")
        let plain = AddressFamily.allCases.map { RouteLookupRequest(destination: Self.destinations[$0]) }
        let answers = try host.ask(plain + [host.through(host.b0, .ipv4), host.through(host.b0, .ipv6)])
        #expect(answers[0] == .rejected(.unreachable))
        #expect(answers[1] == .rejected(.unreachable))
        // IPv4: the lookup meets the reject route, then (oif given) would assume the
        // destination on the link; RTM_F_FIB_MATCH turns that into EHOSTUNREACH.
        #expect(answers[2] == .rejected(.unreachable))
        // IPv6: strict interface matching skips the reject route (its device is lo).
        #expect(Self.answer(answers[3])?.outputInterface == host.b0)
        #expect(Self.answer(answers[3])?.entry == RouteEntry(prefixLength: 0, metric: 600))

        // No route through the interface at all: IPv4 EHOSTUNREACH, IPv6 ENETUNREACH.
        try host.namespace.ip("route", "del", "unreachable", "203.0.113.0/24")
        try host.namespace.ip("-6", "route", "del", "unreachable", "2001:db8::/48")
        try host.namespace.ip("route", "del", "default", "via", "10.2.0.2")
        try host.namespace.ip("-6", "route", "del", "default", "via", "2001:db8:2::2")
        let none = try host.ask([host.through(host.b0, .ipv4), host.through(host.b0, .ipv6)])
        #expect(none == [.rejected(.unreachable), .noRoute])

        try host.namespace.ip("link", "set", "b0", "down")
        let down = try host.ask([host.through(host.b0, .ipv4), host.through(host.b0, .ipv6)])
        #expect(down == [.noRoute, .noRoute])
    }

    @Test("real traffic agrees: a packet from a socket bound to b0 goes where b0's own answer says, or nowhere")
    func boundTrafficAgrees() throws {
        let host = try TwoUplinks()
        // The peer holds the lookup destinations on lo, the gateways on its veth ends,
        // and answers ARP only for addresses of the asking link (arp_ignore=1), so a
        // packet the kernel sends "on the link" for want of a route never arrives.
        try host.peer.ip("link", "set", "lo", "up")
        for (name, subnet) in [("a1", 1), ("b1", 2)] {
            try host.peer.ip("addr", "add", "10.\(subnet).0.2/24", "dev", name)
            try host.peer.ip("-6", "addr", "add", "2001:db8:\(subnet)::2/64", "dev", name, "nodad")
        }
        try host.peer.ip("addr", "add", "203.0.113.1/32", "dev", "lo")
        try host.peer.ip("-6", "addr", "add", "2001:db8::1/128", "dev", "lo", "nodad")
        try host.peer.run("sysctl", "-qw", "net.ipv4.conf.all.arp_ignore=1")
        let v4 = Self.destinations.ipv4
        let v6 = Self.destinations.ipv6
        let atB1v4 = try BoundDatagram.Receiver(in: host.peer, on: "b1", address: v4, port: 9)
        let atB1v6 = try BoundDatagram.Receiver(in: host.peer, on: "b1", address: v6, port: 9)

        // b0's higher-metric default carries b0's traffic, both families.
        #expect(try BoundDatagram.send(in: host.namespace, through: "b0", to: v4, port: 9) == nil)
        #expect(atB1v4.receivesDatagram(), "IPv4 from a socket bound to b0 did not arrive by b1")
        #expect(try BoundDatagram.send(in: host.namespace, through: "b0", to: v6, port: 9) == nil)
        #expect(atB1v6.receivesDatagram(), "IPv6 from a socket bound to b0 did not arrive by b1")

        try host.namespace.ip("route", "add", "unreachable", "203.0.113.0/24")
        try host.namespace.ip("-6", "route", "add", "unreachable", "2001:db8::/48")
        // Unbound traffic is refused by both reject routes.
        #expect(try BoundDatagram.send(in: host.namespace, through: "", to: v4, port: 9) == EHOSTUNREACH)
        #expect(try BoundDatagram.send(in: host.namespace, through: "", to: v6, port: 9) == EHOSTUNREACH)
        // IPv4 bound to b0: no route is used; the kernel asks the link for the
        // destination itself (a neighbour entry for it on b0), as fibmatch's refusal says.
        #expect(try BoundDatagram.send(in: host.namespace, through: "b0", to: v4, port: 9) == nil)
        let neighbour = try host.namespace.ip("neigh", "show", "203.0.113.1", "dev", "b0")
        #expect(!neighbour.isEmpty, "no neighbour entry for the destination on b0: it was routed")
        // IPv6 bound to b0 passes over the reject route and leaves by b0's default.
        #expect(try BoundDatagram.send(in: host.namespace, through: "b0", to: v6, port: 9) == nil)
        #expect(atB1v6.receivesDatagram(), "IPv6 bound to b0 did not pass over the reject route")

        // A down interface refuses before any route.
        try host.namespace.ip("link", "set", "b0", "down")
        #expect(try BoundDatagram.send(in: host.namespace, through: "b0", to: v4, port: 9) == ENETUNREACH)
        #expect(try BoundDatagram.send(in: host.namespace, through: "b0", to: v6, port: 9) == ENETUNREACH)
    }

    @Test("a batch larger than one sendmsg is answered in the requests' order")
    func manyLookupsInOrder() throws {
        let host = try TwoUplinks()
        try host.namespace.ip("link", "set", "b0", "down")
        let pattern = [host.through(host.a0, .ipv4), host.through(host.b0, .ipv4),
                       RouteLookupRequest(destination: Self.destinations.ipv6)]
        let requests = Array(repeating: pattern, count: RouteLookupRequest.batchSize).flatMap { $0 }
        let answers = try host.ask(requests)
        #expect(answers.count == requests.count)
        for (position, answer) in answers.enumerated() {
            switch position % 3 {
            case 0: #expect(Self.answer(answer)?.entry == RouteEntry(prefixLength: 0, metric: 100), "\(position)")
            case 1: #expect(answer == .noRoute, "\(position)")
            default: #expect(Self.answer(answer)?.outputInterface == host.a0, "\(position)")
            }
        }
    }
}
