import PathTestFixtures
import PathModel
import Testing

/// Criteria and ignored interfaces are answered from the tracked short-prefix routes
/// and rules, walked as the kernel walks them; these hosts mirror the kernel tests'.
@Suite("route simulation (criteria, VPN rules, policy)")
struct RouteSimulationTests {
    static let v4Any = IPAddress.v4(0)

    static func split(_ high: Bool, via index: InterfaceIndex, table: UInt32 = 254) -> NetworkEvent {
        .routeChanged(TrackedRoute(family: .ipv4, table: table, destination: .v4(high ? 0x8000_0000 : 0),
                                   prefixLength: 1, nexthops: [Nexthop(interface: index)]), replaces: false)
    }

    static func defaultRoute(table: UInt32, via index: InterfaceIndex, type: RouteType = .unicast) -> NetworkEvent {
        .routeChanged(TrackedRoute(family: .ipv4, table: table, destination: v4Any, prefixLength: 0, type: type,
                                   nexthops: type == .unicast ? [Nexthop(interface: index)] : []), replaces: false)
    }

    /// eth0 (wired, default route in main) and wg0 (tunnel), both addressed.
    static let wiredWithTunnel: [NetworkEvent] = [
        .linkChanged(Fixture.lo), .linkChanged(Fixture.eth0()), .linkChanged(Fixture.wg0()),
        Fixture.added("192.0.2.10"), Fixture.added("10.8.0.2", on: Fixture.wgIndex),
        Fixture.defaultRoute(.ipv4, via: Fixture.ethIndex, gateway: "192.0.2.1"),
    ]

    /// wg-quick's rules: unmarked traffic to table 51820, main without its default.
    static let wgQuickRules: [NetworkEvent] = RoutingRule.defaults(for: .ipv4).map { .ruleAdded($0) } + [
        .ruleAdded(RoutingRule(family: .ipv4, priority: 32764, action: .lookup(table: 254), suppressPrefixLength: 0)),
        .ruleAdded(RoutingRule(family: .ipv4, priority: 32765, action: .lookup(table: 51820), isInverted: true,
                               firewallMark: 51820)),
    ]

    @Test("wg-quick: excluding the tunnel type answers through the underlay")
    func wgQuickWithoutTunnel() {
        let snapshot = Snapshot(events: Self.wiredWithTunnel + Self.wgQuickRules
            + [Self.defaultRoute(table: 51820, via: Fixture.wgIndex)])
        let anyPath = PathEvaluator.evaluate(snapshot, criteria: Criteria(prohibitedInterfaceTypes: [.cellular]))
        #expect(anyPath.availableInterfaces.map(\.name) == ["wg0", "eth0"])
        let noTunnel = PathEvaluator.evaluate(snapshot, criteria: Criteria(prohibitedInterfaceTypes: [.other]))
        #expect(noTunnel.status == .satisfied)
        #expect(noTunnel.availableInterfaces.map(\.name) == ["eth0"])
    }

    @Test("suppress_prefixlength 0 skips main's default; a marked-only rule never matches")
    func ruleSelectors() {
        let marked = RoutingRule(family: .ipv4, priority: 100, action: .lookup(table: 7), firewallMark: 7)
        let inverted = RoutingRule(family: .ipv4, priority: 100, action: .lookup(table: 7), isInverted: true, firewallMark: 7)
        let fromSubnet = RoutingRule(family: .ipv4, priority: 100, action: .lookup(table: 7), hasOtherSelectors: true)
        #expect(!marked.matchesUnmarkedTraffic)
        #expect(inverted.matchesUnmarkedTraffic)
        #expect(!fromSubnet.matchesUnmarkedTraffic)

        // Only main's default exists and only the suppressing rule reaches main: no route.
        let onlySuppressed = Snapshot(events: Self.wiredWithTunnel + [
            .ruleAdded(RoutingRule(family: .ipv4, priority: 1, action: .lookup(table: 254), suppressPrefixLength: 0)),
        ])
        let path = PathEvaluator.evaluate(onlySuppressed, criteria: Criteria(requiredInterfaceType: .wiredEthernet))
        #expect(path.status == .unsatisfied)
    }

    @Test("OpenVPN def1: the /1 covering the destination wins over the default")
    func def1Coverage() {
        let snapshot = Snapshot(events: Self.wiredWithTunnel + [
            Self.split(false, via: Fixture.wgIndex), Self.split(true, via: Fixture.wgIndex),
        ])
        let path = PathEvaluator.evaluate(snapshot, criteria: Criteria(prohibitedInterfaceTypes: [.cellular]))
        #expect(path.availableInterfaces.map(\.name) == ["wg0", "eth0"])
        let covering = TrackedRoute(family: .ipv4, destination: .v4(0x8000_0000), prefixLength: 1, nexthops: [])
        #expect(covering.covers(LookupDestinations.standard.ipv4))
        #expect(!covering.covers(.v4(0x0A00_0001)))
    }

