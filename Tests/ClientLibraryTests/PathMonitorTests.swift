// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Dispatch
import Foundation
import Glibc
import PathClient
import PathModel
import PathProtocol
import PathSocketClient
import Testing

/// The lifecycle contract (docs/ARCHITECTURE.md, "Client library") for the native API, against a daemon on a real
/// socket (the in-process engine is in the kernel tests: it needs a kernel).
@Suite("PathMonitor (client library)", .blocking)
struct PathMonitorTests {
    static let offline: [NetworkEvent] = Fixture.online.map {
        if case .linkChanged(let link) = $0, link.index
            == Fixture.eth0().index { return .linkChanged(Fixture.eth0NoCarrier) }
        return $0
    }

    /// A PathMonitor and an NWPathMonitor on the harness, on one queue, started.
    static func startBoth(_ harness: DaemonHarness) -> (WatchedMonitor, WatchedAppleMonitor) {
        let watched = WatchedMonitor(socketPath: harness.socketPath)
        let apple = WatchedAppleMonitor(socketPath: harness.socketPath, queue: watched.queue)
        watched.start()
        apple.start()
        return (watched, apple)
    }

    @Test("delivers the current path, then changes, on the given queue; nothing after cancel")
    func deliversAndCancels() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let watched = WatchedMonitor(socketPath: harness.socketPath)
        #expect(watched.monitor.currentPath == nil, "unknown before the first answer")
        watched.start()
        let first = try watched.paths.next("the first path")
        #expect(first.status == .satisfied)
        #expect(watched.monitor.lastError == nil, "no failure once subscribed")

        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        let lost = try watched.paths.next("the carrier loss")
        #expect(lost.unsatisfiedReason == .noCarrier)
        #expect(watched.monitor.currentPath == lost)

