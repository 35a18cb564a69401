// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension VethTopology {
    /// Runs a built client program in namespace A with line-buffered output (as on a
    /// terminal: the examples print with `print` and some never exit), in the runner's
    /// environment changed by `environment` (a nil value removes a variable).
    func runProgram(_ name: String, _ arguments: [String] = [],
                    environment: [String: String?] = [:]) throws -> ProgramProcess {
        let stdbuf = try Command.find("stdbuf")
        let command = a.execArguments([stdbuf.path, "-oL", try BuiltProduct.url(name).path] + arguments)
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        return try ProgramProcess(command.executable, command.arguments, environment: variables,
                                  stderrPath: directory.path("\(name)-\(UInt32.random(in: 0...UInt32.max)).stderr"))
    }
}

extension KernelTests {
    /// The two programs written for Apple's Network (Examples/), with only the import changed, print
    /// `online` in a namespace with a default route, the first through pathd, the
    /// second with no pathd at all.
    @Suite("Client programs", .serialized)
    struct ClientPrograms {
        /// The daemon marks vA expensive; the in-process engine reads /etc/pathd, which
        /// does not exist here. So "online true false" can only come from pathd: the
        /// program found it through PATHD_SOCKET (the system path is tested as another
        /// user in "Socket search order").
        @Test("the callback program prints online, through pathd found with PATHD_SOCKET")
        func callbackThroughDaemon() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                try "[Interface]\nName=vA\nExpensive=yes\n".write(toFile: config, atomically: true, encoding: .utf8)
                try topology.startDaemon(arguments: ["--config", config])
                let program = try topology.runProgram("NWPathMonitorCallback",
                                                      environment: ["PATHD_SOCKET": topology.socketPath])
                defer { teardown("kill the program") { try program.kill() } }
                let status = try program.waitForLine("the status line") {
                    $0.hasPrefix("online") || $0.hasPrefix("offline")
                }
                #expect(status == "online true false", "from pathd, with vA expensive")
                let interface = try program.waitForLine("vA's line") { _ in true }
                #expect(interface.hasPrefix("vA other "), "name, type, index: \(interface)")
                let details = try program.waitForLine("the usesInterfaceType line") { _ in true }
                #expect(details.hasPrefix("false true false "), "wifi, IPv4, IPv6: \(details)")
                #expect(details.hasSuffix(" 1"), "one gateway: \(details)")
            }
        }

        @Test("the async program prints online with no pathd anywhere, and exits 0")
        func asyncWithoutDaemon() throws {
            try withVethTopology { topology in
                // A socket nobody listens on, so that no pathd of the host can answer.
                let absent = topology.directory.path("absent.sock")
                let program = try topology.runProgram("NWPathMonitorAsync", environment: ["PATHD_SOCKET": absent])
                defer { teardown("kill the program") { try program.kill() } }
                let line = try program.waitForLine("the first path") { _ in true }
                #expect(line == "online false", "satisfied through vA, a veth (type other)")
                #expect(try program.waitForExit() == .exit(0), "stderr: \(program.stderr)")
            }
        }

        @Test("the socket-only example prints pathd's path and exits with --once")
        func socketOnly() throws {
            try withVethTopology { topology in
                try topology.startDaemon()
                let program = try topology.runProgram("SocketOnlyMonitor", ["--once"],
                                                      environment: ["PATHD_SOCKET": topology.socketPath])
                defer { teardown("kill the program") { try program.kill() } }
                try program.waitForLine("connected") {
                    $0.hasPrefix("connected to pathd ") && $0.hasSuffix(topology.socketPath)
                }
                let path = try program.waitForLine("the path") { _ in true }
                #expect(path.hasPrefix("satisfied via vA (IPv4"), "line: \(path)")
                #expect(try program.waitForExit() == .exit(0), "stderr: \(program.stderr)")
            }
        }

        @Test("OfflineBanner says online, then offline with a retry hint")
        func offlineBanner() throws {
            try withVethTopology { topology in
                // Settled first: vA's network identified later would be one more "online" line.
                try topology.startSatisfied()
                let program = try topology.runProgram("OfflineBanner",
                                                      environment: ["PATHD_SOCKET": topology.socketPath])
                defer { teardown("kill the program") { try program.kill() } }
                #expect(try program.waitForLine("online") { _ in true } == "online via vA")
                try topology.deleteDefaultRoute()
                let offline = try program.waitForLine("offline") { _ in true }
                #expect(offline
                        == "offline: no route to the Internet (no default route); will retry when the network changes")
            }
        }
    }
}
