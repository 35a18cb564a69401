// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathSocketClient
@testable import PathDaemon
import PathModel
import PathProtocol
import Testing

/// "An idle client costs no CPU", checked by structure instead of time: the daemon does
/// work for a connection only when one of its dispatch sources fires, so an idle
/// subscriber's sources must not fire at all while another client keeps the daemon
/// busy for a fixed number of round trips. (Process CPU time would be unsound here:
/// other tests run in the same process at the same time.)
@Suite("idle clients", .blocking)
struct IdleClientTests {
    @Test("an idle subscriber's sources never fire while another client makes 500 round trips")
    func idleSubscriberCostsNothing() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let idle = try harness.connect()
        try idle.send(Request(.subscribe(.path(.any)), id: .string("idle")))
        _ = try idle.nextPath()
        let busy = try harness.connect()
        // The idle client is the only one with a subscription.
        func wakeups() throws -> (idle: Int, busy: Int) {
            try harness.queue.sync {
                let clients = harness.service.admission.clients.values
                let registry = harness.service.publisher.subscriptions
                let idleClient = try #require(clients.first { registry.count(of: $0.id) > 0 })
                let busyClient = try #require(clients.first { registry.count(of: $0.id) == 0 })
                return (idleClient.wakeups, busyClient.wakeups)
            }
        }
        let before = try wakeups()
        let roundTrips = 500
        for index in 0..<roundTrips {
            try busy.send(Request(.ping, id: .integer(Int64(index))))
            try #require(try busy.next() == .pong(id: .integer(Int64(index))))
        }
        let after = try wakeups()
        #expect(after.idle == before.idle, "the idle client woke the daemon \(after.idle - before.idle) times")
        // The busy client costs about one wakeup per request, not a spinning source.
        #expect(after.busy - before.busy <= 2 * roundTrips)
        #expect(after.busy - before.busy >= 1)
    }
}
