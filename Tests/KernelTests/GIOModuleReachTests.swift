// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests.GIOModule {
    @Test("pathd restarting: the answer is kept, no event, and the module reconnects")
    func pathdRestarts() throws {
        try withVethTopology { topology in
            try Self.withWatch(topology) { watch, _, daemon in
                try daemon.terminate()
                #expect(MonitorAnswer(try watch.state()) == MonitorAnswer(available: true), "the last answer is kept")
                let restarted = try topology.startDaemon()
                try waitUntil("the module reconnects to the new pathd", timeout: .seconds(20),
                              detail: { "; gio-watch stderr:\n\(watch.process.stderr)" }) {
                    try hasAccepted(server: restarted.pid, client: watch.process.pid, in: topology.a)
                }
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("the new pathd's first path", PathLine.satisfied(through: "vA"))
                // The next event is the carrier loss: the reconnection itself sent none.
                try Self.expectChange("carrier lost after the restart", watch, subscriber,
                                      PathLine.unsatisfied(reason: "noCarrier")) {
                    try topology.b.ip("link", "set", "vB", "down")
                }
            }
        }
    }

    /// 198.51.100.1 is on vA's subnet; 10.200.0.0/16 is rejected by an unreachable route
    /// while the default path stays satisfied; without a default route the network is gone,
    /// yet the on-link router is still reachable: pathd answers per destination.
    @Test("can_reach: reachable, HOST_UNREACHABLE, NETWORK_UNREACHABLE, as GLib's own backends say",
          arguments: [false, true])
    func canReach(async: Bool) throws {
        try withVethTopology { topology in
            try Self.withWatch(topology) { watch, subscriber, _ in
                try topology.a.ip("route", "add", "unreachable", "10.200.0.0/16")
                let router = try watch.canReach(VethTopology.routerAddress, async: async)
                #expect(router["reachable"] as? Bool == true && router["error"] is NSNull, "\(router)")
                let beyond = try watch.canReach("172.16.5.5", async: async)
                #expect(beyond["reachable"] as? Bool == true, "\(beyond)")
                let local = try watch.canReach("localhost", async: async)
                #expect(local["reachable"] as? Bool == true, "\(local)")
                let rejected = try watch.canReach("10.200.0.5", async: async)
                #expect(rejected["reachable"] as? Bool == false)
                #expect(rejected["error"] as? String == "HOST_UNREACHABLE", "\(rejected)")
                #expect(rejected["message"] as? String == "Host unreachable")

                try Self.expectChange("default route gone", watch, subscriber,
                                      PathLine.unsatisfied(reason: "noRoute")) {
                    try topology.deleteDefaultRoute()
                }
                let offline = try watch.canReach("172.16.5.5", async: async)
                #expect(offline["reachable"] as? Bool == false)
                #expect(offline["error"] as? String == "NETWORK_UNREACHABLE", "\(offline)")
                #expect(offline["message"] as? String == "Network unreachable")
                let onLink = try watch.canReach(VethTopology.routerAddress, async: async)
                #expect(onLink["reachable"] as? Bool == true, "\(onLink)")
                #expect(try watch.finish() == .exit(0))
            }
        }
    }

    static var hasValgrind: Bool { (try? Command.find("valgrind")) != nil }

    /// The process that loads the module, under Valgrind through changes, a reconnect
    /// and can_reach: no invalid access, no definite leak (GLib's type system keeps
    /// reachable memory by design).
    @Test("under Valgrind: no memory error and no definite leak",
          .enabled(if: hasValgrind, "valgrind is not installed"))
    func valgrind() throws {
        try withVethTopology { topology in
            let daemon = try topology.startDaemon()
            let subscriber = try topology.subscribe()
            try subscriber.waitFor("satisfied", PathLine.satisfied(through: "vA"))
            let log = topology.directory.path("valgrind.log")
            let watch = try GIOWatch(in: topology.a, socketPath: topology.socketPath,
                                     stderrPath: topology.directory.path("gio-watch.stderr"),
                                     launcher: [try Command.find("valgrind").path, "--error-exitcode=99",
                                                "--leak-check=full",
                                                "--errors-for-leak-kinds=definite", "--log-file=\(log)"],
                                     environment: ["G_SLICE": "always-malloc", "G_DEBUG": "gc-friendly"])
            defer { teardown("stop gio-watch") { try watch.kill() } }
            let report = { diagnosticText(ofFile: log) }
            let initial = try watch.next("initial", "the initial answer", timeout: .seconds(60))
            #expect(initial["monitor"] as? String == Self.monitorType, "\(initial); log:\n\(report())")
            try Self.expectChange("carrier lost", watch, subscriber, PathLine.unsatisfied(reason: "noCarrier")) {
                try topology.b.ip("link", "set", "vB", "down")
            }
            try daemon.terminate()
            let restarted = try topology.startDaemon()
            let second = try topology.subscribe()
            try second.waitFor("the new pathd's first path", PathLine.unsatisfied(reason: "noCarrier"))
            try waitUntil("the module reconnects", timeout: .seconds(30)) {
                try hasAccepted(server: restarted.pid, client: watch.process.pid, in: topology.a)
            }
            try Self.expectChange("carrier back", watch, second, PathLine.satisfied(through: "vA")) {
                try topology.b.ip("link", "set", "vB", "up")
            }
            for async in [false, true] {
                _ = try watch.canReach(VethTopology.routerAddress, async: async, timeout: .seconds(60))
                _ = try watch.canReach("localhost", async: async, timeout: .seconds(60))
            }
            let end = try watch.finish(timeout: .seconds(60))
            #expect(end == .exit(0), "valgrind:\n\(report())")
            #expect(report().contains("ERROR SUMMARY: 0 errors"), "valgrind:\n\(report())")
            let summary = report().split(separator: "\n").filter {
                $0.contains("total heap usage") || $0.contains(" lost: ") || $0.contains("ERROR SUMMARY")
            }
            print("gio-watch under valgrind:\n" + summary.joined(separator: "\n"))
        }
    }
}

