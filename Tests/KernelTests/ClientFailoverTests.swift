// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/ARCHITECTURE.md, "Client library", with a kernel: in `.automatic` mode the in-process engine takes over
    /// when pathd goes away and hands back when it returns, and since both give the same
    /// path, the handlers are not called at all.
    @Suite("PathMonitor failover", .serialized)
    struct ClientFailover {
        static func report(_ probe: ProgramProcess) throws -> [String: Any] {
            try probe.send("report")
            return try probe.waitForObject("a report") { $0["event"] as? String == "report" }
        }

        static func connection(_ line: [String: Any]) -> Int? {
            (line["source"] as? [String: Any])?["connection"] as? Int
        }

        @Test("""
            pathd goes away: the in-process engine answers, with no call for the same path; pathd back: a new \
            connection, still no call
            """)
        func automaticMode() throws {
            try withVethTopology { topology in
                let daemon = try topology.startDaemon()
                let probe = try topology.runProgram("PathMonitorPrinter",
                                                    ["--mode", "automatic", "--socket", topology.socketPath])
                defer { teardown("kill the probe") { try probe.kill() } }
                let first = try probe.waitForObject("the first state") { $0["event"] as? String == "state" }
                #expect(first["state"] as? String == "available")
                #expect(Self.connection(first) == 1, "\(first)")

                try daemon.terminate()
                var latest: [String: Any] = [:]
                try waitUntil("the in-process engine answers", detail: { "; last report: \(latest)" }) {
                    latest = try Self.report(probe)
                    return latest["source"] as? String == "inProcess"
                }
                #expect(latest["state"] as? String == "available")
                #expect(EngineComparison.text(latest["path"]) == EngineComparison.text(first["path"]))

                try topology.startDaemon()
                try waitUntil("pathd answers again", detail: { "; last report: \(latest)" }) {
                    latest = try Self.report(probe)
                    return Self.connection(latest) == 2
                }

                // The next calls are the sentinel's: none came for the two hand-overs.
                try topology.deleteDefaultRoute()
                let sentinel = try probe.waitForObject("the route deletion") { $0["event"] as? String == "state" }
                #expect((sentinel["path"] as? [String: Any])?["unsatisfiedReason"] as? String == "noRoute")
                let calls = probe.output.compactMap(OutputLines.object).compactMap { $0["event"] as? String }
                    .filter { $0 != "report" }
                #expect(calls == ["path", "state", "path", "state"], "\(probe.output)")
            }
        }

        @Test("pathd goes away in daemon mode: the state becomes unknown, and the path handler is not called")
        func daemonMode() throws {
            try withVethTopology { topology in
                let daemon = try topology.startDaemon()
                let probe = try topology.runProgram("PathMonitorPrinter",
                                                    ["--mode", "daemon", "--socket", topology.socketPath])
                defer { teardown("kill the probe") { try probe.kill() } }
                try probe.waitForObject("the first state") { $0["event"] as? String == "state" }
                try daemon.terminate()
                let unknown = try probe.waitForObject("unknown") { $0["event"] as? String == "state" }
                #expect(unknown["state"] as? String == "unknown")
                #expect(unknown["source"] as? String == "none")
                try topology.startDaemon()
                let back = try probe.waitForObject("available again") { $0["event"] as? String == "state" }
                #expect(back["state"] as? String == "available")
                #expect(Self.connection(back) == 2)
                let calls = probe.output.compactMap(OutputLines.object).compactMap { $0["event"] as? String }
                #expect(calls == ["path", "state", "state", "state"], "one path call only: \(probe.output)")
            }
        }
    }
}
