// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Foundation
import PathSocketClient
@testable import PathDaemon
import PathModel
import PathProtocol
import Testing

/// A history file pathd did not write as it is: the daemon starts, skips what it cannot
/// use with a warning, and keeps serving (pathd(8), HISTORY).
@Suite("history file faults", .blocking)
struct HistoryFileFaultTests {
    static let good = [
        #"{"event":"started","wallTime":1796150000.000,"monotonicTime":100.000}"#,
        #"{"event":"change","wallTime":1796150001.000,"monotonicTime":101.000,"status":"unsatisfied","#
            + #""unsatisfiedReason":"noRoute","reasonInterface":null,"reason":"no route to the Internet (no "# +
              #"default route)","interfaces":[],"#
            + #""generation":1,"sequence":1}"#,
        #"{"event":"stopped","wallTime":1796150002.000,"monotonicTime":102.000}"#,
    ]
    /// Times no clock gives, each of which trapped somewhere once (decoding, encoding).
    static let hostile = [
        #"{"event":"started","wallTime":1e13,"monotonicTime":1}"#,
        #"{"event":"started","wallTime":-1e13,"monotonicTime":1}"#,
        #"{"event":"started","wallTime":1e300,"monotonicTime":1}"#,
        #"{"event":"started","wallTime":9223372036854775807,"monotonicTime":1}"#,
        #"{"event":"stopped","wallTime":1796150000,"monotonicTime":-9223372036854775808}"#,
        #"{"event":"stopped","wallTime":1796150000,"monotonicTime":1e300}"#,
    ]

    @Test("""
        hostile numbers in history.jsonl: each line is skipped with a warning; the rest is served and the file \
        repaired
        """)
    func hostileNumbers() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            let file = directory + "/history.jsonl"
            let lines = [Self.good[0]] + Self.hostile + Array(Self.good[1...])
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
            let log = try LogCapture()
            let harness = try DaemonHarness(log: log.logger, clock: ManualClock(), stateDirectory: directory)
            defer { harness.stop() }
            for number in 2...7 {
                #expect(log.text().contains("history.jsonl: line \(number): history entry: "), "\(log.text())")
            }
            #expect(log.text().components(separatedBy: "; skipped").count == 7, "\(log.text())")
            let client = try harness.connect()
            let (_, persistent, entries) = try HistoryTests.history(client)
            #expect(persistent)
            #expect(HistoryTests.events(entries) == ["started", "unsatisfied/noRoute/1", "stopped", "started",
                                                     "satisfied/-/1"])
            #expect(entries.allSatisfy { $0.time.isPlausible })
            let written = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
            #expect(Array(written.prefix(3)) == Self.good.map { Substring($0) }, "\(written)")
        }
    }
}
