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
