// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathEvaluation
import Testing

private typealias F = Fixture

/// A usable source is the one the kernel says it will use (the lookup's RTA_PREFSRC);
/// where no lookup answers (criteria, the interfaces report), the addresses are judged
/// as the kernel would choose among them (SourceAddress.swift).
@Suite("Source addresses")
struct SourceAddressTests {
    /// One setup, as the kernel's lookup answers it and as the tracked routes describe it.
    struct Setup: Sendable, CustomTestStringConvertible {
        var name: String
        var addresses: [InterfaceAddress]
        var gateway: String?
        /// What `ip route get` names as `src` for it (measured in namespaces where marked).
        var kernelSource: String?
        var family: AddressFamily
        var usable: Bool
        var testDescription: String { name }
    }

    static let setups: [Setup] = [
        // ip route get 203.0.113.1 → "dev vA src 169.254.10.2" (Linux 6.18, a namespace).
        Setup(name: "IPv4 link-local, link-scope default",
              addresses: [F.address("169.254.10.2", prefix: 16, scope: .link)],
              gateway: nil, kernelSource: "169.254.10.2", family: .ipv4, usable: true),
        // ip route get 203.0.113.1 → "via 169.254.10.1 dev vA": no src.
        Setup(name: "IPv4 link-local, default via a gateway",
              addresses: [F.address("169.254.10.2", prefix: 16, scope: .link)],
              gateway: "169.254.10.1", kernelSource: nil, family: .ipv4, usable: false),
        Setup(name: "IPv4 global, default via a gateway", addresses: [F.address("192.0.2.10")],
              gateway: "192.0.2.1", kernelSource: "192.0.2.10", family: .ipv4, usable: true),
        // ip -6 route get → "src 2001:db8:1::2" while the address is "optimistic tentative".
        Setup(name: "IPv6 optimistic during DAD",
              addresses: [F.address("2001:db8::10", flags: [.tentative, .optimistic])],
              gateway: "fe80::1", kernelSource: "2001:db8::10", family: .ipv6, usable: true),
        Setup(name: "IPv6 tentative, link-local beside it",
              addresses: [F.address("2001:db8::10", flags: .tentative), F.address("fe80::10", scope: .link)],
              gateway: "fe80::1", kernelSource: "fe80::10", family: .ipv6, usable: false),
        Setup(name: "IPv6 DAD failed", addresses: [F.address("2001:db8::10", flags: [.tentative, .dadFailed])],
              gateway: "fe80::1", kernelSource: nil, family: .ipv6, usable: false),
        // ip -6 route get → "src fe80::…": the kernel picks link-local when nothing better exists.
        Setup(name: "IPv6 link-local only", addresses: [F.address("fe80::10", scope: .link)],
              gateway: "fe80::1", kernelSource: "fe80::10", family: .ipv6, usable: false),
        Setup(name: "IPv6 deprecated global", addresses: [F.address("2001:db8::10", flags: .deprecated)],
              gateway: "fe80::1", kernelSource: "2001:db8::10", family: .ipv6, usable: true),
    ]

    static func events(_ setup: Setup, withLookup: Bool) -> [NetworkEvent] {
        let other: AddressFamily = setup.family == .ipv4 ? .ipv6 : .ipv4
        var events: [NetworkEvent] = [.linkChanged(F.lo), .linkChanged(F.eth0())]
        events += setup.addresses.map { .addressChanged($0) }
        events.append(F.defaultRoute(setup.family, via: F.ethIndex, gateway: setup.gateway))
        if withLookup {
            events += [F.route(setup.family, via: F.ethIndex, gateway: setup.gateway, source: setup.kernelSource),
                       F.lookup(other, .noRoute)]
        }
        return events
    }

    @Test("the kernel's source decides", arguments: setups)
    func kernelDecides(_ setup: Setup) {
        let path = PathEvaluator.evaluate(Snapshot(events: Self.events(setup, withLookup: true)))
        #expect(path.status == (setup.usable ? .satisfied : .unsatisfied))
        if !setup.usable {
            #expect(path.unsatisfiedReason == .noAddress)
            #expect(path.reasonInterface == "eth0")
        }
    }

    /// Criteria make the evaluator simulate; it must come to what the kernel says.
    @Test("the simulation agrees with the kernel", arguments: setups)
    func simulationAgrees(_ setup: Setup) {
        let snapshot = Snapshot(events: Self.events(setup, withLookup: false))
        let path = PathEvaluator.evaluate(snapshot, criteria: Criteria(requiredInterfaceType: .wiredEthernet))
        #expect(path.status == (setup.usable ? .satisfied : .unsatisfied))
        if !setup.usable { #expect(path.unsatisfiedReason == .noAddress) }
        #expect(snapshot.hasUsableAddress(F.ethIndex, family: setup.family) == setup.usable,
                "the interfaces report's rule for the link alone")
    }

