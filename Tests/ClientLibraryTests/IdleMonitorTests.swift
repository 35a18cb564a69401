// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathClient
import PathModel
import PathSocketClient
import PathTestFixtures
import Testing

/// A connected monitor waits for the daemon's next line without holding a thread
/// (DaemonSubscription reads a non-blocking socket from a dispatch source): libdispatch's
/// pool has about 255 workers, so a reader blocked per monitor froze a process with a
/// few hundred monitors: no first path, and no other queue's work either. It counts the
/// threads of the whole test process, so no other blocking test runs meanwhile.
@Suite("idle monitors hold no thread", .blocking(.alone))
struct IdleMonitorTests {
    static let hello = #"{"type":"hello","protocol":1,"version":"0.1.0","generation":1}"#
    static let path = #"{"type":"path","generation":1,"sequence":1,"status":"satisfied","interfaces":[]}"#
    /// Well above libdispatch's worker limit.
    static let monitorCount = 400

    @Test("400 monitors on one daemon all get their first path; other queues still run; threads stay few")
    func manyMonitors() throws {
        try withSocketDirectory { socketPath in
            let daemon = try FakeDaemon(socketPath: socketPath) { _ in FakeDaemon.Reply([Self.hello, Self.path]) }
            defer { daemon.stop() }
            let firstPaths = DispatchSemaphore(value: 0)
            let queue = DispatchQueue(label: "pathd.test.idle")
            var monitors: [PathMonitor] = []
            defer { for monitor in monitors { monitor.cancel() } }
            for _ in 0..<Self.monitorCount {
                let monitor = PathMonitor(socketPath: socketPath, mode: .daemon)
                monitor.pathUpdateHandler = { _ in firstPaths.signal() }
                monitor.start(queue: queue)
                monitors.append(monitor)
            }
            let deadline = DispatchTime.now() + 60
            for received in 0..<Self.monitorCount where firstPaths.wait(timeout: deadline) == .timedOut {
                let threads = try ProcessCounts.threads()
                Issue.record("\(received) of \(Self.monitorCount) monitors got their first path; \(threads) threads")
                return
            }
            let ran = DispatchSemaphore(value: 0)
            DispatchQueue(label: "pathd.test.idle.other").async { ran.signal() }
            #expect(ran.wait(timeout: .now() + 10) == .success, "a fresh queue's work runs while the monitors wait")
            // The burst of 400 connections woke libdispatch workers, which live on idle for
            // a few seconds (102 were still there once, under the rest of the suite); a
            // thread held per monitor would stay for good.
            try waitUntil("fewer than \(Self.monitorCount / 4) threads are left for \(Self.monitorCount) idle monitors",
                          timeout: .seconds(30), detail: { ": \(try ProcessCounts.threads()) threads" }) {
                try ProcessCounts.threads() < Self.monitorCount / 4
            }
            #expect(monitors.allSatisfy { $0.currentPath?.status == .satisfied })
        }
    }
}
