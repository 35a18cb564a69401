// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// The answer is right where today's monitors are wrong (docs/ARCHITECTURE.md, "Which
    /// interfaces can carry traffic").
    @Suite("Verdicts", .serialized)
    struct Verdicts {
        @Test("IPv6-only default route, then dual stack")
        func families() throws {
            try withVethTopology { topology in
                try topology.deleteDefaultRoute()
                try topology.addIPv6()
                try topology.startDaemon()
                let subscriber = try topology.subscribe()
                let v6 = try subscriber.waitFor("satisfied over IPv6 only") {
                    PathLine.status($0) == "satisfied" && $0["supportsIPv6"] as? Bool == true
                        && PathLine.hasSettledNetwork($0)
                }
                #expect(v6["supportsIPv4"] as? Bool == false)
                #expect(PathLine.interfaceNames(v6) == ["vA"])
                try topology.addDefaultRoute()
                let dual = try subscriber.nextLine("dual stack")
                #expect(dual["supportsIPv4"] as? Bool == true)
                #expect(dual["supportsIPv6"] as? Bool == true)
                #expect(dual["gateways"] as? [String] == ["2001:db8:1::1", "198.51.100.1"])
            }
        }

        @Test("OpenVPN def1 split routes: satisfied through the tunnel, listed first")
        func openVPNDef1() throws {
            try withVethTopology { topology in
                try topology.addTunnel()
                let subscriber = try topology.startSatisfied()
                try topology.a.ip("route", "add", "0.0.0.0/1", "via", VethTopology.tunnelPeer)
                try topology.a.ip("route", "add", "128.0.0.0/1", "via", VethTopology.tunnelPeer)
                let line = try subscriber.waitFor("through tun0 first") { PathLine.interfaceNames($0).first == "tun0" }
                #expect(PathLine.status(line) == "satisfied")
                #expect(PathLine.interfaceNames(line) == ["tun0", "vA"])
                #expect(line["gateways"] as? [String] == [VethTopology.tunnelPeer])
            }
        }

        @Test("wg-quick: default only in table 51820, fwmark and suppress_prefixlength rules")
        func wgQuick() throws {
            try withVethTopology { topology in
                try topology.addTunnel()
                let subscriber = try topology.startSatisfied()
                try topology.a.ip("route", "add", "default", "via", VethTopology.tunnelPeer, "table", "51820")
                try topology.a.ip("rule", "add", "not", "fwmark", "51820", "table", "51820")
                try topology.a.ip("rule", "add", "table", "main", "suppress_prefixlength", "0")
                let line = try subscriber.waitFor("through tun0 first") { PathLine.interfaceNames($0).first == "tun0" }
                #expect(PathLine.status(line) == "satisfied")
                #expect(PathLine.interfaceNames(line) == ["tun0", "vA"])
                // Tunnel down: its table empties and traffic falls back to the underlay.
                try topology.a.ip("link", "set", "tun0", "down")
                // Its routes are flushed just after the link message: a line in between may say so.
                let fallback = try subscriber.waitFor("back to vA") { PathLine.interfaceNames($0) == ["vA"] }
                #expect(PathLine.status(fallback) == "satisfied")
            }
        }

        @Test("a kill switch route wins: unsatisfied, routeRejects",
              arguments: ["unreachable", "blackhole", "prohibit"])
        func killSwitch(type: String) throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                // Replacing the default route, as a kill switch does when the tunnel drops.
                try topology.a.ip("route", "replace", type, "default")
                let line = try subscriber.nextLine("killed by \(type)")
                #expect(PathLine.status(line) == "unsatisfied")
                #expect(PathLine.unsatisfiedReason(line) == "routeRejects")
            }
        }

        @Test("IPv6 with only a link-local address and a default via fe80:: is noAddress")
        func linkLocalOnly() throws {
            try withVethTopology { topology in
                try topology.useLinkLocalIPv6Only()
                try topology.startDaemon()
                let subscriber = try topology.subscribe()
                let line = try subscriber.waitFor("unsatisfied", PathLine.unsatisfied())
                #expect(PathLine.unsatisfiedReason(line) == "noAddress")
                #expect(line["reasonInterface"] as? String == "vA")
                #expect(line["supportsIPv6"] as? Bool == false)
            }
        }

        @Test("a tentative IPv6 address is not usable until DAD completes; then satisfied with no poll")
        func tentativeThenUsable() throws {
            try withVethTopology { topology in
                try topology.removeIPv4()
                try topology.startDaemon()
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("unsatisfied without IPv4", PathLine.unsatisfied())
                try topology.addIPv6(dad: true)
                // DAD takes about a second (one probe, RetransTimer 1 s): it ends in an
                // RTM_NEWADDR without IFA_F_TENTATIVE, which must flip the path.
                let line = try subscriber.waitFor("satisfied after DAD") { PathLine.status($0) == "satisfied" }
                #expect(line["supportsIPv6"] as? Bool == true)
                let output = try topology.globalIPv6OfA
                #expect(!output.contains("tentative"))
            }
        }

        @Test("an IPv6 address whose DAD failed is never usable")
        func dadFailed() throws {
            try withVethTopology { topology in
                try topology.removeIPv4()
                try topology.b.ip("address", "add", "2001:db8:1::1/64", "dev", "vB", "nodad")
                try topology.b.ip("address", "add", "2001:db8:1::2/64", "dev", "vB", "nodad")
                try topology.startDaemon()
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("unsatisfied without IPv4", PathLine.unsatisfied())
                // vB already holds ::2, so DAD for it on vA fails.
                try topology.a.ip("address", "add", "2001:db8:1::2/64", "dev", "vA")
                try topology.a.ip("-6", "route", "add", "default", "via", "2001:db8:1::1", "dev", "vA")
                try topology.waitUntilDADFailsOnA()
                let status = try Subscriber(socketPath: topology.socketPath, request: "{\"op\":\"status\"}")
                defer { status.close() }
                let line = try status.waitFor("status", PathLine.isPath)
                #expect(PathLine.status(line) == "unsatisfied")
                #expect(PathLine.unsatisfiedReason(line) == "noAddress")
            }
        }

        @Test("operstate DORMANT is unsatisfied, dormant; UP again is satisfied")
        func dormant() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                try topology.a.ip("link", "set", "vA", "mode", "dormant")
                try topology.setOperState("dormant", of: "vA")
                let line = try subscriber.waitFor("dormant", PathLine.unsatisfied(reason: "dormant"))
                #expect(line["reasonInterface"] as? String == "vA")
                try topology.setOperState("up", of: "vA")
                try subscriber.waitFor("satisfied again", PathLine.satisfied(through: "vA"))
            }
        }

        @Test("an ECMP default route over two interfaces lists both")
        func ecmp() throws {
            try withVethTopology { topology in
                try topology.addTunnel()
                let subscriber = try topology.startSatisfied()
                try topology.a.ip("route", "replace", "default",
                                  "nexthop", "via", VethTopology.routerAddress, "dev", "vA",
                                  "nexthop", "via", VethTopology.tunnelPeer, "dev", "tun0")
                let line = try subscriber.waitFor("both listed") { Set(PathLine.interfaceNames($0)) == ["vA", "tun0"] }
                #expect(PathLine.status(line) == "satisfied")
            }
        }

        @Test("containers and bridges that do not carry the lookup route publish nothing")
        func unrelatedLinksPublishNothing() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                try topology.addContainerBridge()
                // The next line must be this change, not anything about the bridge.
                try topology.deleteDefaultRoute()
                let line = try subscriber.nextLine("the route deletion")
                #expect(PathLine.status(line) == "unsatisfied")
                #expect(PathLine.unsatisfiedReason(line) == "noRoute")
            }
        }

        @Test("loopback never makes a path satisfied")
        func loopbackNeverSatisfies() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied", PathLine.unsatisfied())
                try topology.a.ip("route", "add", "default", "dev", "lo")
                // A sentinel change after it: the next line must not be a satisfied one.
                try topology.a.ip("link", "set", "vA", "down")
                let line = try subscriber.nextLine("after the loopback route")
                #expect(PathLine.status(line) == "unsatisfied")
                #expect(!PathLine.interfaceNames(line).contains("lo"))
            }
        }
    }
}
