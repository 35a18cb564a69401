// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathConfiguration
import PathDaemon
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import Testing

/// The daemon's side of network identity, against a fake kernel and a clock the test
/// turns: a path line for each change of network, the settling time ending in a line,
/// and the questions about unconfirmed gateways going to the source.
@Suite("network identity in the daemon", .blocking)
struct NetworkIdentityServiceTests {
    private typealias F = Fixture
    static let gateway = F.ip("192.168.1.1")
    static let key = Neighbour.Key(interface: F.ethIndex, address: gateway)
    static func at(_ seconds: Int) -> MonotonicInstant { MonotonicInstant(sinceBoot: .seconds(seconds)) }

    static func neighbour(_ mac: String, confirmedAt seconds: Int) -> NetworkEvent {
        .neighbourChanged(Neighbour(interface: F.ethIndex, address: gateway, linkLayerAddress: LinkLayerAddress(mac),
                                    state: .reachable, confirmedAt: at(seconds)))
    }

    static let state: [NetworkEvent] = [
        .linkChanged(F.lo), .linkChanged(F.eth0()), F.added("192.168.1.20"),
        F.defaultRoute(.ipv4, via: F.ethIndex, gateway: "192.168.1.1"),
        F.route(.ipv4, via: F.ethIndex, gateway: "192.168.1.1", source: "192.168.1.20"), .routeLookup(.ipv6, .noRoute),
        neighbour("02:00:00:00:00:01", confirmedAt: 1),
    ]

