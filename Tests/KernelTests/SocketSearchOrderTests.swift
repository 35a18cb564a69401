// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/PROTOCOL.md, "Where the socket is": an unprivileged client finds the system daemon on
    /// /run/pathd/pathd.sock, and `$PATHD_SOCKET` overrides it.
    ///
    /// The real path is used, inside a private mount namespace with an empty tmpfs
    /// over /run: the host's /run is never touched, and no daemon of the host can
    /// answer instead. The clients run as uid 65534 (nobody) with no XDG_RUNTIME_DIR.
    @Suite("Socket search order", .serialized)
    struct SocketSearchOrder {
        static let system = "/run/pathd/pathd.sock"
        static let elsewhere = "/run/elsewhere/pathd.sock"

        /// Runs `command` inside `mounts` as nobody, with only PATH (and `extra`) set.
        static func asNobody(_ mounts: PrivateMounts, _ command: [String], extra: [String: String] = [:],
                             stderrPath: String) throws -> ProgramProcess {
            let (executable, arguments) = mounts.execArguments(try Command.asUser(command))
            let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"].merging(extra) { $1 }
            return try ProgramProcess(executable, arguments, environment: environment, stderrPath: stderrPath)
        }

        @Test("""
            as nobody without XDG_RUNTIME_DIR, pathctl and a PathMonitor find /run/pathd/pathd.sock; PATHD_SOCKET wins
            """)
        func unprivilegedClients() throws {
            try withVethTopology { topology in
                let mounts = try PrivateMounts(in: topology.a, stderrPath: topology.directory.path("holder.stderr"))
                defer { teardown("end the mount namespace holder") { try mounts.stop() } }
                try mounts.emptyRun()
                // As root and without --socket, pathd takes the system path: the real default.
                _ = try mounts.startDaemon(stderrPath: topology.directory.path("system.stderr"))
                // Another daemon elsewhere, told apart by its configuration: vA expensive.
                let config = topology.directory.path("expensive.conf")
                try "[Interface]\nName=vA\nExpensive=yes\n".write(toFile: config, atomically: true, encoding: .utf8)
                _ = try mounts.startDaemon(["--socket", Self.elsewhere, "--config", config],
                                           stderrPath: topology.directory.path("elsewhere.stderr"))
                let log = { (name: String) in topology.directory.path("\(name).stderr") }

                let identity = try Self.asNobody(mounts, ["id", "-u"], stderrPath: log("id"))
                #expect(try identity.waitForLine("the uid") { _ in true } == "65534")

                let pathctl = try BuiltProduct.url("pathctl").path
                let found = try Self.asNobody(mounts, [pathctl, "status", "--json"], stderrPath: log("pathctl"))
                let status = try found.waitForObject("pathctl's path line") { PathLine.isPath($0) }
                #expect(try found.waitForExit() == .exit(0), "stderr: \(found.stderr)")
                #expect(PathLine.satisfied(through: "vA")(status))
                #expect(status["isExpensive"] as? Bool == false, "the system daemon answered: \(status)")

                let named = try Self.asNobody(mounts, [pathctl, "status", "--json"],
                                              extra: ["PATHD_SOCKET": Self.elsewhere], stderrPath: log("pathctl-named"))
                let elsewhere = try named.waitForObject("pathctl's path line") { PathLine.isPath($0) }
                #expect(try named.waitForExit() == .exit(0), "stderr: \(named.stderr)")
                #expect(elsewhere["isExpensive"] as? Bool == true,
                        "the daemon PATHD_SOCKET names answered: \(elsewhere)")

                // A PathMonitor in daemon mode (no in-process fallback to hide a miss).
                let probe = try BuiltProduct.url("PathMonitorPrinter").path
                for (socket, extra) in [(Self.system, [:]), (Self.elsewhere, ["PATHD_SOCKET": Self.elsewhere])] {
                    let monitor = try Self.asNobody(mounts, [probe, "--mode", "daemon"], extra: extra,
                                                    stderrPath: log("probe-\(extra.isEmpty ? "system" : "named")"))
                    defer { teardown("kill the monitor") { try monitor.kill() } }
                    let state = try monitor.waitForObject("the first state") { $0["event"] as? String == "state" }
                    #expect(state["state"] as? String == "available", "\(state)")
                    let source = state["source"] as? [String: Any]
                    #expect(source?["socketPath"] as? String == socket, "\(state)")
                    let path = state["path"] as? [String: Any]
                    #expect(path?["isExpensive"] as? Bool == (socket == Self.elsewhere), "\(state)")
                }
            }
        }
    }
}
