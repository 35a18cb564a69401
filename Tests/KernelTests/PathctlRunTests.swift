// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// `pathctl run` against the real daemon: the command (scripts/test/signal-recorder.py,
    /// which logs its start and every signal it gets) starts when the path meets the
    /// criteria, is stopped when a reload makes vA expensive, and ends pathctl as
    /// pathctl(1) says.
    @Suite("pathctl run")
    struct PathctlRun {
        /// One `pathctl run` of the recorder against the topology's pathd, its log and stderr.
        struct Runner {
            let process: ChildProcess
            let log: String
            let stderr: String

            init(_ topology: VethTopology, _ options: [String], recorder: [String] = [], name: String = "run") throws {
                log = topology.directory.path("\(name).log")
                stderr = topology.directory.path("\(name).stderr")
                let recorder = ["/usr/bin/python3", Repository.path("scripts/test/signal-recorder.py"), log] + recorder
                process = try ChildProcess(BuiltProduct.url("pathctl"),
                                           ["--socket", topology.socketPath, "run"] + options + ["--"] + recorder,
                                           stderrPath: stderr)
            }

            /// The recorder's log lines ("start PID", "signal N").
            func logged() throws -> [String] {
                guard FileManager.default.fileExists(atPath: log) else { return [] }
                return try OutputLines.text(ofFile: log).split(separator: "\n").map(String.init)
            }

            func said() throws -> String { try OutputLines.text(ofFile: stderr) }

            /// Waits until the recorder logged `count` starts; the last one's pid.
            @discardableResult
            func waitForStart(_ count: Int = 1) throws -> pid_t {
                var pid: pid_t = 0
                try waitUntil("the command started \(count) time(s)", detail: { "; pathctl said: \(try said())" }) {
                    let starts = try logged().filter { $0.hasPrefix("start ") }
                    pid = starts.last.flatMap { pid_t($0.dropFirst(6)) } ?? 0
                    return starts.count >= count
                }
                return pid
            }

            func waitForLog(_ line: String, count: Int = 1) throws {
                try waitUntil("the command logged \"\(line)\" \(count) time(s)",
                              detail: { "; its log: \(try logged()); pathctl said: \(try said())" }) {
                    try logged().filter { $0 == line }.count >= count
                }
            }

            func end(within seconds: TimeInterval = 20) throws -> Termination {
                let said = try said()
                return try #require(process.wait(until: Date().addingTimeInterval(seconds)),
                                    "pathctl run did not end; it said: \(said)")
            }
        }

        static let expensive = "[Interface]\nName=vA\nExpensive=yes\n"

        /// Starts pathd on the topology with a configuration file holding `configuration`;
        /// the file's path.
        @discardableResult
        static func startDaemon(_ topology: VethTopology, configuration: String = "") throws -> String {
            let config = topology.directory.path("pathd.conf")
            try configuration.write(toFile: config, atomically: true, encoding: .utf8)
            try topology.startSubscribed(arguments: ["--config", config], waitingFor: "a path through vA") {
                PathLine.interfaceNames($0).first == "vA"
                    || PathLine.unsatisfiedReason($0) != nil
            }
            return config
        }

        /// Rewrites pathd's configuration and has it read again.
        static func reconfigure(_ topology: VethTopology, _ config: String, _ text: String) throws {
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            let reload = try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "reload"])
            #expect(reload.termination == .exit(0), "reload: \(reload.stderr)")
        }

        /// Whether process `pid` runs no more: /proc has no entry for it (the only reason
        /// reading it fails here), or it is a zombie waiting for its new parent.
        static func isGone(_ pid: pid_t) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }

        @Test("the command starts on a free path and gets SIGTERM when a reload makes it expensive: exit 75")
        func stopsWhenExpensive() throws {
            try withVethTopology { topology in
                let config = try Self.startDaemon(topology)
                let runner = try Runner(topology, ["--not-expensive"])
                defer { teardown("stop pathctl run") { try runner.process.terminate("pathctl run") } }
                let pid = try runner.waitForStart()
                try Self.reconfigure(topology, config, Self.expensive)
                #expect(try runner.end() == .exit(75))
                #expect(try runner.logged() == ["start \(pid)", "signal \(SIGTERM)"])
                #expect(try runner.said() == "pathctl: the path is not satisfied: unsatisfied: the path via vA is "
                    + "expensive, which the criteria exclude; stopping /usr/bin/python3 (SIGTERM)\n")
            }
        }

        @Test("--restart starts it again when the path is free again; signals to pathctl reach it, its status passes")
        func restartsAndForwards() throws {
            try withVethTopology { topology in
                let config = try Self.startDaemon(topology)
                let runner = try Runner(topology, ["--not-expensive", "--restart"])
                defer { teardown("stop pathctl run") { try runner.process.terminate("pathctl run") } }
                try runner.waitForStart()
                try Self.reconfigure(topology, config, Self.expensive)
                try runner.waitForLog("signal \(SIGTERM)")
                let stopped = try runner.said()
                #expect(runner.process.isRunning, "with --restart, pathctl waits: \(stopped)")
                try Self.reconfigure(topology, config, "")
                try runner.waitForStart(2)
                try runner.process.send(SIGUSR1)
                try runner.waitForLog("signal \(SIGUSR1)")
                try runner.process.send(SIGHUP)
                try runner.waitForLog("signal \(SIGHUP)")
                // The recorder exits 0 on SIGTERM: pathctl ends as it did.
                try runner.process.send(SIGTERM)
                #expect(try runner.end() == .exit(0))
                #expect(try runner.logged().filter { $0 == "signal \(SIGTERM)" }.count == 2)
                #expect(try runner.said().contains("pathctl: the criteria hold again (satisfied via vA (IPv4)); "
                    + "starting /usr/bin/python3\n"))
            }
        }

        @Test("a command that ignores SIGTERM gets SIGKILL after --grace; pathctl still exits 75")
        func killsAfterGrace() throws {
            try withVethTopology { topology in
                let config = try Self.startDaemon(topology)
                let runner = try Runner(topology, ["--not-expensive", "--grace", "0.2"], recorder: ["--ignore-term"])
                defer { teardown("stop pathctl run") { try runner.process.terminate("pathctl run") } }
                let pid = try runner.waitForStart()
                try Self.reconfigure(topology, config, Self.expensive)
                #expect(try runner.end() == .exit(75))
                #expect(Self.isGone(pid))
                #expect(try runner.logged() == ["start \(pid)", "signal \(SIGTERM)"])
                let said = try runner.said()
                #expect(said.hasSuffix("pathctl: /usr/bin/python3 still runs 0.2 s after SIGTERM; sending SIGKILL\n"),
                        "\(said)")
            }
        }

        @Test("pathctl killed with SIGKILL leaves no command running: its parent-death signal kills it")
        func noOrphanWhenKilled() throws {
            try withVethTopology { topology in
                try Self.startDaemon(topology)
                let runner = try Runner(topology, [], recorder: ["--ignore-term"])
                defer { teardown("stop pathctl run") { try runner.process.terminate("pathctl run") } }
                let pid = try runner.waitForStart()
                try runner.process.kill("pathctl run")
                try waitUntil("the command (pid \(pid)) is gone") { Self.isGone(pid) }
            }
        }

        @Test("a restart of pathd is not a change of the network: the command runs on, and the new pathd can stop it")
        func ridesOutARestart() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                try "".write(toFile: config, atomically: true, encoding: .utf8)
                let first = try topology.startDaemon(arguments: ["--config", config])
                let runner = try Runner(topology, ["--not-expensive"])
                defer { teardown("stop pathctl run") { try runner.process.terminate("pathctl run") } }
                let pid = try runner.waitForStart()
                try first.terminate()
                try topology.startDaemon(arguments: ["--config", config])
                try waitUntil("pathctl reconnected", detail: { "; it said: \(try runner.said())" }) {
                    try runner.said().contains("pathctl: reconnected to pathd at \(topology.socketPath)")
                }
                // It subscribed again before saying so: the reload below reaches it.
                #expect(try runner.logged() == ["start \(pid)"])
                #expect(!Self.isGone(pid))
                try Self.reconfigure(topology, config, Self.expensive)
                #expect(try runner.end() == .exit(75))
                #expect(try runner.logged() == ["start \(pid)", "signal \(SIGTERM)"])
            }
        }

        @Test("criteria that do not hold are said once while it waits; SIGTERM then ends pathctl by SIGTERM")
        func waitsSayingSoOnce() throws {
            try withVethTopology { topology in
                let config = try Self.startDaemon(topology, configuration: Self.expensive)
                let runner = try Runner(topology, ["--not-expensive"])
                defer { teardown("stop pathctl run") { try runner.process.terminate("pathctl run") } }
                try waitUntil("pathctl said why it waits") { try runner.said().contains("pathctl: waiting: ") }
                // More paths that do not hold (no route, then expensive again), each seen by
                // a subscriber of the same criteria, so pathctl has them too; then one that
                // holds: pathctl handles them in order, so when it starts the command it has
                // handled every one before.
                let same = try topology.subscribe(
                    request: #"{"op":"subscribe","criteria":{"prohibitExpensivePaths":true}}"#)
                try same.waitFor("expensive", PathLine.unsatisfied(reason: "expensiveExcluded"))
                try topology.deleteDefaultRoute()
                try same.waitFor("no route", PathLine.unsatisfied(reason: "noRoute"))
                try topology.addDefaultRoute()
                try same.waitFor("expensive again", PathLine.unsatisfied(reason: "expensiveExcluded"))
                try Self.reconfigure(topology, config, "")
                try runner.waitForStart()
                let said = try runner.said()
                #expect(said.components(separatedBy: "pathctl: waiting: ").count == 2, "said: \(said)")
                #expect(said.hasPrefix("pathctl: waiting: the path is not satisfied: unsatisfied: the path via vA is "
                    + "expensive, which the criteria exclude\n"), "said: \(said)")
                try runner.process.send(SIGTERM)
                #expect(try runner.end() == .exit(0), "the recorder exits 0 on SIGTERM")

                // Criteria this host can never meet (it has no wifi): said once; a SIGTERM to
                // the waiting pathctl ends it by SIGTERM, as it would end without a command.
                let never = try Runner(topology, ["--require-type", "wifi"], name: "never")
                defer { teardown("stop pathctl run") { try never.process.terminate("pathctl run") } }
                try waitUntil("pathctl said why it waits") {
                    try never.said() == "pathctl: waiting: the path is not satisfied: unsatisfied: only interfaces "
                        + "the criteria exclude are available\n"
                }
                try never.process.send(SIGTERM)
                #expect(try never.end() == Termination(status: SIGTERM, bySignal: true))
                #expect(try never.logged().isEmpty)
            }
        }

        @Test("no command is a usage error (2); a missing command 127, one not executable 126; statuses pass through")
        func badCommandsAndStatuses() throws {
            try withVethTopology { topology in
                try Self.startDaemon(topology)
                let pathctl = try BuiltProduct.url("pathctl")
                let socket = ["--socket", topology.socketPath, "run"]
                let none = try Command.run(pathctl, socket + ["--not-expensive"])
                #expect(none.termination == .exit(2))
                #expect(none.stderr.hasPrefix("pathctl: run needs a COMMAND"), "\(none.stderr)")
                let missing = try Command.run(pathctl, socket + ["--", "/nonexistent/command", "x"])
                #expect(missing.termination == .exit(127))
                #expect(missing.stderr == "pathctl: /nonexistent/command: No such file or directory\n")
                let plain = topology.directory.path("not-executable")
                try "#!/bin/sh\n".write(toFile: plain, atomically: true, encoding: .utf8)
                let denied = try Command.run(pathctl, socket + ["--", plain])
                #expect(denied.termination == .exit(126))
                #expect(denied.stderr == "pathctl: \(plain): Permission denied\n")
                let failed = try Command.run(pathctl,
                                             socket + ["--", "/bin/sh", "-c", "echo out; echo err >&2; exit 42"])
                #expect(failed.termination == .exit(42))
                #expect(failed.stdout == "out\n" && failed.stderr == "err\n", "untouched: \(failed)")
                let empty = try Command.run(pathctl, socket + ["--", "/usr/bin/printf", "[%s]", "", "a"])
                #expect(empty.stdout == "[][a]", "an empty argument is an argument")
                let killed = try Command.run(pathctl, socket + ["--", "/bin/sh", "-c", "kill -USR1 $$"])
                #expect(killed.termination == Termination(status: SIGUSR1, bySignal: true))
            }
        }
    }
}
