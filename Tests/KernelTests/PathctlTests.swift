import Foundation
import Testing

extension KernelTests {
    /// pathctl against the real daemon.
    @Suite("pathctl against pathd")
    struct PathctlAgainstDaemon {
        @Test("status --json prints exactly one path object")
        func statusJSON() throws {
            try withVethTopology { topology in
                try topology.startDaemon()
                // Wait for the daemon's answer to settle so that status has something definite to say.
                try topology.subscribe().waitFor("satisfied through vA", PathLine.satisfied(through: "vA"))

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
                try topology.startDaemon()
                try topology.subscribe().waitFor("satisfied through vA", PathLine.satisfied(through: "vA"))

                let result = try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "status"])
                #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
                #expect(result.stdout.contains("satisfied"), "stdout: \(result.stdout)")
                #expect(result.stdout.contains("vA"), "stdout: \(result.stdout)")
            }
        }

        @Test("a refused reload says \"pathd refused\" on one line; --json also prints the error line")
        func refusalWording() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                try "[Daemon]\n".write(toFile: config, atomically: true, encoding: .utf8)
                try topology.startDaemon(arguments: ["--config", config])
                try "[Interface\n".write(toFile: config, atomically: true, encoding: .utf8)

                let text = try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "reload"])
                #expect(text.termination == .exit(1))
                #expect(text.stdout.isEmpty, "stdout: \(text.stdout)")
                #expect(text.stderr.hasPrefix("pathctl: pathd refused: "), "stderr: \(text.stderr)")
                #expect(text.stderr.hasSuffix(" [configInvalid]\n"), "stderr: \(text.stderr)")

                let json = try Command.run(BuiltProduct.url("pathctl"),
                                           ["--socket", topology.socketPath, "reload", "--json"])
                #expect(json.termination == .exit(1))
                #expect(json.stderr == text.stderr)
                let line = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                #expect(line["type"] as? String == "error")
                #expect(line["code"] as? String == "configInvalid")
            }
        }
    }
}

/// pathctl with no daemon: needs no namespace, so it runs everywhere.
@Suite("pathctl without a daemon")
struct PathctlWithoutDaemon {
    @Test("status against a socket nobody listens on exits 1 with a one-line message")
    func statusUnreachable() throws {
        try withTemporaryDirectory { directory in
            let result = try Command.run(BuiltProduct.url("pathctl"), ["--socket", directory.path("absent.sock"), "status"])
            #expect(result.termination == .exit(1))
            #expect(result.stdout.isEmpty, "stdout: \(result.stdout)")
            let message = result.stderr.trimmingCharacters(in: .newlines)
            #expect(!message.isEmpty)
            #expect(!message.contains("\n"), "more than one line: \(result.stderr)")
        }
    }

    @Test("wait --timeout too large for milliseconds is a usage error, not a crash")
    func timeoutOverflow() throws {
        try withTemporaryDirectory { directory in
            let result = try Command.run(BuiltProduct.url("pathctl"),
                                         ["--socket", directory.path("absent.sock"), "wait", "--timeout", "1e300"])
            #expect(result.termination == .exit(2), "stderr: \(result.stderr)")
            #expect(result.stdout.isEmpty, "stdout: \(result.stdout)")
            #expect(result.stderr.contains("--timeout 1e300 is too long"), "stderr: \(result.stderr)")
        }
    }
}
