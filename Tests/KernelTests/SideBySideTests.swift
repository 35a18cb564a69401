// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/ARCHITECTURE.md, "Client library": the in-process engine (a program with no daemon) and pathd give the
    /// same answer, every field, for the verdict and transition cases, under five
    /// criteria sets (among them the conditions, not expensive and not constrained); live
    /// after each change and cold (a probe started afterwards).
    /// See `EngineComparison`.
    @Suite("Daemon and in-process engine side by side", .serialized)
    struct SideBySide {
        static func first(_ name: String) -> ([String: Any]) -> Bool {
            { PathLine.interfaceNames($0).first == name && PathLine.status($0) == "satisfied" }
        }

        @Test("route and carrier transitions: default route, peer down, admin down")
        func transitions() throws {
            try withVethTopology { topology in
                try withEngineComparison(topology) { engines in
                    try engines.check("satisfied through vA", PathLine.satisfied(through: "vA"))
                    try topology.deleteDefaultRoute()
                    try engines.check("no default route", PathLine.unsatisfied(reason: "noRoute"))
                    try topology.addDefaultRoute()
                    try engines.check("the route back", PathLine.satisfied(through: "vA"))
                    try topology.b.ip("link", "set", "vB", "down")
                    try engines.check("the peer down", PathLine.unsatisfied(reason: "noCarrier"))
                    try topology.b.ip("link", "set", "vB", "up")
                    if try !topology.hasDefaultRoute { try topology.addDefaultRoute() }
                    try engines.check("carrier back", PathLine.satisfied(through: "vA"))
                    try topology.a.ip("link", "set", "vA", "down")
                    try engines.check("vA admin down", PathLine.unsatisfied())
                    try topology.a.ip("link", "set", "vA", "up")
                    if try !topology.hasDefaultRoute { try topology.addDefaultRoute() }
                    try engines.check("vA up and routed", PathLine.satisfied(through: "vA"))
                }
            }
        }

        @Test("IPv6 only, then dual stack")
        func families() throws {
            try withVethTopology { topology in
                try topology.deleteDefaultRoute()
                try topology.addIPv6()
                try withEngineComparison(topology) { engines in
                    try engines.check("IPv6 only") {
                        $0["supportsIPv6"] as? Bool == true && $0["supportsIPv4"] as? Bool == false
                    }
                    try topology.addDefaultRoute()
                    try engines.check("dual stack") { ($0["gateways"] as? [String])?.count == 2 }
                }
            }
        }

        @Test("OpenVPN split routes, then wg-quick's table and rules, then the tunnel down")
        func vpnRoutes() throws {
            try withVethTopology { topology in
                try topology.addTunnel()
                try withEngineComparison(topology) { engines in
                    try engines.check("through vA", PathLine.satisfied(through: "vA"))
                    try topology.a.ip("route", "add", "0.0.0.0/1", "via", VethTopology.tunnelPeer)
                    try topology.a.ip("route", "add", "128.0.0.0/1", "via", VethTopology.tunnelPeer)
                    try engines.check("def1 split routes", Self.first("tun0"))
                    try topology.a.ip("route", "del", "0.0.0.0/1")
                    try topology.a.ip("route", "del", "128.0.0.0/1")
                    try engines.check("split routes gone", Self.first("vA"))
                    try topology.a.ip("route", "add", "default", "via", VethTopology.tunnelPeer, "table", "51820")
                    try topology.a.ip("rule", "add", "not", "fwmark", "51820", "table", "51820")
                    try topology.a.ip("rule", "add", "table", "main", "suppress_prefixlength", "0")
                    try engines.check("wg-quick", Self.first("tun0"))
                    try topology.a.ip("link", "set", "tun0", "down")
                    try engines.check("tunnel down") { PathLine.interfaceNames($0) == ["vA"] }
                }
            }
        }

        /// A real tun device (its kind and ARPHRD_NONE make it a tunnel), held open so it
        /// has carrier: isTunnel, the underlay's cost and the tunnel's constraint.
        @Test("a tun device: a tunnel with its underlay, then without carrier")
        func tunDevice() throws {
            try withVethTopology { topology in
                try topology.a.ip("tuntap", "add", "dev", "tun7", "mode", "tun")
                let command = topology.a.execArguments(["/usr/bin/python3", Repository.path("scripts/test/hold-tun.py"),
                                                        "tun7"])
                let holder = try ProgramProcess(command.executable, command.arguments,
                                                stderrPath: topology.directory.path("hold-tun.stderr"))
                defer { teardown("kill the tunnel holder") { try holder.kill() } }
                try holder.waitForLine("tun7 attached") { $0 == "attached" }
                try topology.a.ip("address", "add", "10.9.0.2", "peer", "10.9.0.1", "dev", "tun7")
                try topology.a.ip("link", "set", "tun7", "up")
                try withEngineComparison(topology) { engines in
                    try engines.check("through vA", PathLine.satisfied(through: "vA"))
                    try topology.a.ip("route", "add", "0.0.0.0/1", "dev", "tun7")
                    try topology.a.ip("route", "add", "128.0.0.0/1", "dev", "tun7")
                    try engines.check("through tun7 over vA") { line in
                        let interfaces = line["interfaces"] as? [[String: Any]] ?? []
                        return Self.first("tun7")(line) && interfaces.first?["tunnel"] as? Bool == true
                            && line["isConstrained"] as? Bool == true && line["isExpensive"] as? Bool == true
                    }
                    // The conditions judged that path in both engines (the check compared
                    // them): expensive through the underlay vA, constrained by tun7 itself.
                    let notExpensive = try engines.status(EngineComparison.notExpensive)
                    #expect(PathLine.unsatisfiedReason(notExpensive) == "expensiveExcluded")
                    #expect(notExpensive["reasonInterface"] as? String == "vA")
                    let notConstrained = try engines.status(EngineComparison.criteria[4])
                    #expect(PathLine.unsatisfiedReason(notConstrained) == "constrainedExcluded")
                    #expect(notConstrained["reasonInterface"] as? String == "tun7")
                    holder.closeInput()
                    try engines.check("tun7 without carrier") { PathLine.interfaceNames($0).first != "tun7" }
                }
            }
        }

        @Test("kill switch routes: unreachable, blackhole, prohibit")
        func killSwitch() throws {
            try withVethTopology { topology in
                try withEngineComparison(topology) { engines in
                    try engines.check("through vA", PathLine.satisfied(through: "vA"))
                    for type in ["unreachable", "blackhole", "prohibit"] {
                        try topology.a.ip("route", "replace", type, "default")
                        try engines.check("killed by \(type)", PathLine.unsatisfied(reason: "routeRejects"))
                    }
                }
            }
        }

        @Test("IPv6: link-local only, tentative until DAD, DAD failed")
        func ipv6Addresses() throws {
            try withVethTopology { topology in
                try topology.useLinkLocalIPv6Only()
                try withEngineComparison(topology) { engines in
                    try engines.check("link-local only", PathLine.unsatisfied(reason: "noAddress"))
                    try topology.a.ip("-6", "route", "del", "default")
                    try topology.addIPv6(dad: true)
                    try engines.check("usable after DAD") { PathLine.status($0) == "satisfied" }
                    // vB holds ::3, so DAD for it on vA fails.
                    try topology.a.ip("address", "del", "2001:db8:1::2/64", "dev", "vA")
                    try topology.b.ip("address", "add", "2001:db8:1::3/64", "dev", "vB", "nodad")
                    try topology.a.ip("address", "add", "2001:db8:1::3/64", "dev", "vA")
                    try topology.waitUntilDADFailsOnA()
                    if try topology.a.ip("-6", "route", "show", "default").isEmpty {
                        try topology.a.ip("-6", "route", "add", "default", "via", "2001:db8:1::1", "dev", "vA")
                    }
                    try engines.check("DAD failed", PathLine.unsatisfied(reason: "noAddress"))
                }
            }
        }

        @Test("ECMP over two interfaces, bridges that carry nothing, a loopback default route")
        func routesOfEveryShape() throws {
            try withVethTopology { topology in
                try topology.addTunnel()
                try withEngineComparison(topology) { engines in
                    try topology.a.ip("route", "replace", "default",
                                      "nexthop", "via", VethTopology.routerAddress, "dev", "vA",
                                      "nexthop", "via", VethTopology.tunnelPeer, "dev", "tun0")
                    try engines.check("ECMP") { Set(PathLine.interfaceNames($0)) == ["vA", "tun0"] }
                    try topology.addContainerBridge()
                    try topology.a.ip("route", "del", "default")
                    try engines.check("no default route beside a bridge", PathLine.unsatisfied(reason: "noRoute"))
                    try topology.a.ip("route", "add", "default", "dev", "lo")
                    try engines.check("a default route through lo", PathLine.unsatisfied())
                }
            }
        }

        @Test("an on-demand interface: requiresConnection when it is the only way")
        func onDemand() throws {
            try withVethTopology { topology in
                try topology.a.ip("link", "add", "dial0", "type", "veth", "peer", "name", "dialB", "netns",
                                  topology.b.name)
                try withEngineComparison(topology) { engines in
                    try engines.check("through vA", PathLine.satisfied(through: "vA"))
                    try topology.deleteDefaultRoute()
                    try engines.check("dial0 on demand") { line in
                        PathLine.status(line) == "requiresConnection" && PathLine.interfaceNames(line) == ["dial0"]
                    }
                }
            }
        }
    }
}
