// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathEvaluation
import Testing

/// One host described as events, and the status, reason and reason interface the
/// evaluator must give it.
struct EvaluatorCase: Sendable, CustomTestStringConvertible {
    var name: String
    var events: [NetworkEvent]
    var criteria: Criteria = .any
    var status: PathStatus
    var reason: UnsatisfiedReason? = nil
    var reasonInterface: String? = nil

    var testDescription: String { name }
}

private typealias F = Fixture

private let evaluatorCases: [EvaluatorCase] = [
    EvaluatorCase(name: "IPv4 only", events: [
        .linkChanged(F.lo), .linkChanged(F.eth0()), F.added("192.0.2.10"),
        F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10"), F.lookup(.ipv6, .noRoute),
    ], status: .satisfied),
    EvaluatorCase(name: "IPv6 only", events: [
        .linkChanged(F.lo), .linkChanged(F.eth0()), F.added("2001:db8::10"),
        F.route(.ipv6, via: F.ethIndex, gateway: "fe80::1", source: "2001:db8::10"), F.lookup(.ipv4, .noRoute),
    ], status: .satisfied),
    EvaluatorCase(name: "dual stack", events: F.dualStackEthernet, status: .satisfied),
    EvaluatorCase(name: "no route, links up and addressed", events: [
        .linkChanged(F.lo), .linkChanged(F.eth0()), F.added("192.0.2.10"), F.added("2001:db8::10"),
        F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noRoute),
    EvaluatorCase(name: "lookup failed with another errno counts as no route", events: [
        .linkChanged(F.eth0()), F.added("192.0.2.10"),
        F.lookup(.ipv4, .failed(errno: 105)), F.lookup(.ipv6, .failed(errno: 105)),
    ], status: .unsatisfied, reason: .noRoute),
    EvaluatorCase(name: "no lookups yet, links addressed", events: [
        .linkChanged(F.eth0()), F.added("192.0.2.10"),
    ], status: .unsatisfied, reason: .noRoute),
    EvaluatorCase(name: "nothing at all", events: [], status: .unsatisfied, reason: .noInterface),
    EvaluatorCase(name: "loopback only", events: [
        .linkChanged(F.lo), F.added("127.0.0.1", on: F.loIndex, scope: .host),
        F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noInterface),
    EvaluatorCase(name: "link admin down", events: [
        .linkChanged(F.lo), .linkChanged(F.eth0(flags: [])), F.added("192.0.2.10"),
        F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noInterface),
    EvaluatorCase(name: "stale route through an admin-down link", events: [
        .linkChanged(F.eth0(flags: [], operState: .down)), F.added("192.0.2.10"),
        F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1"), F.route(.ipv6, via: F.ethIndex, gateway: "fe80::1"),
    ], status: .unsatisfied, reason: .noInterface, reasonInterface: "eth0"),
    EvaluatorCase(name: "up but not running (no carrier)", events: [
        .linkChanged(F.lo), .linkChanged(F.eth0(flags: [.up], operState: .down)), F.added("192.0.2.10"),
        F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noCarrier, reasonInterface: "eth0"),
    EvaluatorCase(name: "route through a link without carrier", events: [
        .linkChanged(F.eth0(flags: [.up], operState: .lowerLayerDown)), F.added("192.0.2.10"),
        F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10"), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noCarrier, reasonInterface: "eth0"),
    EvaluatorCase(name: "operstate dormant (802.1X pending)", events: [
        .linkChanged(F.eth0(flags: [.up, .lowerUp], operState: .dormant)), F.added("192.0.2.10"),
        F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .dormant, reasonInterface: "eth0"),
    EvaluatorCase(name: "route through a dormant link", events: [
        .linkChanged(F.wlan0(flags: [.up, .lowerUp, .dormant], operState: .dormant)),
        F.added("192.0.2.10", on: F.wlanIndex), F.route(.ipv4, via: F.wlanIndex, gateway: "192.0.2.1",
                                                        source: "192.0.2.10"),
    ], status: .unsatisfied, reason: .dormant, reasonInterface: "wlan0"),
    EvaluatorCase(name: "operstate UNKNOWN and running (WireGuard)", events: [
        .linkChanged(F.lo), .linkChanged(F.wg0()), F.added("10.7.0.2", on: F.wgIndex),
        F.route(.ipv4, via: F.wgIndex, source: "10.7.0.2"), F.lookup(.ipv6, .noRoute),
    ], status: .satisfied),
    EvaluatorCase(name: "route flagged linkdown", events: [
        .linkChanged(F.eth0()), F.added("192.0.2.10"),
        F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10", isLinkDown: true),
        F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noCarrier, reasonInterface: "eth0"),
    EvaluatorCase(name: "only a tentative address", events: [
        .linkChanged(F.eth0()), F.added("2001:db8::10", flags: .tentative),
        F.route(.ipv6, via: F.ethIndex, gateway: "fe80::1"), F.lookup(.ipv4, .noRoute),
    ], status: .unsatisfied, reason: .noAddress, reasonInterface: "eth0"),
    EvaluatorCase(name: "only a dadfailed address", events: [
        .linkChanged(F.eth0()), F.added("2001:db8::10", flags: [.dadFailed, .tentative]),
        F.route(.ipv6, via: F.ethIndex, gateway: "fe80::1"), F.lookup(.ipv4, .noRoute),
    ], status: .unsatisfied, reason: .noAddress, reasonInterface: "eth0"),
    EvaluatorCase(name: "deprecated address is usable", events: [
        .linkChanged(F.eth0()), F.added("2001:db8::10", flags: .deprecated),
        F.route(.ipv6, via: F.ethIndex, gateway: "fe80::1", source: "2001:db8::10"), F.lookup(.ipv4, .noRoute),
    ], status: .satisfied),
    EvaluatorCase(name: "IPv6 link-local only", events: [
        .linkChanged(F.eth0()), F.added("fe80::10", scope: .link),
        F.route(.ipv6, via: F.ethIndex, gateway: "fe80::1", source: "fe80::10"), F.lookup(.ipv4, .noRoute),
    ], status: .unsatisfied, reason: .noAddress, reasonInterface: "eth0"),
    EvaluatorCase(name: "IPv6 link-local reported with universe scope", events: [
        .linkChanged(F.eth0()), F.added("fe80::10"),
        F.route(.ipv6, via: F.ethIndex, gateway: "fe80::1", source: "fe80::10"), F.lookup(.ipv4, .noRoute),
    ], status: .unsatisfied, reason: .noAddress, reasonInterface: "eth0"),
    EvaluatorCase(name: "the kernel names no source for the route", events: [
        .linkChanged(F.eth0()), .linkChanged(F.wlan0()), F.added("192.0.2.10", on: F.wlanIndex),
        F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1"), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noAddress, reasonInterface: "eth0"),
    EvaluatorCase(name: "the kernel sources from another link's address (unnumbered, weak host)", events: [
        .linkChanged(F.eth0()), .linkChanged(F.wlan0()), F.added("192.0.2.10", on: F.wlanIndex),
        F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10"), F.lookup(.ipv6, .noRoute),
    ], status: .satisfied),
    EvaluatorCase(name: "address of the other family only", events: [
        .linkChanged(F.eth0()), F.added("2001:db8::10"),
        F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1"), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noAddress, reasonInterface: "eth0"),
    EvaluatorCase(name: "no route and two links without address", events: [
        .linkChanged(F.eth0()), .linkChanged(F.wlan0()),
        F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noAddress),
    EvaluatorCase(name: "rejected unreachable (kill switch)", events: F.dualStackEthernet + [
        F.lookup(.ipv4, .rejected(.unreachable)), F.lookup(.ipv6, .rejected(.prohibit)),
    ], status: .unsatisfied, reason: .routeRejects),
    EvaluatorCase(name: "blackhole route type", events: F.dualStackEthernet + [
        F.route(.ipv4, via: nil, type: .blackhole), F.route(.ipv6, via: nil, type: .blackhole),
    ], status: .unsatisfied, reason: .routeRejects),
    EvaluatorCase(name: "prohibit and throw route types", events: F.dualStackEthernet + [
        F.route(.ipv4, via: nil, type: .prohibit), F.route(.ipv6, via: nil, type: .throw),
    ], status: .unsatisfied, reason: .routeRejects),
    EvaluatorCase(name: "route through loopback", events: [
        .linkChanged(F.lo), F.added("127.0.0.1", on: F.loIndex, scope: .host),
        .linkChanged(F.eth0()), F.added("192.0.2.10"),
        F.route(.ipv4, via: F.loIndex), F.route(.ipv6, via: F.loIndex),
    ], status: .unsatisfied, reason: .noRoute),
    EvaluatorCase(name: "local route type", events: [
        .linkChanged(F.lo), .linkChanged(F.eth0()), F.added("192.0.2.10"),
        F.route(.ipv4, via: F.loIndex, type: .local), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noRoute),
    EvaluatorCase(name: "route through an unknown interface index", events: [
        .linkChanged(F.eth0()), F.added("192.0.2.10"),
        F.route(.ipv4, via: InterfaceIndex(rawValue: 99), gateway: "192.0.2.1"), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noRoute),
    EvaluatorCase(name: "wifi required on a wired host", events: F.dualStackEthernet,
                  criteria: Criteria(requiredInterfaceType: .wifi),
                  status: .unsatisfied, reason: .interfaceTypeExcluded),
    EvaluatorCase(name: "wired prohibited on a wired host", events: F.dualStackEthernet,
                  criteria: Criteria(prohibitedInterfaceTypes: [.wiredEthernet]),
                  status: .unsatisfied, reason: .interfaceTypeExcluded),
    EvaluatorCase(name: "cellular prohibited on a wired host", events: F.dualStackEthernet,
                  criteria: Criteria(prohibitedInterfaceTypes: [.cellular, .wifi]), status: .satisfied),
    EvaluatorCase(name: "wired required on a wired host", events: F.dualStackEthernet,
                  criteria: Criteria(requiredInterfaceType: .wiredEthernet), status: .satisfied),
    EvaluatorCase(name: "wifi required, no route, wired host", events: [
        .linkChanged(F.eth0()), F.added("192.0.2.10"), F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute),
    ], criteria: Criteria(requiredInterfaceType: .wifi), status: .unsatisfied, reason: .interfaceTypeExcluded),
    EvaluatorCase(name: "IPv4 no carrier outranks IPv6 no route", events: [
        .linkChanged(F.eth0()), F.added("192.0.2.10"), F.added("2001:db8::10"),
        F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10", isLinkDown: true),
        F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noCarrier, reasonInterface: "eth0"),
    EvaluatorCase(name: "IPv4 route rejects outranks IPv6 no address", events: [
        .linkChanged(F.eth0()), F.added("192.0.2.10"),
        F.lookup(.ipv4, .rejected(.unreachable)), F.route(.ipv6, via: F.ethIndex, gateway: "fe80::1"),
    ], status: .unsatisfied, reason: .routeRejects),
    EvaluatorCase(name: "one family usable wins over the other's failure", events: [
        .linkChanged(F.eth0()), F.added("192.0.2.10"),
        F.route(.ipv4, via: F.ethIndex, gateway: "192.0.2.1", source: "192.0.2.10"), F.lookup(.ipv6,
                                                                                              .rejected(.unreachable)),
    ], status: .satisfied),
    EvaluatorCase(name: "no carrier reported on the first link that is up", events: [
        .linkChanged(F.eth0(flags: [], operState: .down)), .linkChanged(F.wlan0(flags: [.up], operState: .down)),
        F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute),
    ], status: .unsatisfied, reason: .noCarrier, reasonInterface: "wlan0"),
]

@Suite("PathEvaluator case table")
struct PathEvaluatorCaseTests {
    @Test(arguments: evaluatorCases)
    func evaluates(_ testCase: EvaluatorCase) {
        let path = PathEvaluator.evaluate(Snapshot(events: testCase.events), criteria: testCase.criteria)
        #expect(path.status == testCase.status)
        #expect(path.unsatisfiedReason == testCase.reason)
        #expect(path.reasonInterface == testCase.reasonInterface)
        if path.status == .unsatisfied {
            #expect(path.availableInterfaces.isEmpty)
            #expect(path.gateways.isEmpty)
            #expect(!path.supportsIPv4 && !path.supportsIPv6 && !path.supportsDNS)
            #expect(!path.isExpensive && !path.isConstrained)
        } else {
            #expect(!path.availableInterfaces.isEmpty)
            #expect(path.supportsIPv4 || path.supportsIPv6)
        }
    }
}
