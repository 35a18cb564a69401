// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// pathctl against something on the socket that accepts and never answers (a hung
/// daemon, or another program): no command blocks for ever, and each says which socket
/// stayed silent (pathctl(1), EXIT STATUS). A real Unix socket; no kernel needed.
@Suite("pathctl against a daemon that never answers", .blocking)
struct PathctlSilentDaemonTests {
    static let hello = PathctlCompatibilityTests.hello

    /// Every command that asks once, with what it needs; `-V` reports on stdout and exits 0.
    static let oneShot: [[String]] = [
        ["status"], ["status", "--check", "-6"], ["interfaces"], ["route", "192.0.2.1"], ["reload"],
        ["metrics"], ["history"], ["wait", "--timeout", "0"],
    ]

    /// Runs every command in `commands` at once against `socketPath` and returns each
    /// result; a command still running after `limit` fails the test (a guard, not a timing).
    static func runAll(_ commands: [[String]], socketPath: String, in directory: TemporaryDirectory,
                       limit: TimeInterval = 90) throws -> [(command: [String], end: Termination?, stdout: String,
                                                             stderr: String)] {
        let children = try commands.enumerated().map { index, command in
            try ChildProcess(BuiltProduct.url("pathctl"), ["--socket", socketPath] + command,
                             stderrPath: directory.path("\(index).err"), stdoutPath: directory.path("\(index).out"))
        }
        let deadline = Date().addingTimeInterval(limit)
        return try children.enumerated().map { index, child in
            let end = child.wait(until: deadline)
            if end == nil { try child.kill("pathctl \(commands[index].joined(separator: " "))") }
            return (commands[index], end,
                    try String(contentsOfFile: directory.path("\(index).out"), encoding: .utf8),
                    try String(contentsOfFile: directory.path("\(index).err"), encoding: .utf8))
        }
    }

    @Test("""
        every one-shot command, and monitor, exits 3 with one line when pathd accepts and stays silent, before or \
        after hello
        """,
          arguments: [false, true])
    func silentBeforeOrAfterHello(saysHello: Bool) throws {
        try withTemporaryDirectory { directory in
            let socketPath = directory.path("pathd.sock")
            // Held open, never written to after the hello (if any): the requests go unanswered.
            let daemon = try FakeDaemon(socketPath: socketPath) { _ in FakeDaemon.Reply(saysHello ? [Self.hello] : []) }
            defer { daemon.stop() }
            let silence = "pathctl: pathd at \(socketPath) did not answer within 10 s\n"
            // monitor waits for ever only once its subscription has its first path.
            let commands = Self.oneShot + [["--version"], ["monitor"], ["monitor", "--json"]]
            for result in try Self.runAll(commands, socketPath: socketPath, in: directory) {
                let what = "\(result.command): stdout: \(result.stdout) stderr: \(result.stderr)"
                if result.command == ["--version"] {
                    // The daemon's version comes with its hello; without one, -V says why not.
                    let daemonLine = saysHello ? "pathd 0.1.0 (protocol 1) at \(socketPath)\n"
                        : "pathd: not reachable: " + silence.dropFirst("pathctl: ".count)
                    #expect(result.end == .exit(0), "\(what)")
                    #expect(result.stdout.hasSuffix(")\n" + daemonLine), "\(what)")
                    continue
                }
                #expect(result.end == .exit(3), "\(what)")
                #expect(result.stdout.isEmpty, "\(what)")
                #expect(result.stderr == silence, "\(what)")
            }
        }
    }

    @Test("wait times out saying that pathd never said hello, not that the path is unsatisfied")
    func waitNeverHello() throws {
        try withTemporaryDirectory { directory in
            let socketPath = directory.path("pathd.sock")
            let daemon = try FakeDaemon(socketPath: socketPath) { _ in FakeDaemon.Reply([]) }
            defer { daemon.stop() }
            let result = try #require(try Self.runAll([["wait", "--timeout", "0.5"]], socketPath: socketPath,
                                                      in: directory).first)
            #expect(result.end == .exit(3), "stderr: \(result.stderr)")
            #expect(result.stderr == "pathctl: timed out after 0.5 s: pathd at \(socketPath) never said hello\n")
        }
    }

    @Test("wait after a hello but no path times out as not satisfied, naming what it awaited")
    func waitHelloWithoutPath() throws {
        try withTemporaryDirectory { directory in
            let socketPath = directory.path("pathd.sock")
            let daemon = try FakeDaemon(socketPath: socketPath) { _ in FakeDaemon.Reply([Self.hello]) }
            defer { daemon.stop() }
            let result = try #require(try Self.runAll([["wait", "--timeout", "0.5", "--dns"]], socketPath: socketPath,
                                                      in: directory).first)
            #expect(result.end == .exit(1), "stderr: \(result.stderr)")
            #expect(result.stderr == "pathctl: timed out after 0.5 s waiting for a satisfied path with DNS\n")
        }
    }
}