    @Test func theKernelsAnswerOutranksTheFlagsPathdSaw() {
        // A lookup is always at least as new as the address events before it.
        let path = PathEvaluator.evaluate(Snapshot(events: [
            .linkChanged(F.eth0()), F.added("2001:db8::10", flags: .tentative),
            F.route(.ipv6, via: F.ethIndex, gateway: "fe80::1", source: "2001:db8::10"), F.lookup(.ipv4, .noRoute),
        ]))
        #expect(path.status == .satisfied)
    }

    @Test("sources that never count", arguments: ["127.0.0.1", "0.0.0.0", "::1", "::", "fe80::1", "febf:ffff::1"])
    func neverCounts(_ text: String) {
        #expect(!F.ip(text).countsAsSource)
        let family = F.ip(text).family
        let path = PathEvaluator.evaluate(Snapshot(events: [
            .linkChanged(F.eth0()), F.route(family, via: F.ethIndex, source: text),
            F.lookup(family == .ipv4 ? .ipv6 : .ipv4, .noRoute),
        ]))
        #expect(path.unsatisfiedReason == .noAddress)
    }

    @Test("sources that count",
          arguments: ["192.0.2.10", "169.254.10.2", "10.0.0.1", "2001:db8::1", "fec0::1", "fd00::1"])
    func counts(_ text: String) {
        #expect(F.ip(text).countsAsSource)
    }

    static let wired = Criteria(requiredInterfaceType: .wiredEthernet)

    @Test("simulated: a route's own src is the source, whatever the link holds")
    func routeSource() {
        let bare: [NetworkEvent] = [.linkChanged(F.lo), .linkChanged(F.eth0())]
        let withSource = Snapshot(events: bare
                                  + [F.defaultRoute(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "10.0.0.1")])
        #expect(PathEvaluator.evaluate(withSource, criteria: Self.wired).status == .satisfied)
        let linkLocal = Snapshot(events: bare
                                 + [F.defaultRoute(.ipv6, via: F.ethIndex, gateway: "fe80::1", source: "fe80::10")])
        #expect(PathEvaluator.evaluate(linkLocal, criteria: Self.wired).unsatisfiedReason == .noAddress)
    }

    @Test("""
        simulated IPv4: with nothing on the link, another link's global address serves; not a link-scope or host one
        """)
    func ipv4FromAnotherLink() {
        let unnumbered: [NetworkEvent] = [
            .linkChanged(F.lo), .linkChanged(F.eth0()), .linkChanged(F.wlan0()),
            F.defaultRoute(.ipv4, via: F.ethIndex, gateway: "192.0.2.1"),
        ]
        let onLoopback = Snapshot(events: unnumbered + [F.added("10.0.0.1", on: F.loIndex)])
        #expect(PathEvaluator.evaluate(onLoopback, criteria: Self.wired).status == .satisfied)
        let hostOnly = Snapshot(events: unnumbered + [F.added("127.0.0.1", on: F.loIndex, scope: .host)])
        #expect(PathEvaluator.evaluate(hostOnly, criteria: Self.wired).unsatisfiedReason == .noAddress)
        let linkLocalElsewhere = Snapshot(events: unnumbered + [
            .addressChanged(F.address("169.254.3.3", on: F.wlanIndex, prefix: 16, scope: .link)),
        ])
        #expect(PathEvaluator.evaluate(linkLocalElsewhere, criteria: Self.wired).unsatisfiedReason == .noAddress)
    }

    @Test("the link alone: IPv4 link-local counts where a link-scope route leaves by it, not by another link")
    func linkLocalNeedsItsOwnLinkScopeRoute() {
        let addressed: [NetworkEvent] = [
            .linkChanged(F.eth0()), .linkChanged(F.wlan0()),
            .addressChanged(F.address("169.254.10.2", prefix: 16, scope: .link)),
        ]
        #expect(!Snapshot(events: addressed).hasUsableAddress(F.ethIndex, family: .ipv4))
        let own = Snapshot(events: addressed + [F.defaultRoute(.ipv4, via: F.ethIndex)])
        #expect(own.hasUsableAddress(F.ethIndex, family: .ipv4))
        #expect(InterfaceReport.report(for: F.eth0(), in: own, policy: .standard).isUsable)
        let elsewhere = Snapshot(events: addressed + [F.defaultRoute(.ipv4, via: F.wlanIndex)])
        #expect(!elsewhere.hasUsableAddress(F.ethIndex, family: .ipv4))
        #expect(InterfaceReport.report(for: F.eth0(), in: elsewhere, policy: .standard).unusableReason
                == .noUsableAddress)
    }
}
