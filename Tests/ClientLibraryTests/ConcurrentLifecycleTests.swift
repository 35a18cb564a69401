// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Dispatch
import PathClient
import PathModel
import PathProtocol
import PathSocketClient
import Synchronization
import Testing

/// docs/ARCHITECTURE.md, "Client library": start and cancel from any thread, handlers only on the start queue.
/// Run once under the thread sanitizer (docs/PERFORMANCE.md, "Thread sanitizer").
@Suite("start and cancel from many threads", .blocking)
struct ConcurrentLifecycleTests {
    static let key = DispatchSpecificKey<Int>()

    /// Serial queues that know their number (`DispatchQueue.getSpecific`).
    static func numberedQueues(_ count: Int, _ label: String) -> [DispatchQueue] {
        (0..<count).map { number in
            let queue = DispatchQueue(label: "\(label).\(number)")
            queue.setSpecific(key: key, value: number)
            return queue
        }
    }

    @Test("32 threads start one monitor on 4 queues at once: one start wins, every call runs on its queue")
    func concurrentStarts() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let queues = Self.numberedQueues(4, "pathd.test.starts")
        let monitor = PathMonitor(socketPath: harness.socketPath, mode: .daemon)
        let apple = NWPathMonitor(PathMonitor(socketPath: harness.socketPath, mode: .daemon))
        let calls = Received<Int?>()
        let appleCalls = Received<Int?>()
        monitor.pathUpdateHandler = { _ in calls.append(DispatchQueue.getSpecific(key: Self.key)) }
        apple.pathUpdateHandler = { _ in appleCalls.append(DispatchQueue.getSpecific(key: Self.key)) }
        DispatchQueue.concurrentPerform(iterations: 32) { index in
            monitor.start(queue: queues[index % 4])
            apple.start(queue: queues[(index + 1) % 4])
        }
        defer { monitor.cancel(); apple.cancel() }
        let winner = try #require(monitor.queue.flatMap { queue in queues.firstIndex { $0 === queue } })
        let appleWinner = try #require(apple.queue.flatMap { queue in queues.firstIndex { $0 === queue } })
        #expect(try calls.next("the first path") == winner)
        #expect(try appleCalls.next("the first path") == appleWinner)
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try calls.next("the change") == winner, "one subscription: the change comes once")
        #expect(try appleCalls.next("the change") == appleWinner)
    }

    @Test("monitors started on one thread each and cancelled from others while paths change: no call after a cancel")
    func cancelsWhileChanging() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let count = 12
        let queues = Self.numberedQueues(count, "pathd.test.cancels")
        let misplaced = Mutex(0)
        let calls = Mutex([Int](repeating: 0, count: count))
        let firsts = Received<Int>()
        var monitors: [PathMonitor] = []
        var appleMonitors: [NWPathMonitor] = []
        for number in 0..<count {
            let check: @Sendable () -> Void = {
                if DispatchQueue.getSpecific(key: Self.key) != number { misplaced.withLock { $0 += 1 } }
                let seen = calls.withLock { calls -> Int in
                    calls[number] += 1
                    return calls[number]
                }
                if seen == 1 { firsts.append(number) }
            }
            if number.isMultiple(of: 2) {
                let monitor = PathMonitor(socketPath: harness.socketPath, mode: .daemon)
                monitor.pathUpdateHandler = { _ in check() }
                monitors.append(monitor)
            } else {
                let monitor = NWPathMonitor(PathMonitor(socketPath: harness.socketPath, mode: .daemon))
                monitor.pathUpdateHandler = { _ in check() }
                appleMonitors.append(monitor)
            }
        }
        let (native, apple) = (monitors, appleMonitors)
        let start: @Sendable (Int) -> Void = { number in
            if number.isMultiple(of: 2) {
                native[number / 2].start(queue: queues[number])
            } else {
                apple[number / 2].start(queue: queues[number])
            }
        }
        let cancel: @Sendable (Int) -> Void = { number in
            if number.isMultiple(of: 2) { native[number / 2].cancel() } else { apple[number / 2].cancel() }
        }
        DispatchQueue.concurrentPerform(iterations: count, execute: start)
        for _ in 0..<count { _ = try firsts.next("every monitor's first path") }

        // Paths change while every monitor is cancelled from a thread of its own.
        let flapping = DispatchQueue(label: "pathd.test.flap")
        let network = harness.network
        flapping.async {
            for round in 0..<20 {
                network.latest.emit([.linkChanged(round.isMultiple(of: 2) ? Fixture.eth0NoCarrier : Fixture.eth0())])
            }
        }
        DispatchQueue.concurrentPerform(iterations: count, execute: cancel)
        flapping.sync {}
        // Drain what began before a cancel returned; from here on nothing may begin.
        queues.forEach { $0.sync {} }
        let settled = calls.withLock { $0 }

        let (other, _) = try harness.connectAndSubscribe()
        harness.network.latest.emit([.routeLookup(.ipv4, .rejected(.unreachable))])
        _ = try other.waitForPath { $0.unsatisfiedReason == .routeRejects }
        queues.forEach { $0.sync {} }
        #expect(calls.withLock { $0 } == settled)
        #expect(misplaced.withLock { $0 } == 0, "every call ran on its monitor's queue")
        DispatchQueue.concurrentPerform(iterations: count, execute: start)
        queues.forEach { $0.sync {} }
        #expect(calls.withLock { $0 } == settled, "a cancelled monitor does not start again")
    }
}
