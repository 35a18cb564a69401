// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// The network criteria (`--network`, `--not-network`, and `--not-expensive` decided by
    /// a `[Network]` section) against the real pathd: vA's router at 198.51.100.1 is `home`
    /// or `hotspot` by its MAC alone (`NetworkIdentity.configuration`, hotspot expensive).
    ///
    /// The router changes its MAC with vA's carrier up, as one replaced behind a switch: a
    /// carrier flap would make the path unsatisfied (noCarrier) and stop every command
    /// whatever its criteria, so it could not show that the network stopped it. The kernel
    /// keeps the old MAC until its entry fails (15 to 45 s, docs/ARCHITECTURE.md "Network
    /// identity"); the test deletes the entry instead, and pathd resolves the gateway anew
    /// (ResolveGateways=): the link is unidentified for that moment, then on the new network.
    @Suite("network criteria against pathd", .serialized)
    struct NetworkCriteria {
        typealias Identity = NetworkIdentity

        /// The router answers with `mac` from now on, and vA's neighbour entry is renewed.
        static func routerBecomes(_ mac: String, _ topology: VethTopology) throws {
            try TwoNetworks.routerBecomes(mac, router: topology.b.name, routerLink: "vB",
                                          host: topology.a.name, hostLink: "vA", gateway: VethTopology.routerAddress)
        }

        static let notOnAllowedNetwork = "pathctl: the path is not satisfied: unsatisfied: the path via vA is not on "
            + "a network the criteria allow"

        @Test("wait --network home returns once home is identified; run --not-network hotspot stops (75) on hotspot")
        func waitAndRunFollowTheNetwork() throws {
            try withVethTopology { topology in
                try topology.b.ip("link", "set", "vB", "address", Identity.hotspot)
                let daemon = try Identity.launchDaemon(topology)
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("on hotspot", Identity.on("hotspot"))
                let pathctl = try BuiltProduct.url("pathctl")
                let socket = ["--socket", topology.socketPath]
                let now = try Command.run(pathctl, socket + ["wait", "--network", "home", "--timeout", "0"])
                #expect(now.termination == .exit(1), "on hotspot: \(now.stderr)")

                let errors = topology.directory.path("wait.err")
                let waiting = try ChildProcess(pathctl, socket + ["wait", "--network", "home"], stderrPath: errors)
                defer { teardown("stop pathctl wait") { try waiting.terminate("pathctl wait") } }
                try waitUntil("pathd accepted pathctl wait") {
                    try hasAccepted(server: daemon.pid, client: waiting.pid)
                }
                #expect(waiting.isRunning, "on hotspot it waits")
                try Self.routerBecomes(Identity.home, topology)
                try subscriber.waitFor("on home", Identity.on("home"))
                let waited = waiting.wait(until: Date().addingTimeInterval(20))
                let waitSaid = try OutputLines.text(ofFile: errors)
                #expect(waited == .exit(0), "stderr: \(waitSaid)")

                let runner = try PathctlRun.Runner(topology, ["--not-network", "hotspot"])
                defer { teardown("stop pathctl run") { try runner.process.terminate("pathctl run") } }
                let pid = try runner.waitForStart()
                try Self.routerBecomes(Identity.hotspot, topology)
                #expect(try runner.end() == .exit(75))
                #expect(try runner.logged() == ["start \(pid)", "signal \(SIGTERM)"])
                let said = try runner.said()
                #expect(said == Self.notOnAllowedNetwork + "; stopping /usr/bin/python3 (SIGTERM)\n", "\(said)")
                try subscriber.waitFor("on hotspot again", Identity.on("hotspot"))
            }
        }

        /// pathd-path@network:home's command as systemd runs it (Type=notify).
        @Test("hold network:home (a unit's instance word): READY=1 on home, exit 75 when the router makes it hotspot")
        func holdNetworkWord() throws {
            try withVethTopology { topology in
                try topology.b.ip("link", "set", "vB", "address", Identity.home)
                let subscriber = try Identity.startDaemon(topology)
                try subscriber.waitFor("on home", Identity.on("home"))
                let (pathctl, arguments) = try UnitFile.command("ExecStart", in: "pathd-path@.service",
                                                                socketPath: topology.socketPath,
                                                                instance: "network:home")
                let notify = try NotifyReceiver(path: topology.directory.path("notify.sock"))
                let errors = topology.directory.path("hold.err")
                let unit = try ChildProcess(pathctl, arguments, stderrPath: errors,
                                            environment: ["NOTIFY_SOCKET": notify.path])
                defer { teardown("stop the unit's command") { try unit.terminate("pathd-path@network:home") } }
                #expect(notify.next() == "READY=1\nSTATUS=the criteria hold: satisfied via vA on home (IPv4)")
                try Self.routerBecomes(Identity.hotspot, topology)
                let end = unit.wait(until: Date().addingTimeInterval(20))
                let said = try OutputLines.text(ofFile: errors)
                #expect(end == .exit(75), "stderr: \(said)")
                #expect(said == Self.notOnAllowedNetwork + "\n")
                try subscriber.waitFor("on hotspot", Identity.on("hotspot"))

                // On hotspot from the start: no READY=1, exit 1 at once.
                let refused = try Command.run(pathctl, arguments, timeout: .seconds(20))
                #expect(refused.termination == .exit(1), "stderr: \(refused.stderr)")
                #expect(notify.next(within: 0) == nil)
            }
        }

        @Test("a network no [Network] section names is a usage error (2) for status, run and hold; pathd serves on")
        func unknownNetworkName() throws {
            try withVethTopology { topology in
                try topology.b.ip("link", "set", "vB", "address", Identity.home)
                let subscriber = try Identity.startDaemon(topology)
                try subscriber.waitFor("on home", Identity.on("home"))
                let pathctl = try BuiltProduct.url("pathctl")
                let socket = ["--socket", topology.socketPath]
                let message = "pathctl: pathd refused: no network is named \"nosuch\": no [Network] section of "
                    + "pathd.conf has Name=nosuch, and it is no network ID [unknownNetwork]\n"
                let status = try Command.run(pathctl, socket + ["status", "--network", "nosuch"])
                #expect(status.termination == .exit(2))
                #expect(status.stdout.isEmpty && status.stderr.hasPrefix(message), "stderr: \(status.stderr)")
                let run = try Command.run(pathctl,
                                          socket + ["run", "--not-network", "nosuch", "--", "/bin/echo", "ran"])
                #expect(run.termination == .exit(2) && run.stdout.isEmpty, "\(run)")
                #expect(run.stderr == message, "stderr: \(run.stderr)")
                let hold = try Command.run(pathctl, socket + ["hold", "network:nosuch"], timeout: .seconds(20))
                #expect(hold.termination == .exit(2) && hold.stderr.hasPrefix(message), "stderr: \(hold.stderr)")

                // The same daemon answers everyone else with the network as it is.
                let home = try Command.run(pathctl, socket + ["status", "--check", "--network", "home"])
                #expect(home.termination == .exit(0), "\(home)")
                let notHome = try Command.run(pathctl, socket + ["status", "--check", "--not-network", "home"])
                #expect(notHome.termination == .exit(1), "\(notHome)")
                try Self.routerBecomes(Identity.hotspot, topology)
                try subscriber.waitFor("on hotspot", Identity.on("hotspot"))
            }
        }

        @Test("run --not-expensive stops the command (75) when the network becomes hotspot, Expensive=yes by [Network]")
        func expensiveByNetwork() throws {
            try withVethTopology { topology in
                try topology.b.ip("link", "set", "vB", "address", Identity.home)
                let subscriber = try Identity.startDaemon(topology)
                try subscriber.waitFor("on home", Identity.on("home"))
                let runner = try PathctlRun.Runner(topology, ["--not-expensive"])
                defer { teardown("stop pathctl run") { try runner.process.terminate("pathctl run") } }
                let pid = try runner.waitForStart()
                try Self.routerBecomes(Identity.hotspot, topology)
                #expect(try runner.end() == .exit(75))
                #expect(try runner.logged() == ["start \(pid)", "signal \(SIGTERM)"])
                #expect(try runner.said() == "pathctl: the path is not satisfied: unsatisfied: the path via vA is "
                    + "expensive, which the criteria exclude; stopping /usr/bin/python3 (SIGTERM)\n")
                let hotspot = try subscriber.waitFor("on hotspot", Identity.on("hotspot"))
                #expect(hotspot["isExpensive"] as? Bool == true && hotspot["isExpensiveSetBy"] as? String == "network")
            }
        }
    }
}
