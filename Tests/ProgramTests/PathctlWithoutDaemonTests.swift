// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathProtocol
import PathTestFixtures
import Testing

/// pathctl with no daemon: needs no namespace, so it runs everywhere.
@Suite("pathctl without a daemon", .blocking)
struct PathctlWithoutDaemon {
    @Test("every command of pathctl --help, against a socket nobody listens on, exits 3 with a one-line message")
    func unreachable() throws {
        let usage = UsageText(try Command.check(BuiltProduct.url("pathctl"), ["--help"]))
        let (commands, takingHosts) = (usage.commands, usage.commandsTakingHosts)
        #expect(!commands.isEmpty && !takingHosts.isEmpty && takingHosts.isSubset(of: commands), "\(commands)")
        try withTemporaryDirectory { directory in
            let introducers = usage.hostIntroducers
            let runners = usage.commandLineRunners
            #expect(runners == ["run"])
            let single = usage.singleOperands
            #expect(single == ["lease": "INTERFACE"], "\(single)")
            // Each command as it runs: with HOSTs if it takes them, and also without
            // them where they follow an option (`monitor` and `monitor --route HOST`);
            // with a command line if it runs one (`run -- /bin/true`: never started);
            // with its one operand if it takes one (`lease lo`).
            let invocations = commands.flatMap { verb -> [[String]] in
                if runners.contains(verb) { return [[verb, "--", "/bin/true"]] }
                if single[verb] != nil { return [[verb, "lo"]] }
                guard let introducer = introducers[verb] else { return [[verb]] }
                let withHost = [verb] + introducer + ["192.0.2.1"]
                return introducer.isEmpty ? [withHost] : [[verb], withHost]
            }
            for invocation in invocations {
                let verb = invocation.joined(separator: " ")
                let arguments = ["--socket", directory.path("absent.sock")] + invocation
                let result = try Command.run(BuiltProduct.url("pathctl"), arguments)
                #expect(result.termination == .exit(3), "\(verb): stderr: \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(verb): stdout: \(result.stdout)")
                let message = result.stderr.trimmingCharacters(in: .newlines)
                #expect(message.hasPrefix("pathctl: cannot connect to pathd at "), "\(verb): stderr: \(result.stderr)")
                #expect(!message.contains("\n"), "\(verb): more than one line: \(result.stderr)")
            }
        }
    }

    @Test("pathctl(1) describes every command and every option --help lists")
    func manualIsComplete() throws {
        let usage = UsageText(try Command.check(BuiltProduct.url("pathctl"), ["--help"]))
        let manual = try Repository.read("man/pathctl.1")
        let synopsis = (manual.components(separatedBy: "\n.Sh ").first { $0.hasPrefix("SYNOPSIS\n") } ?? "") + "\n"
        #expect(!usage.commands.isEmpty && !usage.longOptions.isEmpty)
        for command in usage.commands {
            #expect(synopsis.contains("\n.Cm \(command)\n"), "\(command) is not in the SYNOPSIS")
            #expect(manual.contains("\n.It Cm \(command) "), "\(command) has no entry in the command list")
        }
        for option in usage.longOptions {
            #expect(manual.contains("Fl \\-\(option.dropFirst(2))"), "\(option) is not in pathctl(1)")
        }
    }

    @Test("a usage error exits 2 with the mistake and a hint, before any connection")
    func usageError() throws {
        try withTemporaryDirectory { directory in
            let result = try Command.run(BuiltProduct.url("pathctl"),
                                         ["--socket", directory.path("absent.sock"), "wait", "--timeout", "1e300"])
            #expect(result.termination == .exit(2), "stderr: \(result.stderr)")
            #expect(result.stdout.isEmpty, "stdout: \(result.stdout)")
            #expect(result.stderr == """
                pathctl: --timeout expects a decimal number of seconds, got "1e300"
                Try 'pathctl --help'.

                """)
        }
    }

    @Test("-V without a reachable daemon still prints pathctl's version and exits 0")
    func versionAlone() throws {
        try withTemporaryDirectory { directory in
            let result = try Command.run(BuiltProduct.url("pathctl"),
                                         ["--version", "--socket", directory.path("absent.sock")])
            #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
            #expect(result.stdout.hasPrefix("pathctl \(DaemonVersion.current) (protocol " +
                                            "\(ProtocolVersion.current))\npathd: not reachable: "),
                    "stdout: \(result.stdout)")
        }
    }
}
