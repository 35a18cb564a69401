// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// Network identity against the kernel's neighbour table (docs/ARCHITECTURE.md,
    /// "Network identity"): the router namespace's MAC names vA's network, another MAC
    /// another network, and an entry the kernel kept from before a carrier flap names none.
    @Suite("Network identity")
    struct NetworkIdentity {
        static let home = TwoNetworks.home
        static let hotspot = TwoNetworks.hotspot
        static let configuration = TwoNetworks.configuration

        /// The path line's network (`{"state","id","name","anchor"}`), if any.
        static func network(_ line: [String: Any]) -> [String: Any]? {
            line["network"] as? [String: Any]
        }

        /// A satisfied path through vA on the network `name` (identified).
        static func on(_ name: String) -> ([String: Any]) -> Bool {
            { line in
                PathLine.satisfied(through: "vA")(line) && network(line)?["state"] as? String == "identified"
                    && network(line)?["name"] as? String == name
            }
        }

        /// A satisfied path through vA whose network is in `state`.
        static func state(_ state: String) -> ([String: Any]) -> Bool {
            { line in PathLine.satisfied(through: "vA")(line) && network(line)?["state"] as? String == state }
        }

        /// pathd on the topology with `configuration` (after `extra`), and a subscriber.
        static func startDaemon(_ topology: VethTopology, _ extra: String = "") throws -> Subscriber {
            try launchDaemon(topology, extra)
            return try topology.subscribe()
        }

        @discardableResult
        static func launchDaemon(_ topology: VethTopology, _ extra: String = "") throws -> DaemonProcess {
            let config = topology.directory.path("pathd.conf")
            try (extra + configuration).write(toFile: config, atomically: true, encoding: .utf8)
            return try topology.startDaemon(arguments: ["--config", config])
        }

        /// The router's MAC, changed during a carrier loss (vB down, new address, up).
        static func flapCarrier(_ topology: VethTopology, routerMAC: String, _ subscriber: Subscriber) throws {
            try topology.b.ip("link", "set", "vB", "down")
            try subscriber.waitFor("unsatisfied, noCarrier", PathLine.unsatisfied(reason: "noCarrier"))
            try topology.b.ip("link", "set", "vB", "address", routerMAC)
            try topology.b.ip("link", "set", "vB", "up")
        }

        /// The kernel's entry for the gateway in namespace A (`ip neigh show`).
        static func gatewayEntry(_ topology: VethTopology) throws -> String {
            try topology.a.ip("neigh", "show", VethTopology.routerAddress, "dev", "vA")
        }

        /// A datagram from A to the router: what a first packet does to the neighbour table.
        static func sendToGateway(_ topology: VethTopology) throws {
            try topology.a.run("bash", "-c", "echo x > /dev/udp/\(VethTopology.routerAddress)/9")
        }

        @Test("the gateway's MAC names vA's network (pathd resolves it), root sees the MAC; another MAC is another ID")
        func identifiedThenAnotherNetwork() throws {
            try withVethTopology { topology in
                try topology.b.ip("link", "set", "vB", "address", Self.home)
                #expect(try Self.gatewayEntry(topology).isEmpty, "no entry before pathd: ResolveGateways= makes it")
                let subscriber = try Self.startDaemon(topology)
                let home = try subscriber.waitFor("on home", Self.on("home"))
                let homeID = try #require(Self.network(home)?["id"] as? String)
                #expect(Self.network(home)?["anchor"] as? String == "gatewayMAC")
                #expect(home["isExpensive"] as? Bool == false)
                #expect(try Self.gatewayEntry(topology).contains("lladdr \(Self.home)"))

                // Root's interfaces reply carries the raw fact the ID hashes.
                let client = try topology.subscribe(request: "{\"op\":\"interfaces\"}")
                let reply = try client.waitFor("the interfaces reply") { $0["type"] as? String == "interfaces" }
                let vA = (reply["interfaces"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "vA" }
                let facts = vA?["networkFacts"] as? [String: Any]
                #expect(facts?["gatewayMACs"] as? [String] == [Self.home], "vA: \(String(describing: vA))")
                #expect((vA?["network"] as? [String: Any])?["id"] as? String == homeID)
                // pathctl shows the network: its name and ID, and to root the MAC.
                let pathctl = try BuiltProduct.url("pathctl")
                let status = try Command.run(pathctl, ["--socket", topology.socketPath, "status"])
                #expect(status.stdout.contains("Network:     home (identified by gatewayMAC, ID \(homeID))\n"),
                        "stdout: \(status.stdout)")
                let table = try Command.run(pathctl, ["--socket", topology.socketPath, "interfaces"])
                #expect(table.stdout.contains(" home[\(Self.home)] "), "stdout: \(table.stdout)")

                try Self.flapCarrier(topology, routerMAC: Self.hotspot, subscriber)
                var afterFlap: [[String: Any]] = []
                let hotspot = try subscriber.waitFor("on hotspot") { line in
                    afterFlap.append(line)
                    return Self.on("hotspot")(line)
                }
                #expect(!afterFlap.contains(where: Self.on("home")), "home named after the MAC changed: \(afterFlap)")
                let hotspotID = try #require(Self.network(hotspot)?["id"] as? String)
                #expect(hotspotID != homeID)
                #expect(hotspot["isExpensive"] as? Bool == true)
                #expect(hotspot["isExpensiveSetBy"] as? String == "network")
            }
        }

        @Test("a gateway's MAC flipping every 100 ms: a line a flip at most, the last one's network, no route line")
        func flippingGatewayMAC() throws {
            try withVethTopology { topology in
                try RouteWatchKernelTests.addVPN(topology)
                try topology.b.ip("link", "set", "vB", "address", Self.home)
                let subscriber = try Self.startDaemon(topology)
                try subscriber.waitFor("on home", Self.on("home"))
                let watcher = try topology.subscribe(
                    request: #"{"op":"subscribe","id":"vpn","destination":"\#(RouteWatchKernelTests.host)"}"#)
                let vpn = try watcher.waitFor("the route through tun0") { $0["type"] as? String == "route" }
                #expect((vpn["interface"] as? [String: Any])?["name"] as? String == "tun0", "\(vpn)")

                // 41 flips, 100 ms apart, as the kernel records an answer from each MAC in
                // turn; the last one is the hotspot's.
                let flips = 41
                try topology.a.run("bash", "-c", """
                    for i in $(seq \(flips)); do
                        ip neigh replace \(VethTopology.routerAddress) lladdr 02:00:00:00:00:0$((i % 2 + 1)) \
                            dev vA nud reachable
                        sleep 0.1
                    done
                    """)
                let pathctl = try BuiltProduct.url("pathctl")
                try waitUntil("pathctl status names hotspot") {
                    try Command.run(pathctl, ["--socket", topology.socketPath, "status"]).stdout
                        .contains("Network:     hotspot ")
                }

                // The route through tun0 was not published again: its next line is the one
                // for the route's own change, the second of the subscription.
                try topology.a.ip("route", "del", "192.0.2.0/24", "via", VethTopology.tunnelPeer, "dev", "tun0")
                let uplink = try watcher.waitFor("the route through vA") { $0["type"] as? String == "route" }
                #expect((uplink["interface"] as? [String: Any])?["name"] as? String == "vA", "\(uplink)")
                #expect(uplink["sequence"] as? Int == 2, "lines for the route during the flips: \(uplink)")

                // Every path line of the flips names home or hotspot through vA, one a flip
                // at most, the last the hotspot.
                try topology.deleteDefaultRoute()
                var during: [[String: Any]] = []
                try subscriber.waitFor("unsatisfied without the default route") { line in
                    if PathLine.isPath(line) && PathLine.status(line) == "satisfied" { during.append(line) }
                    return PathLine.unsatisfied()(line)
                }
                #expect(during.allSatisfy { Self.on("home")($0) || Self.on("hotspot")($0) }, "\(during)")
                #expect(during.count <= flips, "\(during.count) lines for \(flips) flips")
                #expect(during.last.map(Self.on("hotspot")) == true, "\(String(describing: during.last))")
            }
        }

        @Test("an entry the kernel keeps across a carrier flap names nothing: pending, then unidentified, then hotspot")
        func staleEntryIsPending() throws {
            try withVethTopology { topology in
                try topology.b.ip("link", "set", "vB", "address", Self.home)
                // As iwd does while roaming: the kernel keeps vA's entries across a carrier loss.
                try topology.a.run("sysctl", "-qw", "net.ipv4.conf.vA.arp_evict_nocarrier=0")
                try Self.sendToGateway(topology)
                try waitUntil("the kernel holds the router's MAC") {
                    try Self.gatewayEntry(topology).contains("lladdr \(Self.home)")
                }
                // Without ResolveGateways= pathd leaves the neighbour table to traffic.
                let subscriber = try Self.startDaemon(topology, "[Daemon]\nResolveGateways=no\n")
                try subscriber.waitFor("on home", Self.on("home"))

                try Self.flapCarrier(topology, routerMAC: Self.hotspot, subscriber)
                let back = try subscriber.waitFor("satisfied with carrier back", PathLine.satisfied(through: "vA"))
                #expect(Self.network(back)?["state"] as? String == "pending", "line: \(back)")
                #expect(Self.network(back)?["id"] is NSNull, "line: \(back)")
                let held = try Self.gatewayEntry(topology)
                #expect(held.contains("lladdr \(Self.home)") && held.contains("REACHABLE"),
                        "the kernel kept the old MAC: \(held)")

                // Pending is bounded (CarrierEpoch.settlingTime, 10 s) while the entry stays old.
                try subscriber.waitFor("unidentified once the link settled", timeout: .seconds(20),
                                       Self.state("unidentified"))
                #expect(try Self.gatewayEntry(topology).contains("lladdr \(Self.home)"))

                // A fresh resolution names the new network (its message passes the filter).
                try topology.a.ip("neigh", "del", VethTopology.routerAddress, "dev", "vA")
                try Self.sendToGateway(topology)
                try subscriber.waitFor("on hotspot", Self.on("hotspot"))
            }
        }
    }
}
