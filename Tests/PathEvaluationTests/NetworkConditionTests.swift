// SPDX-License-Identifier: Apache-2.0
import PathConfiguration
import PathEvaluation
import PathModel
import PathTestFixtures
import Testing

private typealias F = Fixture
private typealias Host = NetworkIdentifierTests

/// The network conditions (`Criteria.requiredNetwork`, `prohibitedNetworks`: pathctl's
/// `--network` and `--not-network`): the network of the path's first interface, by its
/// `[Network] Name=` or its ID, judged only once identified.
@Suite("Path conditions: on network NAME, not on network NAME")
struct NetworkConditionTests {
    /// wlan0 on the home network (its gateway's MAC confirmed).
    private static var atHome: Snapshot {
        var snapshot = Host.host()
        snapshot.apply(Host.neighbour(Host.homeMAC, confirmedAt: 5))
        return snapshot
    }

    /// Back on a carrier, no gateway confirmed yet: pending.
    private static var pending: Snapshot {
        var snapshot = atHome
        snapshot.apply(.carrierLost(F.wlanIndex, at: Host.instant(10)))
        snapshot.apply(.carrierRegained(F.wlanIndex, at: Host.instant(12)))
        return snapshot
    }

    /// wlan0 moved to the hotspot: after the carrier came back, the new MAC is confirmed.
    private static var onHotspot: Snapshot {
        var snapshot = pending
        snapshot.apply(Host.neighbour(Host.hotspotMAC, confirmedAt: 13))
        return snapshot
    }

    private static func evaluate(_ snapshot: Snapshot, _ criteria: Criteria) -> Path {
        PathEvaluator.evaluate(snapshot, policy: Host.homeAndHotspot, criteria: criteria)
    }

    @Test("--network home holds at home and fails on the hotspot, naming the interface")
    func requiredNetwork() {
        let home = Criteria(requiredNetwork: "home")
        let atHome = Self.evaluate(Self.atHome, home)
        #expect(atHome.status == .satisfied)
        #expect(atHome == Self.evaluate(Self.atHome, .any), "a condition met changes nothing of the path")

        let away = Self.evaluate(Self.onHotspot, home)
        #expect(away.status == .unsatisfied)
        #expect(away.unsatisfiedReason == .networkExcluded)
        #expect(away.reasonInterface == "wlan0")
        #expect(away.summary == "unsatisfied: the path via wlan0 is not on a network the criteria allow")
        #expect(away.availableInterfaces.isEmpty && away.gateways.isEmpty)
        // The cost it was judged with stays, as for the other conditions.
        #expect(away.isExpensive && away.isExpensiveSetBy == .network)
    }

    @Test("--not-network hotspot fails on the hotspot only")
    func prohibitedNetwork() {
        let notHotspot = Criteria(prohibitedNetworks: ["hotspot"])
        #expect(Self.evaluate(Self.atHome, notHotspot).status == .satisfied)
        let onHotspot = Self.evaluate(Self.onHotspot, notHotspot)
        #expect(onHotspot.status == .unsatisfied && onHotspot.unsatisfiedReason == .networkExcluded)
        #expect(Self.evaluate(Self.onHotspot, Criteria(prohibitedNetworks: ["office", "hotspot"])).unsatisfiedReason
            == .networkExcluded)
    }

    @Test("a network is named by its ID too, in either case")
    func byID() throws {
        let id = try #require(Self.evaluate(Self.atHome, .any).network?.id)
        #expect(Self.evaluate(Self.atHome, Criteria(requiredNetwork: id.description)).status == .satisfied)
        #expect(Self.evaluate(Self.atHome, Criteria(requiredNetwork: id.description.uppercased())).status
            == .satisfied)
        #expect(Self.evaluate(Self.onHotspot, Criteria(requiredNetwork: id.description)).unsatisfiedReason
            == .networkExcluded)
        #expect(Self.evaluate(Self.atHome, Criteria(prohibitedNetworks: [id.description])).unsatisfiedReason
            == .networkExcluded)
    }

    @Test("a pending network is on no network yet: --network fails, --not-network holds")
    func pendingIsOnNone() {
        let pending = Self.evaluate(Self.pending, .any)
        #expect(pending.network?.state == .pending)
        #expect(Self.evaluate(Self.pending, Criteria(requiredNetwork: "home")).unsatisfiedReason == .networkExcluded)
        #expect(Self.evaluate(Self.pending, Criteria(prohibitedNetworks: ["home"])).status == .satisfied)
    }

    @Test("the first interface decides: a path without one meets --network never, --not-network always")
    func noNetwork() {
        // No key: no network is identified.
        let keyless = PathEvaluator.evaluate(Self.atHome, policy: Host.policy(key: nil),
                                             criteria: Criteria(requiredNetwork: "home"))
        #expect(keyless.unsatisfiedReason == .networkExcluded)
        let free = PathEvaluator.evaluate(Self.atHome, policy: Host.policy(key: nil),
                                          criteria: Criteria(prohibitedNetworks: ["home"]))
        #expect(free.status == .satisfied)
    }

    @Test("an unsatisfied path keeps its own reason; the cost conditions are judged first")
    func order() {
        let offline = Snapshot(events: [.linkChanged(F.lo), .routeLookup(.ipv4, .noRoute),
                                        .routeLookup(.ipv6, .noRoute)])
        #expect(PathEvaluator.evaluate(offline, policy: Host.homeAndHotspot,
                                       criteria: Criteria(requiredNetwork: "home")).unsatisfiedReason == .noInterface)
        let both = Criteria(prohibitExpensivePaths: true, requiredNetwork: "home")
        #expect(Self.evaluate(Self.onHotspot, both).unsatisfiedReason == .expensiveExcluded)
    }

    @Test("Policy.unknownNetwork: a name no [Network] section gives, and no ID")
    func unknownNetwork() throws {
        let policy = Host.homeAndHotspot
        #expect(policy.unknownNetwork(in: Criteria(requiredNetwork: "home", prohibitedNetworks: ["hotspot"])) == nil)
        #expect(policy.unknownNetwork(in: Criteria(requiredNetwork: String(repeating: "ab", count: 16))) == nil)
        #expect(policy.unknownNetwork(in: Criteria(requiredNetwork: "hotel")) == "hotel")
        #expect(policy.unknownNetwork(in: Criteria(prohibitedNetworks: ["home", "Home"])) == "Home")
        #expect(Policy.standard.unknownNetwork(in: .any) == nil)
    }
}
