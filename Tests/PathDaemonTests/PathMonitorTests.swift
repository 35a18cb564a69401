import Dispatch
import Foundation
import PathClient
import PathSocketClient
import PathDaemon
import PathModel
import PathProtocol
import Synchronization
import Testing

/// The NWPathMonitor-shaped client against a daemon on a real socket.
@Suite("PathMonitor (client library)")
struct PathMonitorTests {
    /// The paths a handler saw, with a failing wait for the next one.
    final class Seen: Sendable {
        private let paths = Mutex<[Path]>([])
        private let arrived = DispatchSemaphore(value: 0)

        func record(_ path: Path) {
            paths.withLock { $0.append(path) }
            arrived.signal()
        }

        var count: Int { paths.withLock { $0.count } }

        func next(_ description: String) throws -> Path {
            guard arrived.wait(timeout: .now() + 10) == .success else {
                throw PathClientError("no path for \(description) within 10 s")
            }
            return paths.withLock { $0[$0.count - 1] }
        }
    }

    @Test("delivers the current path, then changes, on the given queue; nothing after cancel")
    func deliversAndCancels() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let queue = DispatchQueue(label: "pathd.test.monitor")
        let seen = Seen()
        let monitor = PathMonitor(socketPath: harness.socketPath, mode: .daemon)
        monitor.pathUpdateHandler = { path in
            dispatchPrecondition(condition: .onQueue(queue))
            seen.record(path)
        }
        #expect(monitor.currentPath == nil, "unknown before the first answer")
        monitor.start(queue: queue)
        #expect(try seen.next("the first path").status == .satisfied)
        #expect(queue.sync { monitor.lastError } == nil, "no failure once subscribed")

        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        let lost = try seen.next("the carrier loss")
        #expect(lost.unsatisfiedReason == .noCarrier)
        #expect(queue.sync { monitor.currentPath } == lost)

        monitor.cancel()
        let before = seen.count
        // A change after cancel, seen by another subscriber so it was surely sent.
        let other = try harness.connect()
        try other.send(Request(op: .subscribe))
        _ = try other.nextPath()
        harness.network.latest.emit([.linkChanged(Fixture.eth0)])
        #expect(try other.nextPath().update.path.status == .satisfied)
        queue.sync {}
        #expect(seen.count == before)
    }

    @Test("criteria travel with the subscription")
    func criteria() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let queue = DispatchQueue(label: "pathd.test.monitor.wifi")
        let seen = Seen()
        let monitor = PathMonitor(requiredInterfaceType: .wifi, socketPath: harness.socketPath, mode: .daemon)
        monitor.pathUpdateHandler = { seen.record($0) }
        monitor.start(queue: queue)
        defer { monitor.cancel() }
        let path = try seen.next("the wifi-only path")
        #expect(path.status == .unsatisfied)
        #expect(path.unsatisfiedReason == .interfaceTypeExcluded)
    }

    @Test("a daemon that goes away makes the path unknown, not offline")
    func daemonGone() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let queue = DispatchQueue(label: "pathd.test.monitor.gone")
        let seen = Seen()
        let monitor = PathMonitor(socketPath: harness.socketPath, mode: .daemon)
        monitor.pathUpdateHandler = { seen.record($0) }
        monitor.start(queue: queue)
        defer { monitor.cancel() }
        _ = try seen.next("the first path")
        harness.stop()
        let deadline = ContinuousClock.now + .seconds(10)
        while queue.sync(execute: { monitor.currentPath }) != nil {
            try #require(ContinuousClock.now < deadline, "the path stayed known after the daemon left")
            queue.sync {}
        }
        #expect(seen.count == 1, "no handler call says 'offline' when the daemon leaves")
    }

    @Test("a socket nobody listens on is recorded in lastError, naming the path")
    func unreachableRecorded() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pathd-monitor-\(UUID().uuidString.prefix(8))").path
        let socketPath = directory + "/absent.sock"
        let queue = DispatchQueue(label: "pathd.test.monitor.unreachable")
        let seen = Seen()
        let monitor = PathMonitor(socketPath: socketPath, mode: .daemon)
        monitor.pathUpdateHandler = { seen.record($0) }
        #expect(monitor.lastError == nil, "no failure before start")
        monitor.start(queue: queue)
        defer { monitor.cancel() }
        // The first attempt fails at once; its record reaches the queue after a hop.
        let deadline = ContinuousClock.now + .seconds(10)
        var error = queue.sync { monitor.lastError }
        while error == nil {
            try #require(ContinuousClock.now < deadline, "no failure recorded for \(socketPath)")
            error = queue.sync { monitor.lastError }
        }
        let message = try #require(error).description
        #expect(message.contains(socketPath), "message: \(message)")
        #expect(queue.sync { monitor.currentPath } == nil)
        #expect(seen.count == 0)
    }
}
