// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import Dispatch
import Glibc
import PathClient
import PathModel
import PathSocketClient
import PathTestFixtures
import SystemCalls
import Testing

/// What a monitor holds and when it lets go: an iteration that ends stops what it
/// started, `cancel()` ends a connection in any phase, `.automatic` does not wait on a
/// daemon that stays silent, and `start` after an iteration takes the handler over.
@Suite("monitor lifetime", .blocking)
struct MonitorLifetimeTests {
    static let hello = #"{"type":"hello","protocol":1,"version":"0.1.0","generation":1}"#
    /// A path no host has: its interface name tells the daemon's answer from the engine's.
    static let daemonPath = #"{"type":"path","generation":1,"sequence":1,"status":"satisfied","#
        + #""interfaces":[{"name":"pathdtest0","index":90,"type":"other","tunnel":false}]}"#

    @Test("for await … break leaves no connection to the daemon", .timeLimit(.minutes(1)))
    func iterationThatBreaks() async throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        for _ in 0..<30 {
            let monitor = NWPathMonitor(PathMonitor(socketPath: harness.socketPath, mode: .daemon))
            for await path in monitor {
                #expect(path.status == .satisfied)
                break
            }
        }
        // The same monitor iterated again and again holds none either.
        let monitor = NWPathMonitor(PathMonitor(socketPath: harness.socketPath, mode: .daemon))
        for _ in 0..<10 {
            for await _ in monitor { break }
        }
        try harness.waitForClients("no client connected", { $0 == 0 })
        #expect(monitor.currentPath.status == .satisfied, "the path last delivered stays current")
    }

    @Test("cancel() closes a connection that waits for the daemon's hello")
    func cancelDuringHello() throws {
        try withSocketDirectory { socketPath in
            let listener = try UnixSocket.stream()
            defer { listener.close() }
            try UnixSocketAddress(path: socketPath).withSockaddr { (pointer, length) throws(Errno) in
                _ = try syscall { bind(listener.rawValue, pointer, length) }
            }
            _ = try syscall { listen(listener.rawValue, 4) }
            try Self.setReceiveTimeout(listener.rawValue)
            // The default hello deadline (30 s): only cancel can end this connection soon.
            let subscription = DaemonSubscription(socketPath: socketPath)
            subscription.start(queue: DispatchQueue(label: "pathd.test.lifetime.hello")) { _ in }
            defer { subscription.cancel() }
            let accepted = try syscall { accept(listener.rawValue, nil, nil) }
            defer { close(accepted) }
            try Self.setReceiveTimeout(accepted)
            subscription.cancel()
            var byte: UInt8 = 0
            let received = recv(accepted, &byte, 1, 0)
            #expect(received == 0, "the client closed its end (recv: \(received), \(Errno.current))")
        }
    }

    /// Waits of accept(2) and recv(2) fail after 10 s instead of hanging the suite.
    static func setReceiveTimeout(_ descriptor: Int32) throws {
        var value = timeval(tv_sec: 10, tv_usec: 0)
        _ = try syscall {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    @Test(".automatic answers from this process when the daemon stays silent, and takes its path when it comes")
    func silentDaemon() throws {
        try withSocketDirectory { socketPath in
            let daemon = try FakeDaemon(socketPath: socketPath) { _ in FakeDaemon.Reply([]) }
            defer { daemon.stop() }
            let states = Received<PathMonitor.State>()
            let monitor = PathMonitor(socketPath: socketPath, mode: .automatic)
            monitor.stateUpdateHandler = { states.append($0) }
            monitor.start(queue: DispatchQueue(label: "pathd.test.lifetime.silent"))
            defer { monitor.cancel() }
            #expect(daemon.waitForAccepted(1))
            // The hello deadline is 30 s; the engine here answers long before.
            let first = try states.next("the in-process engine's path")
            #expect(first != .unknown)
            #expect(monitor.source == .inProcess)
            daemon.send(Self.hello)
            daemon.send(Self.daemonPath)
            while try states.next("the daemon's path").path?.availableInterfaces.first?.name != "pathdtest0" {}
            guard case .daemon(let path, _, _) = monitor.source else {
                Issue.record("the answer's source is \(monitor.source)")
                return
            }
            #expect(path == socketPath)
        }
    }

    @Test("start(queue:) after an iteration started the monitor: the handler gets the current path on that queue",
          .timeLimit(.minutes(1)))
    func startAfterIteration() async throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let monitor = NWPathMonitor(PathMonitor(socketPath: harness.socketPath, mode: .daemon))
        defer { monitor.cancel() }
        var iterator = monitor.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.status == .satisfied)
        let queue = DispatchQueue(label: "pathd.test.lifetime.start")
        let handled = Received<NWPath>()
        monitor.pathUpdateHandler = { path in
            dispatchPrecondition(condition: .onQueue(queue))
            handled.append(path)
        }
        monitor.start(queue: queue)
        #expect(monitor.queue === queue)
        #expect(try handled.next("the current path") == first)
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try handled.next("the change").linuxUnsatisfiedReason == .noCarrier)
        #expect(await iterator.next()?.linuxUnsatisfiedReason == .noCarrier, "the iteration goes on")
    }
}
