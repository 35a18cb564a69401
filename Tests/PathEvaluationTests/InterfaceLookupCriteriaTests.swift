// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathEvaluation
import PathConfiguration
import Testing

private typealias F = Fixture

/// Criteria and ignored interfaces are answered from each interface's own lookup
/// (RTA_OIF + RTM_F_FIB_MATCH), ranked as the kernel ranks routes. Each host's answers
/// are the kernel's for the same host (InterfaceLookupKernelTests, `ip route get
/// fibmatch … oif …` in namespaces); KernelTests' verdicts run these hosts for real.
@Suite("criteria from the interfaces' own lookups (VPN rules, kill switches, policy)")
struct InterfaceLookupCriteriaTests {
    /// eth0 (wired, default route in main) and wg0 (tunnel), both addressed.
    static let wiredWithTunnel: [NetworkEvent] = [
        .linkChanged(F.lo), .linkChanged(F.eth0()), .linkChanged(F.wg0()),
        F.added("192.0.2.10"), F.added("10.8.0.2", on: F.wgIndex),
        F.defaultRoute(.ipv4, via: F.ethIndex, gateway: "192.0.2.1"),
    ]

    /// wg-quick's rules: unmarked traffic to table 51820, main without its default.
    static let wgQuickRules: [NetworkEvent] = RoutingRule.defaults(for: .ipv4).map { .ruleAdded($0) } + [
        .ruleAdded(RoutingRule(family: .ipv4, priority: 32764, action: .lookup(table: 254), suppressPrefixLength: 0)),
        .ruleAdded(RoutingRule(family: .ipv4, priority: 32765, action: .lookup(table: 51820), isInverted: true,
                               firewallMark: 51820)),
    ]

    @Test("wg-quick: the tunnel's table comes first by its rule; main's default is reached by the rule after it")
    func wgQuickWithoutTunnel() {
        // Through wg0 the kernel answers table 51820's default; through eth0, main's
        // (rule 32764 suppresses it, rule 32766 takes it).
        let snapshot = Snapshot(events: Self.wiredWithTunnel + Self.wgQuickRules
            + [F.defaultRoute(.ipv4, via: F.wgIndex, table: 51820)])
        let anyPath = PathEvaluator.evaluate(snapshot, criteria: Criteria(prohibitedInterfaceTypes: [.cellular]))
        #expect(anyPath.availableInterfaces.map(\.name) == ["wg0", "eth0"])
        let noTunnel = PathEvaluator.evaluate(snapshot, criteria: Criteria(prohibitedInterfaceTypes: [.other]))
        #expect(noTunnel.status == .satisfied)
        #expect(noTunnel.availableInterfaces.map(\.name) == ["eth0"])
    }

