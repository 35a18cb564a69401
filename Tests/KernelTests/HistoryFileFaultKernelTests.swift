import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// The real pathd with a history file or state directory it cannot fully use.
    @Suite("history file faults")
    struct HistoryFileFaults {
        @Test("hostile numbers in history.jsonl: pathd starts, skips each such line with a warning, and answers pathctl history")
        func hostileNumbers() throws {
            try withVethTopology { topology in
                let state = try PathHistory.stateDirectory(topology)
                let good = [
                    #"{"event":"started","wallTime":1796150000.000,"monotonicTime":100.000}"#,
                    #"{"event":"stopped","wallTime":1796150002.000,"monotonicTime":102.000}"#,
                ]
                let hostile = [
                    #"{"event":"started","wallTime":1e13,"monotonicTime":1}"#,
                    #"{"event":"started","wallTime":-1e13,"monotonicTime":1}"#,
                    #"{"event":"started","wallTime":1e300,"monotonicTime":1}"#,
                    #"{"event":"started","wallTime":9223372036854775807,"monotonicTime":1}"#,
                    #"{"event":"stopped","wallTime":1796150000,"monotonicTime":-1}"#,
                ]
                let lines = [good[0]] + hostile + [good[1]]
                try (lines.joined(separator: "\n") + "\n").write(toFile: state + "/history.jsonl", atomically: true,
                                                                  encoding: .utf8)
                let (daemon, _) = try PathHistory.start(topology, state: state)
                let pathctl = try BuiltProduct.url("pathctl")
                let text = try Command.run(pathctl, ["--socket", topology.socketPath, "history"])
                #expect(text.termination == .exit(0), "stderr: \(text.stderr)")
                #expect(text.stdout.contains("History kept since "), "\(text.stdout)")
                let json = try Command.check(pathctl, ["--socket", topology.socketPath, "history", "--json"])
                let reply = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
                let events = try #require(reply["entries"] as? [[String: Any]]).map { $0["event"] as? String }
                #expect(events.prefix(3) == ["started", "stopped", "started"], "\(events)")
                let log = try daemon.stderr
                #expect(daemon.isRunning, "pathd ended: \(log)")
                #expect(log.components(separatedBy: "; skipped").count == hostile.count + 1, "\(log)")
                #expect(log.contains(#"line 2: history entry: "wallTime" 10000000000000.0 is not a time from 1970 to 9999"#), "\(log)")
            }
        }
    }
}
