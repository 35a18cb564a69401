// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathProtocol
import PathTestFixtures
import Testing

extension KernelTests {
    /// pathctl against the real daemon.
    @Suite("pathctl against pathd", .serialized)
    struct PathctlAgainstDaemon {
        @Test("status --json prints exactly one path object")
        func statusJSON() throws {
            try withVethTopology { topology in
                // Wait for the daemon's answer to settle so that status has something definite to say.
                try topology.startSatisfied()

                let result = try Command.run(
                    BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "status", "--json"]
                )
                #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
                let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: true)
                #expect(lines.count == 1, "stdout: \(result.stdout)")
                let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
                let line = try #require(object as? [String: Any], "not a JSON object: \(result.stdout)")
                #expect(PathLine.isPath(line))
                #expect(PathLine.satisfied(through: "vA")(line), "stdout: \(result.stdout)")
            }
        }

        @Test("status prints a readable summary")
        func statusReadable() throws {
            try withVethTopology { topology in
                try topology.startSatisfied()

                let result = try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "status"])
                #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
                #expect(result.stdout.contains("Status:      satisfied\n"), "stdout: \(result.stdout)")
                #expect(result.stdout.contains("vA"), "stdout: \(result.stdout)")
                #expect(!result.stdout.contains("\u{1B}"), "coloured into a pipe: \(result.stdout)")
            }
        }

        @Test("status colours the status word on a terminal, unless NO_COLOR or --no-color")
        func statusColour() throws {
            try withVethTopology { topology in
                try topology.startSatisfied()
                let pathctl = try BuiltProduct.url("pathctl").path
                /// pathctl on a pseudo-terminal (script(1)), with NO_COLOR removed or set.
                func onTerminal(_ arguments: String, noColor: Bool = false) throws -> CommandResult {
                    let environment = noColor ? ["NO_COLOR=1"] : ["-u", "NO_COLOR"]
                    return try Command.run(Command.find("env"), environment + [
                        "TERM=xterm", "script", "--quiet", "--return", "--command",
                        "\(pathctl) --socket \(topology.socketPath) status \(arguments)", "/dev/null",
                    ])
                }
                let green = "\u{1B}[32msatisfied\u{1B}[0m"
                let coloured = try onTerminal("")
                #expect(coloured.termination == .exit(0), "stderr: \(coloured.stderr)")
                #expect(coloured.stdout.contains("Status:      \(green)"), "stdout: \(coloured.stdout)")
                for plain in [try onTerminal("--no-color"), try onTerminal("", noColor: true),
                              try onTerminal("--json")] {
                    #expect(plain.termination == .exit(0), "stderr: \(plain.stderr)")
                    #expect(plain.stdout.contains("satisfied"), "stdout: \(plain.stdout)")
                    #expect(!plain.stdout.contains("\u{1B}"), "coloured: \(plain.stdout)")
                }
            }
        }

        @Test("status --check exits 0 when satisfied and 1 when not; plain status stays 0")
        func statusCheck() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                let pathctl = try BuiltProduct.url("pathctl")
                let satisfied = try Command.run(pathctl, ["--socket", topology.socketPath, "status", "--check"])
                #expect(satisfied.termination == .exit(0), "stderr: \(satisfied.stderr)")
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied", PathLine.unsatisfied())
                let unsatisfied = try Command.run(pathctl, ["--socket", topology.socketPath, "status", "--check"])
                #expect(unsatisfied.termination == .exit(1), "stderr: \(unsatisfied.stderr)")
                #expect(unsatisfied.stdout.contains("Status:      unsatisfied"), "stdout: \(unsatisfied.stdout)")
                let query = try Command.run(pathctl, ["--socket", topology.socketPath, "status"])
                #expect(query.termination == .exit(0), "stderr: \(query.stderr)")
            }
        }

        @Test("a daemon at its client limit: exit 4 with tooManyClients, never a missing hello")
        func refusedAtConnect() throws {
            try withVethTopology { topology in
                try topology.startSubscribed(arguments: ["--max-clients", "1"], waitingFor: "satisfied through vA",
                                             PathLine.satisfied(through: "vA"))
                let result = try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "status"])
                #expect(result.termination == .exit(4), "stderr: \(result.stderr)")
                #expect(result.stderr.hasPrefix("pathctl: pathd refused: "), "stderr: \(result.stderr)")
                #expect(result.stderr.hasSuffix(" [tooManyClients]\n"), "stderr: \(result.stderr)")
                #expect(!result.stderr.contains("hello"), "stderr: \(result.stderr)")
            }
        }

        @Test("-V prints pathctl's, the reached pathd's and the protocol's versions")
        func version() throws {
            try withVethTopology { topology in
                try topology.startDaemon()
                let result = try Command.run(BuiltProduct.url("pathctl"), ["-V", "--socket", topology.socketPath])
                #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
                #expect(result.stdout == """
                    pathctl \(DaemonVersion.current) (protocol \(ProtocolVersion.current))
                    pathd \(DaemonVersion.current) (protocol \(ProtocolVersion.current)) at \(topology.socketPath)

                    """)
            }
        }

        @Test("""
            a refused reload exits 4 and says \"pathd refused\" on one line, whatever the errors; --json also prints \
            the error line
            """)
        func refusalWording() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                try "[Daemon]\n".write(toFile: config, atomically: true, encoding: .utf8)
                try topology.startDaemon(arguments: ["--config", config])
                // Two errors: pathd's configInvalid message has a line for each.
                try "[Daemon]\nMaxClients=0\nLogLevel=chatty\n".write(toFile: config, atomically: true, encoding: .utf8)

                let text = try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "reload"])
                #expect(text.termination == .exit(4))
                #expect(text.stdout.isEmpty, "stdout: \(text.stdout)")
                #expect(text.stderr.hasPrefix("pathctl: pathd refused: "), "stderr: \(text.stderr)")
                #expect(text.stderr.hasSuffix(" [configInvalid]\n"), "stderr: \(text.stderr)")
                #expect(text.stderr.filter { $0 == "\n" }.count == 1, "more than one line: \(text.stderr)")
                #expect(text.stderr.contains("\(config):2: MaxClients= expects a number from 1 to 1000000, got \"0\"; "
                    + "\(config):3: LogLevel="), "stderr: \(text.stderr)")

                let json = try Command.run(BuiltProduct.url("pathctl"),
                                           ["--socket", topology.socketPath, "reload", "--json"])
                #expect(json.termination == .exit(4))
                #expect(json.stderr == text.stderr)
                let line = try #require(
                    try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                #expect(line["type"] as? String == "error")
                #expect(line["code"] as? String == "configInvalid")
            }
        }
    }
}
