// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import PathSocketClient
import PathDaemon
import PathModel
import PathProtocol
import Testing

@Suite("sequences per subscription", .blocking)
struct SequenceTests {
    static let wlan0 = Link(index: InterfaceIndex(rawValue: 3), name: "wlan0", flags: [.up, .running, .lowerUp],
                            operState: .up, hardwareType: .ether, type: .wifi)

    @Test("several subscriptions with different criteria on one connection each see strictly increasing sequences")
    func severalCriteriaOnOneConnection() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try harness.connect()
        let subscriptions: [(id: String, criteria: Criteria)] = [
            ("any", .any), ("wifi", Criteria(requiredInterfaceType: .wifi)),
            ("wired", Criteria(requiredInterfaceType: .wiredEthernet)),
            ("no-wifi", Criteria(prohibitedInterfaceTypes: [.wifi])),
        ]
        var sequences: [String: [UInt64]] = [:]
        for subscription in subscriptions {
            try client.send(Request(.subscribe(.path(subscription.criteria)), id: .string(subscription.id)))
            let (update, id) = try client.nextPath()
            #expect(id == .string(subscription.id))
            sequences[subscription.id, default: []].append(update.sequence)
        }
        let wlan0Address = InterfaceAddress(interface: Self.wlan0.index, address: IPAddress("203.0.113.9")!,
                                            prefixLength: 24)
        let wifiRoute = RouteLookup.route(RouteAnswer(type: .unicast, outputInterface: Self.wlan0.index,
                                                      gateway: IPAddress("203.0.113.1")!,
                                                      preferredSource: wlan0Address.address))
        // Criteria are answered from the interfaces' own lookups, not the kernel's lookup.
        let wifiDefault = Fixture.defaultRoute(.ipv4, via: Self.wlan0.index, gateway: "203.0.113.1", metric: 600)
        let changes: [[NetworkEvent]] = [
            [.linkChanged(Fixture.eth0NoCarrier)],
            [.linkChanged(Self.wlan0), .addressChanged(wlan0Address), wifiDefault,
             .routeLookup(.ipv4, wifiRoute)],
            [.linkChanged(Fixture.eth0())],
            [.routeLookup(.ipv4, Fixture.onlineDefaultRoute)],
            [.linkRemoved(Self.wlan0.index)],
            [.routeLookup(.ipv4, .noRoute)],
            [.routeLookup(.ipv4, Fixture.onlineDefaultRoute)],
        ]
        for (number, change) in changes.enumerated() {
            harness.network.latest.emit(change)
            // The pong usually follows this change's lines, but the daemon may read the
            // ping before it applies the change; a late line is then collected in the
            // next round. Either way each id's lines arrive in order.
            try client.send(Request(.ping, id: .integer(Int64(number))))
            while true {
                let message = try client.next()
                if message == .pong(id: .integer(Int64(number))) { break }
                guard case .path(let update, .string(let id)) = message else {
                    Issue.record("unexpected \(message)")
                    return
                }
                sequences[id, default: []].append(update.sequence)
            }
        }
        for (id, list) in sequences {
            #expect(list.count > 1, "\(id) never changed: the changes do not exercise it")
            #expect(zip(list, list.dropFirst()).allSatisfy { $0 < $1 }, "\(id): \(list)")
        }
    }
}
