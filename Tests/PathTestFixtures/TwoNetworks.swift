// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Two networks behind one interface and one gateway address, told apart only by the
/// router's MAC, as pathd.conf(5)'s `[Network]` sections name them: `home` (free) and
/// `hotspot` (expensive): in the evaluator's and the daemon's unit tests, and against real
/// routers, namespace B's in the kernel tests and the container's peer in the
/// booted-systemd tests.
public enum TwoNetworks {
    public static let home = "02:00:00:00:00:01"
    public static let hotspot = "02:00:00:00:00:02"
    public static let configuration = """
        [Network]
        GatewayMAC=\(home)
        Name=home
        [Network]
        GatewayMAC=\(hotspot)
        Name=hotspot
        Expensive=yes

        """

    /// The router (`routerLink` in namespace `router`) answers with `mac` from now on, with
    /// the host's carrier up, as a router replaced behind a switch: the host's entry for
    /// `gateway` on `hostLink` (namespace `host`), if any, is deleted, or the kernel would
    /// keep the old MAC until it fails (15 to 45 s, docs/ARCHITECTURE.md "Network
    /// identity"); the next resolution (pathd's, ResolveGateways=, or traffic) learns the new one.
    /// One deletion: `ip neigh flush` repeats its rounds until one finds nothing, and a
    /// later round takes the entry pathd's resolution has made meanwhile.
    public static func routerBecomes(_ mac: String, router: String, routerLink: String,
                                     host: String, hostLink: String, gateway: String) throws {
        let ip = try Command.find("ip")
        try Command.check(ip, ["-n", router, "link", "set", routerLink, "address", mac])
        let deleted = try Command.run(ip, ["-n", host, "neigh", "del", gateway, "dev", hostLink])
        guard deleted.termination.isCleanExit || deleted.stderr.contains("No such file or directory") else {
            throw HarnessError("`ip neigh del \(gateway) dev \(hostLink)` failed (\(deleted.termination)): "
                + deleted.stderr)
        }
    }
}
