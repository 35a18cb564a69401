// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    @Suite("the units' commands against pathd", .serialized)
    struct UnitCommands {
        @Test("pathd-wait-route@HOST waits while the route to HOST is unusable and succeeds once it is usable")
        func waitRouteInstance() throws {
            try withVethTopology { topology in
                try topology.a.ip("route", "add", "unreachable", "192.0.2.0/24")
                let daemon = try topology.startDaemon()
                let (pathctl, arguments) = try UnitFile.command("ExecStart", in: "pathd-wait-route@.service",
                                                                socketPath: topology.socketPath, instance: "192.0.2.10")
                let errors = topology.directory.path("wait-route.err")
                let unit = try ChildProcess(pathctl, arguments, stderrPath: errors)
                defer { teardown("stop the unit's command") { try unit.terminate("pathd-wait-route@") } }
                try waitUntil("pathd accepted the unit's pathctl") {
                    try hasAccepted(server: daemon.pid, client: unit.pid)
                }
                // The default path is satisfied all along: only the route to the host is waited for.
                let status = try Command.run(pathctl, ["--socket", topology.socketPath, "status", "--check"])
                #expect(status.termination == .exit(0))
                #expect(unit.isRunning, "a unit ordered after it would have started")
                try topology.a.ip("route", "del", "unreachable", "192.0.2.0/24")
                let end = unit.wait(until: Date().addingTimeInterval(20))
                let said = try String(contentsOfFile: errors, encoding: .utf8)
                #expect(end == .exit(0), "stderr: \(said)")
            }
        }

        /// pathd-path@not-expensive's command as systemd runs it (Type=notify): READY=1 once
        /// the path holds, exit 75 the moment a reload makes it expensive, and exit 1 at
        /// once when it does not hold at the start (the unit fails, its jobs do not start).
        @Test("pathd-path@not-expensive: READY=1 on a free path, exit 75 when it turns expensive, 1 when it is")
        func pathInstance() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                try "".write(toFile: config, atomically: true, encoding: .utf8)
                try topology.startDaemon(arguments: ["--config", config])
                // pathd resolves vA's gateway just after it starts, a path line of its own:
                // started before it, the command would say STATUS= again after READY=1.
                try topology.subscribe().waitFor("satisfied, vA's network settled") {
                    PathLine.satisfied(through: "vA")($0) && PathLine.hasSettledNetwork($0)
                }
                let (pathctl, arguments) = try UnitFile.command("ExecStart", in: "pathd-path@.service",
                                                                socketPath: topology.socketPath,
                                                                instance: "not-expensive")
                let notify = try NotifyReceiver(path: topology.directory.path("notify.sock"))
                let errors = topology.directory.path("hold.err")
                let unit = try ChildProcess(pathctl, arguments, stderrPath: errors,
                                            environment: ["NOTIFY_SOCKET": notify.path])
                defer { teardown("stop the unit's command") { try unit.terminate("pathd-path@") } }
                #expect(notify.next() == "READY=1\nSTATUS=the criteria hold: satisfied via vA (IPv4)")
                #expect(unit.isRunning)
                try "[Interface]\nName=vA\nExpensive=yes\n".write(toFile: config, atomically: true, encoding: .utf8)
                #expect(try Command.run(pathctl, ["--socket", topology.socketPath, "reload"]).termination == .exit(0))
                let end = unit.wait(until: Date().addingTimeInterval(20))
                let said = try String(contentsOfFile: errors, encoding: .utf8)
                #expect(end == .exit(75), "stderr: \(said)")
                #expect(said == "pathctl: the path is not satisfied: unsatisfied: the path via vA is expensive, which "
                    + "the criteria exclude\n")

                // Expensive from the start: no READY=1, exit 1 at once.
                let refused = try Command.run(pathctl, arguments)
                #expect(refused.termination == .exit(1), "stderr: \(refused.stderr)")
                #expect(notify.next(within: 0) == nil)
            }
        }

        @Test("ExecReload (systemctl reload) fails on a broken file and pathd keeps the configuration it has")
        func reloadFailsOnABrokenFile() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                try "[Interface]\nName=vA\nExpensive=yes\n".write(toFile: config, atomically: true, encoding: .utf8)
                let daemon = try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("an expensive path through vA") {
                    PathLine.satisfied(through: "vA")($0) && $0["isExpensive"] as? Bool == true
                }
                let (pathctl, arguments) = try UnitFile.command("ExecReload", in: "pathd.service",
                                                                socketPath: topology.socketPath)

                try "[Interface\nExpensive=maybe\n".write(toFile: config, atomically: true, encoding: .utf8)
                let broken = try Command.run(pathctl, arguments)
                #expect(broken.termination == .exit(4), "stderr: \(broken.stderr)")
                #expect(broken.stderr.contains("\(config):1: "), "stderr: \(broken.stderr)")
                #expect(broken.stderr.contains("[configInvalid]"), "stderr: \(broken.stderr)")
                #expect(daemon.isRunning)
                let status = try Command.check(pathctl, ["--socket", topology.socketPath, "status", "--json"])
                let line = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
                #expect(line["isExpensive"] as? Bool == true, "the old configuration is gone: \(status)")

                // The same command applies a valid file.
                try "[Interface]\nName=vA\nExpensive=no\n".write(toFile: config, atomically: true, encoding: .utf8)
                let valid = try Command.run(pathctl, arguments)
                #expect(valid.termination == .exit(0), "stderr: \(valid.stderr)")
                try subscriber.waitFor("the path after the reload, not expensive") {
                    PathLine.satisfied(through: "vA")($0) && $0["isExpensive"] as? Bool == false
                }
            }
        }
    }
}
