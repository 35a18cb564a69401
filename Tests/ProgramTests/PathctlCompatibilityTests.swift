// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// pathctl against a fake daemon on a real socket (no kernel needed): a newer daemon's
/// lines are printed, not fatal (docs/PROTOCOL.md, "Version rule"), and a daemon that
/// fails at once is retried by the back-off pathctl(1) documents, never in a loop.
@Suite("pathctl against a newer or misbehaving daemon", .blocking)
struct PathctlCompatibilityTests {
    static func futureDaemon(_ socketPath: String) throws -> (FakeDaemon, [String]) {
        let lines = try Fixture.compatibilityLines("future-v1.jsonl")
        let daemon = try FakeDaemon(socketPath: socketPath) { _ in
            FakeDaemon.Reply([lines[Fixture.Future.notice], lines[Fixture.Future.hello],
                              lines[Fixture.Future.notice], lines[Fixture.Future.unknownReason]])
        }
        return (daemon, lines)
    }

    @Test("status prints a path with a reason and interface type it does not know, by their names")
    func status() throws {
        try withTemporaryDirectory { directory in
            let socketPath = directory.path("pathd.sock")
            let (daemon, lines) = try Self.futureDaemon(socketPath)
            defer { daemon.stop() }
            let text = try Command.run(BuiltProduct.url("pathctl"), ["--socket", socketPath, "status"],
                                       timeout: .seconds(30))
            #expect(text.termination == .exit(0), "stderr: \(text.stderr)")
            #expect(text.stdout.contains("Reason:      noSignal on wwan0 [noSignal]"), "\(text.stdout)")
            #expect(text.stdout.contains("Interfaces:  sat0 (satellite)"), "\(text.stdout)")
            #expect(text.stdout.contains("Connectivity: throttled"), "\(text.stdout)")

            let json = try Command.run(BuiltProduct.url("pathctl"), ["--socket", socketPath, "status", "--json"],
                                       timeout: .seconds(30))
            #expect(json.termination == .exit(0), "stderr: \(json.stderr)")
            #expect(json.stdout == lines[Fixture.Future.unknownReason] + "\n", "the line as the daemon sent it")

            let check = try Command.run(BuiltProduct.url("pathctl"), ["--socket", socketPath, "status", "--check"],
                                        timeout: .seconds(30))
            #expect(check.termination == .exit(1), "unsatisfied, whatever the reason: \(check.stderr)")
        }
    }

    @Test("an error code it does not know is a refusal, printed by name")
    func unknownErrorCode() throws {
        try withTemporaryDirectory { directory in
            let socketPath = directory.path("pathd.sock")
            let lines = try Fixture.compatibilityLines("future-v1.jsonl")
            let daemon = try FakeDaemon(socketPath: socketPath) { _ in
                FakeDaemon.Reply([lines[Fixture.Future.hello], lines[Fixture.Future.error]])
            }
            defer { daemon.stop() }
            let result = try Command.run(BuiltProduct.url("pathctl"), ["--socket", socketPath, "status"],
                                         timeout: .seconds(30))
            #expect(result.termination == .exit(4), "stderr: \(result.stderr)")
            #expect(result.stderr == "pathctl: pathd refused: too many requests; retry in 2 s [rateLimited]\n")
        }
    }

    @Test("monitor prints every path of a newer daemon, the unknown status by name, on one connection")
    func monitor() throws {
        try withTemporaryDirectory { directory in
            let socketPath = directory.path("pathd.sock")
            let (daemon, lines) = try Self.futureDaemon(socketPath)
            defer { daemon.stop() }
            let output = directory.path("monitor.out")
            let errors = directory.path("monitor.err")
            let monitor = try ChildProcess(BuiltProduct.url("pathctl"), ["--socket", socketPath, "monitor"],
                                           stderrPath: errors, stdoutPath: output)
            defer { teardown("stop pathctl monitor") { try monitor.terminate("pathctl monitor") } }
            try waitUntil("monitor printed the newer daemon's path", detail: { try Self.read(output, errors) }) {
                try String(contentsOfFile: output, encoding: .utf8).contains("unsatisfied: noSignal on wwan0")
            }
            for index in [Fixture.Future.notice, Fixture.Future.interfaces, Fixture.Future.history,
                          Fixture.Future.unknownStatus] {
                daemon.send(lines[index])
            }
            try waitUntil("monitor printed the path with a status it does not know",
                          detail: { try Self.read(output, errors) }) {
                try String(contentsOfFile: output, encoding: .utf8)
                    .contains("degraded via eth0 on office (IPv4, IPv6, DNS)")
            }
            #expect(monitor.isRunning)
            let said = try Self.read(output, errors)
            #expect(daemon.accepted == 1, "\(said)")
            #expect(try !String(contentsOfFile: errors, encoding: .utf8).contains("lost pathd"))
        }
    }

