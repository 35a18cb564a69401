// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import Dispatch
@testable import PathDaemon
import KernelState
import PathModel
import PathConfiguration
import PathProtocol
import PathSocketClient
import PathTestFixtures
import Testing

/// `[Watch] Destination=` against a daemon whose kernel is the fake network: the routes
/// it watches of its own accord, as `pathd_route_*` metrics, with names resolved by the
/// system resolver (localhost from /etc/hosts, a name in .invalid that never resolves).
@Suite("watched routes of pathd.conf", .blocking)
struct WatchListTests {
    static let unresolvable = "name-that-does-not-exist.invalid"

    static func configuration(_ hosts: [WatchSettings.Host]) -> Configuration {
        var configuration = Configuration.builtIn
        configuration.watch.destinations = hosts
        return configuration
    }

    /// Waits (10 s at most) until every name was resolved: the resolver answers on a queue
    /// of its own and sends no line, so the daemon's state is polled.
    static func waitUntilResolved(_ harness: DaemonHarness) throws {
        try waitUntil("the names were resolved") {
            harness.queue.sync { harness.service.watchList.hosts.allSatisfy(\.isKnown) }
        }
    }

    /// The metrics once `done` holds of them (the first answers come after the resolution).
    static func metrics(_ client: PathConnection, until done: (String) -> Bool) throws -> String {
        var text = ""
        try waitUntil("the metrics showed it", detail: { ":\n\(text)" }) {
            text = try MetricsTests.metrics(client)
            return done(text)
        }
        return text
    }

    @Test("addresses and names are watched and exported; an unresolvable name is a reason; the route follows changes")
    func exported() throws {
        let clock = ManualClock()
        let harness = try DaemonHarness(configuration: Self.configuration([
            .address(Fixture.routeDestination, zone: nil), .name("localhost"), .name(Self.unresolvable),
        ]), clock: clock)
        defer { harness.stop() }
        let client = try harness.connect()
        try Self.waitUntilResolved(harness)
        // Watched since the first path, asked again at the next change of the kernel's state.
        harness.network.setRoute(to: Fixture.routeDestination, .success(Fixture.routeViaEth0))
        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        let via = #"pathd_route_usable{host="203.0.113.50",destination="203.0.113.50"} 1"#
        var text = try Self.metrics(client) { $0.contains(via) && $0.contains(#"destination="127.0.0.1"} 0"#) }
        #expect(text.contains(#"pathd_route_info{host="203.0.113.50",destination="203.0.113.50","#
            + #"interface="eth0",reason=""} 1"#), "\(text)")
        // The fake kernel has no route to 127.0.0.1: judged as a route request would be.
        #expect(text.contains(#"pathd_route_info{host="localhost",destination="127.0.0.1",interface="","#
            + #"reason="noRoute"} 1"#), "\(text)")
        #expect(text.contains(#"pathd_route_info{host="\#(Self.unresolvable)",destination="",interface="","#
            + #"reason="unresolved"} 1"#), "\(text)")
        #expect(harness.network.watchedDestinations.contains(Fixture.routeDestination))
        // Unusable since resolved: the unresolvable name and localhost; not the address.
        clock.advance(by: .seconds(30))
        text = try MetricsTests.metrics(client)
        #expect(text.contains(#"pathd_route_unusable_seconds_total{host="\#(Self.unresolvable)"} 30"#), "\(text)")
        #expect(text.contains(#"pathd_route_unusable_seconds_total{host="203.0.113.50"} 0"#), "\(text)")

        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        text = try Self.metrics(client) {
            $0.contains(#"pathd_route_info{host="203.0.113.50",destination="203.0.113.50",interface="eth0","#
                + #"reason="noCarrier"} 1"#)
        }
        #expect(text.contains(#"pathd_route_usable{host="203.0.113.50",destination="203.0.113.50"} 0"#), "\(text)")
        clock.advance(by: .seconds(5))
        text = try MetricsTests.metrics(client)
        #expect(text.contains(#"pathd_route_unusable_seconds_total{host="203.0.113.50"} 5"#), "\(text)")

        // The history: each host's changes, as pathctl history --route reads them.
        try client.send(Request(.history(since: nil, limit: nil)))
        guard case .history(_, _, let entries, _) = try client.next() else {
            Issue.record("no history reply")
            return
        }
        let address = HistoryEntry.route(to: "203.0.113.50", in: entries).compactMap { entry -> PathChange? in
            if case .change(let change) = entry.event { change } else { nil }
        }
        #expect(address.map(\.status).suffix(2) == [.satisfied, .unsatisfied], "\(address)")
        #expect(address.last?.interfaces == [] && address.last?.explanation == "no carrier on eth0 (cable unplugged "
            + "or peer down)")
        #expect(address.dropLast().last?.interfaces == ["eth0"])
        let name = HistoryEntry.route(to: Self.unresolvable, in: entries).compactMap { entry -> PathChange? in
            if case .change(let change) = entry.event { change } else { nil }
        }
        // One entry, or one more if the resolver's words changed when the path did
        // ("Temporary failure in name resolution", then "Name or service not known").
        #expect(!name.isEmpty && name.allSatisfy { $0.explanation?.hasPrefix("cannot resolve: ") == true }, "\(name)")
        // A reason the client library knows (docs/PROTOCOL.md), not one "sent by a newer pathd".
        #expect(name.allSatisfy { $0.unsatisfiedReason == .unresolved && $0.unsatisfiedReason?.isRecognized == true },
                "\(name)")
    }

    @Test("a list that changes on every reload leaves the last one watched, and nothing of the others")
    func reloadStorm() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try harness.connect()
        for round in 0..<200 {
            let hosts = (0..<(round % 7)).map { WatchSettings.Host.address(.v4(0xC633_6400 + UInt32(round + $0)),
                                                                          zone: nil) }
            harness.queue.sync { harness.service.reconfigure(Self.configuration(hosts)) }
        }
        // The last: round 199 holds 199 % 7 = 3 hosts, 198.51.100.199 to .201.
        let last: Set<IPAddress> = [Fixture.ip("198.51.100.199"), Fixture.ip("198.51.100.200"),
                                    Fixture.ip("198.51.100.201")]
        #expect(harness.queue.sync { harness.service.publisher.routes.count } == 3)
        try client.send(Request(.subscribe(.route(destination: Fixture.ip("192.0.2.1")))))
        _ = try client.nextRoute()
        // A route request's lookup reaches the fake kernel after every filter change the
        // answers before it made (each told on that queue as it was handled).
        try client.send(Request(.route(destination: Fixture.ip("192.0.2.2"))))
        guard case .route = try client.next() else {
            Issue.record("expected the route reply")
            return
        }
        #expect(harness.network.watchedDestinations == last.union([Fixture.ip("192.0.2.1")]))
    }

