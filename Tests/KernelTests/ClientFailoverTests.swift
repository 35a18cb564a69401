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

        /// A state event whose path is on vA's identified network: pathd resolves the
        /// gateway just after it starts, and the first state may come before that.
        /// The engine in the probe reads the machine's resolver configuration (it has no
        /// pathd.conf here); pathd must read the same file for their paths to be the same.
        static let machineResolvConf = ["--resolv-conf", "/etc/resolv.conf"]

        static func settledState(_ line: [String: Any]) -> Bool {
            let interfaces = (line["path"] as? [String: Any])?["interfaces"] as? [[String: Any]]
            return line["event"] as? String == "state"
                && (interfaces?.first?["network"] as? [String: Any])?["state"] as? String == "identified"
        }

        @Test("""
            pathd goes away: the in-process engine answers, with no call for the same path; pathd back: a new \
            connection, still no call
            """)
        func automaticMode() throws {
            try withVethTopology { topology in
                let daemon = try topology.startDaemon(arguments: Self.machineResolvConf)
                let probe = try topology.runProgram("PathMonitorPrinter",
                                                    ["--mode", "automatic", "--socket", topology.socketPath])
                defer { teardown("kill the probe") { try probe.kill() } }
                let first = try probe.waitForObject("the state on vA's identified network", Self.settledState)
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

                try topology.startDaemon(arguments: Self.machineResolvConf)
                try waitUntil("pathd answers again", detail: { "; last report: \(latest)" }) {
                    latest = try Self.report(probe)
                    return Self.connection(latest) == 2
                }

                // The calls after the settled state are the sentinel's: none came for the two hand-overs.
                try topology.deleteDefaultRoute()
                let sentinel = try probe.waitForObject("the route deletion") { event in
                    event["event"] as? String == "state"
                        && (event["path"] as? [String: Any])?["status"] as? String != "satisfied"
                }
                #expect((sentinel["path"] as? [String: Any])?["unsatisfiedReason"] as? String == "noRoute")
                let events = probe.output.compactMap(OutputLines.object).filter { $0["event"] as? String != "report" }
                let settled = try #require(events.firstIndex(where: Self.settledState), "\(probe.output)")
                let calls = events[(settled + 1)...].compactMap { $0["event"] as? String }
                #expect(calls == ["path", "state"], "\(probe.output)")
            }
        }

        @Test("pathd goes away in daemon mode: the state becomes unknown, and the path handler is not called")
        func daemonMode() throws {
            try withVethTopology { topology in
                let daemon = try topology.startDaemon(arguments: Self.machineResolvConf)
                // vA's network identified first: its identification would be one more call.
                try topology.subscribe().waitFor("vA's network settled", PathLine.settled(through: "vA"))
                let probe = try topology.runProgram("PathMonitorPrinter",
                                                    ["--mode", "daemon", "--socket", topology.socketPath])
                defer { teardown("kill the probe") { try probe.kill() } }
                try probe.waitForObject("the first state") { $0["event"] as? String == "state" }
                try daemon.terminate()
                let unknown = try probe.waitForObject("unknown") { $0["event"] as? String == "state" }
                #expect(unknown["state"] as? String == "unknown")
                #expect(unknown["source"] as? String == "none")
                try topology.startDaemon(arguments: Self.machineResolvConf)
                let back = try probe.waitForObject("available again") { $0["event"] as? String == "state" }
                #expect(back["state"] as? String == "available")
                #expect(Self.connection(back) == 2)
                let calls = probe.output.compactMap(OutputLines.object).compactMap { $0["event"] as? String }
                #expect(calls == ["path", "state", "state", "state"], "one path call only: \(probe.output)")
            }
        }
    }
}
