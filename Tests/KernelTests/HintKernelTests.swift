// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// Hints about a network that come without configuration (pathd(8), "Hints"): a DHCP
    /// lease, told by the hooks pathd ships under the real dhclient and dhcpcd, from
    /// Debian's dnsmasq sending what a phone's hotspot sends; and a router's
    /// advertisement, from Debian's radvd and from a raw sender for what radvd 2.19
    /// cannot send (the captive portal).
    @Suite("hints (DHCP hooks, router advertisements)")
    struct Hints {
        static func writeConfig(_ topology: VethTopology, _ text: String) throws -> String {
            let path = topology.directory.path("pathd.conf")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        /// `pathctl status --json` (and its text) from the test's daemon.
        static func status(_ topology: VethTopology, json: Bool = true) throws -> String {
            try Command.check(BuiltProduct.url("pathctl"),
                              ["--socket", topology.socketPath, "status"] + (json ? ["--json"] : []))
        }

        static func firstInterface(_ line: [String: Any]) -> [String: Any] {
            (line["interfaces"] as? [[String: Any]])?.first ?? [:]
        }

        /// A satisfied path through vA with `expensive`.
        static func satisfied(expensive: Bool) -> ([String: Any]) -> Bool {
            { line in PathLine.satisfied(through: "vA")(line) && line["isExpensive"] as? Bool == expensive }
        }

        /// vA without its static address, dnsmasq serving it in B, and A as a host whose
        /// DHCP client runs the shipped hooks: `body` runs with that host, then all stops.
        static func withDHCP(_ topology: VethTopology, _ body: (DHCPClientHost) throws -> Void) throws {
            try topology.a.ip("address", "flush", "dev", "vA")
            let server = try DHCPServer(in: topology.b, directory: topology.directory)
            defer { teardown("stop dnsmasq") { try server.stop() } }
            let host = try DHCPClientHost(topology)
            defer { teardown("end the client's namespaces") { try host.stop() } }
            try body(host)
        }

        @Test("dhclient with the shipped hook: ANDROID_METERED makes the path expensive with no configuration")
        func dhclientHook() throws {
            try withVethTopology { topology in try Self.withDHCP(topology) { host in
                let daemon = try topology.startDaemon(arguments: ["--config", try Self.writeConfig(topology, "")])
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("unsatisfied before the lease", PathLine.unsatisfied())
                let leases = topology.directory.path("dhclient.leases")
                let pidFile = topology.directory.path("dhclient.pid")
                let client = try host.start(["dhclient", "-d", "-4", "-v", "-pf", pidFile, "-lf", leases, "vA"],
                                            name: "dhclient")
                defer { teardown("stop dhclient") { try client.terminate("dhclient") } }
                let metered = try subscriber.waitFor("expensive through vA", timeout: .seconds(30),
                                                     Self.satisfied(expensive: true))
                try waitUntil("pathd logged the lease", detail: { "; its log:\n\(try daemon.stderr)" }) {
                    try daemon.stderr.contains("vA: DHCPv4 lease recorded")
                }
                #expect(Self.firstInterface(metered)["captivePortal"] as? String == DHCPServer.captivePortal,
                        "\(metered)")
                let text = try Self.status(topology, json: false)
                #expect(text.contains("Expensive:   yes"), "\(text)")
                #expect(text.contains("Portal:      \(DHCPServer.captivePortal) (announced by vA's network)"),
                        "\(text)")
                let recorded = "vA: DHCPv4 lease recorded: androidMetered; domains \(DHCPServer.domain); "
                    + "captive portal \(DHCPServer.captivePortal)"
                #expect(try daemon.stderr.contains(recorded))

                // Releasing the lease (RELEASE) tells pathd through the same hook. dhclient-script
                // removes the address first, which forgets the lease already when pathd reads it first.
                try host.run(["dhclient", "-r", "-pf", pidFile, "-lf", leases, "vA"])
                try waitUntil("pathd logged the lease's end", detail: { "; its log:\n\(try daemon.stderr)" }) {
                    try daemon.stderr.contains("vA: DHCPv4 lease ended; ")
                }
                try subscriber.waitFor("the hint gone", PathLine.unsatisfied())
            } }
        }

        @Test("""
            dhcpcd with the shipped hook: ANDROID_METERED makes the path expensive with no configuration, not while \
            pathd.conf says Expensive=no for the interface, and no longer once dhcpcd stops (its lease's end: \
            dhcpcd keeps the address)
            """)
        func dhcpcdHook() throws {
            try withVethTopology { topology in try Self.withDHCP(topology) { host in
                let config = try Self.writeConfig(topology, "")
                let daemon = try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                // -4: DHCPv4 only; --noarp: no address probe, which only delays; -B: in front, ours to stop.
                let client = try host.start(["dhcpcd", "-4", "-B", "--noarp", "-d", "vA"], name: "dhcpcd")
                var stopped = false
                defer { if !stopped { teardown("stop dhcpcd") { try client.terminate("dhcpcd") } } }
                try subscriber.waitFor("expensive through vA", timeout: .seconds(30), Self.satisfied(expensive: true))
                // Logged once the lease is in, right after the path line it caused.
                let recorded = "vA: DHCPv4 lease recorded: androidMetered; domains \(DHCPServer.domain)"
                try waitUntil("pathd logged the lease", detail: { "; its log:\n\(try daemon.stderr)" }) {
                    try daemon.stderr.contains(recorded)
                }

                // Configuration overrides the hint (pathd.conf(5): [Network], then [Interface],
                // then hints), and the hint shows again once the section is gone.
                func reload(_ text: String) throws {
                    try text.write(toFile: config, atomically: true, encoding: .utf8)
                    let reloaded = try ConfigAgainstDaemon.reload(topology)
                    try #require(reloaded.termination == .exit(0), "\(reloaded.stderr)")
                }
                try reload("[Interface]\nName=vA\nExpensive=no\n")
                try subscriber.waitFor("free through vA, by [Interface]", Self.satisfied(expensive: false))
                try reload("")
                try subscriber.waitFor("expensive again without the section", Self.satisfied(expensive: true))

                // dhcpcd stops (STOP) and keeps the address (Debian's dhcpcd.conf: persistent):
                // only the hook's end can take the hint back.
                let clientLog = topology.directory.path("dhcpcd.stderr")
                try client.terminate("dhcpcd", timeout: .seconds(20), detail: {
                    "; its log:\n" + (try String(contentsOfFile: clientLog, encoding: .utf8))
                })
                stopped = true
                try subscriber.waitFor("free once the lease ended", Self.satisfied(expensive: false))
                #expect(try daemon.stderr.contains("vA: DHCPv4 lease ended; its hints are forgotten"))
                #expect(try topology.a.ip("-4", "address", "show", "dev", "vA").contains("198.51.100."),
                        "the address went too: the test proves nothing about the hook")
            } }
        }

        @Test("""
            a lease from a user other than root and pathd's, for a link that vanished, or that pathd cannot read \
            is refused with a clear error; subscribers see nothing
            """)
        func refusedLeases() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                try topology.startDaemon(arguments: ["--config", try Self.writeConfig(topology, "")])
                let subscriber = try topology.subscribe()
                // Settled: vA's network identified, which is a line of its own after the start.
                let first = try subscriber.waitFor("satisfied, its network settled") {
                    Self.satisfied(expensive: false)($0) && PathLine.hasSettledNetwork($0)
                }
                let pathctl = try BuiltProduct.url("pathctl").path
                let lease = [pathctl, "--socket", topology.socketPath, "lease", "vA",
                             "--vendor-option", "ANDROID_METERED"]
                let asNobody = try Command.asUser(lease)
                let refused = try Command.run(URL(fileURLWithPath: asNobody[0]), Array(asNobody.dropFirst()))
                #expect(refused.termination == .exit(4), "\(refused.stderr)")
                #expect(refused.stderr.contains("reportLease is allowed for root and the daemon's own user only"),
                        "\(refused.stderr)")
                let gone = try Command.run(BuiltProduct.url("pathctl"),
                                           ["--socket", topology.socketPath, "lease", "usb0", "--vendor-option",
                                            "ANDROID_METERED"])
                #expect(gone.termination == .exit(4))
                #expect(gone.stderr.contains("no interface \"usb0\" (it is gone?); the lease is not recorded"),
                        "\(gone.stderr)")
                let hint = #"{"op":"reportLease","id":1,"interface":"vA","lease":{"family":"ipv4","hints":["free"]}}"#
                let raw = try Subscriber(socketPath: topology.socketPath, request: hint)
                defer { raw.close() }
                let error = try raw.waitFor("the refusal") { $0["type"] as? String == "error" }
                #expect(error["code"] as? String == "badArgument"
                        && (error["message"] as? String)?.hasPrefix("unknown hint \"free\"") == true, "\(error)")
                // Nobody else saw anything: the path is the first one.
                let now = try JSONSerialization.jsonObject(with: Data(try Self.status(topology).utf8)) as? [String: Any]
                #expect(now?["sequence"] as? Int == first["sequence"] as? Int, "\(now ?? [:])")
            }
        }

        @Test("a router's captive portal (RFC 8910) is shown: in the path line and by pathctl status")
        func routerAdvertisedPortal() throws {
            try withVethTopology { topology in
                try topology.startDaemon(arguments: ["--config", try Self.writeConfig(topology, "")])
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("satisfied", PathLine.satisfied(through: "vA"))
                // The router sends from its link-local address, usable once DAD is done.
                try waitUntil("vB's link-local address is usable") {
                    let addresses = try topology.b.ip("-6", "address", "show", "dev", "vB", "scope", "link")
                    return addresses.contains("inet6 fe80:") && !addresses.contains("tentative")
                }
                let portal = "https://portal.hotel.example/api"
                _ = try topology.b.run("/usr/bin/python3", Repository.path("scripts/test/ra-sender.py"),
                                       "--interface", "vB", "--captive-portal", portal, "--search", "hotel.example")
                let announced = try subscriber.waitFor("the portal on vA") { line in
                    Self.firstInterface(line)["captivePortal"] as? String == portal
                }
                #expect(PathLine.satisfied(through: "vA")(announced))
                let text = try Self.status(topology, json: false)
                #expect(text.contains("Portal:      \(portal) (announced by vA's network)"), "\(text)")
                // The unrestricted URN withdraws it (RFC 8910 §2).
                _ = try topology.b.run("/usr/bin/python3", Repository.path("scripts/test/ra-sender.py"),
                                       "--interface", "vB", "--captive-portal", "urn:ietf:params:capport:unrestricted")
                try subscriber.waitFor("the portal withdrawn") { line in
                    PathLine.satisfied(through: "vA")(line) && Self.firstInterface(line)["captivePortal"] == nil
                }
            }
        }
    }
}
