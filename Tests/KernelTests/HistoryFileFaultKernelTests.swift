// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// The real pathd with a history file or state directory it cannot fully use.
    @Suite("history file faults", .serialized)
    struct HistoryFileFaults {
        @Test("""
            hostile numbers in history.jsonl: pathd starts, skips each such line with a warning, and answers pathctl \
            history
            """)
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
                #expect(log.contains(#"line 2: history entry: "wallTime" 10000000000000.0 is not a time from 1970 "# +
                                     #"to 9999"#), "\(log)")
            }
        }
    }
}

extension KernelTests.HistoryFileFaults {
    /// pathd in a mount namespace of its own whose state directory is a 64 KiB tmpfs.
    struct SmallState {
        let mounts: PrivateMounts
        let state: String
        let stderrPath: String

        init(_ topology: VethTopology) throws {
            mounts = try PrivateMounts(in: topology.a, stderrPath: topology.directory.path("holder.stderr"))
            state = try KernelTests.PathHistory.stateDirectory(topology)
            stderrPath = topology.directory.path("pathd.stderr")
            try mounts.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", state])
        }

        func startDaemon(_ topology: VethTopology) throws -> (ChildProcess, Subscriber) {
            let daemon = try mounts.startDaemon(["--socket", topology.socketPath], stderrPath: stderrPath,
                                                environment: ["STATE_DIRECTORY": state])
            let subscriber = try topology.subscribe()
            try subscriber.waitFor("satisfied through vA", PathLine.satisfied(through: "vA"))
            return (daemon, subscriber)
        }

        var log: String { get throws { try String(contentsOfFile: stderrPath, encoding: .utf8) } }

        /// The file as pathd sees it (the tmpfs is mounted in the namespace only).
        func fileLines() throws -> [String] {
            try mounts.run(["cat", state + "/history.jsonl"]).split(separator: "\n", omittingEmptySubsequences: false)
                .map(String.init)
        }

        func history(_ topology: VethTopology) throws -> [String: Any] {
            let json = try Command.check(BuiltProduct.url("pathctl"),
                                         ["--socket", topology.socketPath, "history", "--json"])
            return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        }

        func stop() { teardown("end the mount namespace holder") { try mounts.stop() } }
    }

    @Test("""
        a full state directory: changes are kept in memory, pathctl says why, and once space is freed the file has \
        them all
        """)
    func fullStateDirectory() throws {
        try withVethTopology { topology in
            let small = try SmallState(topology)
            defer { small.stop() }
            let (_, subscriber) = try small.startDaemon(topology)
            // Fill the tmpfs: cat ends with ENOSPC, which is the point.
            try small.mounts.run(["sh", "-c", "cat /dev/zero > '\(small.state)/filler' 2>/dev/null; true"])
            // The file's last page still has room for some lines: flap until an append fails.
            // The networks seen (networks.jsonl, beside it) may fail first, when the network is
            // identified after the filler, with the same error in a line of their own: the
            // history's line is the one waited for.
            let keptInMemory = "; the path changes are kept in memory, and writing is tried again"
            for flap in 0..<100 where try !small.log.contains(keptInMemory) {
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("no route (flap \(flap))", PathLine.unsatisfied(reason: "noRoute"))
                try topology.addDefaultRoute()
                try subscriber.waitFor("satisfied (flap \(flap))", PathLine.satisfied(through: "vA"))
            }
            let failed = try small.log
            let historyLine = failed.split(separator: "\n").first {
                $0.hasPrefix("history: ") && $0.contains(keptInMemory)
            }
            #expect(historyLine?.contains("No space left on device") == true, "\(failed)")
            // A change recorded while the disk is full.
            try topology.deleteDefaultRoute()
            let noRoute = try subscriber.waitFor("no route", PathLine.unsatisfied(reason: "noRoute"))
            let full = try small.history(topology)
            #expect(full["persistent"] as? Bool == false)
            #expect((full["notPersistentBecause"] as? String)?.contains("No space left on device") == true, "\(full)")
            let text = try Command.check(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "history"])
            #expect(text.contains("Kept in memory only, lost when pathd stops: "), "\(text)")
            #expect(text.contains("No space left on device"), "\(text)")
            #expect(!text.contains("no state directory"), "\(text)")

            try small.mounts.run(["rm", small.state + "/filler"])
            try topology.addDefaultRoute()
            try subscriber.waitFor("satisfied again", PathLine.satisfied(through: "vA"))
            try waitUntil("pathd logs that writing works again") { try small.log.contains("works again") }
            #expect(try small.history(topology)["persistent"] as? Bool == true)
            let lines = try small.fileLines()
            #expect(lines.last == "", "the file ends with a newline")
            let entries = try lines.dropLast().map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            }
            #expect(entries.contains {
                $0["generation"] as? Int == noRoute["generation"] as? Int && $0["sequence"] as? Int
                    == noRoute["sequence"] as? Int
                    && $0["unsatisfiedReason"] as? String == "noRoute"
            }, "the change recorded while the disk was full is in the file: \(lines)")
            #expect(entries.last?["status"] as? String == "satisfied", "\(lines)")
        }
    }

    @Test("a read-only state directory: the history in it is loaded, new entries kept in memory until it is writable")
    func readOnlyStateDirectory() throws {
        try withVethTopology { topology in
            let small = try SmallState(topology)
            defer { small.stop() }
            let old = [
                #"{"event":"started","wallTime":1796150000.000,"monotonicTime":100.000}"#,
                #"{"event":"stopped","wallTime":1796150002.000,"monotonicTime":102.000}"#,
            ]
            try small.mounts.run(["sh", "-c",
                                  "printf '%s\\n' '\(old[0])' '\(old[1])' > '\(small.state)/history.jsonl'"])
            try small.mounts.run(["mount", "-o", "remount,ro", small.state])
            let (_, subscriber) = try small.startDaemon(topology)
            let readOnly = try small.history(topology)
            let events = try #require(readOnly["entries"] as? [[String: Any]]).map { $0["event"] as? String }
            #expect(Array(events.prefix(3)) == ["started", "stopped", "started"], "\(events)")
            #expect(readOnly["persistent"] as? Bool == false)
            #expect((readOnly["notPersistentBecause"] as? String)?.contains("Read-only file system") == true,
                    "\(readOnly)")

            try small.mounts.run(["mount", "-o", "remount,rw", small.state])
            try topology.deleteDefaultRoute()
            try subscriber.waitFor("no route", PathLine.unsatisfied(reason: "noRoute"))
            try waitUntil("pathd logs that writing works again") { try small.log.contains("works again") }
            let lines = try small.fileLines()
            #expect(Array(lines.prefix(2)) == old, "\(lines)")
            #expect(lines.count >= 6 && lines.last == "", "started, satisfied and noRoute after the old two: \(lines)")
        }
    }
}
