// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/PERFORMANCE.md, "Fault drills": the daemon under faults — lost events, a crash, links that vanish or move.
    /// Every wait has a failing deadline; nothing is ordered by sleeping.
    @Suite("Fault drills", .serialized)
    struct FaultDrills {
        @Test("an overrun of a 4 KiB receive buffer ends in a resync line and the kernel's current path")
        func forcedOverrun() throws {
            try withVethTopology { topology in
                try topology.withDaemon(arguments: ["--receive-buffer", "4K"]) { daemon in
                    let subscriber = try topology.subscribe()
                    try subscriber.waitFor("initial satisfied", PathLine.satisfied(through: "vA"))

                    // Stopping pathd while the flood runs makes the overrun certain rather
                    // than a matter of scheduling: nothing drains the 4 KiB buffer. The
                    // default route goes last, so only a re-read of the kernel can see it.
                    // No launcher: the child is pathd itself.
                    let pid = daemon.pid
                    // Routes covering the lookup destination, one per table: the route
                    // filter passes them (it would drop other /24s in the kernel).
                    let routes = (0..<3000).map { "route add 203.0.113.0/24 dev vA table \(1000 + $0)" }
                    #expect(kill(pid, SIGSTOP) == 0)
                    do {
                        defer { kill(pid, SIGCONT) }
                        try topology.batchInA(routes + ["route del default"], name: "overrun.batch")
                    }

                    let resync = try subscriber.waitFor("a resync line") { $0["type"] as? String == "resync" }
                    #expect((resync["generation"] as? Int ?? 0) > 1, "resync: \(resync)")
                    let line = try subscriber.waitFor("unsatisfied after the resync", PathLine.unsatisfied())
                    #expect(PathLine.unsatisfiedReason(line) == "noRoute")

                    try topology.addDefaultRoute()
                    try subscriber.waitFor("satisfied once the route is back", PathLine.satisfied(through: "vA"))
                }
            }
        }

        @Test("kill -9 with subscribers attached: each sees end of file, a new pathd takes the socket")
        func killNineAndRestart() throws {
            try withVethTopology { topology in
                let daemon = try topology.startDaemon()
                let deadline = Date().addingTimeInterval(10)
                let clients = try (0..<3).map { _ in try UnixConnection(connectingTo: topology.socketPath) }
                defer { clients.forEach { $0.close() } }
                let readers = clients.map(LineReader.init)
                for (client, reader) in zip(clients, readers) {
                    try client.send("{\"op\":\"subscribe\"}\n")
                    try reader.waitForLine(containing: "\"type\":\"path\"", until: deadline)
                }

                try daemon.kill()
                for reader in readers {
                    try reader.waitForEndOfFile(until: Date().addingTimeInterval(10))
                }

                try topology.startDaemon()
                let again = try UnixConnection(connectingTo: topology.socketPath)
                defer { again.close() }
                try again.send("{\"op\":\"subscribe\"}\n")
                let line = try LineReader(again).waitForLine(containing: "\"type\":\"path\"",
                                                             until: Date().addingTimeInterval(10))
                #expect(line.contains("\"status\":\"satisfied\""), "line: \(line)")
            }
        }

        @Test("links created, chosen and deleted within one burst: no crash, the path ends on vA")
        func linksVanishDuringBurst() throws {
            try withVethTopology { topology in
                let daemon = try topology.startDaemon()
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("initial satisfied", PathLine.satisfied(through: "vA"))

                // Each pair becomes the route to the lookup destination (203.0.113.1), then
                // is deleted while the next one is being set up: pathd decodes, classifies
                // (sysfs) and looks up while links disappear under it.
                var commands: [String] = []
                for index in 0..<40 {
                    commands += [
                        "link add vc\(index) type veth peer name vd\(index)",
                        "link set vd\(index) up",
                        "link set vc\(index) up",
                        "address add 100.64.\(index).2/24 dev vc\(index)",
                        "route replace 203.0.113.0/24 via 100.64.\(index).1 dev vc\(index)",
                    ]
                    if index > 0 { commands.append("link del vc\(index - 1)") }
                }
                commands.append("link del vc39")
                try topology.batchInA(commands, name: "vanish.batch")

                // A change after the burst: its line proves the burst was processed.
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied without the default route", PathLine.unsatisfied())
                try topology.addDefaultRoute()
                let line = try subscriber.waitFor("satisfied through vA", PathLine.satisfied(primarily: "vA"))
                #expect(PathLine.noInterface(named: "vc")(line), "interfaces: \(PathLine.interfaceNames(line))")
                #expect(daemon.isRunning)
            }
        }

        @Test("a link moved to another namespace and back, then renamed: the path follows")
        func namespaceMoveAndRename() throws {
            try withVethTopology { topology in
                let daemon = try topology.startDaemon()
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("initial satisfied", PathLine.satisfied(through: "vA"))

                func routeThroughVC(named name: String) throws {
                    try topology.batchInA([
                        "link set \(name) up",
                        "address replace 100.64.0.2/24 dev \(name)",
                        "route replace 203.0.113.0/24 via 100.64.0.1 dev \(name)",
                    ], name: "route-\(name).batch")
                }
                try topology.batchInA(["link add vc type veth peer name vd", "link set vd up"], name: "pair.batch")
                try routeThroughVC(named: "vc")
                try subscriber.waitFor("satisfied through vc", PathLine.satisfied(primarily: "vc"))

                // Moving a link out is RTM_DELLINK in this namespace.
                try topology.a.ip("link", "set", "vc", "netns", topology.b.name)
                var line = try subscriber.waitFor("back on vA after the move", PathLine.satisfied(primarily: "vA"))
                #expect(PathLine.noInterface(named: "vc")(line), "interfaces: \(PathLine.interfaceNames(line))")

                // Moving it back is a new link here (down, its address gone).
                try topology.b.ip("link", "set", "vc", "netns", topology.a.name)
                try routeThroughVC(named: "vc")
                try subscriber.waitFor("through vc again", PathLine.satisfied(primarily: "vc"))

                // A link is renamed only while down.
                try topology.a.ip("link", "set", "vc", "down")
                try subscriber.waitFor("on vA while vc is down", PathLine.satisfied(primarily: "vA"))
                try topology.a.ip("link", "set", "vc", "name", "vrenamed")
                try routeThroughVC(named: "vrenamed")
                line = try subscriber.waitFor("through the renamed link", PathLine.satisfied(primarily: "vrenamed"))
                #expect(!PathLine.interfaceNames(line).contains("vc"), "interfaces: \(PathLine.interfaceNames(line))")
                #expect(daemon.isRunning)
            }
        }

        @Test("20,000 hostile request lines and a stuck reader while links flap")
        func hostileClientsWhileFlapping() throws {
            try withVethTopology { topology in
                let daemon = try topology.startDaemon()
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("initial satisfied", PathLine.satisfied(through: "vA"))

                // Subscribes, asks for status a few thousand times and never reads a byte.
                let stuck = try UnixConnection(connectingTo: topology.socketPath)
                defer { stuck.close() }
                try stuck.send("{\"op\":\"subscribe\"}\n" + String(repeating: "{\"op\":\"status\"}\n", count: 2000))

                let hostile = try UnixConnection(connectingTo: topology.socketPath)
                let replies = ReplyCounter(descriptor: hostile.descriptor)
                let lines = HostileLines.make(count: 20_000, pingEvery: 1000)
                let sender = BackgroundSend(descriptor: hostile.descriptor, bytes: lines.bytes)
                // Shut down before closing: both threads then end, and neither can touch
                // a descriptor number reused after the close.
                defer {
                    hostile.shutdownBoth()
                    sender.waitUntilDone()
                    replies.waitUntilEnded()
                    hostile.close()
                }

                for _ in 0..<2 {
                    try topology.b.ip("link", "set", "vB", "down")
                    try subscriber.waitFor("noCarrier", PathLine.unsatisfied(reason: "noCarrier"))
                    try topology.b.ip("link", "set", "vB", "up")
                    try subscriber.waitFor("carrier back", PathLine.satisfied(through: "vA"))
                }
                for _ in 0..<5 {
                    try topology.deleteDefaultRoute()
                    try subscriber.waitFor("unsatisfied", PathLine.unsatisfied())
                    try topology.addDefaultRoute()
                    try subscriber.waitFor("satisfied", PathLine.satisfied(through: "vA"))
                }

                try sender.wait(until: Date().addingTimeInterval(60))
                try replies.wait(until: Date().addingTimeInterval(60), "one reply per hostile line") { counts in
                    counts["error", default: 0] >= lines.errors && counts["pong", default: 0] >= lines.pings
                }
                #expect(daemon.isRunning)
                let fresh = try topology.subscribe()
                try fresh.waitFor("a new subscriber is served", PathLine.satisfied(through: "vA"))
            }
        }
    }
}
