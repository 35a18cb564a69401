// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension SystemdTests {
    @Test("pathd-probe under its unit checks a local HTTP server in the peer namespace and pathd shows the verdict")
    func probeUnderItsUnit() throws {
        try withInstalledSystem { system in
            let directory = try TemporaryDirectory()
            defer { teardown("remove the check server's directory") { try directory.remove() } }
            let server = try CheckServer(inNamespace: system.state.peerNamespace, address: system.state.peerAddress,
                                         directory: directory)
            defer { teardown("stop the check server") { try server.stop() } }
            try system.write("[Connectivity]\nURL=\(server.url)\nExpectedContent=pathd-ok\\n\nTimeout=5s\n",
                             to: "/etc/pathd/pathd.conf")
            try system.check("systemctl reload pathd.service && systemctl enable --now pathd-probe.service")
            try waitUntil("pathd shows the probe's verdict", timeout: .seconds(60)) {
                let connectivity = try system.pathctlJSON("status")["connectivity"] as? [String: Any]
                return connectivity?["state"] as? String == "full"
            }
            #expect(try server.connections >= 1)
            #expect(try system.property("User", of: "pathd-probe.service") == "pathd")
        }
    }

    @Test("an upgrade in place, the same package and then a newer one, with pathctl monitor connected")
    func upgradeInPlace() throws {
        try withInstalledSystem { system in
            let monitor = try Self.satisfiedMonitor(in: system)
            defer { teardown("stop pathctl monitor") { try monitor.kill() } }
            let history = "/var/lib/private/pathd/history.jsonl"
            let before = try system.read(history)
            #expect(!before.isEmpty)
            let package = try #require(system.state.packages.first { $0.contains("/pathd_") })
            // A newer version of the same package, as the next release would be.
            try system.check("""
                dpkg-deb -R \(package) /var/tmp/newer && \
                sed -i 's/^Version: .*/&+upgrade1/' /var/tmp/newer/DEBIAN/control && \
                dpkg-deb -Znone -b /var/tmp/newer /var/tmp/pathd-newer.deb >/dev/null
                """)
            func reconnects() -> Int {
                monitor.stderr.components(separatedBy: "pathctl: reconnected to pathd").count - 1
            }
            for deb in [package, "/var/tmp/pathd-newer.deb"] {
                let pid = try system.property("MainPID", of: "pathd.service")
                let reconnected = reconnects()
                try system.check("dpkg -i \(deb)")
                #expect(try system.check("dpkg --audit") == "", "half-configured after \(deb)")
                #expect(try system.check("dpkg-query -W -f '${db:Status-Abbrev}' pathd") == "ii ")
                #expect(try system.check("systemctl is-active pathd.socket pathd.service") == "active\nactive\n")
                #expect(try system.property("MainPID", of: "pathd.service") != pid, "pathd was not restarted by \(deb)")
                try waitUntil("pathctl monitor reconnected after \(deb)", timeout: .seconds(30)) {
                    reconnects() > reconnected
                }
            }
            #expect(try system.check("dpkg-query -W -f '${Version}' pathd").hasSuffix("+upgrade1"))
            // The history of the runs before the upgrades is kept, with theirs after it.
            let after = try system.read(history)
            #expect(after.hasPrefix(before), "the history file lost entries:\n\(before)\n---\n\(after)")
            let events = (try system.pathctlJSON("history")["entries"] as? [[String: Any]] ?? [])
                .compactMap { $0["event"] as? String }
            #expect(events.filter { $0 == "started" }.count == 3, "\(events)")
            #expect(events.filter { $0 == "stopped" }.count == 2, "\(events)")
            // The monitor rode it out: still running, and live.
            try system.peer("link", "set", system.state.peerLink, "down")
            try monitor.waitForObject("the carrier loss after the upgrades", timeout: .seconds(30)) {
                $0["unsatisfiedReason"] as? String == "noCarrier"
            }
        }
    }

    @Test("dpkg --remove stops pathd and removes its units and socket, keeping its state; --purge removes the state")
    func removeAndPurge() throws {
        try withInstalledSystem { system in
            try system.check("systemctl enable --now pathd-wait-online.service")
            let history = "/var/lib/private/pathd/history.jsonl"
            #expect(!(try system.read(history)).isEmpty)
            try system.check("dpkg --remove pathd-gio-module pathd")
            for unit in Self.units where !unit.contains("*") {
                #expect(try system.run("systemctl is-active \(unit)").stdout == "inactive\n", "\(unit)")
            }
            for unit in Self.units.map({ $0.replacingOccurrences(of: "*", with: "") }) {
                #expect(try system.run("test -e /lib/systemd/system/\(unit)").termination != .exit(0), "\(unit)")
            }
            #expect(try system.run("test -e /run/pathd/pathd.sock").termination != .exit(0))
            #expect(try system.run("test -e /usr/bin/pathd").termination != .exit(0))
            #expect(try system.check("dpkg-query -W -f '${db:Status-Abbrev}' pathd") == "rc ")
            #expect(!(try system.read(history)).isEmpty, "dpkg --remove took the history")

            try system.check("dpkg --purge pathd")
            #expect(try system.run("test -e \(history)").termination != .exit(0), "dpkg --purge left the history")
            #expect(try system.run("test -e /var/lib/pathd").termination != .exit(0))
            #expect(try system.run("dpkg-query -W pathd").termination != .exit(0), "pathd is still known to dpkg")
            #expect(try system.run("systemctl list-unit-files 'pathd*' --no-legend").stdout == "")
        }
    }
}
