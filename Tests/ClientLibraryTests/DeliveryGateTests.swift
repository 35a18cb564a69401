// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Dispatch
import PathClient
import PathModel
import PathProtocol
import PathSocketClient
import Testing

/// docs/ARCHITECTURE.md, "Client library": after `cancel()` no handler call begins, even for what was already
/// queued for the old connection. The gate itself is tested: the start queue is
/// suspended, a path line and the connection's end are handed to it, the monitor is
/// cancelled, the queue resumed and drained; nothing may have been called. Without the
/// cancel (the control), both arrive, which shows they really were queued.
@Suite("delivery gate", .blocking)
struct DeliveryGateTests {
    /// With `queue` suspended, makes the subscription hand two events to it: a carrier
    /// loss (seen first by another subscriber, so the daemon wrote it to everyone) and
    /// the daemon's end. The retry is scheduled only after both were handed over, so
    /// once the scheduler has it, both wait on the queue.
    static func queueLineAndEnd(_ harness: DaemonHarness, _ scheduler: ManualScheduler,
                                on queue: DispatchQueue) throws {
        let (other, _) = try harness.connectAndSubscribe()
        queue.suspend()
        // queueCancelAndDrain resumes it; on a throw here it is resumed at once, since
        // libdispatch traps when a suspended queue is released.
        var handedOver = false
        defer { if !handedOver { queue.resume() } }
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try other.nextPath().update.path.unsatisfiedReason == .noCarrier)
        harness.stop()
        try scheduler.waitForScheduled(1)
        handedOver = true
    }

    /// `queueLineAndEnd`, then `cancel` when `cancelling` (the case under test; not for
    /// the control), then the queue resumed and run dry.
    static func queueCancelAndDrain(_ harness: DaemonHarness, _ scheduler: ManualScheduler, on queue: DispatchQueue,
                                    cancelling: Bool, _ cancel: () -> Void) throws {
        try queueLineAndEnd(harness, scheduler, on: queue)
        if cancelling { cancel() }
        queue.resume()
        queue.sync {}
    }

    @Test("DaemonSubscription: queued events are dropped once cancelled", arguments: [true, false])
    func subscription(cancel: Bool) throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let scheduler = ManualScheduler()
        let queue = DispatchQueue(label: "pathd.test.gate.subscription")
        let events = Received<DaemonSubscription.Event>()
        let subscription = DaemonSubscription(socketPath: harness.socketPath, scheduler: scheduler)
        subscription.start(queue: queue) { event in
            dispatchPrecondition(condition: .onQueue(queue))
            events.append(event)
        }
        defer { subscription.cancel() }
        guard case .connected = try events.next("connected"), case .path = try events.next("the first path") else {
            Issue.record("expected connected, then a path: \(events.all)")
            return
        }
        try Self.queueCancelAndDrain(harness, scheduler, on: queue, cancelling: cancel) { subscription.cancel() }
        if cancel {
            #expect(events.all.count == 2, "after cancel: \(events.all.dropFirst(2))")
        } else {
            guard case .path(let update) = try events.next("the queued line") else {
                Issue.record("expected the queued path line: \(events.all)")
                return
            }
            #expect(update.path.unsatisfiedReason == .noCarrier)
            guard case .disconnected = try events.next("the queued end") else {
                Issue.record("expected the disconnection: \(events.all)")
                return
            }
        }
    }

    @Test("PathMonitor: queued paths and the unknown state are dropped once cancelled", arguments: [true, false])
    func monitor(cancel: Bool) throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let scheduler = ManualScheduler()
        let watched = WatchedMonitor(socketPath: harness.socketPath, scheduler: scheduler,
                                     label: "pathd.test.gate.monitor")
        watched.start()
        defer { watched.monitor.cancel() }
        let first = try watched.paths.next("the first path")
        _ = try watched.states.next("available")
        try Self.queueCancelAndDrain(harness, scheduler, on: watched.queue,
                                     cancelling: cancel) { watched.monitor.cancel() }
        if cancel {
            #expect(watched.paths.all == [first])
            #expect(watched.states.all == [.available(first)])
            #expect(watched.monitor.currentState == .available(first), "nothing after cancel touched the state")
        } else {
            #expect(try watched.paths.next("the queued line").unsatisfiedReason == .noCarrier)
            #expect(try watched.states.next("the queued line").path?.unsatisfiedReason == .noCarrier)
            #expect(try watched.states.next("the queued end") == .unknown)
        }
    }

    @Test("NWPathMonitor: a queued path is dropped once cancelled", arguments: [true, false])
    func appleMonitor(cancel: Bool) throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let scheduler = ManualScheduler()
        let watched = WatchedAppleMonitor(socketPath: harness.socketPath, scheduler: scheduler,
                                          queue: DispatchQueue(label: "pathd.test.gate.apple"))
        watched.start()
        defer { watched.monitor.cancel() }
        let first = try watched.paths.next("the first path")
        try Self.queueCancelAndDrain(harness, scheduler, on: watched.queue,
                                     cancelling: cancel) { watched.monitor.cancel() }
        if cancel {
            #expect(watched.paths.all == [first])
            #expect(watched.monitor.currentPath == first)
        } else {
            #expect(try watched.paths.next("the queued line").linuxUnsatisfiedReason == .noCarrier)
            #expect(watched.monitor.currentPath.linuxUnsatisfiedReason == .noCarrier,
                    "the last path delivered, not unknown")
        }
    }
}