extension KernelTests.GIOModule {
    /// scripts/test/hostile-pathd.py in pathd's place: garbage, wrong types, unknown
    /// types and values, deep nesting, NUL and bad UTF-8 change nothing; one real change
    /// is one event; a line past 1 MiB drops the connection, and the reconnection's
    /// unchanged answer is no event.
    @Test("a hostile peer on pathd's socket: the program neither crashes nor hears noise")
    func hostilePeer() throws {
        try withTemporaryDirectory { directory in
            let socket = directory.path("hostile.sock")
            let ready = directory.path("hostile.ready")
            let peer = try ProgramProcess(URL(fileURLWithPath: "/usr/bin/python3"),
                                          [Repository.path("scripts/test/hostile-pathd.py"), socket, ready],
                                          stderrPath: directory.path("hostile.stderr"))
            defer { teardown("stop the hostile peer") { try peer.kill() } }
            try waitUntil("the hostile peer listens", detail: { "; stderr: \(peer.stderr)" }) {
                FileManager.default.fileExists(atPath: ready)
            }
            let namespace = try NetworkNamespace()
            defer { teardown("remove namespace \(namespace.name)") { try namespace.remove() } }
            let watch = try GIOWatch(in: namespace, socketPath: socket, stderrPath: directory.path("gio-watch.stderr"))
            defer { teardown("stop gio-watch") { try watch.kill() } }
            let initial = try watch.next("initial", "the initial answer")
            #expect(initial["monitor"] as? String == Self.monitorType, "stderr:\n\(watch.process.stderr)")
            #expect(MonitorAnswer(initial) == MonitorAnswer(available: true))
            let expensive = try watch.nextChange("the one real change: expensive")
            #expect(MonitorAnswer(expensive) == MonitorAnswer(available: true, metered: true))
            try peer.waitForLine("the module reconnects after the overlong line") { $0.hasPrefix("second:") }
            let unsatisfied = try watch.nextChange("unsatisfied after the reconnection")
            #expect(MonitorAnswer(unsatisfied) == MonitorAnswer(available: false))
            #expect(try watch.finish() == .exit(0))
        }
    }
}
