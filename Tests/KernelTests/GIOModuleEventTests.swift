// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// The module against a scripted pathd (FakeDaemon) and against pathd moving traffic:
/// the reconnect back-off, statuses newer than the module, network-changed for another
/// interface, a handler that releases the monitor, and the zone of a link-local address.
extension KernelTests.GIOModule {
    static let hello = #"{"type":"hello","protocol":1,"version":"0.1.0","generation":1}"#

    static func path(_ status: String, interface: String = "eth0", index: Int = 2) -> String {
        #"{"type":"path","generation":1,"sequence":1,"status":"\#(status)","unsatisfiedReason":null,"#
            + #""interfaces":[{"name":"\#(interface)","index":\#(index),"type":"wiredEthernet","tunnel":false}],"#
            + #""isExpensive":false,"isConstrained":false,"gateways":["192.0.2.1"],"connectivity":{"state":"unknown"}}"#
    }

    /// gio-watch (under `launcher`, if any) in a namespace of its own, on `daemon`'s socket.
    static func withScriptedWatch(_ daemon: FakeDaemon, in directory: TemporaryDirectory, launcher: [String] = [],
                                  environment: [String: String] = [:],
                                  _ body: (GIOWatch) throws -> Void) throws {
        let namespace = try NetworkNamespace()
        defer { teardown("remove namespace \(namespace.name)") { try namespace.remove() } }
        let watch = try GIOWatch(in: namespace, socketPath: daemon.socketPath,
                                 stderrPath: directory.path("gio-watch.stderr"), launcher: launcher,
                                 environment: environment)
        defer { teardown("stop gio-watch") { try watch.kill() } }
        let initial = try watch.next("initial", "the initial answer", timeout: .seconds(60))
        #expect(initial["monitor"] as? String == monitorType, "\(initial); stderr:\n\(watch.process.stderr)")
        #expect(MonitorAnswer(initial) == MonitorAnswer(available: true))
        try body(watch)
    }

