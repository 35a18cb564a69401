// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/ARCHITECTURE.md, "The GIO module (programs that ask GLib)": the module loaded
    /// into a real GLib program (gio-watch), which must say what pathd's path says, value
    /// by value (gio-module/README.md, "Mapping").
    @Suite("GIO network-monitor module", .enabled(if: GIOModuleBuild.isBuilt, "\(GIOModuleBuild.notBuiltMessage)"),
           .serialized)
    struct GIOModule {
        static let monitorType = "PathdNetworkMonitor"

        /// The mapping as the tests state it, independently of the module's C: what GLib
        /// should report for a pathd path line.
        static func expectedAnswer(_ line: [String: Any]) -> MonitorAnswer {
            let available = ["satisfied", "requiresConnection"].contains(PathLine.status(line) ?? "")
            let metered = available && (line["isExpensive"] as? Bool == true || line["isConstrained"] as? Bool == true)
            let state = (line["connectivity"] as? [String: Any])?["state"] as? String
            let checked = ["full": "full", "portal": "portal", "limited": "limited", "none": "limited"][state ?? ""]
            return MonitorAnswer(available: available, metered: metered, connectivity: available ? checked : nil)
        }

        /// pathd running in A, a subscriber that has seen its first line, and gio-watch
        /// that has printed its first answer (checked against that line).
        static func withWatch(_ topology: VethTopology, arguments: [String] = [],
                              _ body: (GIOWatch, Subscriber, DaemonProcess) throws -> Void) throws {
            let daemon = try topology.startDaemon(arguments: arguments)
            let subscriber = try topology.subscribe()
            let first = try subscriber.waitFor("the first path", PathLine.isPath)
            let watch = try GIOWatch(in: topology.a, socketPath: topology.socketPath,
                                     stderrPath: topology.directory.path("gio-watch.stderr"))
            defer { teardown("stop gio-watch") { try watch.kill() } }
            let initial = try watch.next("initial", "the initial answer")
            #expect(initial["monitor"] as? String == monitorType, "\(initial); stderr:\n\(watch.process.stderr)")
            #expect(MonitorAnswer(initial) == expectedAnswer(first), "pathd said \(first)")
            try body(watch, subscriber, daemon)
        }

        /// After `change`, pathd's next line matching `predicate`, then gio-watch's next
        /// change, which must say what that line says (and be the only one in between).
        static func expectChange(_ description: String, _ watch: GIOWatch, _ subscriber: Subscriber,
                                 _ predicate: @escaping ([String: Any]) -> Bool,
                                 change: () throws -> Void) throws {
            try change()
            let line = try subscriber.waitFor(description) { PathLine.isPath($0) && predicate($0) }
            let event = try watch.nextChange(description)
            #expect(event["event"] as? String == "changed")
            #expect(MonitorAnswer(event) == expectedAnswer(line), "\(description): pathd said \(line), GLib \(event)")
        }

        @Test("pathd's module is GLib's monitor, and says what pathd's path says")
        func chosen() throws {
            try withVethTopology { topology in
                try Self.withWatch(topology) { watch, _, _ in
                    let state = try watch.state()
                    #expect(MonitorAnswer(state) == MonitorAnswer(available: true))
                    #expect(try watch.finish() == .exit(0))
                }
            }
        }

        @Test("no pathd socket: the module declines and GLib falls back to its netlink backend")
        func declinesWithoutSocket() throws {
            try withVethTopology { topology in
                let watch = try GIOWatch(in: topology.a, socketPath: topology.directory.path("absent.sock"),
                                         stderrPath: topology.directory.path("gio-watch.stderr"))
                defer { teardown("stop gio-watch") { try watch.kill() } }
                let initial = try watch.next("initial", "the initial answer")
                #expect(initial["monitor"] as? String == "GNetworkMonitorNetlink")
                #expect(watch.process.stderr.contains("Failed to initialize pathd (PathdNetworkMonitor)"),
                        "stderr:\n\(watch.process.stderr)")
            }
        }

        @Test("a socket that never greets: the module declines within its bound, GLib falls back")
        func declinesWithoutGreeting() throws {
            try withVethTopology { topology in
                let socket = topology.directory.path("silent.sock")
                let ready = topology.directory.path("silent.ready")
                let script = "import socket, sys, time\n"
                    + "s = socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen(16)\n"
                    + "open(sys.argv[2], 'w').close()\ntime.sleep(120)\n"
                let listener = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, socket, ready],
                                                stderrPath: topology.directory.path("silent.stderr"))
                defer { teardown("stop the silent listener") { try listener.kill("the silent listener") } }
                try waitUntil("the silent socket listens") { FileManager.default.fileExists(atPath: ready) }
                let watch = try GIOWatch(in: topology.a, socketPath: socket,
                                         stderrPath: topology.directory.path("gio-watch.stderr"))
                defer { teardown("stop gio-watch") { try watch.kill() } }
                let initial = try watch.next("initial", "the initial answer")
                #expect(initial["monitor"] as? String == "GNetworkMonitorNetlink")
                #expect(watch.process.stderr.contains("sent no path within 500 ms"), "stderr:\n\(watch.process.stderr)")
            }
        }

        @Test("carrier loss, default route loss, kill switches and policy routing: available as pathd's path")
        func availability() throws {
            try withVethTopology { topology in
                try topology.addTunnel()
                try Self.withWatch(topology) { watch, subscriber, _ in
                    try Self.expectChange("carrier lost", watch, subscriber,
                                          PathLine.unsatisfied(reason: "noCarrier")) {
                        try topology.b.ip("link", "set", "vB", "down")
                    }
                    try Self.expectChange("carrier back", watch, subscriber, PathLine.satisfied(through: "vA")) {
                        try topology.b.ip("link", "set", "vB", "up")
                    }
                    try Self.expectChange("default route gone", watch, subscriber,
                                          PathLine.unsatisfied(reason: "noRoute")) {
                        try topology.deleteDefaultRoute()
                    }
                    // Policy routing: the only default is in table 100, which a rule selects.
                    try Self.expectChange("default in a rule's table", watch, subscriber,
                                          PathLine.satisfied(through: "vA")) {
                        try topology.a.ip("route", "add", "default", "via", VethTopology.routerAddress, "table", "100")
                        try topology.a.ip("rule", "add", "priority", "100", "table", "100")
                    }
                    // A VPN kill switch: a rule-selected table whose default rejects.
                    for type in ["blackhole", "unreachable", "prohibit"] {
                        try Self.expectChange("kill switch (\(type))", watch, subscriber,
                                              PathLine.unsatisfied(reason: "routeRejects")) {
                            try topology.a.ip("route", "replace", type, "default", "table", "90")
                            try topology.a.ip("rule", "add", "priority", "90", "table", "90")
                        }
                        try Self.expectChange("kill switch (\(type)) lifted", watch, subscriber,
                                              PathLine.satisfied(through: "vA")) {
                            try topology.a.ip("rule", "del", "priority", "90")
                        }
                    }
                    // Traffic moves to tun0, still satisfied and free: one network-changed
                    // with the same answer (README.md, "Mapping"), and nothing else before
                    // the route loss that follows.
                    try Self.expectChange("through tun0, still available", watch, subscriber,
                                          { PathLine.interfaceNames($0).first == "tun0" }) {
                        try topology.a.ip("route", "add", "0.0.0.0/1", "via", VethTopology.tunnelPeer, "table", "100")
                        try topology.a.ip("route", "add", "128.0.0.0/1", "via", VethTopology.tunnelPeer, "table", "100")
                    }
                    try Self.expectChange("the rule's table unused: no route", watch, subscriber,
                                          PathLine.unsatisfied(reason: "noRoute")) {
                        try topology.a.ip("rule", "del", "priority", "100")
                    }
                }
            }
        }

        static func writeConfig(_ topology: VethTopology, _ text: String) throws -> String {
            let path = topology.directory.path("pathd.conf")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        @Test("metered follows the configuration: Expensive=yes, then Constrained=yes, then neither")
        func metered() throws {
            try withVethTopology { topology in
                let config = try Self.writeConfig(topology, "[Interface]\nName=vA\nExpensive=yes\n")
                try Self.withWatch(topology, arguments: ["--config", config]) { watch, subscriber, daemon in
                    #expect(MonitorAnswer(try watch.state()) == MonitorAnswer(available: true, metered: true))
                    // Constrained alone still asks programs to spare the link: no event, same answer.
                    _ = try Self.writeConfig(topology, "[Interface]\nName=vA\nConstrained=yes\n")
                    try daemon.send(SIGHUP)
                    try subscriber.waitFor("constrained, not expensive") {
                        PathLine.isPath($0) && $0["isConstrained"] as? Bool == true && $0["isExpensive"] as? Bool
                            == false
                    }
                    try Self.expectChange("free again", watch, subscriber, { $0["isConstrained"] as? Bool == false }) {
                        _ = try Self.writeConfig(topology, "[Interface]\nName=vA\n")
                        try daemon.send(SIGHUP)
                    }
                    #expect(MonitorAnswer(try watch.state()) == MonitorAnswer(available: true, metered: false))
                }
            }
        }

        /// The documented decision: an on-demand link that traffic would bring up is
        /// available (and its cost is the program's to know).
        @Test("requiresConnection (only an expensive on-demand link) is available and metered")
        func requiresConnection() throws {
            try withVethTopology { topology in
                try topology.a.ip("link", "add", "dial0", "type", "veth", "peer", "name", "dialB", "netns",
                                  topology.b.name)
                let config = try Self.writeConfig(topology, "[Interface]\nName=dial0\nOnDemand=yes\nExpensive=yes\n")
                try Self.withWatch(topology, arguments: ["--config", config]) { watch, subscriber, _ in
                    try Self.expectChange("dial0 on demand", watch, subscriber,
                                          { PathLine.status($0) == "requiresConnection" }) {
                        try topology.deleteDefaultRoute()
                    }
                    #expect(MonitorAnswer(try watch.state()) == MonitorAnswer(available: true, metered: true))
                }
            }
        }

        @Test("connectivity follows pathd-probe: full, portal, limited, and LOCAL when the path goes")
        func connectivity() throws {
            try withVethTopology { topology in
                let server = try CheckServer(in: topology.b, address: VethTopology.routerAddress,
                                             directory: topology.directory)
                let config = try KernelTests.Connectivity.writeConfig(topology, url: server.url)
                try Self.withWatch(topology, arguments: ["--config", config]) { watch, subscriber, _ in
                    let probe = try ProbeProcess(in: topology.a, socketPath: topology.socketPath, configPath: config,
                                                 stderrPath: topology.directory.path("probe.stderr"))
                    defer { teardown("stop pathd-probe") { try probe.terminate() } }
                    // Unchecked, GLib hears FULL (available, no check yet); checked full: no event.
                    try subscriber.waitFor("checked full") { KernelTests.Connectivity.state($0) == "full" }
                    try Self.expectChange("portal", watch, subscriber,
                                          { KernelTests.Connectivity.state($0) == "portal" }) {
                        try server.set(mode: "redirect")
                        try probe.checkNow()
                    }
                    try Self.expectChange("limited", watch, subscriber,
                                          { KernelTests.Connectivity.state($0) == "limited" }) {
                        try server.set(mode: "trickle")
                        try probe.checkNow()
                    }
                    try Self.expectChange("carrier lost", watch, subscriber,
                                          PathLine.unsatisfied(reason: "noCarrier")) {
                        try topology.b.ip("link", "set", "vB", "down")
                    }
                }
            }
        }
    }
}
