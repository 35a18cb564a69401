// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathClient
import PathModel
import PathSocketClient
import PathTestFixtures
import Testing

/// `PathMonitor.routeUpdates(to:)`: from a daemon whose kernel is the fake network, and
/// from the engine in this process.
@Suite("route updates (client library)", .blocking)
struct RouteUpdatesTests {
    @Test("the daemon's answer, then each change; ending the iteration ends the subscription")
    func followsTheDaemon() async throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Fixture.routeDestination, .success(Fixture.routeViaEth0))
        var updates = PathMonitor.routeUpdates(to: "203.0.113.50", socketPath: harness.socketPath, mode: .daemon)
            .makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.status == .satisfied)
        #expect(first.interface == Fixture.eth0Interface)
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        let second = try #require(try await updates.next())
        #expect(second.unsatisfiedReason == .noCarrier)
        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        #expect(try await updates.next()?.status == .satisfied)
        #expect(harness.queue.sync { harness.service.clientCount } == 1)
        _ = consume updates
        try harness.waitForClients("the sequence's connection closed") { $0 == 0 }
    }

    @Test("a zone pathd refuses ends the sequence with badArgument, from the daemon and in this process")
    func refusedZones() async throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        for mode in [PathMonitor.Mode.daemon, .inProcess] {
            let unknown = PathMonitor.routeUpdates(to: "fe80::1%wlan9", socketPath: harness.socketPath, mode: mode)
            await #expect(throws: PathClientError.self, "\(mode)") {
                for try await report in unknown { Issue.record("answered \(report)") }
            }
        }
        let routed = PathMonitor.routeUpdates(to: "192.0.2.1%eth0", socketPath: harness.socketPath, mode: .daemon)
        do {
            for try await report in routed { Issue.record("answered \(report)") }
            Issue.record("the sequence ended without an error")
        } catch let error as PathClientError {
            guard case .refused(.badArgument, _) = error.kind else {
                Issue.record("not badArgument: \(error)")
                return
            }
        }
        #expect(harness.network.lookedUp.isEmpty, "nothing refused reaches the kernel")
    }

    @Test("the engine in this process answers for this host's own address, through lo")
    func inProcess() async throws {
        var updates = PathMonitor.routeUpdates(to: "127.0.0.1", mode: .inProcess).makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.status == .satisfied)
        #expect(first.interface?.type == .loopback)
    }
}
