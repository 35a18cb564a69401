// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// A second veth pair standing in for a VPN tunnel: tun0 (in A, 10.8.0.2/24) to tunB
/// (in B, 10.8.0.1/24). What makes a VPN a VPN to the kernel is its routes and rules,
/// which the tests add exactly as OpenVPN and wg-quick do.
extension VethTopology {
    static let tunnelPeer = "10.8.0.1"

    /// Starts pathd, subscribes, and waits for the first answer: satisfied through vA.
    @discardableResult
    func startSatisfied() throws -> Subscriber {
        try startSubscribed(waitingFor: "initially satisfied through vA", PathLine.satisfied(through: "vA"))
    }

    /// Starts pathd with `arguments`, subscribes, and waits for a line matching `predicate`.
    @discardableResult
    func startSubscribed(arguments: [String] = [], waitingFor description: String,
                         _ predicate: ([String: Any]) -> Bool) throws -> Subscriber {
        try startDaemon(arguments: arguments)
        let subscriber = try subscribe()
        try subscriber.waitFor(description) { predicate($0) && PathLine.hasSettledNetwork($0) }
        return subscriber
    }

    /// Waits until pathd counts `count` subscriptions (its metrics), so that a client
    /// started in the background is known to hold the path it was given.
    func waitForSubscriptions(_ count: Int, _ description: String) throws {
        let pathctl = try BuiltProduct.url("pathctl")
        try waitUntil(description) {
            try Command.run(pathctl, ["--socket", socketPath, "metrics", "--format", "prometheus"]).stdout
                .contains("\npathd_subscriptions \(count)\n")
        }
    }

    func addTunnel() throws {
        try a.ip("link", "add", "tun0", "type", "veth", "peer", "name", "tunB", "netns", b.name)
        try a.ip("address", "add", "10.8.0.2/24", "dev", "tun0")
        try b.ip("address", "add", "\(Self.tunnelPeer)/24", "dev", "tunB")
        try a.ip("link", "set", "tun0", "up")
        try b.ip("link", "set", "tunB", "up")
    }

    /// IPv6 on the main pair: 2001:db8:1::2 on vA (without duplicate address detection
    /// unless `dad`), 2001:db8:1::1 on vB.
    func addIPv6(dad: Bool = false) throws {
        try b.ip("address", "add", "2001:db8:1::1/64", "dev", "vB", "nodad")
        if dad {
            try a.ip("address", "add", "2001:db8:1::2/64", "dev", "vA")
        } else {
            try a.ip("address", "add", "2001:db8:1::2/64", "dev", "vA", "nodad")
        }
        try a.ip("-6", "route", "add", "default", "via", "2001:db8:1::1", "dev", "vA")
    }

    /// Removes IPv4 from vA entirely (address and therefore its routes).
    func removeIPv4() throws {
        try a.ip("address", "flush", "dev", "vA", "scope", "global", "to", "198.51.100.0/24")
    }

    /// Sets vA's RFC 2863 operstate as a supplicant would (iproute2 has no verb for it).
    func setOperState(_ state: String, of interface: String) throws {
        let script = Repository.path("scripts/test/set-operstate.py")
        try a.run("/usr/bin/python3", script, interface, state)
    }
}
