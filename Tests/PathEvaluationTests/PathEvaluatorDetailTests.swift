// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathEvaluation
import PathConfiguration
import Testing

private typealias F = Fixture

/// What a satisfied path carries besides its status: families, interfaces in the order
/// the kernel would use them, gateways, cost, DNS; and that equal input gives an equal path.
@Suite("PathEvaluator details")
struct PathEvaluatorDetailTests {
    @Test func ipv4OnlyReportsIPv4AndItsGateway() {
        let path = PathEvaluator.evaluate(Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(F.eth0()), F.added("192.0.2.10"),
            F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10"), F.lookup(.ipv6, .noRoute),
        ]))
        #expect(path.status == .satisfied)
        #expect(path.unsatisfiedReason == nil)
        #expect(path.reasonInterface == nil)
        #expect(path.supportsIPv4)
        #expect(!path.supportsIPv6)
        #expect(path.availableInterfaces == [Interface(name: "eth0", index: F.ethIndex, type: .wiredEthernet)])
        #expect(path.gateways == [F.ip("192.0.2.1")])
    }

    @Test func ipv6OnlyReportsIPv6AndItsGateway() {
        let path = PathEvaluator.evaluate(Snapshot(events: [
            .linkChanged(F.eth0()), F.added("2001:db8::10"), F.added("fe80::10", scope: .link),
            F.route(.ipv6, via: F.ethIndex, gateway: "fe80::1", source: "2001:db8::10"), F.lookup(.ipv4, .noRoute),
        ]))
        #expect(path.status == .satisfied)
        #expect(!path.supportsIPv4)
        #expect(path.supportsIPv6)
        #expect(path.availableInterfaces.map(\.name) == ["eth0"])
        #expect(path.gateways == [F.ip("fe80::1")])
    }

    @Test func dualStackOnOneLinkListsItOnceAndBothGatewaysIPv6First() {
        let path = PathEvaluator.evaluate(Snapshot(events: F.dualStackEthernet, dnsConfigured: true))
        #expect(path.status == .satisfied)
        #expect(path.supportsIPv4 && path.supportsIPv6)
        #expect(path.availableInterfaces == [Interface(name: "eth0", index: F.ethIndex, type: .wiredEthernet)])
        #expect(path.gateways == [F.ip("fe80::1"), F.ip("192.0.2.1")])
        #expect(path.supportsDNS)
        #expect(!path.isExpensive && !path.isConstrained)
    }

    @Test func dualStackOverTwoLinksListsTheIPv6LinkFirst() {
        let path = PathEvaluator.evaluate(Snapshot(events: [
            .linkChanged(F.eth0()), .linkChanged(F.wlan0()),
            F.added("192.0.2.10"), F.added("2001:db8::20", on: F.wlanIndex),
            F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10"),
            F.route(.ipv6, via: F.wlanIndex, gateway: "fe80::1", source: "2001:db8::20"),
        ]))
        #expect(path.availableInterfaces.map(\.name) == ["wlan0", "eth0"])
        #expect(path.availableInterfaces.map(\.type) == [.wifi, .wiredEthernet])
        #expect(path.gateways == [F.ip("fe80::1"), F.ip("192.0.2.1")])
    }

    @Test func onLinkRouteHasNoGateway() {
        let path = PathEvaluator.evaluate(Snapshot(events: [
            .linkChanged(F.wg0()), F.added("10.7.0.2", on: F.wgIndex), F.route(.ipv4, via: F.wgIndex,
                                                                               source: "10.7.0.2"),
        ]))
        #expect(path.status == .satisfied)
        #expect(path.gateways.isEmpty)
        #expect(path.availableInterfaces == [Interface(name: "wg0", index: F.wgIndex, type: .other, isTunnel: true)])
    }

    @Test func cellularIsExpensiveByDefaultAndNotUnderACustomPolicy() {
        let snapshot = Snapshot(events: [
            .linkChanged(F.wwan0()), F.added("100.64.0.2", on: F.wwanIndex), F.route(.ipv4, via: F.wwanIndex,
                                                                                     source: "100.64.0.2"),
        ])
        let standard = PathEvaluator.evaluate(snapshot)
        #expect(standard.status == .satisfied)
        #expect(standard.isExpensive)
        #expect(!standard.isConstrained)
        #expect(standard.availableInterfaces.map(\.type) == [.cellular])

        let free = PathEvaluator.evaluate(snapshot, policy: Policy(expensiveTypes: [], constrainedTypes: [.cellular]))
        #expect(free.status == .satisfied)
        #expect(!free.isExpensive)
        #expect(free.isConstrained)
    }

    @Test func wiredIsNotExpensiveByDefault() {
        #expect(!PathEvaluator.evaluate(Snapshot(events: F.dualStackEthernet)).isExpensive)
        let policy = Policy(expensiveTypes: [.wiredEthernet])
        #expect(PathEvaluator.evaluate(Snapshot(events: F.dualStackEthernet), policy: policy).isExpensive)
    }

    @Test func expensiveWhenAnyUsedLinkIsExpensive() {
        let path = PathEvaluator.evaluate(Snapshot(events: [
            .linkChanged(F.eth0()), .linkChanged(F.wwan0()),
            F.added("192.0.2.10"), F.added("2001:db8::30", on: F.wwanIndex),
            F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10"),
            F.route(.ipv6, via: F.wwanIndex, source: "2001:db8::30"),
        ]))
        #expect(path.availableInterfaces.map(\.name) == ["wwan0", "eth0"])
        #expect(path.isExpensive)
    }

    @Test func wifiRequiredIsExcludedOnAWiredHostWhileAnyIsSatisfied() {
        let snapshot = Snapshot(events: F.dualStackEthernet)
        let any = PathEvaluator.evaluate(snapshot, criteria: .any)
        let wifi = PathEvaluator.evaluate(snapshot, criteria: Criteria(requiredInterfaceType: .wifi))
        #expect(any.status == .satisfied)
        #expect(wifi.status == .unsatisfied)
        #expect(wifi.unsatisfiedReason == .interfaceTypeExcluded)
        #expect(wifi.availableInterfaces.isEmpty)
    }

    @Test func wifiRequiredOnAHostThatPrefersWiredUsesTheWifiRoute() {
        let snapshot = Snapshot(events: F.dualStackEthernet + [
            .linkChanged(F.wlan0()), F.added("198.51.100.20", on: F.wlanIndex),
            F.defaultRoute(.ipv4, via: F.wlanIndex, gateway: "198.51.100.1", metric: 600),
        ])
        let any = PathEvaluator.evaluate(snapshot)
        #expect(any.availableInterfaces.first?.name == "eth0")
        let wifi = PathEvaluator.evaluate(snapshot, criteria: Criteria(requiredInterfaceType: .wifi))
        #expect(wifi.status == .satisfied)
        #expect(wifi.availableInterfaces.map(\.name) == ["wlan0"])
        #expect(wifi.supportsIPv4 && !wifi.supportsIPv6)
        #expect(wifi.gateways == [F.ip("198.51.100.1")])
    }

    @Test func prohibitingTheOnlyTypeExcludesIt() {
        let snapshot = Snapshot(events: F.dualStackEthernet)
        let path = PathEvaluator.evaluate(snapshot, criteria: Criteria(prohibitedInterfaceTypes: [.wiredEthernet]))
        #expect(path.status == .unsatisfied)
        #expect(path.unsatisfiedReason == .interfaceTypeExcluded)
    }

    @Test(arguments: [true, false])
    func supportsDNSFollowsTheSnapshot(configured: Bool) {
        let path = PathEvaluator.evaluate(Snapshot(events: F.dualStackEthernet, dnsConfigured: configured))
        #expect(path.status == .satisfied)
        #expect(path.supportsDNS == configured)
    }

    @Test func dnsDoesNotSatisfyAnUnroutedHost() {
        let path = PathEvaluator.evaluate(Snapshot(events: [], dnsConfigured: true))
        #expect(path.status == .unsatisfied)
        #expect(!path.supportsDNS)
    }

    @Test func identicalSnapshotsGiveEqualPaths() {
        let first = PathEvaluator.evaluate(Snapshot(events: F.dualStackEthernet))
        // The same facts in another order, repeated: the state, and so the path, is the same.
        let replayed = Snapshot(events: F.dualStackEthernet.reversed() + F.dualStackEthernet)
        let second = PathEvaluator.evaluate(replayed)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
    }

    @Test func identicalUnsatisfiedSnapshotsGiveEqualPaths() {
        let events: [NetworkEvent] = [.linkChanged(F.eth0(flags: [.up], operState: .down)), F.lookup(.ipv4, .noRoute)]
        #expect(PathEvaluator.evaluate(Snapshot(events: events))
                == PathEvaluator.evaluate(Snapshot(events: events + events)))
    }

    @Test func aChangedFactGivesADifferentPath() {
        let before = PathEvaluator.evaluate(Snapshot(events: F.dualStackEthernet))
        let after = PathEvaluator.evaluate(Snapshot(events: F.dualStackEthernet + [F.lookup(.ipv6, .noRoute)]))
        #expect(before != after)
        #expect(after.supportsIPv4 && !after.supportsIPv6)
        #expect(after.gateways == [F.ip("192.0.2.1")])
    }

    @Test func carrierLossAndReturnRestoresTheSamePath() {
        var snapshot = Snapshot(events: F.dualStackEthernet)
        let before = PathEvaluator.evaluate(snapshot)
        snapshot.apply(.linkChanged(F.eth0(flags: [.up], operState: .down)))
        let down = PathEvaluator.evaluate(snapshot)
        #expect(down.status == .unsatisfied)
        #expect(down.unsatisfiedReason == .noCarrier)
        #expect(down.reasonInterface == "eth0")
        snapshot.apply(.linkChanged(F.eth0()))
        #expect(PathEvaluator.evaluate(snapshot) == before)
    }
}
