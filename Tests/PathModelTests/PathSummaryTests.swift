// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@Suite("Path summary and reasons")
struct PathSummaryTests {
    private static let eth0 = Interface(name: "eth0", index: InterfaceIndex(rawValue: 2), type: .wiredEthernet)
    private static let wlan0 = Interface(name: "wlan0", index: InterfaceIndex(rawValue: 3), type: .wifi)

    @Test(arguments: UnsatisfiedReason.allCases)
    func explanationIsNeverEmpty(_ reason: UnsatisfiedReason) {
        #expect(!reason.explanation(interface: nil).isEmpty)
        #expect(!reason.explanation(interface: "eth0").isEmpty)
    }

    @Test(arguments: [UnsatisfiedReason.noCarrier, .dormant, .noAddress, .routeRejects, .expensiveExcluded,
                      .constrainedExcluded])
    func explanationNamesTheInterface(_ reason: UnsatisfiedReason) {
        #expect(reason.explanation(interface: "enp3s0").contains("enp3s0"))
        #expect(!reason.explanation(interface: nil).contains("enp3s0"))
    }

    @Test func explanationsAreDistinct() {
        let texts = Set(UnsatisfiedReason.allCases.map { $0.explanation(interface: nil) })
        #expect(texts.count == UnsatisfiedReason.allCases.count)
    }

    @Test(arguments: [
        (Path(status: .satisfied, availableInterfaces: [eth0], supportsIPv4: true, supportsIPv6: true,
              supportsDNS: true),
         "satisfied via eth0 (IPv4, IPv6, DNS)"),
        (Path(status: .satisfied, availableInterfaces: [wlan0, eth0], isExpensive: true, isConstrained: true,
              supportsIPv6: true),
         "satisfied via wlan0, eth0 (IPv6, expensive, constrained)"),
        (Path(status: .satisfied), "satisfied"),
        (Path(status: .requiresConnection,
              availableInterfaces: [Interface(name: "ppp0", index: InterfaceIndex(rawValue: 9),
                                                                           type: .other)]),
         "requiresConnection via ppp0"),
        (Path(status: .unsatisfied, unsatisfiedReason: .noCarrier, reasonInterface: "eth0"),
         "unsatisfied: no carrier on eth0 (cable unplugged or peer down)"),
        (Path(status: .unsatisfied, unsatisfiedReason: .noRoute),
         "unsatisfied: no route to the Internet (no default route)"),
        (Path(status: .unsatisfied), "unsatisfied: unknown reason"),
    ])
    func summary(path: Path, expected: String) {
        #expect(path.summary == expected)
    }

    @Test(arguments: UnsatisfiedReason.allCases)
    func unsatisfiedSummaryUsesTheExplanation(_ reason: UnsatisfiedReason) {
        let path = Path(status: .unsatisfied, unsatisfiedReason: reason, reasonInterface: "eth1")
        #expect(path.summary == "unsatisfied: " + reason.explanation(interface: "eth1"))
    }
}
