// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension SystemdTests {
    /// The DHCP clients' hooks as the package installs them, where dhclient and dhcpcd read
    /// them, naming the installed pathctl; the dhclient one a conffile. Then dhcpcd itself
    /// inside, against dnsmasq in the peer namespace sending what a phone's hotspot sends:
    /// the path turns expensive by the hint; a `[Network]` section matching the hint names
    /// the network, and a reload renames it; once dhcpcd stops, its hook ends the lease and
    /// the path is free. Then the same under dhclient, ended by its release.
    static func expectHooks(in system: BootedSystem) throws {
        let hooks = ["/etc/dhcp/dhclient-exit-hooks.d/pathd", "/usr/lib/dhcpcd/dhcpcd-hooks/90-pathd"]
        for hook in hooks {
            #expect(try system.check("dpkg -S \(hook)") == "pathd: \(hook)\n")
            #expect(try system.read(hook).contains("pathd_pathctl=/usr/bin/pathctl"), "\(hook) names another pathctl")
        }
        #expect(try system.check("dpkg-query -W -f '${Conffiles}' pathd").contains(hooks[0]))

        let directory = try TemporaryDirectory()
        defer { teardown("remove \(directory.url.path)") { try directory.remove() } }
        // The peer's /24 (scripts/test/booted_systemd.py), above the two static addresses.
        let subnet = system.state.peerAddress.split(separator: ".").dropLast().joined(separator: ".")
        let server = try DHCPServer(namespace: system.state.peerNamespace, interface: system.state.peerLink,
                                    range: "\(subnet).50,\(subnet).99", directory: directory)
        defer { teardown("stop dnsmasq") { try server.stop() } }
        // -4: DHCPv4 only; --noarp: no address probe, which only delays; -B: in front, ours to stop.
        let client = try system.start("exec dhcpcd -4 -B --noarp \(system.state.uplink)", name: "dhcpcd")
        defer { teardown("stop dhcpcd") { try client.kill() } }
        try waitUntil("the path expensive by the lease", timeout: .seconds(30),
                      detail: { "; dhcpcd said:\n\(client.stderr)" }) {
            path(try system.pathctlJSON("status")).expensive
        }
        let metered = path(try system.pathctlJSON("status"))
        #expect(metered.expensiveSetBy == "hint", "\(metered)")

        // A reload names the network, then renames it; the hint still decides its cost. A
        // section matches an identified network only: the gateway's entry is made first.
        try system.sendToGateway()
        try waitUntil("pathd identifies the uplink's network", timeout: .seconds(30)) {
            (try system.pathctlJSON("status")["network"] as? [String: Any])?["state"] as? String == "identified"
        }
        for name in ["phone", "tether"] {
            try system.write("[Network]\nHint=androidMetered\nName=\(name)\n", to: "/etc/pathd/pathd.conf")
            try system.check("systemctl reload pathd.service")
            let named = path(try system.pathctlJSON("status"))
            #expect(named.network == name && named.expensive && named.expensiveSetBy == "hint", "\(named)")
        }

        // dhcpcd stops (STOP; Debian's dhcpcd.conf keeps the address): only the hook can end the lease.
        try system.check("dhcpcd -4 -x \(system.state.uplink)")
        #expect(try client.waitForExit(timeout: .seconds(20)).isCleanExit, "dhcpcd said:\n\(client.stderr)")
        try waitUntil("the path free once the lease ended", timeout: .seconds(30)) {
            !path(try system.pathctlJSON("status")).expensive
        }
        func ends() throws -> [String] {
            try system.journal(units: ["pathd.service"]).map(\.message)
                .filter { $0.hasPrefix("\(system.state.uplink): DHCPv4 lease ended; ") }
        }
        #expect(try ends() == ["\(system.state.uplink): DHCPv4 lease ended; its hints are forgotten"])

        // dhclient, the other client with a hook in the package: the same, ended by its release.
        let files = "-pf /run/dhclient.pid -lf /var/lib/dhcp/dhclient.leases \(system.state.uplink)"
        let dhclient = try system.start("exec dhclient -d -4 \(files)", name: "dhclient")
        defer { teardown("stop dhclient") { try dhclient.kill() } }
        try waitUntil("the path expensive by dhclient's lease", timeout: .seconds(30),
                      detail: { "; dhclient said:\n\(dhclient.stderr)" }) {
            let leased = path(try system.pathctlJSON("status"))
            return leased.expensive && leased.expensiveSetBy == "hint"
        }
        // dhclient-script removes the address before the hook runs, which may forget the lease
        // first: the hook's report then finds nothing kept (the kernel tests' dhclient test).
        try system.check("dhclient -r \(files)")
        try waitUntil("the path free once dhclient released the lease", timeout: .seconds(30)) {
            !path(try system.pathctlJSON("status")).expensive
        }
        try waitUntil("pathd logged the second lease's end", timeout: .seconds(30)) {
            try ends().count == 2
        }
    }
}