    @Test("which rules take unmarked traffic: a marked-only rule never, an inverted one always")
    func ruleSelectors() {
        let marked = RoutingRule(family: .ipv4, priority: 100, action: .lookup(table: 7), firewallMark: 7)
        let inverted = RoutingRule(family: .ipv4, priority: 100, action: .lookup(table: 7), isInverted: true,
                                   firewallMark: 7)
        let fromSubnet = RoutingRule(family: .ipv4, priority: 100, action: .lookup(table: 7), hasOtherSelectors: true)
        #expect(!marked.matchesUnmarkedTraffic)
        #expect(inverted.matchesUnmarkedTraffic)
        #expect(!fromSubnet.matchesUnmarkedTraffic)

        // Table 7 reached only by the marked rule ranks after main, whatever its prefix.
        let snapshot = Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(F.eth0()), .linkChanged(F.wlan0()),
            F.added("192.0.2.10"), F.added("192.168.1.5", on: F.wlanIndex),
            F.defaultRoute(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", metric: 600),
            F.defaultRoute(.ipv4, via: F.wlanIndex, gateway: "192.168.1.1", metric: 50, table: 7, prefixLength: 24),
        ] + RoutingRule.defaults(for: .ipv4).map { .ruleAdded($0) } + [.ruleAdded(marked)])
        let path = PathEvaluator.evaluate(snapshot, criteria: Criteria(prohibitedInterfaceTypes: [.cellular]))
        #expect(path.availableInterfaces.map(\.name) == ["eth0", "wlan0"])
    }

    @Test("OpenVPN def1: the /1 through the tunnel ranks before the default in the same table")
    func def1Coverage() {
        let snapshot = Snapshot(events: Self.wiredWithTunnel + [
            F.defaultRoute(.ipv4, via: F.wgIndex, metric: 0, prefixLength: 1),
        ])
        let path = PathEvaluator.evaluate(snapshot, criteria: Criteria(prohibitedInterfaceTypes: [.cellular]))
        #expect(path.availableInterfaces.map(\.name) == ["wg0", "eth0"])
    }

    @Test("a rejecting route or rule wins for criteria too: IPv4 refuses every interface, the kernel's lookup says why")
    func killSwitchUnderCriteria() {
        // `unreachable default metric 1` before eth0's default: through eth0 the kernel
        // answers EHOSTUNREACH, and its own lookup names the reject.
        let links: [NetworkEvent] = [
            .linkChanged(F.lo), .linkChanged(F.eth0()), .linkChanged(F.wg0()),
            F.added("192.0.2.10"), F.added("10.8.0.2", on: F.wgIndex),
        ]
        let refused: [NetworkEvent] = [
            .interfaceLookup(.ipv4, F.ethIndex, .rejected(.unreachable)),
            .interfaceLookup(.ipv4, F.wgIndex, .rejected(.unreachable)),
        ]
        let snapshot = Snapshot(events: links + refused + [F.lookup(.ipv4, .rejected(.unreachable))])
        let path = PathEvaluator.evaluate(snapshot, criteria: Criteria(requiredInterfaceType: .wiredEthernet))
        #expect(path.unsatisfiedReason == .routeRejects)
        let ruled = Snapshot(events: links + refused + [
            .ruleAdded(RoutingRule(family: .ipv4, priority: 1, action: .reject(.prohibit))),
            F.lookup(.ipv4, .rejected(.prohibit)),
        ])
        #expect(PathEvaluator.evaluate(ruled,
                                       criteria: Criteria(requiredInterfaceType: .wiredEthernet)).unsatisfiedReason
                == .routeRejects)
        // The same refusals without a reject in the kernel's lookup: no route.
        let none = Snapshot(events: links + refused + [F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute)])
        #expect(PathEvaluator.evaluate(none,
                                       criteria: Criteria(requiredInterfaceType: .wiredEthernet)).unsatisfiedReason
                == .noRoute)
    }

    @Test("IPv6 passes over a reject route through an interface: a program bound to it gets through")
    func ipv6RejectPassedOverThroughAnInterface() {
        let snapshot = Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(F.eth0()), F.added("2001:db8:1::10"),
            F.lookup(.ipv6, .rejected(.unreachable)), F.lookup(.ipv4, .noRoute),
            F.defaultRoute(.ipv6, via: F.ethIndex, gateway: "fe80::1"),
        ])
        #expect(PathEvaluator.evaluate(snapshot).unsatisfiedReason == .routeRejects)
        let bound = PathEvaluator.evaluate(snapshot, criteria: Criteria(requiredInterfaceType: .wiredEthernet))
        #expect(bound.status == .satisfied && bound.supportsIPv6)
        #expect(bound.availableInterfaces.map(\.name) == ["eth0"])
    }

    @Test("a link that goes down or away loses its own answers: the kernel is not asked about it")
    func downLinksLoseTheirAnswers() {
        var snapshot = Snapshot(events: Self.wiredWithTunnel)
        #expect(snapshot.interfaceLookups[.ipv4]?[F.ethIndex] != nil)
        snapshot.apply(.linkChanged(F.eth0(flags: [])))
        #expect(snapshot.interfaceLookups[.ipv4]?[F.ethIndex] == nil)
        snapshot.apply(.linkChanged(F.eth0()))
        snapshot.apply(F.defaultRoute(.ipv4, via: F.ethIndex, gateway: "192.0.2.1"))
        snapshot.apply(.linkRemoved(F.ethIndex))
        #expect(snapshot.interfaceLookups[.ipv4]?[F.ethIndex] == nil)
    }

    @Test("an ECMP route lists every working hop; a tunnel over a cellular underlay is expensive")
    func ecmpAndTunnelCost() {
        // One entry of two hops: through each interface the kernel answers it with that hop.
        let snapshot = Snapshot(events: [
            .linkChanged(F.wg0()), .linkChanged(F.wwan0()),
            F.added("10.8.0.2", on: F.wgIndex), F.added("100.64.0.2", on: F.wwanIndex),
            F.defaultRoute(.ipv4, via: F.wgIndex, metric: 50), F.defaultRoute(.ipv4, via: F.wwanIndex, metric: 50),
            F.route(.ipv4, via: F.wgIndex, source: "10.8.0.2"), F.lookup(.ipv6, .noRoute),
        ])
        let path = PathEvaluator.evaluate(snapshot)
        #expect(path.availableInterfaces.map(\.name) == ["wg0", "wwan0"])
        #expect(path.isExpensive)
    }

    @Test("Ignore= hides an interface; an on-demand interface that is down gives requiresConnection")
    func ignoreAndOnDemand() throws {
        let ignoring = Configuration.parse([ConfigurationSource(name: "pathd.conf",
                                                                text: "[Interface]\nName=wg0\nIgnore=yes\n")])
        try #require(ignoring.isValid)
        let snapshot = Snapshot(events: Self.wiredWithTunnel + [
            F.defaultRoute(.ipv4, via: F.wgIndex, metric: 0, prefixLength: 1),
            F.route(.ipv4, via: F.wgIndex), F.lookup(.ipv6, .noRoute),
        ])
        let path = PathEvaluator.evaluate(snapshot, policy: ignoring.configuration.policy)
        #expect(path.availableInterfaces.map(\.name) == ["eth0"])

        let onDemand = Configuration.parse([ConfigurationSource(name: "pathd.conf",
                                                                text: "[Interface]\nName=wg0\nOnDemand=yes\n")])
        try #require(onDemand.isValid)
        var down = F.wg0()
        down.flags = []
        let offline = Snapshot(events: [.linkChanged(F.lo), .linkChanged(down),
                                        F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute)])
        let waiting = PathEvaluator.evaluate(offline, policy: onDemand.configuration.policy)
        #expect(waiting.status == .requiresConnection)
        #expect(waiting.availableInterfaces.map(\.name) == ["wg0"])
    }
}