    @Test("a rejecting route or rule wins for criteria too")
    func killSwitchUnderCriteria() {
        let snapshot = Snapshot(events: Self.wiredWithTunnel + [
            .routeChanged(TrackedRoute(family: .ipv4, destination: Self.v4Any, prefixLength: 0, metric: 1,
                                       type: .unreachable, nexthops: []), replaces: false),
        ])
        let path = PathEvaluator.evaluate(snapshot, criteria: Criteria(requiredInterfaceType: .wiredEthernet))
        #expect(path.unsatisfiedReason == .routeRejects)
        let ruled = Snapshot(events: Self.wiredWithTunnel + [
            .ruleAdded(RoutingRule(family: .ipv4, priority: 1, action: .reject(.prohibit))),
        ])
        #expect(PathEvaluator.evaluate(ruled, criteria: Criteria(requiredInterfaceType: .wiredEthernet)).unsatisfiedReason
                == .routeRejects)
    }

    @Test("admin down drops the link's IPv4 routes as the kernel does, silently")
    func adminDownFlush() {
        var snapshot = Snapshot(events: Self.wiredWithTunnel)
        #expect(snapshot.routes(family: .ipv4, table: 254).count == 1)
        snapshot.apply(.linkChanged(Fixture.eth0(flags: [])))
        #expect(snapshot.routes(family: .ipv4, table: 254).isEmpty)
    }

    @Test("NLM_F_REPLACE replaces a route of the same identity; delete matches by identity and hop")
    func replaceAndDelete() {
        var snapshot = Snapshot(events: Self.wiredWithTunnel)
        let viaTunnel = TrackedRoute(family: .ipv4, destination: Self.v4Any, prefixLength: 0, metric: 100,
                                     nexthops: [Nexthop(interface: Fixture.wgIndex)])
        snapshot.apply(.routeChanged(viaTunnel, replaces: true))
        #expect(snapshot.routes(family: .ipv4, table: 254) == [viaTunnel])
        snapshot.apply(.routeRemoved(TrackedRoute(family: .ipv4, destination: Self.v4Any, prefixLength: 0, metric: 100,
                                                  nexthops: [Nexthop(interface: Fixture.wgIndex, gateway: Fixture.ip("10.8.0.1"))])))
        #expect(snapshot.routes(family: .ipv4, table: 254).isEmpty)
    }

    @Test("an ECMP route lists every working hop; a tunnel over a cellular underlay is expensive")
    func ecmpAndTunnelCost() {
        let multipath = TrackedRoute(family: .ipv4, destination: Self.v4Any, prefixLength: 0, metric: 50,
                                     nexthops: [Nexthop(interface: Fixture.wgIndex), Nexthop(interface: Fixture.wwanIndex)])
        let snapshot = Snapshot(events: [
            .linkChanged(Fixture.wg0()), .linkChanged(Fixture.wwan0()),
            Fixture.added("10.8.0.2", on: Fixture.wgIndex), Fixture.added("100.64.0.2", on: Fixture.wwanIndex),
            .routeChanged(multipath, replaces: false),
            Fixture.route(.ipv4, via: Fixture.wgIndex, source: "10.8.0.2"), Fixture.lookup(.ipv6, .noRoute),
        ])
        let path = PathEvaluator.evaluate(snapshot)
        #expect(path.availableInterfaces.map(\.name) == ["wg0", "wwan0"])
        #expect(path.isExpensive)
    }

    @Test("Ignore= hides an interface; an on-demand interface that is down gives requiresConnection")
    func ignoreAndOnDemand() throws {
        let ignoring = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: "[Interface]\nName=wg0\nIgnore=yes\n")])
        try #require(ignoring.isValid)
        let snapshot = Snapshot(events: Self.wiredWithTunnel + [
            Self.split(false, via: Fixture.wgIndex), Self.split(true, via: Fixture.wgIndex),
            Fixture.route(.ipv4, via: Fixture.wgIndex), Fixture.lookup(.ipv6, .noRoute),
        ])
        let path = PathEvaluator.evaluate(snapshot, policy: ignoring.configuration.policy)
        #expect(path.availableInterfaces.map(\.name) == ["eth0"])

        let onDemand = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: "[Interface]\nName=wg0\nOnDemand=yes\n")])
        try #require(onDemand.isValid)
        var down = Fixture.wg0()
        down.flags = []
        let offline = Snapshot(events: [.linkChanged(Fixture.lo), .linkChanged(down),
                                        Fixture.lookup(.ipv4, .noRoute), Fixture.lookup(.ipv6, .noRoute)])
        let waiting = PathEvaluator.evaluate(offline, policy: onDemand.configuration.policy)
        #expect(waiting.status == .requiresConnection)
        #expect(waiting.availableInterfaces.map(\.name) == ["wg0"])
    }
}
