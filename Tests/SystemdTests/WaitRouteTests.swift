// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension SystemdTests {
    @Test("a unit after pathd-wait-route@HOST starts once the route to HOST is usable; the path stays satisfied")
    func waitRoute() throws {
        try withInstalledSystem(allowedWarnings: ["198.51.100.9", "timed out"]) { system in
            // A kill switch for one network: the default path is untouched, the host's route unusable.
            try system.check("ip route add unreachable 198.51.100.0/24")
            #expect(Self.path(try system.pathctlJSON("status")).status == "satisfied")
            try system.writeOneshot("needs-host.service", after: "pathd-wait-route@198.51.100.7.service",
                                    command: "pathctl route 198.51.100.7 > /var/tmp/needs-host.txt")
            try system.check("systemctl start --no-block needs-host.service")
            try waitUntil("pathd-wait-route@198.51.100.7 waits", timeout: .seconds(30)) {
                let state = try system.run("systemctl is-active pathd-wait-route@198.51.100.7.service").stdout
                return state == "activating\n"
            }
            #expect(try system.run("systemctl is-active needs-host.service").stdout != "active\n")
            try system.check("ip route del unreachable 198.51.100.0/24")
            try waitUntil("needs-host.service ran", timeout: .seconds(60)) {
                try system.run("systemctl is-active needs-host.service").stdout == "active\n"
            }
            let answer = try system.read("/var/tmp/needs-host.txt")
            #expect(answer.contains("satisfied via uplink0"), "needs-host.service saw: \(answer)")
            #expect(try system.property("Result", of: "pathd-wait-route@198.51.100.7.service") == "success")

            // Never usable within its timeout: it fails, and says why in the journal.
            try system.check("ip route add unreachable 198.51.100.0/24")
            let short = "ExecStart=/usr/bin/pathctl --socket /run/pathd/pathd.sock wait --timeout 2 --route %I\n"
            try system.write("[Service]\nExecStart=\n" + short,
                             to: "/etc/systemd/system/pathd-wait-route@.service.d/short.conf")
            try system.check("systemctl daemon-reload")
            let failed = try system.run("systemctl start pathd-wait-route@198.51.100.9.service")
            #expect(!failed.termination.isCleanExit)
            #expect(try system.property("Result", of: "pathd-wait-route@198.51.100.9.service") == "exit-code")
            let journal = try system.journal(units: ["pathd-wait-route@198.51.100.9.service"]).map(\.message)
            #expect(journal.contains { $0.contains("198.51.100.9") && $0.contains("unsatisfied") }, "\(journal)")
        }
    }
}
