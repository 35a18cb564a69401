// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// Route subscriptions against the real daemon and kernel, through `pathctl monitor
    /// --route` and `pathctl wait --route`: namespace A's uplink vA (default via
    /// 198.51.100.1) and a VPN-like link vC whose more specific route carries 192.0.2.0/24.
    @Suite("watched routes", .serialized)
    struct RouteWatchKernelTests {
        static let host = "192.0.2.10"

        /// The VPN's split route: 192.0.2.0/24 through tun0 (`addTunnel`), more specific
        /// than the default route through vA.
        static func addVPN(_ topology: VethTopology) throws {
            try topology.addTunnel()
            try topology.a.ip("route", "add", "192.0.2.0/24", "via", VethTopology.tunnelPeer, "dev", "tun0")
        }

        static func pathctl(_ topology: VethTopology, _ arguments: [String], stdout: String,
                            stderr: String) throws -> ChildProcess {
            try ChildProcess(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath] + arguments,
                             stderrPath: stderr, stdoutPath: stdout)
        }

        @Test("monitor --route: from the VPN to the uplink to unsatisfied, one line each, the path always satisfied")
        func vpnToUplinkToNothing() throws {
            try withVethTopology { topology in
                try Self.addVPN(topology)
                let subscriber = try topology.startSatisfied()
                let output = topology.directory.path("monitor.out")
                let errors = topology.directory.path("monitor.err")
                let monitor = try Self.pathctl(topology, ["monitor", "--json", "--route", Self.host],
                                               stdout: output, stderr: errors)
                defer { teardown("stop pathctl monitor") { try monitor.terminate("pathctl monitor") } }
                func waitForLine(_ count: Int, _ description: String) throws -> [String: Any] {
                    let detail = { "; stdout:\n\(try read(output))\nstderr:\n\(try read(errors))" }
                    try waitUntil(description, detail: detail) {
                        try routeLines(output).count >= count
                    }
                    return try routeLines(output)[count - 1]
                }
                let vpn = try waitForLine(1, "the route through the VPN")
                #expect(vpn["status"] as? String == "satisfied")
                #expect(interfaceName(vpn) == "tun0")
                #expect(vpn["gateway"] as? String == VethTopology.tunnelPeer)
                #expect(vpn["destination"] as? String == Self.host)
                #expect(vpn["id"] as? String == "\(Self.host) \(Self.host)")

                try topology.a.ip("route", "del", "192.0.2.0/24", "via", VethTopology.tunnelPeer, "dev", "tun0")
                let uplink = try waitForLine(2, "the route through the uplink")
                #expect(uplink["status"] as? String == "satisfied")
                #expect(interfaceName(uplink) == "vA")
                #expect(uplink["gateway"] as? String == VethTopology.routerAddress)

                try topology.a.ip("route", "add", "unreachable", "192.0.2.0/24")
                let none = try waitForLine(3, "no route to the host")
                #expect(none["status"] as? String == "unsatisfied")
                #expect(none["unsatisfiedReason"] as? String == "routeRejects")

                // One line per change of the answer, in sequence; nothing for the path.
                let lines = try routeLines(output)
                #expect(lines.count == 3, "\(lines)")
                #expect(lines.map { $0["sequence"] as? Int } == [1, 2, 3])
                // The default path stayed satisfied: pathd sends a batch's path lines before
                // its route lines, so an unsatisfied one would have arrived by now.
                #expect(throws: HarnessError.self) {
                    try subscriber.waitFor("an unsatisfied path", timeout: .zero, PathLine.unsatisfied())
                }
                let status = try Command.run(BuiltProduct.url("pathctl"),
                                             ["--socket", topology.socketPath, "status", "--check"])
                #expect(status.termination == .exit(0), "\(status.stdout)\(status.stderr)")
                #expect(monitor.isRunning)
            }
        }

        @Test("the Swift sequence (Examples/RouteWatch) follows the same changes, from pathd and with no daemon",
              arguments: [true, false])
        func swiftSequence(throughDaemon: Bool) throws {
            try withVethTopology { topology in
                try Self.addVPN(topology)
                var socket = topology.directory.path("absent.sock")
                if throughDaemon {
                    // vA expensive for pathd only: the engine in the program reads /etc/pathd,
                    // which does not exist here, so "expensive" can only come from pathd.
                    let config = topology.directory.path("pathd.conf")
                    try "[Interface]\nName=vA\nExpensive=yes\n".write(toFile: config, atomically: true,
                                                                        encoding: .utf8)
                    try topology.startDaemon(arguments: ["--config", config])
                    socket = topology.socketPath
                }
                let arguments = throughDaemon ? [Self.host] : [Self.host, "--in-process"]
                let program = try topology.runProgram("RouteWatch", arguments, environment: ["PATHD_SOCKET": socket])
                defer { teardown("kill RouteWatch") { try program.kill() } }
                let vpn = try program.waitForLine("the route through the VPN") { _ in true }
                #expect(vpn.hasPrefix("satisfied via tun0 (gateway \(VethTopology.tunnelPeer)"), "\(vpn)")
                try topology.a.ip("route", "del", "192.0.2.0/24", "via", VethTopology.tunnelPeer, "dev", "tun0")
                let uplink = try program.waitForLine("the route through the uplink") { _ in true }
                #expect(uplink.hasPrefix("satisfied via vA (gateway \(VethTopology.routerAddress)"), "\(uplink)")
                #expect(uplink.hasSuffix(", expensive)") == throughDaemon, "\(uplink)")
                try topology.a.ip("route", "add", "unreachable", "192.0.2.0/24")
                // The route through vA may change once more before it goes, in what its line
                // does not print (vA's network, identified when its gateway's entry is
                // confirmed): a line for each change, each satisfied through vA.
                var none = try program.waitForLine("no route to the host") { _ in true }
                while none.hasPrefix("satisfied via vA ") {
                    none = try program.waitForLine("no route to the host") { _ in true }
                }
                #expect(none.hasPrefix("unsatisfied: "), "\(none)")
            }
        }

        @Test("wait --route exits 0 once the route is usable, 1 when the timeout passes first, naming the reason")
        func waitForTheRoute() throws {
            try withVethTopology { topology in
                try topology.a.ip("route", "add", "unreachable", "192.0.2.0/24")
                let daemon = try topology.startDaemon()
                let timedOut = try Command.run(BuiltProduct.url("pathctl"),
                                               ["--socket", topology.socketPath, "wait", "--timeout", "0.5",
                                                "--route", Self.host])
                #expect(timedOut.termination == .exit(1), "stderr: \(timedOut.stderr)")
                #expect(timedOut.stderr.contains("waiting for the route to \(Self.host): unsatisfied"),
                        "stderr: \(timedOut.stderr)")
                let checked = try Command.run(BuiltProduct.url("pathctl"),
                                              ["--socket", topology.socketPath, "wait", "--timeout", "0",
                                               "--route", Self.host, "--json"])
                #expect(checked.termination == .exit(1), "stderr: \(checked.stderr)")
                #expect(checked.stdout.contains(#""unsatisfiedReason":"routeRejects""#), "\(checked.stdout)")

                let output = topology.directory.path("wait.out")
                let errors = topology.directory.path("wait.err")
                let waiter = try Self.pathctl(topology, ["wait", "--timeout", "30", "--route", Self.host],
                                              stdout: output, stderr: errors)
                defer { teardown("stop pathctl wait") { try waiter.terminate("pathctl wait") } }
                try waitUntil("pathd accepted pathctl wait") { try hasAccepted(server: daemon.pid, client: waiter.pid) }
                #expect(waiter.isRunning)
                try topology.a.ip("route", "del", "unreachable", "192.0.2.0/24")
                let end = waiter.wait(until: Date().addingTimeInterval(20))
                let said = try read(errors)
                #expect(end == .exit(0), "stderr: \(said)")
            }
        }
    }
}