        watched.monitor.cancel()
        // A change after cancel, seen by another subscriber so it was surely sent; then
        // one barrier on the start queue, after which nothing for this monitor is pending.
        let (other, _) = try harness.connectAndSubscribe()
        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        #expect(try other.nextPath().update.path.status == .satisfied)
        watched.queue.sync {}
        #expect(watched.paths.all.count == 2)
    }

    @Test("criteria travel with the subscription")
    func criteria() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let watched = WatchedMonitor(socketPath: harness.socketPath, requiredInterfaceType: .wifi)
        watched.start()
        defer { watched.monitor.cancel() }
        let path = try watched.paths.next("the wifi-only path")
        #expect(path.status == .unsatisfied)
        #expect(path.unsatisfiedReason == .interfaceTypeExcluded)
    }

    @Test("not expensive travels with the subscription: an expensive path is .unavailable, expensiveExcluded")
    func notExpensive() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let script = ReloadScript()
        script.install(on: harness)
        let watched = WatchedMonitor(socketPath: harness.socketPath, prohibitExpensivePaths: true)
        watched.start()
        defer { watched.monitor.cancel() }
        #expect(try watched.paths.next("the free path").status == .satisfied)
        #expect(watched.monitor.prohibitExpensivePaths && !watched.monitor.prohibitConstrainedPaths)

        script.answer(valid: ReloadScript.expensiveEth0())
        let admin = try harness.connect()
        try admin.send(Request(.reload))
        let refused = try watched.paths.next("the expensive path")
        #expect(refused.unsatisfiedReason == .expensiveExcluded)
        #expect(refused.reasonInterface == "eth0")
        #expect(watched.monitor.currentState == .unavailable(refused))
        // Apple's view of it: unsatisfied, for a reason Apple has no word for.
        let apple = NWPath(refused)
        #expect(apple.status == .unsatisfied)
        #expect(apple.unsatisfiedReason == .notAvailable)
        #expect(apple.linuxUnsatisfiedReason == .expensiveExcluded)
        #expect(apple.isExpensive)
    }

    @Test("the network conditions travel with the subscription: on no identified network, --network is unavailable")
    func networkConditions() throws {
        // The built-in configuration has no network key: eth0's network is not identified.
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let id = String(repeating: "5a", count: 16)
        let required = WatchedMonitor(socketPath: harness.socketPath, requiredNetwork: id)
        required.start()
        defer { required.monitor.cancel() }
        let refused = try required.paths.next("the path on no network")
        #expect(refused.unsatisfiedReason == .networkExcluded)
        #expect(refused.reasonInterface == "eth0")
        #expect(required.monitor.requiredNetwork == id)
        #expect(NWPath(refused).linuxUnsatisfiedReason == .networkExcluded)

        let prohibited = WatchedMonitor(socketPath: harness.socketPath, prohibitedNetworks: [id],
                                        label: "pathd.test.monitor.prohibited")
        prohibited.start()
        defer { prohibited.monitor.cancel() }
        #expect(try prohibited.paths.next("the path on no prohibited network").status == .satisfied)
    }

    @Test("before the first path the state is .unknown, and start, reads and cancel never wait for the daemon")
    func unknownBeforeFirstPath() throws {
        try withSocketDirectory { socketPath in
            // A daemon that accepts and never greets (it is still reading the kernel).
            let daemon = try FakeDaemon(socketPath: socketPath) { _ in FakeDaemon.Reply([]) }
            defer { daemon.stop() }
            let watched = WatchedMonitor(socketPath: socketPath)
            let apple = NWPathMonitor(PathMonitor(socketPath: socketPath, mode: .daemon))
            #expect(watched.monitor.currentState == .unknown)
            #expect(watched.monitor.source == .none)
            #expect(apple.currentPath == NWPath.unknown)
            #expect(apple.currentPath.status == .unsatisfied)
            #expect(apple.currentPath.unsatisfiedReason == .notAvailable)
            #expect(apple.currentPath.availableInterfaces.isEmpty)

            let started = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                watched.start()
                apple.start(queue: watched.queue)
                started.signal()
            }
            #expect(started.wait(timeout: .now() + 10) == .success, "start returned")
            let free = DispatchSemaphore(value: 0)
            watched.queue.async { free.signal() }
            #expect(free.wait(timeout: .now() + 10) == .success, "the start queue runs other work")
            #expect(watched.monitor.currentState == .unknown)
            #expect(apple.currentPath == NWPath.unknown)

            let cancelled = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                watched.monitor.cancel()
                apple.cancel()
                cancelled.signal()
            }
            #expect(cancelled.wait(timeout: .now() + 10) == .success, "cancel returned while the hello is awaited")
            #expect(watched.paths.all.isEmpty && watched.states.all.isEmpty)
        }
    }

    /// There is no API through which a request could change the path: PathMonitor and
    /// NWPathMonitor take no report of any request. This shows that a failure while
    /// the path is satisfied changes nothing either.
    @Test("a request failing while the path is satisfied changes nothing")
    func failedRequestChangesNothing() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (watched, apple) = Self.startBoth(harness)
        defer { watched.monitor.cancel(); apple.monitor.cancel() }
        let first = try watched.paths.next("the first path")
        _ = try apple.paths.next("the first NWPath")

        #expect(try refusedConnectToLoopback() == ECONNREFUSED)
        #expect(watched.monitor.currentState == .available(first))
        #expect(apple.monitor.currentPath.status == .satisfied)

        // The next calls are the sentinel's: the failure caused none.
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try watched.paths.next("the sentinel").unsatisfiedReason == .noCarrier)
        #expect(try apple.paths.next("the sentinel").linuxUnsatisfiedReason == .noCarrier)
        #expect(try watched.states.next("available") == .available(first))
        #expect(try watched.states.next("the sentinel").path?.unsatisfiedReason == .noCarrier)
    }

    @Test("unavailable → available: exactly one call of each handler")
    func unavailableToAvailable() throws {
        let harness = try DaemonHarness(state: Self.offline)
        defer { harness.stop() }
        let watched = WatchedMonitor(socketPath: harness.socketPath)
        watched.start()
        defer { watched.monitor.cancel() }
        #expect(try watched.paths.next("offline").unsatisfiedReason == .noCarrier)
        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        let online = try watched.paths.next("online")
        #expect(online.status == .satisfied)
        harness.network.latest.emit([.routeLookup(.ipv4, .rejected(.unreachable))])
        #expect(try watched.paths.next("the sentinel").unsatisfiedReason == .routeRejects)
        #expect(try watched.states.next("offline").path?.unsatisfiedReason == .noCarrier)
        #expect(try watched.states.next("online") == .available(online))
        #expect(try watched.states.next("the sentinel").path?.unsatisfiedReason == .routeRejects)
    }

    @Test("the same path again (sent after the daemon's resync): no call; the new generation shows in source")
    func samePathAfterResync() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let watched = WatchedMonitor(socketPath: harness.socketPath)
        watched.start()
        defer { watched.monitor.cancel() }
        _ = try watched.paths.next("the first path")
        #expect(watched.monitor.source == .daemon(socketPath: harness.socketPath, generation: .first, connection: 1))

        let (other, _) = try harness.connectAndSubscribe()
        harness.network.latest.overrun()
        guard case .resync(_, let generation, _) = try other.next() else {
            Issue.record("expected a resync line")
            return
        }
        _ = try other.nextPath()
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try watched.paths.next("the sentinel").unsatisfiedReason == .noCarrier, "no call for the resent path")
        _ = try watched.states.next("available")
        #expect(try watched.states.next("the sentinel").path?.unsatisfiedReason == .noCarrier)
        #expect(watched.monitor.source
                == .daemon(socketPath: harness.socketPath, generation: generation, connection: 1))
    }

    @Test("only isExpensive changed (a reload): one call with the new flag; the same reload again: none")
    func flagsOnly() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let script = ReloadScript()
        script.install(on: harness)
        let (watched, apple) = Self.startBoth(harness)
        defer { watched.monitor.cancel(); apple.monitor.cancel() }
        let first = try watched.paths.next("the first path")
        #expect(try !apple.paths.next("the first NWPath").isExpensive)

        let admin = try harness.connect()
        script.answer(valid: ReloadScript.expensiveEth0())
        for id in 1...2 {
            try admin.send(Request(.reload, id: .integer(Int64(id))))
            #expect(try admin.next() == .reloaded(warnings: [], id: .integer(Int64(id))))
            if id == 1 {
                var expected = first
                expected.isExpensive = true
                expected.isExpensiveSetBy = .interface
                #expect(try watched.paths.next("the expensive path") == expected)
                #expect(try apple.paths.next("the expensive NWPath").isExpensive)
            }
        }
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try watched.paths.next("the sentinel").unsatisfiedReason == .noCarrier, "no call for the second reload")
        #expect(try apple.paths.next("the sentinel").status == .unsatisfied)
    }

    @Test("""
        the daemon goes away (.daemon mode): .unknown, never offline; back with the same path: no path call, a new \
        connection in source
        """)
    func daemonGoneAndBack() throws {
        try withSocketDirectory { socketPath in
            let first = try DaemonHarness(socketPath: socketPath)
            defer { first.stop() }
            let scheduler = ManualScheduler()
            let watched = WatchedMonitor(socketPath: socketPath, scheduler: scheduler)
            watched.start()
            defer { watched.monitor.cancel() }
            let path = try watched.paths.next("the first path")
            #expect(try watched.states.next("available") == .available(path))

            first.stop()
            #expect(try watched.states.next("the daemon gone") == .unknown)
            #expect(watched.monitor.source == .none)
            #expect(watched.monitor.currentPath == nil)
            guard case .refused(.shuttingDown, _)? = watched.monitor.lastError?.kind else {
                Issue.record("the daemon said why it left: \(String(describing: watched.monitor.lastError))")
                return
            }

            let second = try DaemonHarness(socketPath: socketPath)
            defer { second.stop() }
            try scheduler.waitForScheduled(1)
            try scheduler.runNext()
            #expect(try watched.states.next("back") == .available(path))
            #expect(watched.monitor.source == .daemon(socketPath: socketPath, generation: .first, connection: 2))
            second.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
            #expect(try watched.paths.next("the sentinel").unsatisfiedReason == .noCarrier, "no call for the same path")
        }
    }

    @Test("a socket nobody listens on is recorded in lastError, naming the path")
    func unreachableRecorded() throws {
        try withSocketDirectory { socketPath in
            let scheduler = ManualScheduler()
            let watched = WatchedMonitor(socketPath: socketPath, scheduler: scheduler)
            #expect(watched.monitor.lastError == nil, "no failure before start")
            watched.start()
            defer { watched.monitor.cancel() }
            // The retry is scheduled after the failure was handed to the start queue; one
            // barrier there and it is recorded.
            try scheduler.waitForScheduled(1)
            watched.queue.sync {}
            let message = try #require(watched.monitor.lastError).description
            #expect(message.contains(socketPath), "message: \(message)")
            #expect(watched.monitor.currentState == .unknown)
            #expect(watched.paths.all.isEmpty && watched.states.all.isEmpty)
        }
    }
}
