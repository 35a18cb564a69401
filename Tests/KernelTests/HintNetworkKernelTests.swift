// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests.Hints {
    @Test("""
        dhcpcd with the shipped hook: expensive by the hint (isExpensiveSetBy), not when [Network] says \
        Expensive=no for the network it names
        """)
    func dhcpcdHookOverriddenByNetwork() throws {
        try withVethTopology { topology in try Self.withDHCP(topology) { host in
            let config = try Self.writeConfig(topology, "")
            try topology.startDaemon(arguments: ["--config", config])
            let subscriber = try topology.subscribe()
            let client = try host.start(["dhcpcd", "-4", "-B", "--noarp", "-d", "vA"], name: "dhcpcd")
            defer { teardown("stop dhcpcd") { try client.terminate("dhcpcd") } }
            let metered = try subscriber.waitFor("expensive through vA", timeout: .seconds(30),
                                                 Self.satisfied(expensive: true))
            #expect(metered["isExpensiveSetBy"] as? String == "hint", "\(metered)")

            // Configuration overrides the hint: the network, once identified, is named and free.
            try "[Network]\nHint=androidMetered\nName=phone\nExpensive=no\n"
                .write(toFile: config, atomically: true, encoding: .utf8)
            let reloaded = try KernelTests.ConfigAgainstDaemon.reload(topology)
            try #require(reloaded.termination == .exit(0), "\(reloaded.stderr)")
            let free = try subscriber.waitFor("free through vA, by [Network]", timeout: .seconds(20)) { line in
                Self.satisfied(expensive: false)(line)
                    && (Self.firstInterface(line)["network"] as? [String: Any])?["name"] as? String == "phone"
            }
            #expect(free["isExpensiveSetBy"] as? String == "network", "\(free)")
        } }
    }

    @Test("""
        a router's search list (radvd) is matched by [Network] DNSDomain=, its captive portal (RFC 8910) shown; \
        both forgotten with the carrier
        """)
    func routerAdvertisements() throws {
        try withVethTopology { topology in
            try topology.b.ip("address", "add", "2001:db8:77::1/64", "dev", "vB")
            _ = try topology.b.run("sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
            let config = try Self.writeConfig(topology, "[Network]\nDNSDomain=hotel.example\nName=hotel-wifi\n")
            let daemon = try topology.startDaemon(arguments: ["--config", config])
            let subscriber = try topology.subscribe()
            let radvd = try RouterAdvertiser(in: topology.b, directory: topology.directory,
                                             searchDomains: ["Hotel.Example"])
            defer { teardown("stop radvd") { try radvd.stop() } }
            do {
                try subscriber.waitFor("the network named by its search domain", timeout: .seconds(20)) { line in
                    PathLine.satisfied(through: "vA")(line)
                        && (Self.firstInterface(line)["network"] as? [String: Any])?["name"] as? String
                            == "hotel-wifi"
                }
            } catch {
                // What each party saw, for a failure to be read without a rerun.
                throw HarnessError("""
                    \(error)
                    pathd's log:
                    \(try daemon.stderr)
                    radvd's log:
                    \(try radvd.log)
                    vA's IPv6 routes and neighbours:
                    \(try topology.a.ip("-6", "route", "show", "dev", "vA"))\
                    \(try topology.a.ip("neighbour", "show", "dev", "vA"))
                    """)
            }
            let portal = "https://portal.hotel.example/api"
            _ = try topology.b.run("/usr/bin/python3", Repository.path("scripts/test/ra-sender.py"),
                                   "--interface", "vB", "--captive-portal", portal)
            let announced = try subscriber.waitFor("the portal on vA") { line in
                Self.firstInterface(line)["captivePortal"] as? String == portal
            }
            #expect(PathLine.satisfied(through: "vA")(announced))
            let text = try Self.status(topology, json: false)
            #expect(text.contains("Portal:      \(portal) (announced by vA's network)"), "\(text)")

            // The carrier goes, and radvd with it (its last advertisement, withdrawing the list,
            // cannot leave a link that is down): only the carrier's loss can forget both.
            try topology.b.ip("link", "set", "vB", "down")
            try subscriber.waitFor("no carrier", PathLine.unsatisfied(reason: "noCarrier"))
            try radvd.stop()
            // A network met after the carrier is back tells its own: once identified again (from
            // the gateway's neighbour entry, confirmed anew), it has neither the old portal nor name.
            try topology.b.ip("link", "set", "vB", "up")
            let back = try subscriber.waitFor("identified again", timeout: .seconds(20)) { line in
                PathLine.satisfied(through: "vA")(line)
                    && (Self.firstInterface(line)["network"] as? [String: Any])?["state"] as? String == "identified"
            }
            #expect(Self.firstInterface(back)["captivePortal"] == nil, "\(back)")
            #expect((Self.firstInterface(back)["network"] as? [String: Any])?["name"] as? String == nil, "\(back)")
        }
    }
}