    @Test("a daemon's message of several lines is printed on one: every failure is one line on stderr")
    func multiLineMessages() throws {
        try withTemporaryDirectory { directory in
            let socketPath = directory.path("pathd.sock")
            // configInvalid lists an error a line (docs/PROTOCOL.md); the second reply's
            // warning has a line break and a terminal escape of its own.
            let invalid = #"{"type":"error","code":"configInvalid","message":"configuration not reloaded: "#
                + #"/etc/pathd/pathd.conf:2: MaxClients= expects a number\n/etc/pathd/pathd.conf:3: bad\n"}"#
            let warned = #"{"type":"reloaded","warnings":["a.conf:1: first\nsecond \u001b[2J", "b.conf:2: two"]}"#
            let daemon = try FakeDaemon(socketPath: socketPath) { connection in
                FakeDaemon.Reply([Self.hello, connection == 0 ? invalid : warned])
            }
            defer { daemon.stop() }
            let refused = try Command.run(BuiltProduct.url("pathctl"), ["--socket", socketPath, "reload"],
                                          timeout: .seconds(30))
            #expect(refused.termination == .exit(4), "stderr: \(refused.stderr)")
            #expect(refused.stderr == "pathctl: pathd refused: configuration not reloaded: "
                + "/etc/pathd/pathd.conf:2: MaxClients= expects a number; /etc/pathd/pathd.conf:3: bad "
                + "[configInvalid]\n")

            let reloaded = try Command.run(BuiltProduct.url("pathctl"), ["--socket", socketPath, "reload"],
                                           timeout: .seconds(30))
            #expect(reloaded.termination == .exit(0), "stderr: \(reloaded.stderr)")
            #expect(reloaded.stderr == "warning: a.conf:1: first; second \\u{1b}[2J\nwarning: b.conf:2: two\n")
        }
    }

    static let hello = #"{"type":"hello","protocol":1,"version":"0.1.0","generation":1}"#
    static let path = #"{"type":"path","generation":1,"sequence":1,"status":"satisfied","interfaces":[]}"#

    /// What every connection after the first gets (the first is a good one: pathctl
    /// retries only a connection that was once up).
    static let misbehaviours: [(String, FakeDaemon.Reply)] = [
        ("a line it cannot read", FakeDaemon.Reply([hello, #"{"type":"path","generation":"#])),
        ("a refused hello",
         FakeDaemon.Reply([#"{"type":"error","code":"tooManyClients","message":"full"}"#], closes: true)),
        ("a hello of protocol 2", FakeDaemon.Reply([#"{"type":"hello","protocol":2,"version":"9","generation":1}"#])),
        ("a close at once", FakeDaemon.Reply([], closes: true)),
        ("a close after the path", FakeDaemon.Reply([hello, path], closes: true)),
    ]

    /// pathctl(1): waits of 0.1 s doubling to 5 s, each up to 20 % shorter. After the
    /// second connection the next four waits are at least 0.16 + 0.32 + 0.64 + 1.28 s
    /// (2.4 s), so a window of 0.9 s that starts once the second connection is seen
    /// holds at most three more (two by the schedule, one for a late look): five in
    /// all. A retry without a wait makes thousands.
    @Test("monitor retries a daemon that fails at once no faster than its back-off",
          arguments: misbehaviours.indices)
    func monitorBackOff(_ index: Int) throws {
        let (name, reply) = Self.misbehaviours[index]
        try withTemporaryDirectory { directory in
            let socketPath = directory.path("pathd.sock")
            let daemon = try FakeDaemon(socketPath: socketPath) { connection in
                let bye = #"{"type":"error","code":"shuttingDown","message":"bye"}"#
                return connection == 0 ? FakeDaemon.Reply([Self.hello, Self.path, bye], closes: true) : reply
            }
            defer { daemon.stop() }
            let errors = directory.path("monitor.err")
            let monitor = try ChildProcess(BuiltProduct.url("pathctl"), ["--socket", socketPath, "monitor"],
                                           stderrPath: errors, stdoutPath: directory.path("monitor.out"))
            defer { teardown("stop pathctl monitor") { try monitor.terminate("pathctl monitor") } }
            #expect(daemon.waitForAccepted(2), "pathctl reconnected after \(name)")
            // The observation window itself, not an ordering: connections are counted in it.
            Thread.sleep(forTimeInterval: 0.9)
            #expect(daemon.accepted <= 5, "\(daemon.accepted) connections within 0.9 s of the second, after \(name)")
            if !monitor.isRunning {
                let output = try Self.read(directory.path("monitor.out"), errors)
                Issue.record("pathctl monitor exited (\(monitor.wait())) after \(name)\(output)")
            }
        }
    }

    static func read(_ output: String, _ errors: String) throws -> String {
        let stdout = try String(contentsOfFile: output, encoding: .utf8)
        let stderr = try String(contentsOfFile: errors, encoding: .utf8)
        return "; stdout:\n\(stdout)\nstderr:\n\(stderr)"
    }
}
