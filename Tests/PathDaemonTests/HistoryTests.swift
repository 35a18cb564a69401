// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Dispatch
import Foundation
import PathSocketClient
@testable import PathDaemon
import PathModel
import PathProtocol
import Synchronization
import Testing

@Suite("path history", .blocking)
struct HistoryTests {
    static func history(_ client: PathConnection, since: Duration? = nil, limit: Int? = nil) throws
        -> (capacity: Int, persistent: Bool, entries: [HistoryEntry]) {
        let (capacity, persistence, entries) = try reply(client, since: since, limit: limit)
        return (capacity, persistence.isPersistent, entries)
    }

    static func reply(_ client: PathConnection, since: Duration? = nil, limit: Int? = nil) throws
        -> (capacity: Int, persistence: HistoryPersistence, entries: [HistoryEntry]) {
        try client.send(Request(.history(since: since, limit: limit)))
        guard case .history(let capacity, let persistence, let entries, _) = try client.next() else {
            throw PathClientError("no history line")
        }
        return (capacity, persistence, entries)
    }

    static func events(_ entries: [HistoryEntry]) -> [String] {
        entries.map { entry in
            if case .change(let change) = entry.event {
                return "\(change.status.rawValue)/\(change.unsatisfiedReason?.rawValue ?? "-")/\(change.sequence)"
            }
            return entry.eventName
        }
    }

    @Test("changes of the default path, with start and stop marks, survive a restart in the state directory")
    func persisted() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            let clock = ManualClock()
            do {
                let harness = try DaemonHarness(clock: clock, stateDirectory: directory)
                defer { harness.stop() }
                let (client, _) = try harness.connectAndSubscribe()
                clock.advance(by: .seconds(3))
                harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
                _ = try client.nextPath()
                // A resync re-publishes the same path: no history entry.
                harness.network.setState(Fixture.online.map {
                    $0 == .linkChanged(Fixture.eth0()) ? .linkChanged(Fixture.eth0NoCarrier) : $0
                })
                harness.network.latest.overrun()
                guard case .resync = try client.next() else { throw PathClientError("no resync") }
                _ = try client.nextPath()
                let (capacity, persistent, entries) = try Self.history(client)
                #expect(capacity == 1000 && persistent)
                #expect(Self.events(entries) == ["started", "satisfied/-/1", "unsatisfied/noCarrier/2"])
                #expect(entries[2].time.wall == .seconds(1_796_150_003))
                let (_, _, recent) = try Self.history(client, since: .seconds(1_796_150_001))
                #expect(Self.events(recent) == ["unsatisfied/noCarrier/2"])
                #expect(Self.events(try Self.history(client, limit: 2).entries)
                        == ["satisfied/-/1", "unsatisfied/noCarrier/2"])
            }
            clock.advance(by: .seconds(60))
            let harness = try DaemonHarness(clock: clock, stateDirectory: directory)
            defer { harness.stop() }
            let client = try harness.connect()
            let entries = try Self.history(client).entries
            #expect(Self.events(entries) == ["started", "satisfied/-/1", "unsatisfied/noCarrier/2", "stopped",
                                             "started", "satisfied/-/1"])
            let lines = try String(contentsOfFile: directory + "/history.jsonl", encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 6)
        }
    }

    @Test("""
        a torn last line (the process died mid-write) is skipped with a warning; the rest is kept, the file repaired
        """)
    func tornLine() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            let clock = ManualClock()
            let before = [
                HistoryEntry(time: clock.now(), event: .started),
                HistoryEntry(time: clock.now(),
                             event: .change(PathChange(status: .unsatisfied, unsatisfiedReason: .noRoute,
                                                                          generation: .first, sequence: 1))),
            ]
            let torn = before.flatMap { $0.encodedLine() } + Array(#"{"event":"change","wallTime":17961"#.utf8)
            try Data(torn).write(to: URL(fileURLWithPath: directory + "/history.jsonl"))
            let log = try LogCapture()
            let harness = try DaemonHarness(log: log.logger, clock: clock, stateDirectory: directory)
            defer { harness.stop() }
            #expect(log.text().contains("history.jsonl: line 3: torn (no newline at the end of the file); skipped"),
                    "\(log.text())")
            let client = try harness.connect()
            let entries = try Self.history(client).entries
            #expect(Array(entries.prefix(2)) == before)
            #expect(Self.events(Array(entries.dropFirst(2))) == ["started", "satisfied/-/1"])
            let text = try String(contentsOfFile: directory + "/history.jsonl", encoding: .utf8)
            #expect(text.hasSuffix("\n") && text.split(separator: "\n").count == 4, "\(text)")
        }
    }

    @Test("without a state directory the history is kept in memory, and the log says so once")
    func memoryOnly() throws {
        let log = try LogCapture(threshold: .notice)
        let harness = try DaemonHarness(log: log.logger)
        defer { harness.stop() }
        let client = try harness.connect()
        let (_, persistence, entries) = try Self.reply(client)
        #expect(persistence == .inMemory(because: "pathd has no state directory (STATE_DIRECTORY is not set)"))
        #expect(Self.events(entries) == ["started", "satisfied/-/1"])
        #expect(log.text().components(separatedBy: "kept in memory only").count == 2, "\(log.text())")
    }

    @Test("a 10,000-change soak keeps the file between HistorySize= and twice that, and memory at HistorySize=")
    func soak() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            let scheduler = ManualScheduler()
            let harness = try DaemonHarness(scheduler: scheduler, stateDirectory: directory)
            defer { harness.stop() }
            let changes = 10_000
            let reached = DispatchSemaphore(value: 0)
            let seen = SeenCounter()
            harness.queue.sync {
                harness.service.onDefaultPathChange = { _ in
                    if seen.increment() == changes { reached.signal() }
                }
            }
            for number in 0..<changes {
                harness.network.latest.emit([.linkChanged(number % 2 == 0 ? Fixture.eth0NoCarrier : Fixture.eth0())])
            }
            #expect(reached.wait(timeout: .now() + 60) == .success, "only \(seen.value) of \(changes) changes arrived")
            let (capacity, memoryCount, fileLines, fileBytes) = harness.queue.sync { () -> (Int, Int, Int, Int) in
                let history = harness.service.records.history!
                let text = FileManager.default.contents(atPath: directory + "/history.jsonl") ?? Data()
                return (history.capacity, history.count, text.split(separator: UInt8(ascii: "\n")).count, text.count)
            }
            #expect(memoryCount == capacity)
            #expect(fileLines >= capacity && fileLines <= 2 * capacity, "\(fileLines) lines")
            #expect(fileBytes <= 2 * capacity * 400, "\(fileBytes) bytes")
            let client = try harness.connect()
            let entries = try Self.history(client).entries
            #expect(entries.count == capacity)
            guard case .change(let last) = entries.last?.event else { throw PathClientError("no change last") }
            #expect(last.sequence == UInt64(changes + 1))
            // Flushes are coalesced: one pending, however many lines were appended.
            #expect(scheduler.pendingDelays.filter { $0 == PathHistory.syncDelay }.count == 1)
        }
    }
}

/// Counts callbacks from the daemon's queue, read by the test's thread.
private final class SeenCounter: Sendable {
    private let count = Mutex(0)
    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    var value: Int { count.withLock { $0 } }
}