    static func configuration() throws -> Configuration {
        let text = """
            [Network]
            GatewayMAC=02:00:00:00:00:01
            Name=home
            [Network]
            GatewayMAC=02:00:00:00:00:02
            Name=hotspot
            Expensive=yes
            """
        var configuration = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)]).configuration
        let key = try #require(NetworkKey(base: Array(1...16)))
        configuration.policy.networkKey = key
        return configuration
    }

    @Test("home, a carrier flap (pending, asked about at once, unidentified when the settling time ends), hotspot")
    func homeThenHotspot() throws {
        let scheduler = ManualScheduler()
        let harness = try DaemonHarness(state: Self.state, configuration: try Self.configuration(),
                                        scheduler: scheduler)
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        #expect(first.path.network?.name == "home" && !first.path.isExpensive)
        let scheduledBefore = try scheduler.waitForScheduled(0).count

        harness.network.latest.emit([.linkChanged(F.eth0NoCarrier), .carrierLost(F.ethIndex, at: Self.at(10))])
        #expect(try subscriber.nextPath().update.path.status == .unsatisfied)
        harness.network.latest.emit([.linkChanged(F.eth0()), .carrierRegained(F.ethIndex, at: Self.at(12))])
        let pending = try subscriber.nextPath().update.path
        #expect(pending.network == LinkNetwork(state: .pending, anchor: .gatewayMAC), "the old entry names nothing")
        #expect(pending.isExpensiveSetBy == .type)

        // The settling timer, then the question about the gateway, at once.
        let delays = try scheduler.waitForScheduled(scheduledBefore + 2).dropFirst(scheduledBefore)
        #expect(Array(delays) == [CarrierEpoch.settlingTime, .zero])
        try scheduler.runNext()
        #expect(try subscriber.nextPath().update.path.network == LinkNetwork(state: .unidentified, anchor: .gatewayMAC))
        try scheduler.runNext()
        try waitUntil("the source is asked about the gateway") { harness.network.refreshedNeighbours == [[Self.key]] }

        harness.network.latest.emit([Self.neighbour("02:00:00:00:00:02", confirmedAt: 13)])
        let hotspot = try subscriber.nextPath().update.path
        #expect(hotspot.network?.name == "hotspot" && hotspot.isExpensive && hotspot.isExpensiveSetBy == .network)
        #expect(hotspot.summary == "satisfied via eth0 on hotspot (IPv4, expensive)")
    }

    @Test("a carrier coming back asks about its gateway at once, not at the 30 s question scheduled before")
    func carrierBackAsksAtOnce() throws {
        let scheduler = ManualScheduler()
        // The gateway has no entry yet: pathd asks about it at once, then every 30 s.
        let harness = try DaemonHarness(state: Array(Self.state.dropLast()), configuration: try Self.configuration(),
                                        scheduler: scheduler)
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        #expect(first.path.network == LinkNetwork(state: .unidentified, anchor: .gatewayMAC))
        let atStart = try scheduler.waitForScheduled(1)
        #expect(atStart.last == .zero)
        try scheduler.runNext()
        try waitUntil("the source is asked about the gateway") { harness.network.refreshedNeighbours == [[Self.key]] }
        #expect(try scheduler.waitForScheduled(atStart.count + 1).last == .seconds(30))
        harness.network.latest.emit([Self.neighbour("02:00:00:00:00:01", confirmedAt: 1)])
        #expect(try subscriber.nextPath().update.path.network?.name == "home")

        harness.network.latest.emit([.linkChanged(F.eth0NoCarrier), .carrierLost(F.ethIndex, at: Self.at(10))])
        #expect(try subscriber.nextPath().update.path.status == .unsatisfied)
        let beforeReturn = try scheduler.waitForScheduled(0).count
        harness.network.latest.emit([.linkChanged(F.eth0()), .carrierRegained(F.ethIndex, at: Self.at(12))])
        #expect(try subscriber.nextPath().update.path.network?.state == .pending)
        let delays = try scheduler.waitForScheduled(beforeReturn + 2).dropFirst(beforeReturn)
        #expect(Array(delays) == [CarrierEpoch.settlingTime, .zero])
        // The 30 s question, now stale, asks nothing; the settling timer; then the new question.
        for _ in 0..<3 { try scheduler.runNext() }
        try waitUntil("the source is asked again") { harness.network.refreshedNeighbours == [[Self.key], [Self.key]] }
    }

    @Test("a gateway whose entry goes is asked about at once, though another link's gateway stays unconfirmed")
    func newlyUnconfirmedAskedAtOnce() throws {
        let scheduler = ManualScheduler()
        let wlanGateway = Neighbour.Key(interface: F.wlanIndex, address: F.ip("10.0.0.1"))
        // wlan0's gateway never answers: it is asked about every 30 s for good.
        let state = Self.state + [.linkChanged(F.wlan0()), F.added("10.0.0.20", on: F.wlanIndex),
                                  F.defaultRoute(.ipv4, via: F.wlanIndex, gateway: "10.0.0.1", metric: 600)]
        let harness = try DaemonHarness(state: state, configuration: try Self.configuration(), scheduler: scheduler)
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        #expect(first.path.network?.name == "home")
        let atStart = try scheduler.waitForScheduled(1)
        try scheduler.runNext()
        try waitUntil("the source is asked about wlan0's gateway") {
            harness.network.refreshedNeighbours == [[wlanGateway]]
        }
        #expect(try scheduler.waitForScheduled(atStart.count + 1).last == .seconds(30))

        // eth0's router entry goes (its MAC changed, the entry was flushed): asked at once.
        let before = try scheduler.waitForScheduled(0).count
        harness.network.latest.emit([.neighbourRemoved(Self.key)])
        #expect(try subscriber.nextPath().update.path.network == LinkNetwork(state: .unidentified, anchor: .gatewayMAC))
        #expect(try scheduler.waitForScheduled(before + 1).last == .zero, "not at the 30 s question")
        // The 30 s question, now stale, asks nothing; then the new one.
        for _ in 0..<2 { try scheduler.runNext() }
        try waitUntil("the source is asked about both gateways") {
            harness.network.refreshedNeighbours == [[wlanGateway], [Self.key, wlanGateway]]
        }
    }

    @Test("an entry that goes is asked about at once: one pathd resolved, taken in the same batch; a failed one")
    func removedEntriesAskedAgain() throws {
        let scheduler = ManualScheduler()
        let harness = try DaemonHarness(state: Self.state, configuration: try Self.configuration(),
                                        scheduler: scheduler)
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        #expect(first.path.network?.name == "home")
        let before = try scheduler.waitForScheduled(0).count

        // `ip neigh flush` takes the entry: asked at once (pathd asks the kernel to resolve it).
        harness.network.latest.emit([.neighbourRemoved(Self.key)])
        #expect(try subscriber.nextPath().update.path.network == LinkNetwork(state: .unidentified, anchor: .gatewayMAC))
        #expect(try scheduler.waitForScheduled(before + 1).last == .zero)
        try scheduler.runNext()
        try waitUntil("the source is asked about the gateway") { harness.network.refreshedNeighbours == [[Self.key]] }
        #expect(try scheduler.waitForScheduled(before + 2).last == .seconds(30))

        // The flush's next round takes the entry the resolution made, in the batch that
        // holds the resolution's answer: the gateway is as unconfirmed as before, and
        // nothing resolves it; asked again at once, not at the 30 s question.
        harness.network.latest.emit([Self.neighbour("02:00:00:00:00:02", confirmedAt: 20), .neighbourRemoved(Self.key)])
        #expect(try scheduler.waitForScheduled(before + 3).last == .zero, "not at the 30 s question")
        for _ in 0..<2 { try scheduler.runNext() }
        try waitUntil("the source is asked again") { harness.network.refreshedNeighbours == [[Self.key], [Self.key]] }
        #expect(try scheduler.waitForScheduled(before + 4).last == .seconds(30))

        // An entry that failed (held, unconfirmed: the 30 s question stands), then is removed.
        let failed = Neighbour(interface: F.ethIndex, address: Self.gateway, linkLayerAddress: nil, state: .failed)
        harness.network.latest.emit([.neighbourChanged(failed)])
        harness.network.latest.emit([.neighbourRemoved(Self.key)])
        #expect(try scheduler.waitForScheduled(before + 5).last == .zero, "not at the 30 s question")
        for _ in 0..<2 { try scheduler.runNext() }
        try waitUntil("the source is asked a third time") {
            harness.network.refreshedNeighbours == [[Self.key], [Self.key], [Self.key]]
        }
    }
}