    @Test("a reload that drops a host stops watching it, unless a subscriber still does")
    func reloadKeepsSubscribers() throws {
        let harness = try DaemonHarness(configuration: Self.configuration([
            .address(Fixture.routeDestination, zone: nil), .address(Fixture.ip("192.0.2.77"), zone: nil),
        ]))
        defer { harness.stop() }
        let client = try harness.connect()
        // The list's own first answer is in (the fake kernel has no route yet) before the
        // subscription comes, which is then answered from it.
        _ = try Self.metrics(client) {
            $0.contains(#"pathd_route_usable{host="203.0.113.50",destination="203.0.113.50"} 0"#)
        }
        try client.send(Request(.subscribe(.route(destination: Fixture.routeDestination)), id: .string("s")))
        // Answered from the list's watch, made at the first path.
        #expect(try client.nextRoute().update.report.unsatisfiedReason == .noRoute)
        #expect(harness.network.lookedUp.filter { $0 == Fixture.routeDestination }.count == 1, "asked once, for both")
        harness.network.setRoute(to: Fixture.routeDestination, .success(Fixture.routeViaEth0))
        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        #expect(try client.nextRoute().update.report.status == .satisfied)
        harness.queue.sync { harness.service.reconfigure(Self.configuration([])) }
        try client.send(Request(.subscribe(.route(destination: Fixture.ip("198.51.100.9"))), id: .string("t")))
        _ = try client.nextRoute()
        // Asked after the reload: the fake kernel was told what is watched by then.
        #expect(harness.network.watchedDestinations == [Fixture.routeDestination, Fixture.ip("198.51.100.9")])
        let text = try MetricsTests.metrics(client)
        #expect(!text.contains("pathd_route_usable{"), "no host is configured any more: \(text)")
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        var update = try client.nextRoute()
        while update.id != .string("s") { update = try client.nextRoute() }
        #expect(update.update.report.unsatisfiedReason == .noCarrier, "the subscription still follows it")
    }
}
