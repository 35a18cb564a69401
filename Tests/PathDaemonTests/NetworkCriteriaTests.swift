// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathConfiguration
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import Testing

private typealias F = Fixture

/// `--network` and `--not-network` through the daemon: a name the configuration does not
/// define is refused (`unknownNetwork`) and the connection keeps serving; a known one
/// judges the network of eth0, identified by its gateway's MAC.
@Suite("network criteria over the socket", .blocking)
struct NetworkCriteriaTests {
    /// The online host, eth0's own route via 198.51.100.1 (what anchors its network) and
    /// that gateway confirmed at 02:00:00:00:00:01.
    private static let state = F.online + [
        .interfaceLookup(.ipv4, F.ethIndex, F.onlineDefaultRoute),
        .neighbourChanged(Neighbour(interface: F.ethIndex, address: F.ip("198.51.100.1"),
                                    linkLayerAddress: LinkLayerAddress("02:00:00:00:00:01"), state: .reachable,
                                    confirmedAt: MonotonicInstant(sinceBoot: .seconds(5)))),
    ]

    private static let key = NetworkKey(base: Array(1...16))

    private static func configuration() throws -> Configuration {
        let parsed = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: """
            [Network]
            GatewayMAC=02:00:00:00:00:01
            Name=home
            [Network]
            GatewayMAC=02:00:00:00:00:02
            Name=office
            """)])
        try #require(parsed.isValid)
        var configuration = parsed.configuration
        configuration.policy.networkKey = key
        return configuration
    }

    @Test("an unknown network is refused with unknownNetwork, nothing subscribed; known ones judge eth0's network")
    func unknownRefusedKnownJudged() throws {
        let harness = try DaemonHarness(state: Self.state, configuration: try Self.configuration())
        defer { harness.stop() }
        let client = try harness.connect()

        try client.send(Request(.subscribe(.path(Criteria(requiredNetwork: "hotel"))), id: .string("sync")))
        #expect(try client.next() == .error(
            code: .unknownNetwork,
            message: "no network is named \"hotel\": no [Network] section of pathd.conf has Name=hotel, "
                + "and it is no network ID",
            id: .string("sync")))
        try client.send(Request(.status(Criteria(prohibitedNetworks: ["home", "hotel"])), id: .integer(2)))
        guard case .error(.unknownNetwork, _, .integer(2)) = try client.next() else {
            Issue.record("a status naming an unknown network among known ones is refused too")
            return
        }

        // Nothing was subscribed: the next line is the answer to this status, not a
        // path line of "sync".
        try client.send(Request(.status(Criteria(requiredNetwork: "home"))))
        let answer = try client.nextPath()
        #expect(answer.id == nil)
        let home = answer.update.path
        #expect(home.status == .satisfied)

        try client.send(Request(.subscribe(.path(Criteria(requiredNetwork: "office"))), id: .string("office")))
        let office = try client.nextPath()
        #expect(office.id == .string("office"))
        #expect(office.update.path.unsatisfiedReason == .networkExcluded)
        #expect(office.update.path.reasonInterface == "eth0")

        try client.send(Request(.status(Criteria(prohibitedNetworks: ["home"]))))
        #expect(try client.nextPath().update.path.unsatisfiedReason == .networkExcluded)

        // An ID names a network without any Name=: the daemon takes it. (Path lines do
        // not carry the network yet: the ID is the one its facts hash to.)
        let mac = try #require(LinkLayerAddress("02:00:00:00:00:01"))
        let id = try #require(Self.key).id(of: NetworkFacts(anchor: .gatewayMAC, gatewayMACs: [mac]))
        try client.send(Request(.status(Criteria(requiredNetwork: id.description))))
        #expect(try client.nextPath().update.path.status == .satisfied)
    }
}
