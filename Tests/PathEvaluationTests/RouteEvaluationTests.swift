// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathEvaluation
import PathConfiguration
import PathTestFixtures
import Testing

private typealias F = Fixture

/// `PathEvaluator.route`: one destination's kernel answer judged by a path's rules.
@Suite("route to one destination")
struct RouteEvaluationTests {
    static let destination = F.ip("198.51.100.7")
    /// A wired host: eth0 up with 192.0.2.10/24, default route via 192.0.2.1.
    static let wired: [NetworkEvent] = [
        .linkChanged(F.lo), .linkChanged(F.eth0()), F.added("192.0.2.10"),
        F.defaultRoute(.ipv4, via: F.ethIndex, gateway: "192.0.2.1"),
    ]

    static func answer(via index: InterfaceIndex?, gateway: String? = "192.0.2.1", source: String? = "192.0.2.10",
                       type: RouteType = .unicast, table: UInt32 = 254, isLinkDown: Bool = false) -> RouteLookup {
        .route(RouteAnswer(type: type, outputInterface: index, gateway: gateway.map(F.ip), table: table,
                           preferredSource: source.map(F.ip), isLinkDown: isLinkDown))
    }

    /// The interfaces' own answers for a destination on a host whose only routes are
    /// default routes: each interface's default, as for the lookup destination.
    static func throughInterface(_ events: [NetworkEvent], _ family: AddressFamily) -> [InterfaceIndex: RouteLookup] {
        Snapshot(events: events).interfaceLookups[family] ?? [:]
    }

