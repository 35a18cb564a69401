// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import Foundation
import PathSocketClient
import PathDaemon
import KernelState
import PathModel
import PathProtocol
import PathTestFixtures
import Testing

@Suite("monitor start", .blocking)
struct StartRetryTests {
    @Test("a monitor that fails to start is replaced by a new generation")
    func retriesWithNewGeneration() throws {
        let harness = try DaemonHarness(failingStarts: 2)
        defer { harness.stop() }
        let client = try harness.connect()
        #expect(client.hello?.generation == Generation(rawValue: 3))
        try client.send(Request(.status(.any)))
        let update = try client.nextPath().update
        #expect(update.generation == Generation(rawValue: 3))
        #expect(update.path.status == .satisfied)
        let replaced = harness.network.sources.prefix(2).allSatisfy { $0.isCancelled }
        #expect(replaced)
    }

    @Test("three failed starts in a row are fatal")
    func givesUp() throws {
        #expect(throws: DaemonHarness.StartFailed.self) {
            _ = try DaemonHarness(failingStarts: 3)
        }
    }
}

@Suite("monitor restart, on an injected clock", .blocking)
struct RestartRetryTests {
    @Test("a replacement that fails after a resync is retried after KernelStateTracker.restartDelay, not before")
    func failedRestartWaitsForTheClock() throws {
        let clock = ManualScheduler()
        let harness = try DaemonHarness(scheduler: clock)
        defer { harness.stop() }
        let client = try harness.connect()
        try client.send(Request(.subscribe(.path(.any)), id: .string("s")))
        let first = try client.nextPath().update
        // The overrun's replacement fails to start; the next one would work.
        harness.network.failNextStarts(1)
        harness.network.latest.overrun()
        #expect(try clock.waitForScheduled(1) == [KernelStateTracker.restartDelay])
        #expect(harness.network.sources.count == 2, "no third source before the clock moves")
        try clock.runNext()
        guard case .resync(_, let generation, .string("s")) = try client.next() else {
            Issue.record("expected the resync line once the retry ran")
            return
        }
        #expect(generation == first.generation.next().next())
        #expect(try client.nextPath().update.generation == generation)
        #expect(harness.network.sources.count == 3)
    }
}
