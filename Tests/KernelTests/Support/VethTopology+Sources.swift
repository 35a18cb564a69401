// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// Source-address setups on the main pair: IPv4 link-local as zeroconf (avahi-autoipd)
/// configures it, and IPv6 optimistic DAD made slow enough to watch.
extension VethTopology {
    static let linkLocalRouter = "169.254.10.1"

    /// Replaces 198.51.100.0/24 on vA with 169.254.10.2/16 scope link (vB gets .1), no
    /// default route yet.
    func useIPv4LinkLocal() throws {
        try deleteDefaultRoute()
        try removeIPv4()
        try b.ip("address", "add", "\(Self.linkLocalRouter)/16", "dev", "vB", "scope", "link")
        try a.ip("address", "add", "169.254.10.2/16", "dev", "vA", "scope", "link")
    }

    /// `default dev vA scope link`: the kernel sources from the link-local address.
    func replaceDefaultWithLinkScope() throws {
        try a.ip("route", "replace", "default", "dev", "vA", "scope", "link")
    }

    /// `default via 169.254.10.1`: the kernel finds no source of universe scope.
    func replaceDefaultWithLinkLocalGateway() throws {
        try a.ip("route", "replace", "default", "via", Self.linkLocalRouter, "dev", "vA")
    }

    /// The source `ip route get` names for the IPv4 lookup destination, or nil.
    var kernelIPv4Source: String? {
        get throws {
            let words = try a.ip("route", "get", "203.0.113.1").split(whereSeparator: \.isWhitespace)
            guard let index = words.firstIndex(of: "src"), index + 1 < words.count else { return nil }
            return String(words[index + 1])
        }
    }

    /// Optimistic DAD on vA (RFC 4429), and DAD slow enough (20 probes, 5 s apart) that a
    /// test sees the address still tentative long after pathd has answered. First vA's
    /// link-local address finishes its own DAD, as it usually has before a host gets a
    /// global address: neighbour solicitations go out from a link-local address that is
    /// neither tentative nor optimistic (`ndisc_solicit`, net/ipv6/ndisc.c), so traffic
    /// from the optimistic address flows only then (checked by hand with TCP).
    func enableSlowOptimisticDAD() throws {
        try waitUntil("vA's link-local address finishes DAD") {
            let linkLocal = try a.ip("-6", "address", "show", "dev", "vA", "scope", "link")
            return linkLocal.contains("fe80::") && !linkLocal.contains("tentative")
        }
        try a.run("sysctl", "-q", "-w", "net.ipv6.conf.vA.optimistic_dad=1", "net.ipv6.conf.vA.dad_transmits=20",
                  "net.ipv6.neigh.vA.retrans_time_ms=5000")
    }

    /// 2001:db8:1::2/64 on vA flagged optimistic (DAD runs, the kernel may source from it
    /// meanwhile), 2001:db8:1::1 on vB, and the IPv6 default route via vB.
    func addOptimisticIPv6() throws {
        try b.ip("address", "add", "2001:db8:1::1/64", "dev", "vB", "nodad")
        try a.ip("address", "add", "2001:db8:1::2/64", "dev", "vA", "optimistic")
        try a.ip("-6", "route", "add", "default", "via", "2001:db8:1::1", "dev", "vA")
    }

    /// vA's global IPv6 addresses as `ip` prints them.
    var globalIPv6OfA: String {
        get throws { try a.ip("-6", "address", "show", "dev", "vA", "scope", "global") }
    }

    /// Waits until the kernel marks a global IPv6 address of vA `dadfailed`: one that
    /// was added while a neighbour holds it.
    func waitUntilDADFailsOnA() throws {
        try waitUntil("DAD fails on vA") { try globalIPv6OfA.contains("dadfailed") }
    }
}
