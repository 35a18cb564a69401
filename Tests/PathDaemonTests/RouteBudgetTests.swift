// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
@testable import PathDaemon
import PathModel
import PathTestFixtures
import Testing

/// `MaxRoutesPerUser=` against a user who sends route subscriptions at once on many
/// connections (docs/PROTOCOL.md, "Flow control and limits"): the client is
/// scripts/test/hostile-client.py run as nobody, and the fake kernel holds every lookup
/// until the test lets them through, so that each subscription is still waiting for its
/// first answer when the next is admitted.
extension LoadAndAbuse {
    @Suite("route subscriptions of one user at once")
    struct RouteBudgetTests {
        static let nobody = UInt32(HostileClient.userID)

        /// The connections whose request waits for the kernel (a route subscription's first answer).
        static func awaiting(_ harness: DaemonHarness) -> Int {
            harness.queue.sync { harness.service.admission.clients.values.filter(\.isAwaitingReply).count }
        }

        static func routesCounted(_ harness: DaemonHarness) -> Int {
            harness.queue.sync { harness.service.publisher.subscriptions.routes(countedAgainst: nobody) }
        }

        @Test("ten connections subscribing at once while every lookup is out: exactly the limit is taken")
        func burst() throws {
            let harness = try DaemonHarness(configuration: .daemon { $0.maximumRoutesPerUser = 3 })
            defer { harness.stop() }
            let directory = try harness.openDirectoryToOthers()
            let gate = harness.network.holdNextLookup()
            var isOpen = false
            defer { if !isOpen { gate.signal() } }
            let client = try HostileClient(socketPath: harness.socketPath, mode: "route-burst", ["--burst", "10"],
                                           directory: directory)
            try client.waitFor("sent")
            // Each subscription is either admitted, and waits for its lookup, or refused:
            // the synchronization point, before any lookup is answered.
            try waitUntil("every subscription is waiting for the kernel or refused",
                          detail: { ": \(Self.awaiting(harness)) waiting, \(client.events(named: "reply"))" }) {
                Self.awaiting(harness) + client.events(named: "reply").count == 10
            }
            #expect(Self.routesCounted(harness) == 3, "admitted ones count before their first answer")
            gate.signal()
            isOpen = true
            let answered = try client.waitFor("answered")
            let types = answered["types"] as? [String: Any]
            #expect(types?["route"] as? Int == 3, "\(answered)")
            #expect((answered["codes"] as? [String: Any])?["limitExceeded"] as? Int == 7, "\(answered)")
            #expect(Self.routesCounted(harness) == 3)
            _ = try client.finish()
            try waitUntil("the closed connections' routes are given back") { Self.routesCounted(harness) == 0 }
        }

        @Test("a reservation is given back when the first lookup fails, and when its client leaves meanwhile")
        func givenBack() throws {
            let harness = try DaemonHarness(configuration: .daemon { $0.maximumRoutesPerUser = 2 })
            defer { harness.stop() }
            let directory = try harness.openDirectoryToOthers()
            // The first burst's one destination (10.2.0.0): the kernel cannot be asked.
            harness.network.setRoute(to: .v4(0x0A02_0000), .failure(RouteLookupError("request socket is closed")))
            let failing = try HostileClient(socketPath: harness.socketPath, mode: "route-burst", ["--burst", "1"],
                                            directory: directory)
            let failed = try failing.waitFor("answered")
            #expect((failed["codes"] as? [String: Any])?["lookupFailed"] as? Int == 1, "\(failed)")
            #expect(Self.routesCounted(harness) == 0)
            _ = try failing.finish()

            harness.network.setRoute(to: .v4(0x0A02_0000), .success(Fixture.routeViaEth0))
            let gate = harness.network.holdNextLookup()
            var isOpen = false
            defer { if !isOpen { gate.signal() } }
            let leaving = try HostileClient(socketPath: harness.socketPath, mode: "route-burst", ["--burst", "2"],
                                            directory: directory)
            try waitUntil("both subscriptions wait for the kernel") { Self.awaiting(harness) == 2 }
            #expect(Self.routesCounted(harness) == 2)
            // The client goes while both wait (the daemon reads its end of input once they
            // are answered, as after any deferred reply).
            try leaving.stop()
            gate.signal()
            isOpen = true
            try harness.waitForClients("nobody's connections closed") { $0 == 0 }
            try waitUntil("the budget is given back") { Self.routesCounted(harness) == 0 }
            #expect(harness.queue.sync { harness.service.publisher.routes.count } == 0, "nothing is watched")
        }
    }
}
