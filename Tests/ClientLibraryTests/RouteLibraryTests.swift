// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathClient
import PathModel
import PathSocketClient
import PathTestFixtures
import Testing

/// `PathMonitor.route(to:)` against a daemon whose kernel is the fake network.
@Suite("route request (client library)", .blocking)
struct RouteLibraryTests {
    @Test("the Swift library asks the daemon and returns the typed answer")
    func libraryAsksTheDaemon() async throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Fixture.routeDestination, .success(Fixture.routeViaEth0))
        let report = try await PathMonitor.route(to: "203.0.113.50", socketPath: harness.socketPath, mode: .daemon)
        #expect(report.status == .satisfied)
        #expect(report.interface == Fixture.eth0Interface)
        #expect(report.gateway == Fixture.ip("198.51.100.1"))
        harness.network.setRoute(to: Fixture.routeDestination, .failure(RouteLookupError("socket closed")))
        await #expect(throws: PathClientError.self) {
            try await PathMonitor.route(to: Fixture.routeDestination, socketPath: harness.socketPath, mode: .daemon)
        }
        await #expect(throws: PathClientError.self) {
            try await PathMonitor.route(to: "example.org", socketPath: harness.socketPath, mode: .daemon)
        }
    }

    @Test("an address with a zone is asked through that interface, in text or with route(to:zone:)")
    func zoneReachesTheDaemon() async throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let linkLocal = Fixture.ip("fe80::1")
        harness.network.setRoute(to: linkLocal, .success(.route(RouteAnswer(
            type: .unicast, outputInterface: Fixture.ethIndex, table: 254, preferredSource: Fixture.ip("fe80::2")))))
        let report = try await PathMonitor.route(to: "fe80::1%eth0", socketPath: harness.socketPath, mode: .daemon)
        #expect(report.status == .satisfied, "\(report)")
        #expect(report.interface == Fixture.eth0Interface)
        #expect(harness.network.lookedUpThrough == [Fixture.ethIndex])
    }
}