private func read(_ path: String) throws -> String { try OutputLines.text(ofFile: path) }

/// The `route` lines written so far to `path`; a partly written last line is not one yet.
private func routeLines(_ path: String) throws -> [[String: Any]] {
    try OutputLines.objects(inFile: path).filter { $0["type"] as? String == "route" }
}

private func interfaceName(_ route: [String: Any]) -> String? {
    (route["interface"] as? [String: Any])?["name"] as? String
}

extension KernelTests.RouteWatchKernelTests {
    /// MaxRoutesPerUser= counts a user's route subscriptions over all its connections;
    /// root (and pathd's own user) are not counted.
    @Test("a user past MaxRoutesPerUser= is refused limitExceeded on another connection; root is not counted")
    func routesPerUser() throws {
        try withVethTopology { topology in
            try topology.openDirectoryToOthers()
            try topology.startDaemon(arguments: ["--max-routes-per-user", "3"])
            let pathctl = try BuiltProduct.url("pathctl").path
            func asNobody(_ hosts: [String]) throws -> CommandResult {
                let command = topology.a.execArguments(try Command.asUser([
                    pathctl, "--socket", topology.socketPath, "wait", "--timeout", "0", "--route",
                ] + hosts))
                return try Command.run(command.executable, command.arguments, timeout: .seconds(30))
            }
            // Two routes held by a monitor of nobody's, a third asked on another connection.
            let output = topology.directory.path("nobody.out")
            let monitorCommand = topology.a.execArguments(try Command.asUser([
                pathctl, "--socket", topology.socketPath, "monitor", "--json", "--route", "198.51.100.21",
                "198.51.100.22",
            ]))
            let monitor = try ChildProcess(monitorCommand.executable, monitorCommand.arguments,
                                           stderrPath: topology.directory.path("nobody.err"), stdoutPath: output)
            defer { teardown("stop nobody's monitor") { try monitor.terminate("pathctl monitor") } }
            try waitUntil("nobody's monitor has both routes") { try routeLines(output).count >= 2 }
            let third = try asNobody(["198.51.100.23"])
            #expect(third.termination == .exit(0), "stderr: \(third.stderr)")
            let two = try asNobody(["198.51.100.24", "198.51.100.25"])
            #expect(two.termination == .exit(4), "stdout: \(two.stdout) stderr: \(two.stderr)")
            #expect(two.stderr.contains("MaxRoutesPerUser="), "\(two.stderr)")
            #expect(two.stderr.contains("limitExceeded"), "\(two.stderr)")
            let root = try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "wait",
                                       "--timeout", "0", "--route", "198.51.100.24", "198.51.100.25",
                                       "198.51.100.26", "198.51.100.27"], timeout: .seconds(30))
            #expect(root.termination == .exit(0), "stderr: \(root.stderr)")
        }
    }
}