    static func policy(_ text: String) -> Policy {
        let result = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)])
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return result.configuration.policy
    }

    @Test("a unicast route over a usable link with a source is satisfied, with what the kernel named")
    func satisfiedViaGateway() {
        let report = PathEvaluator.route(to: Self.destination, lookup: Self.answer(via: F.ethIndex, table: 100),
                                         snapshot: Snapshot(events: Self.wired))
        #expect(report == RouteReport(destination: Self.destination, status: .satisfied, interface: F.eth0Interface,
                                      source: F.ip("192.0.2.10"), gateway: F.ip("192.0.2.1"), table: 100))
    }

    @Test("no covering route is noRoute, with no interface")
    func noRoute() {
        let report = PathEvaluator.route(to: Self.destination, lookup: .noRoute, snapshot: Snapshot(events: Self.wired))
        #expect(report.status == .unsatisfied)
        #expect(report.unsatisfiedReason == .noRoute)
        #expect(report.interface == nil && report.gateway == nil && report.source == nil)
        #expect(report.reason == "no route to 198.51.100.7")
    }

    @Test("a rejecting route, as an error or as a reply, is routeRejects", arguments: [
        RouteLookup.rejected(.prohibit), .rejected(.blackhole), .rejected(.unreachable),
        RouteEvaluationTests.answer(via: nil, gateway: nil, source: nil, type: .blackhole),
    ])
    func rejects(lookup: RouteLookup) {
        let report = PathEvaluator.route(to: Self.destination, lookup: lookup, snapshot: Snapshot(events: Self.wired))
        #expect(report.status == .unsatisfied)
        #expect(report.unsatisfiedReason == .routeRejects)
        #expect(report.interface == nil)
    }

    @Test("the link's own state decides: no carrier and linkdown name the interface")
    func unusableLink() {
        let noCarrier = Self.wired + [.linkChanged(F.eth0NoCarrier)]
        let report = PathEvaluator.route(to: Self.destination, lookup: Self.answer(via: F.ethIndex),
                                         snapshot: Snapshot(events: noCarrier))
        #expect(report.status == .unsatisfied)
        #expect(report.unsatisfiedReason == .noCarrier)
        #expect(report.reasonInterface == "eth0")
        #expect(report.interface == F.eth0Interface)
        let linkDown = PathEvaluator.route(to: Self.destination, lookup: Self.answer(via: F.ethIndex, isLinkDown: true),
                                           snapshot: Snapshot(events: Self.wired))
        #expect(linkDown.unsatisfiedReason == .noCarrier)
    }

    @Test("a source that does not count (IPv6 link-local) is noAddress")
    func linkLocalSource() {
        let v6 = F.ip("2001:db8:ffff::1")
        let report = PathEvaluator.route(to: v6,
                                         lookup: Self.answer(via: F.ethIndex, gateway: "fe80::1", source: "fe80::2"),
                                         snapshot: Snapshot(events: Self.wired))
        #expect(report.unsatisfiedReason == .noAddress)
        #expect(report.reasonInterface == "eth0")
    }

    @Test("an address of this host is satisfied through loopback")
    func local() {
        let report = PathEvaluator.route(to: F.ip("192.0.2.10"),
                                         lookup: Self.answer(via: F.loIndex, gateway: nil, type: .local, table: 255),
                                         snapshot: Snapshot(events: Self.wired))
        #expect(report.status == .satisfied)
        #expect(report.interface?.name == "lo")
        #expect(report.interface?.type == .loopback)
        #expect(report.table == 255)
    }

    @Test("the policy's cost of the interface, and a tunnel's underlay's")
    func cost() {
        let wireguard: [NetworkEvent] = [
            .linkChanged(F.lo), .linkChanged(F.wwan0()), .linkChanged(F.wg0()),
            F.added("10.64.0.2", on: F.wwanIndex), F.added("10.9.0.2", on: F.wgIndex),
            F.defaultRoute(.ipv4, via: F.wwanIndex), F.defaultRoute(.ipv4, via: F.wgIndex, metric: 50),
        ]
        let viaTunnel = PathEvaluator.route(to: Self.destination,
                                            lookup: Self.answer(via: F.wgIndex, gateway: nil, source: "10.9.0.2"),
                                            throughInterface: Self.throughInterface(wireguard, .ipv4),
                                            snapshot: Snapshot(events: wireguard))
        #expect(viaTunnel.status == .satisfied)
        #expect(viaTunnel.interface?.isTunnel == true)
        #expect(viaTunnel.isExpensive, "the tunnel runs over wwan0, which is expensive")
        let constrained = PathEvaluator.route(to: Self.destination, lookup: Self.answer(via: F.ethIndex),
                                              snapshot: Snapshot(events: Self.wired),
                                              policy: Self.policy("[Interface]\nName=eth0\nConstrained=yes\n"))
        #expect(constrained.isConstrained && !constrained.isExpensive)
    }

    @Test("an ignored interface is never the answer: the other interfaces' own answers decide")
    func ignored() {
        let twoLinks = Self.wired + [
            .linkChanged(F.wlan0()), F.added("192.168.1.5", on: F.wlanIndex),
            F.defaultRoute(.ipv4, via: F.wlanIndex, gateway: "192.168.1.1", metric: 600),
        ]
        let policy = Self.policy("[Interface]\nName=eth0\nIgnore=yes\n")
        let report = PathEvaluator.route(to: Self.destination, lookup: Self.answer(via: F.ethIndex),
                                         throughInterface: Self.throughInterface(twoLinks, .ipv4),
                                         snapshot: Snapshot(events: twoLinks), policy: policy)
        #expect(report.status == .satisfied)
        #expect(report.interface == F.wlan0Interface)
        #expect(report.gateway == F.ip("192.168.1.1"))
        #expect(report.source == nil && report.table == nil, "another interface's entry is not quoted as the answer")
        let alone = PathEvaluator.route(to: Self.destination, lookup: Self.answer(via: F.ethIndex),
                                        throughInterface: Self.throughInterface(Self.wired, .ipv4),
                                        snapshot: Snapshot(events: Self.wired), policy: policy)
        #expect(alone.status == .unsatisfied)
        #expect(alone.interface == nil)
    }

    @Test("with no usable route, an on-demand interface makes it requiresConnection")
    func onDemand() {
        let ppp = Link(index: F.wwanIndex, name: "ppp0", flags: [], operState: .down,
                       hardwareType: HardwareType(rawValue: 512), kind: nil, type: .other)
        let policy = Self.policy("[Interface]\nName=ppp0\nOnDemand=yes\nExpensive=yes\n")
        let report = PathEvaluator.route(to: Self.destination, lookup: .noRoute,
                                         snapshot: Snapshot(events: [.linkChanged(F.lo),
                                                                     .linkChanged(ppp)]), policy: policy)
        #expect(report.status == .requiresConnection)
        #expect(report.interface?.name == "ppp0")
        #expect(report.isExpensive)
        #expect(report.unsatisfiedReason == nil)
    }

    // MARK: Destinations on the link, mapped addresses, broadcast and multicast

    /// `wired` with IPv6: fe80::2 and 2001:db8:77::2 on eth0, default route via fe80::1.
    static let dualStack = wired + [
        F.added("fe80::2", scope: .link), F.added("2001:db8:77::2"),
        F.defaultRoute(.ipv6, via: F.ethIndex, gateway: "fe80::1"),
    ]

    @Test("a destination on the link (fe80::1, ff02::1) is satisfied from the link-local source the kernel names",
          arguments: [("fe80::1", RouteType.unicast), ("ff02::1", .multicast), ("ff01::1", .multicast)])
    func linkLocalDestination(text: String, type: RouteType) {
        let report = PathEvaluator.route(to: F.ip(text),
                                         lookup: Self.answer(via: F.ethIndex, gateway: nil, source: "fe80::2",
                                                             type: type),
                                         snapshot: Snapshot(events: Self.dualStack))
        #expect(report == RouteReport(destination: F.ip(text), status: .satisfied, interface: F.eth0Interface,
                                      source: F.ip("fe80::2"), table: 254))
        // Only a link-local eth0 (no global address): still what the kernel uses on the link.
        let linkLocalOnly = PathEvaluator.route(
            to: F.ip(text), lookup: Self.answer(via: F.ethIndex, gateway: nil, source: "fe80::2", type: type),
            snapshot: Snapshot(events: [.linkChanged(F.lo), .linkChanged(F.eth0()), F.added("fe80::2", scope: .link)]))
        #expect(linkLocalOnly.status == .satisfied)
    }

    @Test("beyond the link a link-local source is still noAddress: a global, a site-scope multicast destination")
    func linkLocalSourceBeyondTheLink() {
        for (text, type) in [("2001:db8:ffff::1", RouteType.unicast), ("ff05::1", .multicast)] {
            let report = PathEvaluator.route(to: F.ip(text),
                                             lookup: Self.answer(via: F.ethIndex, gateway: nil, source: "fe80::2",
                                                                 type: type),
                                             snapshot: Snapshot(events: Self.dualStack))
            #expect(report.unsatisfiedReason == .noAddress, "\(text)")
        }
    }

    @Test("an IPv4 link-local destination with a 169.254 source on a link-scope route is satisfied")
    func ipv4LinkLocal() {
        let events: [NetworkEvent] = [.linkChanged(F.lo), .linkChanged(F.eth0()), F.added("169.254.5.5", scope: .link)]
        let report = PathEvaluator.route(to: F.ip("169.254.1.1"),
                                         lookup: Self.answer(via: F.ethIndex, gateway: nil, source: "169.254.5.5"),
                                         snapshot: Snapshot(events: events))
        #expect(report.status == .satisfied)
        #expect(report.source == F.ip("169.254.5.5"))
    }

    @Test("a link-local destination whose link is ignored is not answered through another interface's default route")
    func linkLocalOnAnIgnoredLink() {
        let twoLinks = Self.dualStack + [
            .linkChanged(F.wlan0()), F.added("2001:db8:1::5", on: F.wlanIndex),
            F.defaultRoute(.ipv6, via: F.wlanIndex, gateway: "fe80::99", metric: 600),
        ]
        let report = PathEvaluator.route(to: F.ip("fe80::1"),
                                         lookup: Self.answer(via: F.ethIndex, gateway: nil, source: "fe80::2"),
                                         throughInterface: Self.throughInterface(twoLinks, .ipv6),
                                         snapshot: Snapshot(events: twoLinks),
                                         policy: Self.policy("[Interface]\nName=eth0\nIgnore=yes\n"))
        #expect(report.status == .unsatisfied)
        #expect(report.interface == nil)
        // A global destination is answered around it, as before.
        let global = PathEvaluator.route(to: F.ip("2001:db8:ffff::1"),
                                         lookup: Self.answer(via: F.ethIndex, gateway: "fe80::1",
                                                             source: "2001:db8:77::2"),
                                         throughInterface: Self.throughInterface(twoLinks, .ipv6),
                                         snapshot: Snapshot(events: twoLinks),
                                         policy: Self.policy("[Interface]\nName=eth0\nIgnore=yes\n"))
        #expect(global.interface == F.wlan0Interface)
    }

    @Test("an IPv4-mapped address is judged as the IPv4 address its traffic goes to, and reported as asked")
    func mapped() {
        // No IPv6 address at all: judged as IPv6, no route would be noAddress.
        let report = PathEvaluator.route(to: F.ip("::ffff:198.51.100.7"), lookup: .noRoute,
                                         snapshot: Snapshot(events: Self.wired))
        #expect(report.destination == F.ip("::ffff:198.51.100.7"))
        #expect(report.unsatisfiedReason == .noRoute)
        #expect(report.reason == "no route to ::ffff:198.51.100.7")
        let satisfied = PathEvaluator.route(to: F.ip("::ffff:198.51.100.7"), lookup: Self.answer(via: F.ethIndex),
                                            snapshot: Snapshot(events: Self.wired))
        #expect(satisfied.status == .satisfied)
        #expect(satisfied.source == F.ip("192.0.2.10"))
    }

    @Test("a broadcast or multicast answer goes through the interface the kernel names, judged by its state",
          arguments: [("192.0.2.255", RouteType.broadcast), ("255.255.255.255", .broadcast), ("224.0.0.1", .multicast),
                      ("239.1.2.3", .multicast)])
    func broadcastAndMulticast(text: String, type: RouteType) {
        let lookup = Self.answer(via: F.ethIndex, gateway: nil, type: type, table: type == .broadcast ? 255 : 254)
        let report = PathEvaluator.route(to: F.ip(text), lookup: lookup, snapshot: Snapshot(events: Self.wired))
        #expect(report == RouteReport(destination: F.ip(text), status: .satisfied, interface: F.eth0Interface,
                                      source: F.ip("192.0.2.10"), table: type == .broadcast ? 255 : 254))
        let noCarrier = PathEvaluator.route(to: F.ip(text), lookup: lookup,
                                            snapshot: Snapshot(events: Self.wired + [.linkChanged(F.eth0NoCarrier)]))
        #expect(noCarrier.unsatisfiedReason == .noCarrier)
        #expect(noCarrier.reasonInterface == "eth0")
        #expect(noCarrier.interface == F.eth0Interface)
    }

    @Test("an anycast address of this host, like a local one, is satisfied through loopback")
    func anycast() {
        let report = PathEvaluator.route(to: F.ip("2001:db8:77::"),
                                         lookup: Self.answer(via: F.loIndex, gateway: nil, source: "2001:db8:77::2",
                                                             type: .anycast, table: 255),
                                         snapshot: Snapshot(events: Self.dualStack))
        #expect(report.status == .satisfied)
        #expect(report.interface?.name == "lo")
        #expect(report.table == 255)
    }

    @Test("a route type pathd does not know (nat) is noRoute, as before")
    func unknownType() {
        let report = PathEvaluator.route(to: Self.destination,
                                         lookup: Self.answer(via: F.ethIndex, type: RouteType(rawValue: 10)),
                                         snapshot: Snapshot(events: Self.wired))
        #expect(report.unsatisfiedReason == .noRoute)
        #expect(report.interface == nil)
    }
}
