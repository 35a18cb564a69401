// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// `monitor` and `wait` across a restart of pathd on the same socket path, as
    /// `systemctl restart pathd` does it (socket activation keeps the socket; here the new
    /// daemon binds it again, so pathctl also has to retry a refused connect meanwhile).
    @Suite("pathctl across a daemon restart", .serialized)
    struct PathctlReconnect {
        @Test("monitor reconnects after shuttingDown and prints the new daemon's path")
        func monitorReconnects() throws {
            try withVethTopology { topology in
                let first = try topology.startDaemon()
                let output = topology.directory.path("monitor.out")
                let errors = topology.directory.path("monitor.err")
                let monitor = try ChildProcess(BuiltProduct.url("pathctl"),
                                               ["--socket", topology.socketPath, "monitor", "--json"],
                                               stderrPath: errors, stdoutPath: output)
                defer { teardown("stop pathctl monitor") { try monitor.terminate("pathctl monitor") } }
                try waitUntil("monitor printed the first daemon's path",
                              detail: { "; stderr:\n" + (try OutputLines.text(ofFile: errors)) }) {
                    try OutputLines.objects(inFile: output).contains(where: PathLine.satisfied(through: "vA"))
                }
                try first.terminate()
                // Only the second daemon can see this: the first is gone.
                try topology.deleteDefaultRoute()
                try topology.startDaemon()
                try waitUntil("monitor printed the second daemon's path",
                              detail: { "; stderr:\n" + (try OutputLines.text(ofFile: errors)) }) {
                    try OutputLines.objects(inFile: output).contains(where: PathLine.unsatisfied())
                }
                #expect(monitor.isRunning)
                let said = try OutputLines.text(ofFile: errors)
                #expect(said.contains("pathctl: lost pathd: pathd is shutting down"), "stderr: \(said)")
                #expect(said.contains("pathctl: reconnected to pathd at \(topology.socketPath)"), "stderr: \(said)")
            }
        }

        @Test("wait outlives a restart and exits 0 when the new daemon's path is satisfied")
        func waitReconnects() throws {
            try withVethTopology { topology in
                try topology.deleteDefaultRoute()
                let first = try topology.startDaemon()
                let errors = topology.directory.path("wait.err")
                let waiter = try ChildProcess(BuiltProduct.url("pathctl"),
                                              ["--socket", topology.socketPath, "wait", "--timeout", "60"],
                                              stderrPath: errors)
                defer { teardown("stop pathctl wait") { try waiter.terminate("pathctl wait") } }
                // Stopped only once it has pathd's hello: an unreachable pathd at the start is exit 3.
                try waitUntil("the first daemon accepted pathctl wait") {
                    try hasAccepted(server: first.pid, client: waiter.pid)
                }
                try first.terminate()
                try topology.addDefaultRoute()
                try topology.startDaemon()
                let end = waiter.wait(until: Date().addingTimeInterval(30))
                let said = try OutputLines.text(ofFile: errors)
                #expect(end == .exit(0), "stderr: \(said)")
                #expect(said.contains("pathctl: reconnected to pathd at \(topology.socketPath)"), "stderr: \(said)")
            }
        }
    }
}
