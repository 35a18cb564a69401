// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import PathSocketClient
import PathDaemon
import PathModel
import PathProtocol
import Testing

@Suite("generations and resync", .blocking)
struct ResyncTests {
    @Test("an overrun starts a new generation, re-dumps, and sends resync then the path")
    func resyncAfterOverrun() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try harness.connect()
        try client.send(Request(.subscribe(.path(.any)), id: .string("s")))
        let first = try client.nextPath().update

        let old = harness.network.latest
        old.overrun()
        guard case .resync(_, let generation, let id) = try client.next() else {
            Issue.record("expected a resync line")
            return
        }
        #expect(generation == first.generation.next())
        #expect(id == .string("s"))
        // The path did not change, but it is sent again, in the new generation.
        let after = try client.nextPath().update
        #expect(after.generation == generation)
        #expect(after.sequence == first.sequence + 1)
        #expect(after.path == first.path)
        #expect(old.isCancelled)
        #expect(harness.network.sources.count == 2)
    }

    @Test("a batch from a cancelled instance is dropped after the hop onto the queue")
    func staleGenerationDropped() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (client, first) = try harness.connectAndSubscribe()
        let old = harness.network.latest
        old.overrun()
        guard case .resync = try client.next() else {
            Issue.record("expected a resync line")
            return
        }
        _ = try client.nextPath()
        // The old instance still "sees" a carrier loss: it must not reach the state.
        old.emit([.linkChanged(Fixture.eth0NoCarrier)])
        // The current instance reports a real change; it must be the next line.
        harness.network.latest.emit([.routeLookup(.ipv4, .rejected(.unreachable))])
        let next = try client.nextPath().update
        #expect(next.path.unsatisfiedReason == .routeRejects)
        #expect(next.generation == first.generation.next())
        let current = harness.queue.sync { harness.service.currentPath() }
        #expect(current?.unsatisfiedReason == .routeRejects)
    }

    @Test("the dump of the new generation replaces the old snapshot")
    func redumpReplacesState() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (client, first) = try harness.connectAndSubscribe()
        #expect(first.path.status == .satisfied)
        // While events were lost, eth0 disappeared; only the re-dump knows.
        harness.network.setState([.linkChanged(Fixture.lo), .routeLookup(.ipv4, .noRoute),
                                  .routeLookup(.ipv6, .noRoute)])
        harness.network.latest.overrun()
        guard case .resync = try client.next() else {
            Issue.record("expected a resync line")
            return
        }
        let path = try client.nextPath().update.path
        #expect(path.status == .unsatisfied)
        #expect(path.unsatisfiedReason == .noInterface)
    }
}

@Suite("the kernel does not hold the state queue", .blocking)
struct DumpOffTheStateQueueTests {
    @Test("while a new generation's dump runs, another client's ping is answered before the resync")
    func pingDuringDump() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let subscriber = try harness.connect()
        try subscriber.send(Request(.subscribe(.path(.any)), id: .string("s")))
        _ = try subscriber.nextPath()
        // The replacement's dump will not finish until the test says so.
        let gate = harness.network.holdNextStart()
        harness.network.latest.overrun()
        try harness.waitForSources(2)
        let other = try harness.connect()
        try other.send(Request(.ping, id: .string("during the dump")))
        #expect(try other.next() == .pong(id: .string("during the dump")))
        gate.signal()
        guard case .resync(_, _, .string("s")) = try subscriber.next() else {
            Issue.record("expected the resync once the dump finished")
            return
        }
        #expect(try subscriber.nextPath().update.generation == Generation(rawValue: 2))
    }
}
