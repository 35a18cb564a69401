// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// pathd.conf against the real daemon: a Name= glob, reloads through `pathctl reload`.
    @Suite("pathd.conf and reload against pathd", .serialized)
    struct ConfigAgainstDaemon {
        static func isExpensive(_ line: [String: Any]) -> Bool? { line["isExpensive"] as? Bool }
        static func sequence(_ line: [String: Any]) -> Int? { line["sequence"] as? Int }

        static func reload(_ topology: VethTopology) throws -> CommandResult {
            try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "reload"])
        }

        @Test("Expensive=yes by glob, a reload that flips it publishes one line, a broken reload changes nothing")
        func expensiveByGlobAndReload() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                func writeConfig(_ text: String) throws {
                    try text.write(toFile: config, atomically: true, encoding: .utf8)
                }
                try writeConfig("[Interface]\nName=v[A-Z]* !vB\nExpensive=yes\n")
                try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                let first = try subscriber.waitFor("an expensive path through vA") {
                    PathLine.satisfied(through: "vA")($0) && Self.isExpensive($0) == true
                        && PathLine.hasSettledNetwork($0)
                }
                let sequence = try #require(Self.sequence(first))

                try writeConfig("[Interface]\nName=v[A-Z]* !vB\nExpensive=no\n")
                let flipped = try Self.reload(topology)
                #expect(flipped.termination == .exit(0), "stderr: \(flipped.stderr)")
                let second = try subscriber.nextLine("the path after the reload")
                #expect(PathLine.satisfied(through: "vA")(second))
                #expect(Self.isExpensive(second) == false, "line: \(second)")
                #expect(Self.sequence(second) == sequence + 1)

                try writeConfig("[Interface\nExpensive=maybe\n")
                let broken = try Self.reload(topology)
                #expect(broken.termination == .exit(4), "stderr: \(broken.stderr)")
                #expect(broken.stderr.contains("\(config):1: section header"), "stderr: \(broken.stderr)")
                #expect(broken.stderr.contains("configInvalid"), "stderr: \(broken.stderr)")

                // Flip back: the very next line is this one, one sequence on. So the broken
                // reload published nothing and the subscriber is still connected.
                try writeConfig("[Interface]\nName=vA\nExpensive=yes\n")
                let restored = try Self.reload(topology)
                #expect(restored.termination == .exit(0), "stderr: \(restored.stderr)")
                let third = try subscriber.nextLine("the path after the second reload")
                #expect(Self.isExpensive(third) == true, "line: \(third)")
                #expect(Self.sequence(third) == sequence + 2)
            }
        }

        @Test("SIGHUP reloads: a new [Interface] section makes the path expensive with one line")
        func sighupReloads() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                try "[Daemon]\nLogLevel=info\n".write(toFile: config, atomically: true, encoding: .utf8)
                try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                let first = try subscriber.waitFor("a free path through vA") {
                    PathLine.satisfied(through: "vA")($0) && Self.isExpensive($0) == false
                        && PathLine.hasSettledNetwork($0)
                }
                let sequence = try #require(Self.sequence(first))
                // A drop-in, as a package would add one.
                try FileManager.default.createDirectory(atPath: config + ".d", withIntermediateDirectories: true)
                try "[Interface]\nKind=veth\nExpensive=yes\n".write(toFile: config + ".d/50-veth.conf",
                                                                    atomically: true,
                                                                    encoding: .utf8)
                let probe = try UnixConnection(connectingTo: topology.socketPath)
                let pid = try peerProcessID(of: probe)
                probe.close()
                #expect(kill(pid, SIGHUP) == 0)
                let second = try subscriber.nextLine("the path after SIGHUP")
                #expect(Self.isExpensive(second) == true, "line: \(second)")
                #expect(Self.sequence(second) == sequence + 1)
            }
        }
    }
}