    /// docs/PROTOCOL.md, "Reconnecting": the back-off (100 ms, doubling to 5 s) starts
    /// over only after a connection that stayed up for the cap. The module logs each step
    /// it waits (G_MESSAGES_DEBUG); against a pathd that closes after each path the steps
    /// double. Starting over on every path line logs 100 ms each time.
    @Test("a pathd that closes after each path is retried ever more slowly, not every 100 ms")
    func backOffAgainstCrashLoop() throws {
        try withTemporaryDirectory { directory in
            // The first connection is held (init needs its answer) until the test closes
            // it; every later one is the crash loop.
            let daemon = try FakeDaemon(socketPath: directory.path("pathd.sock")) { connection in
                FakeDaemon.Reply([Self.hello, Self.path("satisfied")], closesAfterRequest: connection > 0)
            }
            defer { daemon.stop() }
            try Self.withScriptedWatch(daemon, in: directory) { watch in
                daemon.closeOpenConnections()
                // Four waits: after the held connection and after three crash-loop ones.
                #expect(daemon.waitForAccepted(5, timeout: .seconds(30)),
                        "the module reconnected; stderr:\n\(watch.process.stderr)")
                let steps = watch.process.stderr.matches(of: /\(back-off (\d+) ms\)/).compactMap { Int($0.1) }
                #expect(Array(steps.prefix(4)) == [100, 200, 400, 800], "back-off steps logged: \(steps)")
                let kept = try watch.state()
                #expect(MonitorAnswer(kept) == MonitorAnswer(available: true), "the last answer is kept: \(kept)")
            }
        }
    }

    /// Future-v1's path of an unknown status (docs/PROTOCOL.md, "Version": treat it as
    /// unsatisfied), then every other line a newer pathd may send, then a satisfied path:
    /// the connection is kept and only the two paths are events.
    @Test("a path status newer than the module is not available; the rest of a future pathd changes nothing")
    func unknownStatusIsUnavailable() throws {
        let future = try Fixture.compatibilityLines("future-v1.jsonl")
        try withTemporaryDirectory { directory in
            let greeting = Array(future[...Fixture.Future.hello])
            let daemon = try FakeDaemon(socketPath: directory.path("pathd.sock")) { _ in
                FakeDaemon.Reply(greeting + [Self.path("satisfied")])
            }
            defer { daemon.stop() }
            try Self.withScriptedWatch(daemon, in: directory) { watch in
                daemon.send(future[Fixture.Future.unknownStatus])
                let unknown = try watch.nextChange("the path of an unknown status")
                #expect(MonitorAnswer(unknown) == MonitorAnswer(available: false), "\(unknown)")
                for (index, line) in future.enumerated() where index > Fixture.Future.unknownStatus {
                    daemon.send(line)
                }
                daemon.send(Self.path("satisfied"))
                let back = try watch.nextChange("satisfied again")
                #expect(MonitorAnswer(back) == MonitorAnswer(available: true), "\(back)")
                #expect(daemon.accepted == 1, "the module kept its connection")
            }
        }
    }

    /// A second monitor that only the program owns, released by its own network-changed
    /// handler while the module is still emitting it: under Valgrind, no access to the
    /// freed monitor.
    @Test("a handler that releases its monitor: no use after free (Valgrind)",
          .enabled(if: hasValgrind, "valgrind is not installed"))
    func handlerReleasesMonitor() throws {
        try withTemporaryDirectory { directory in
            let daemon = try FakeDaemon(socketPath: directory.path("pathd.sock")) { _ in
                FakeDaemon.Reply([Self.hello, Self.path("satisfied")])
            }
            defer { daemon.stop() }
            let log = directory.path("valgrind.log")
            let report = { diagnosticText(ofFile: log) }
            try Self.withScriptedWatch(
                daemon, in: directory,
                launcher: [try Command.find("valgrind").path, "--error-exitcode=99", "--log-file=\(log)"],
                environment: ["G_SLICE": "always-malloc", "G_DEBUG": "gc-friendly"]
            ) { watch in
                try watch.process.send("drop-on-change")
                let second = try watch.next("second", "the second monitor", timeout: .seconds(60))
                #expect(second["error"] is NSNull, "\(second)")
                #expect(daemon.accepted == 2)
                // Two lines in one write are one burst: one network-changed, emitted after
                // both were read and saying where the burst ended (gio-module/README.md,
                // "At run time"), so the handler sees the second line's answer.
                daemon.send(Self.path("unsatisfied") + "\n" + Self.path("satisfied", interface: "eth1", index: 3))
                let dropped = try watch.next("dropped", "the second monitor's handler", timeout: .seconds(60))
                #expect(dropped["available"] as? Bool == true)
                let end = try watch.finish(timeout: .seconds(60))
                #expect(end == .exit(0), "valgrind:\n\(report())")
                #expect(report().contains("ERROR SUMMARY: 0 errors"), "valgrind:\n\(report())")
            }
        }
    }

    /// A second link, vC–vD (192.0.2.0/24, the router at .1 in B; not 203.0.113.0/24,
    /// where pathd's default lookup goes); the default route moves from vA to vC and
    /// back: pathd's path stays satisfied, GLib's answer stays the same, and programs hear
    /// network-changed each time (README.md, "Mapping").
    @Test("the default route moving to another veth: network-changed, available staying TRUE")
    func trafficMoves() throws {
        try withVethTopology { topology in
            try topology.a.ip("link", "add", "vC", "type", "veth", "peer", "name", "vD", "netns", topology.b.name)
            try topology.a.ip("address", "add", "192.0.2.2/24", "dev", "vC")
            try topology.b.ip("address", "add", "192.0.2.1/24", "dev", "vD")
            try topology.a.ip("link", "set", "vC", "up")
            try topology.b.ip("link", "set", "vD", "up")
            try waitUntil("vC in \(topology.a.name) is operationally up") {
                try topology.a.ip("-o", "link", "show", "vC").contains(" state UP ")
            }
            try Self.withWatch(topology) { watch, subscriber, _ in
                try Self.expectChange("default via vC", watch, subscriber, PathLine.satisfied(primarily: "vC")) {
                    try topology.a.ip("route", "replace", "default", "via", "192.0.2.1", "dev", "vC")
                }
                let state = try watch.state()
                #expect(MonitorAnswer(state) == MonitorAnswer(available: true), "\(state)")
                try Self.expectChange("default back via vA", watch, subscriber, PathLine.satisfied(primarily: "vA")) {
                    try topology.a.ip("route", "replace", "default", "via", VethTopology.routerAddress, "dev", "vA")
                }
            }
        }
    }

    /// Two links with their own fe80::/64; a rule prohibits traffic sent out of vC. The
    /// zone of fe80::1%vC must reach pathd (as `interface`): without it the kernel would
    /// answer for vA, the first link, where fe80::1 is reachable.
    @Test("can_reach fe80::1%vC is judged on vC, not on the first link", arguments: [false, true])
    func canReachZone(async: Bool) throws {
        try withVethTopology { topology in
            try KernelTests.RouteKindsKernelTests.addIPv6(topology, secondLink: true)
            try topology.a.ip("-6", "rule", "add", "oif", "vC", "prohibit")
            try Self.withWatch(topology) { watch, _, _ in
                let onA = try watch.canReach("fe80::1%vA", async: async)
                #expect(onA["reachable"] as? Bool == true, "\(onA)")
                let onC = try watch.canReach("fe80::1%vC", async: async)
                #expect(onC["reachable"] as? Bool == false, "\(onC)")
                #expect(onC["error"] as? String == "HOST_UNREACHABLE", "\(onC)")
            }
        }
    }
}
