// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PathClient
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import SystemCalls
import Testing

/// No failure reconnects faster than the back-off (`ReconnectSchedule`): against a fake
/// daemon that misbehaves in each way, every attempt waits the back-off's next delay,
/// growing to the cap, and the daemon sees exactly one connection per attempt. Time is
/// the injected `ManualScheduler`: a retry happens only when the test runs it.
@Suite("reconnect rate against a misbehaving daemon", .blocking)
struct ReconnectRateTests {
    static let hello = #"{"type":"hello","protocol":1,"version":"0.1.0","generation":1}"#
    static let path = #"{"type":"path","generation":1,"sequence":1,"status":"satisfied","interfaces":[]}"#

    enum Misbehaviour: String, CaseIterable, CustomTestStringConvertible {
        case unreadableLine = "a line this client cannot read after the hello"
        case refusedHello = "an error instead of the hello"
        case otherProtocolVersion = "a hello of protocol 2"
        case closesAtOnce = "closes at once"
        case closesAfterPath = "closes right after the hello and a path"

        var reply: FakeDaemon.Reply {
            switch self {
            case .unreadableLine: FakeDaemon.Reply([hello, #"{"type":"path","generation":"#])
            case .refusedHello:
                FakeDaemon.Reply([#"{"type":"error","code":"tooManyClients","message":"full"}"#], closes: true)
            case .otherProtocolVersion:
                FakeDaemon.Reply([#"{"type":"hello","protocol":2,"version":"9.0.0","generation":1}"#, path])
            case .closesAtOnce: FakeDaemon.Reply([], closes: true)
            case .closesAfterPath: FakeDaemon.Reply([hello, path], closes: true)
            }
        }

        var testDescription: String { rawValue }
    }

    /// 1 s doubling to 8 s; random 0 gives each wait whole.
    static let backoff = Backoff(initial: .seconds(1), maximum: .seconds(8), jitter: 0.5)
    static let expectedDelays: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8),
                                             .seconds(8)]

    /// Runs a subscription against `socketPath` for `expectedDelays.count` failures:
    /// each must schedule the next delay before anything else happens; `connections`
    /// reports how many connections the daemon has accepted, when it can tell.
    static func checkRetries(socketPath: String, connections: (() -> Int)?) throws {
        let scheduler = ManualScheduler()
        let events = Received<DaemonSubscription.Event>()
        let subscription = DaemonSubscription(socketPath: socketPath, backoff: backoff, scheduler: scheduler,
                                              helloTimeout: .seconds(10), random: { 0 })
        subscription.start(queue: DispatchQueue(label: "pathd.test.rate")) { events.append($0) }
        defer { subscription.cancel() }
        for attempt in 1...expectedDelays.count {
            try scheduler.waitForScheduled(attempt)
            var disconnected = false
            while !disconnected {
                if case .disconnected = try events.next("attempt \(attempt) failing") { disconnected = true }
            }
            if let connections { #expect(connections() == attempt, "one connection per attempt, attempt \(attempt)") }
            #expect(scheduler.pendingDelays.count == 1, "nothing retries before its wait")
            if attempt < expectedDelays.count { try scheduler.runNext() }
        }
        #expect(try scheduler.waitForScheduled(expectedDelays.count) == expectedDelays)
    }

    @Test("every failure waits the next back-off delay, up to the cap", arguments: Misbehaviour.allCases)
    func misbehavingDaemon(_ misbehaviour: Misbehaviour) throws {
        try withSocketDirectory { socketPath in
            let daemon = try FakeDaemon(socketPath: socketPath) { _ in misbehaviour.reply }
            defer { daemon.stop() }
            try Self.checkRetries(socketPath: socketPath, connections: { daemon.accepted })
        }
    }

    @Test("a refused connection waits the same back-off")
    func connectionRefused() throws {
        try withSocketDirectory { socketPath in
            // A socket file nobody listens on: connect(2) fails with ECONNREFUSED.
            let address = try UnixSocketAddress(path: socketPath)
            let socket = try UnixSocket.stream()
            defer { socket.close() }
            try address.withSockaddr { (pointer, length) throws(Errno) in
                _ = try syscall { bind(socket.rawValue, pointer, length) }
            }
            try Self.checkRetries(socketPath: socketPath, connections: nil)
        }
    }

    @Test("a connection that stayed up for the cap starts the waits over; one that ended at once does not")
    func stableConnectionResets() {
        var schedule = ReconnectSchedule(backoff: Self.backoff)
        let start = ContinuousClock.now
        #expect(schedule.failed(at: start, random: 0) == .seconds(1))
        schedule.connected(at: start + .seconds(1))
        #expect(schedule.failed(at: start + .seconds(1), random: 0) == .seconds(2), "ended at once")
        schedule.connected(at: start + .seconds(3))
        #expect(schedule.failed(at: start + .seconds(3) + Self.backoff.maximum - .milliseconds(1), random: 0)
                == .seconds(4), "ended just before the cap")
        schedule.connected(at: start + .seconds(20))
        #expect(schedule.failed(at: start + .seconds(20) + Self.backoff.maximum, random: 0) == .seconds(1),
                "stayed up for the cap")
    }
}
