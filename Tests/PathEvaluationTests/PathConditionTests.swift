// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathEvaluation
import PathConfiguration
import Testing

private typealias F = Fixture

/// The criteria's conditions on the path itself (`prohibitExpensivePaths`,
/// `prohibitConstrainedPaths`): they judge the path the kernel's routes give, and turn
/// one that fails them into an unsatisfied path whose reason names the condition and
/// the interface to blame.
@Suite("Path conditions")
struct PathConditionTests {
    private static let notExpensive = Criteria(prohibitExpensivePaths: true)
    private static let notConstrained = Criteria(prohibitConstrainedPaths: true)

    /// A host online through its modem (cellular: expensive by default), IPv4 only.
    private static let cellular = Snapshot(events: [
        .linkChanged(F.lo), .linkChanged(F.wwan0()), F.added("100.64.0.2", on: F.wwanIndex),
        F.defaultRoute(.ipv4, via: F.wwanIndex), F.route(.ipv4, via: F.wwanIndex, source: "100.64.0.2"),
        F.lookup(.ipv6, .noRoute),
    ])

    private static func policy(_ text: String) throws -> Policy {
        let parsed = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)])
        try #require(parsed.isValid)
        return parsed.configuration.policy
    }

    @Test func anExpensivePathIsUnsatisfiedNamingItsInterface() {
        let path = PathEvaluator.evaluate(Self.cellular, criteria: Self.notExpensive)
        #expect(path.status == .unsatisfied)
        #expect(path.unsatisfiedReason == .expensiveExcluded)
        #expect(path.reasonInterface == "wwan0")
        #expect(path.summary == "unsatisfied: the path via wwan0 is expensive, which the criteria exclude")
        // It keeps the fact it was refused for, and offers nothing to carry traffic.
        #expect(path.isExpensive)
        #expect(path.availableInterfaces.isEmpty && path.gateways.isEmpty)
        #expect(!path.supportsIPv4 && !path.supportsIPv6 && !path.supportsDNS)
        // Without the condition the same snapshot is satisfied, and expensive.
        let any = PathEvaluator.evaluate(Self.cellular)
        #expect(any.status == .satisfied && any.isExpensive)
    }

    @Test func aFreePathMeetsTheConditionUnchanged() {
        let snapshot = Snapshot(events: F.dualStackEthernet)
        #expect(PathEvaluator.evaluate(snapshot, criteria: Self.notExpensive) == PathEvaluator.evaluate(snapshot))
        #expect(PathEvaluator.evaluate(snapshot, criteria: Self.notConstrained) == PathEvaluator.evaluate(snapshot))
    }

    /// A condition restricts no interface, so the kernel's own lookup still decides the
    /// path, as without criteria: here it is the only answer there is (no interface's
    /// own lookup), which a path chosen among the interfaces' answers would not find.
    @Test func theKernelsLookupStillChoosesThePath() {
        let snapshot = Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(F.eth0()), F.added("192.0.2.10"),
            F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10"), F.lookup(.ipv6, .noRoute),
        ])
        let path = PathEvaluator.evaluate(snapshot, criteria: Self.notExpensive)
        #expect(path.status == .satisfied)
        #expect(path == PathEvaluator.evaluate(snapshot))
    }

    /// The traffic of a job that binds to no interface takes the kernel's route: a free
    /// interface behind an expensive default route does not make it free.
    @Test func aFreeInterfaceBehindAnExpensiveDefaultRouteDoesNotSatisfy() {
        let snapshot = Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(F.eth0()), .linkChanged(F.wwan0()),
            F.added("192.0.2.10"), F.added("100.64.0.2", on: F.wwanIndex),
            F.defaultRoute(.ipv4, via: F.wwanIndex, metric: 50),
            F.defaultRoute(.ipv4, via: F.ethIndex, gateway: "192.0.2.1"),
            F.route(.ipv4, via: F.wwanIndex, source: "100.64.0.2"), F.lookup(.ipv6, .noRoute),
        ])
        let path = PathEvaluator.evaluate(snapshot, criteria: Self.notExpensive)
        #expect(path.status == .unsatisfied)
        #expect(path.unsatisfiedReason == .expensiveExcluded)
        #expect(path.reasonInterface == "wwan0")
        // Prohibiting the type instead asks another question, "is there a path without
        // cellular", which eth0 answers.
        let noCellular = PathEvaluator.evaluate(snapshot, criteria: Criteria(prohibitedInterfaceTypes: [.cellular]))
        #expect(noCellular.status == .satisfied)
        #expect(noCellular.availableInterfaces.map(\.name) == ["eth0"])
    }

    @Test func anExpensiveInterfaceAfterAFreeOneChosenLeavesThePathFree() {
        let snapshot = Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(F.eth0()), .linkChanged(F.wwan0()),
            F.added("192.0.2.10"), F.added("100.64.0.2", on: F.wwanIndex),
            F.defaultRoute(.ipv4, via: F.ethIndex, gateway: "192.0.2.1"),
            F.defaultRoute(.ipv4, via: F.wwanIndex, metric: 600),
            F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10"), F.lookup(.ipv6, .noRoute),
        ])
        let path = PathEvaluator.evaluate(snapshot, criteria: Self.notExpensive)
        #expect(path.status == .satisfied)
        #expect(path.availableInterfaces.map(\.name) == ["eth0", "wwan0"])
        #expect(!path.isExpensive)
    }

    /// A VPN costs what its underlay costs: the tunnel over the modem is expensive, and
    /// the reason blames the modem.
    @Test func aTunnelOverAnExpensiveUnderlayBlamesTheUnderlay() {
        let snapshot = Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(F.wwan0()), .linkChanged(F.wg0()),
            F.added("100.64.0.2", on: F.wwanIndex), F.added("10.7.0.2", on: F.wgIndex),
            F.defaultRoute(.ipv4, via: F.wgIndex, metric: 0, prefixLength: 1), F.defaultRoute(.ipv4, via: F.wwanIndex),
            F.route(.ipv4, via: F.wgIndex, source: "10.7.0.2"), F.lookup(.ipv6, .noRoute),
        ])
        #expect(PathEvaluator.evaluate(snapshot).availableInterfaces.map(\.name) == ["wg0", "wwan0"])
        let path = PathEvaluator.evaluate(snapshot, criteria: Self.notExpensive)
        #expect(path.unsatisfiedReason == .expensiveExcluded)
        #expect(path.reasonInterface == "wwan0")
    }

    @Test func aConstrainedPathIsUnsatisfiedAndExpensiveIsCheckedFirst() throws {
        let policy = try Self.policy("[Interface]\nType=cellular\nConstrained=yes\n")
        let constrained = PathEvaluator.evaluate(Self.cellular, policy: policy, criteria: Self.notConstrained)
        #expect(constrained.status == .unsatisfied)
        #expect(constrained.unsatisfiedReason == .constrainedExcluded)
        #expect(constrained.reasonInterface == "wwan0")
        #expect(constrained.summary == "unsatisfied: the path via wwan0 is constrained, which the criteria exclude")
        #expect(constrained.isConstrained && constrained.isExpensive)
        // Expensive alone does not fail "not constrained" under the standard policy.
        #expect(PathEvaluator.evaluate(Self.cellular, criteria: Self.notConstrained).status == .satisfied)
        let neither = Criteria(prohibitExpensivePaths: true, prohibitConstrainedPaths: true)
        let both = PathEvaluator.evaluate(Self.cellular, policy: policy, criteria: neither)
        #expect(both.unsatisfiedReason == .expensiveExcluded)
    }

    @Test func aPathAlreadyUnsatisfiedKeepsItsOwnReason() {
        var down = F.wwan0()
        down.flags = [.up]
        down.operState = .down
        var snapshot = Self.cellular
        snapshot.apply(.linkChanged(down))
        let path = PathEvaluator.evaluate(snapshot, criteria: Self.notExpensive)
        #expect(path.status == .unsatisfied)
        #expect(path.unsatisfiedReason == .noCarrier)
        #expect(path.reasonInterface == "wwan0")
    }

    /// An on-demand modem that is down would make the path requiresConnection; it
    /// would be expensive once up, so "not expensive" refuses it.
    @Test func anExpensiveOnDemandInterfaceIsExcludedToo() throws {
        let policy = try Self.policy("[Interface]\nName=wwan0\nOnDemand=yes\n")
        var down = F.wwan0()
        down.flags = []
        let offline = Snapshot(events: [.linkChanged(F.lo), .linkChanged(down),
                                        F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute)])
        #expect(PathEvaluator.evaluate(offline, policy: policy).status == .requiresConnection)
        let path = PathEvaluator.evaluate(offline, policy: policy, criteria: Self.notExpensive)
        #expect(path.status == .unsatisfied)
        #expect(path.unsatisfiedReason == .expensiveExcluded)
        #expect(path.reasonInterface == "wwan0")
    }

    /// Interface criteria first choose the path, the condition then judges it: without
    /// wifi, the path is the modem's, and that is expensive.
    @Test func conditionsJudgeThePathTheInterfaceCriteriaChose() {
        let snapshot = Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(F.wlan0()), .linkChanged(F.wwan0()),
            F.added("198.51.100.20", on: F.wlanIndex), F.added("100.64.0.2", on: F.wwanIndex),
            F.defaultRoute(.ipv4, via: F.wlanIndex, gateway: "198.51.100.1"),
            F.defaultRoute(.ipv4, via: F.wwanIndex, metric: 600),
            F.route(.ipv4, via: F.wlanIndex, gateway: "198.51.100.1", source: "198.51.100.20"),
            F.lookup(.ipv6, .noRoute),
        ])
        #expect(PathEvaluator.evaluate(snapshot, criteria: Self.notExpensive).status == .satisfied)
        let noWifi = Criteria(prohibitedInterfaceTypes: [.wifi], prohibitExpensivePaths: true)
        let path = PathEvaluator.evaluate(snapshot, criteria: noWifi)
        #expect(path.unsatisfiedReason == .expensiveExcluded)
        #expect(path.reasonInterface == "wwan0")
    }
}
