// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import Dispatch
import PathClient
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import Testing

/// docs/PROTOCOL.md, "Reconnecting": a capped, jittered back-off, on an injected clock.
@Suite("reconnect back-off", .blocking)
struct BackoffTests {
    @Test("doubling from initial to the cap; the longest wait at random 0")
    func doubling() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(8), jitter: 0.5)
        #expect((1...7).map { backoff.delay(attempt: $0, random: 0) }
                == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8), .seconds(8), .seconds(8)])
        #expect(backoff.delay(attempt: 0, random: 0) == .seconds(1), "attempt 0 counts as the first")
        #expect(backoff.delay(attempt: 1_000_000, random: 0) == .seconds(8))
    }

    /// docs/PROTOCOL.md, "Reconnecting": its table is the contract; the Swift clients'
    /// declaration and the GIO module's (C, gio-module/src/pathd-monitor.h) must say it.
    @Test("the standard schedule and the GIO module's are docs/PROTOCOL.md's")
    func protocolSchedule() throws {
        let protocolText = try Repository.read("docs/PROTOCOL.md")
        for row in ["| first wait | 100 ms |", "| cap | 5 s |", "| jitter | each wait up to 20 % shorter, at random |",
                    "| the waits start over | after a connection stayed up for the cap (5 s) |"] {
            #expect(protocolText.contains(row), "docs/PROTOCOL.md lacks \(row)")
        }
        #expect(Backoff.standard == Backoff(initial: .milliseconds(100), maximum: .seconds(5), jitter: 0.2))
        let header = try Repository.read("gio-module/src/pathd-monitor.h")
        for definition in ["#define PATHD_RETRY_FIRST_MS 100\n", "#define PATHD_RETRY_CAP_MS 5000\n",
                           "#define PATHD_RETRY_JITTER_PERCENT 20\n"] {
            #expect(header.contains(definition), "pathd-monitor.h lacks \(definition)")
        }
    }

    @Test("jitter only shortens a wait, by at most its fraction; no wait passes the cap",
          arguments: [0.0, 0.25, 0.5, 0.999_999])
    func jitterBounds(random: Double) {
        let backoff = Backoff.standard
        for attempt in 1...12 {
            // docs/PROTOCOL.md, "Reconnecting" (protocolSchedule holds the numbers to it).
            let longest = min(Duration.milliseconds(100) * (1 << (attempt - 1)), .seconds(5))
            let delay = backoff.delay(attempt: attempt, random: random)
            #expect(delay <= longest && delay <= backoff.maximum, "attempt \(attempt): \(delay)")
            #expect(delay >= longest * (1 - backoff.jitter), "attempt \(attempt): \(delay)")
            #expect(delay == longest * (1 - backoff.jitter * random), "attempt \(attempt)")
        }
    }

    @Test("the parameters are kept in range")
    func clamped() {
        #expect(Backoff(jitter: 3).jitter == 1)
        #expect(Backoff(jitter: -1).jitter == 0)
        #expect(Backoff(initial: .seconds(2), maximum: .seconds(1)).maximum == .seconds(2))
        #expect(Backoff(initial: .seconds(1), maximum: .seconds(4), jitter: 1).delay(attempt: 3, random: 0.999_999)
                >= .zero)
    }

    /// The subscription asks the scheduler for each wait; the test runs each retry by
    /// hand and reads the delays asked for.
    @Test("""
        DaemonSubscription: retries with the back-off's delays, capped and jittered, and starts over once subscribed
        """)
    func subscriptionRetries() throws {
        try withSocketDirectory { socketPath in
            let scheduler = ManualScheduler()
            let random = PinnedRandom([0, 0.5, 0.999_999])
            let backoff = Backoff(initial: .seconds(1), maximum: .seconds(8), jitter: 0.5)
            let events = Received<DaemonSubscription.Event>()
            let queue = DispatchQueue(label: "pathd.test.backoff")
            let subscription = DaemonSubscription(socketPath: socketPath, backoff: backoff, scheduler: scheduler,
                                                  random: { random.next() })
            subscription.start(queue: queue) { events.append($0) }
            defer { subscription.cancel() }

            for attempt in 1...6 {
                try scheduler.waitForScheduled(attempt)
                try scheduler.runNext()
            }
            let delays = try scheduler.waitForScheduled(7)
            // random 0, 0.5, ~1 in turn: the longest wait, three quarters, about half.
            let expected: [Duration] = [.seconds(1), .seconds(2) * 0.75, .seconds(4) * (1 - 0.5 * 0.999_999),
                                        .seconds(8), .seconds(8) * 0.75, .seconds(8) * (1 - 0.5 * 0.999_999),
                                        .seconds(8)]
            #expect(delays == expected)
            #expect(delays.allSatisfy { $0 <= backoff.maximum })
            for _ in 1...7 {
                guard case .disconnected(let error) = try events.next("a failed attempt") else {
                    Issue.record("expected only failures: \(events.all)")
                    return
                }
                #expect(error.kind == .unreachable)
            }

            // A daemon appears: the next retry subscribes; when it goes after being up
            // for the longest wait, waits start over.
            let harness = try DaemonHarness(socketPath: socketPath)
            defer { harness.stop() }
            try scheduler.runNext()
            guard case .connected = try events.next("connected"), case .path = try events.next("the path") else {
                Issue.record("expected connected, then a path: \(events.all)")
                return
            }
            scheduler.advance(by: backoff.maximum)
            harness.stop()
            let after = try scheduler.waitForScheduled(8)
            #expect(after.last.map { $0 <= backoff.initial && $0 >= backoff.initial * 0.5 } == true, "\(after)")
        }
    }
}
