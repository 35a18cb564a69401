// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import Dispatch
import PathClient
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import Testing

/// A program built against this library, talking to a newer pathd of protocol 1 (a fake
/// one on a real socket, sending `future-v1.jsonl`): it delivers the path and keeps its
/// connection (docs/PROTOCOL.md, "Version rule").
@Suite("clients against a newer daemon", .blocking)
struct FutureDaemonTests {
    /// A daemon that greets with a message type this client does not know, then its
    /// hello and a path with a new reason, interface type and connectivity state.
    static func futureDaemon(_ socketPath: String) throws -> (FakeDaemon, [String]) {
        let lines = try Fixture.compatibilityLines("future-v1.jsonl")
        let daemon = try FakeDaemon(socketPath: socketPath) { _ in
            FakeDaemon.Reply([lines[Fixture.Future.notice], lines[Fixture.Future.hello],
                              lines[Fixture.Future.unknownReason]])
        }
        return (daemon, lines)
    }

    @Test("""
        PathMonitor and NWPathMonitor deliver a path with a reason, type and state they do not know, and keep the \
        connection
        """)
    func monitorsDeliverAndStay() throws {
        try withSocketDirectory { socketPath in
            let (daemon, lines) = try Self.futureDaemon(socketPath)
            defer { daemon.stop() }
            let watched = WatchedMonitor(socketPath: socketPath)
            let apple = WatchedAppleMonitor(socketPath: socketPath, queue: watched.queue)
            watched.start()
            apple.start()
            defer { watched.monitor.cancel(); apple.monitor.cancel() }

            let path = try watched.paths.next("the newer daemon's path")
            #expect(path.status == .unsatisfied)
            #expect(path.unsatisfiedReason == .unrecognized("noSignal"))
            #expect(path.availableInterfaces.map(\.type) == [.unrecognized("satellite")])
            #expect(try watched.states.next("its state") == .unavailable(path))
            // Recorded with the path, before its handlers ran.
            #expect(watched.monitor.currentConnectivity.state == .unrecognized("throttled"))

            let nwPath = try apple.paths.next("the newer daemon's NWPath")
            #expect(nwPath.status == .unsatisfied)
            #expect(nwPath.unsatisfiedReason == .notAvailable)
            #expect(nwPath.linuxUnsatisfiedReason == .unrecognized("noSignal"))
            #expect(nwPath.availableInterfaces.map(\.type) == [.other])

            // More lines it does not know or has no use for, then a status it does not
            // know: delivered on the same connections. (An error line, whatever its code,
            // ends a subscription: the daemon refused it.)
            for index in [Fixture.Future.notice, Fixture.Future.interfaces, Fixture.Future.history,
                          Fixture.Future.unknownStatus] {
                daemon.send(lines[index])
            }
            let degraded = try watched.paths.next("the path with a status it does not know")
            #expect(degraded.status == .unrecognized("degraded"))
            #expect(try watched.states.next("its state") == .unavailable(degraded))
            #expect(try apple.paths.next("the NWPath of that status").status == .unsatisfied)
            #expect(daemon.accepted == 2, "one connection for each monitor, never a second")
            #expect(watched.monitor.lastError == nil)
        }
    }

    @Test("DaemonSubscription reports a newer daemon's path once, connected, and never disconnects for it")
    func subscriptionStays() throws {
        try withSocketDirectory { socketPath in
            let (daemon, lines) = try Self.futureDaemon(socketPath)
            defer { daemon.stop() }
            let events = Received<DaemonSubscription.Event>()
            let subscription = DaemonSubscription(socketPath: socketPath, scheduler: ManualScheduler())
            subscription.start(queue: DispatchQueue(label: "pathd.test.future")) { events.append($0) }
            defer { subscription.cancel() }
            guard case .connected(_, "9.0.0", _) = try events.next("connected"),
                  case .path(let update) = try events.next("the path") else {
                Issue.record("expected connected, then the path: \(events.all)")
                return
            }
            #expect(update.path.unsatisfiedReason == .unrecognized("noSignal"))
            daemon.send(lines[Fixture.Future.notice])
            daemon.send(lines[Fixture.Future.unknownStatus])
            guard case .path(let next) = try events.next("the sentinel path") else {
                Issue.record("expected the sentinel path: \(events.all)")
                return
            }
            #expect(next.path.status == .unrecognized("degraded"))
            #expect(daemon.accepted == 1)

            // An error whatever its code refuses the subscription: reported with the code's name.
            daemon.send(lines[Fixture.Future.error])
            guard case .disconnected(let error) = try events.next("the refusal") else {
                Issue.record("expected a disconnection: \(events.all)")
                return
            }
            #expect(error.kind == .refused(.unrecognized("rateLimited"), message: "too many requests; retry in 2 s"))
            #expect(error.description == "pathd refused: too many requests; retry in 2 s [rateLimited]")
        }
    }
}

@Suite("messages before the hello", .blocking)
struct LinesBeforeHelloTests {
    @Test("a connect skips messages it does not know before the hello, a bounded number of them",
          arguments: [(3, true), (64, true), (65, false)])
    func bounded(count: Int, connects: Bool) throws {
        try withSocketDirectory { socketPath in
            let notice = #"{"type":"notice","text":"before the hello"}"#
            let daemon = try FakeDaemon(socketPath: socketPath) { _ in
                FakeDaemon.Reply(Array(repeating: notice, count: count) + [ReconnectRateTests.hello])
            }
            defer { daemon.stop() }
            do throws(PathClientError) {
                let connection = try PathConnection(socketPath: socketPath, timeout: .seconds(10))
                connection.close()
                #expect(connects, "connected after \(count) lines")
            } catch {
                #expect(!connects, "\(error)")
                #expect(error.description.contains("did not greet with hello"), "\(error)")
            }
        }
    }
}

/// The other direction: today's daemon answers the requests of the oldest protocol 1
/// clients (the examples of the first docs/PROTOCOL.md), as they expect.
@Suite("today's daemon and the oldest clients", .blocking)
struct OldestClientTests {
    @Test("every request of the first protocol document gets the reply it promised")
    func oldestRequests() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try RawClient(path: harness.socketPath)
        let exchanges: [(request: String, reply: (ServerMessage) -> Bool)] = [
            (#"{"op":"status"}"#, { if case .path(_, nil) = $0 { true } else { false } }),
            (#"{"op":"subscribe","id":"wifi","criteria":{"requiredInterfaceType":"wifi"}}"#,
             {
                 if case .path(let update, .string("wifi")) = $0 {
                     update.path.unsatisfiedReason == .interfaceTypeExcluded
                 } else {
                     false
                 }
             }),
            (#"{"op":"subscribe","id":2,"criteria":{"prohibitedInterfaceTypes":["cellular"]}}"#,
             { if case .path(_, .integer(2)) = $0 { true } else { false } }),
            (#"{"op":"unsubscribe","id":"wifi"}"#, { $0 == .unsubscribed(id: .string("wifi")) }),
            (#"{"op":"ping","id":99}"#, { $0 == .pong(id: .integer(99)) }),
        ]
        for (request, expected) in exchanges {
            try client.write(Array((request + "\n").utf8))
            let reply = try client.next()
            #expect(expected(reply), "\(request) → \(reply)")
            #expect(!reply.isUnrecognized)
        }
    }
}
