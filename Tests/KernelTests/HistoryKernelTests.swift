import Foundation
import Testing

extension KernelTests {
    /// `pathctl history` against the real daemon, its file in a state directory of the test's.
    @Suite("path history")
    struct PathHistory {
        /// pathd with `STATE_DIRECTORY` set, as `StateDirectory=pathd` sets it.
        static func start(_ topology: VethTopology, state: String) throws -> (DaemonProcess, Subscriber) {
            let daemon = try topology.startDaemon(environment: ["STATE_DIRECTORY": state])
            let subscriber = try topology.subscribe()
            try subscriber.waitFor("satisfied through vA", PathLine.satisfied(through: "vA"))
            return (daemon, subscriber)
        }

        static func stateDirectory(_ topology: VethTopology) throws -> String {
            let state = topology.directory.path("state")
            if !FileManager.default.fileExists(atPath: state) {
                try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
            }
            return state
        }

        @Test("a flapped default route and a flapped carrier are listed as two outages, each with its reason")
        func flaps() throws {
            try withVethTopology { topology in
                let (_, subscriber) = try Self.start(topology, state: try Self.stateDirectory(topology))
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("no route", PathLine.unsatisfied(reason: "noRoute"))
                try topology.addDefaultRoute()
                try subscriber.waitFor("satisfied again", PathLine.satisfied(through: "vA"))
                try topology.b.ip("link", "set", "vB", "down")
                try subscriber.waitFor("no carrier", PathLine.unsatisfied(reason: "noCarrier"))
                try topology.b.ip("link", "set", "vB", "up")
                // The kernel flushed nothing on a carrier loss; the route is back with the carrier.
                try subscriber.waitFor("satisfied after the carrier", PathLine.satisfied(through: "vA"))

                let result = try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "history"])
                #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
                let lines = result.stdout.split(separator: "\n").map(String.init)
                let outages = lines.filter { $0.hasPrefix("  offline ") }
                #expect(outages.count == 2, "stdout:\n\(result.stdout)")
                #expect(outages.first?.hasSuffix(": no route to the Internet (no default route)") == true, "\(outages)")
                #expect(outages.last?.hasSuffix(": no carrier on vA (cable unplugged or peer down)") == true, "\(outages)")
                // "offline 1.2 s, 20:22:39–20:22:40: …"
                for outage in outages {
                    #expect(outage.firstMatch(of: /^  offline [0-9.]+ s, \d\d:\d\d:\d\d–\d\d:\d\d:\d\d:/) != nil, "\(outage)")
                }
                #expect(result.stdout.contains("\n2 outages, offline "), "stdout:\n\(result.stdout)")
                #expect(!result.stdout.contains("in memory only"), "stdout:\n\(result.stdout)")
            }
        }

        @Test("kill -9 in the middle of a burst of changes: after a restart the history before the kill is intact, then an unknown gap")
        func killedMidBurst() throws {
            try withVethTopology { topology in
                let state = try Self.stateDirectory(topology)
                let (daemon, subscriber) = try Self.start(topology, state: state)
                // 3000 flaps of the default route, fed to the kernel as fast as ip can.
                let batch = topology.directory.path("flaps.batch")
                try String(repeating: "route del default\nroute add default via \(VethTopology.routerAddress)\n", count: 3000)
                    .write(toFile: batch, atomically: true, encoding: .utf8)
                let burst = try ChildProcess(Command.find("ip"), ["-netns", topology.a.name, "-force", "-batch", batch],
                                             stderrPath: topology.directory.path("burst.stderr"))
                // pathd is in the middle of it: it has published some of the changes.
                for number in 1...10 { try subscriber.waitFor("change \(number) of the burst") { PathLine.isPath($0) } }
                let midBurst = burst.isRunning
                try daemon.kill()
                #expect(midBurst, "the burst was over before pathd was killed")
                let file = state + "/history.jsonl"
                let written = try Data(contentsOf: URL(fileURLWithPath: file))
                #expect(burst.wait(until: Date().addingTimeInterval(30)) == .exit(0), "the burst did not finish")
                if !(try topology.hasDefaultRoute) { try topology.addDefaultRoute() }
                // Every complete line written before the kill (a torn last one aside).
                let complete = written.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
                    .map { line -> NSDictionary? in
                        do {
                            return try JSONSerialization.jsonObject(with: Data(line)) as? NSDictionary
                        } catch {
                            return nil  // counted: the expectation below fails on any such line
                        }
                    }
                #expect(complete.count >= 3 && !complete.contains { $0 == nil }, "\(complete.count) lines before the kill")

                subscriber.close()
                let (_, _) = try Self.start(topology, state: state)
                let json = try Command.check(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "history", "--json"])
                let reply = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
                let entries = try #require(reply["entries"] as? [NSDictionary])
                #expect(reply["persistent"] as? Bool == true)
                #expect(Array(entries.prefix(complete.count)) == complete.compactMap { $0 }, "the history before the kill changed")
                let restart = entries.dropFirst(complete.count).map { $0["event"] as? String }
                #expect(restart.first == "started" && !entries.contains { $0["event"] as? String == "stopped" },
                        "after the kill: \(restart)")

                let text = try Command.check(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "history"])
                #expect(text.contains(": pathd was not running (it ended without stopping)"), "\(text)")
                #expect(text.firstMatch(of: /\n  unknown [0-9.]+ (s|min)/) != nil, "\(text)")
            }
        }
    }
}
