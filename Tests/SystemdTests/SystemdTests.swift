// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// pathd's packages under a real systemd 252, as an administrator meets them: each test
/// boots a container (scripts/test/booted_systemd.py), installs the .debs `make test`
/// built with dpkg, and works the units from inside while the uplink's carrier is
/// switched from outside. Each test has a container, namespaces and a cgroup of its own
/// (scripts/test/booted_systemd.py), so the tests run beside each other on the lanes of
/// `.blocking(.systems)`; the checks wait on systemd's and pathd's own answers, never on time alone.
@Suite("pathd under a booted systemd",
       .enabled(if: ContainerSupport.unavailable == nil, "\(ContainerSupport.unavailable ?? "")"),
       .blocking(.systems))
struct SystemdTests {
    static let units = ["pathd.socket", "pathd.service", "pathd-wait-online.service", "pathd-probe.service",
                        "pathd-wait-route@*.service", "pathd-path@*.service"]

    /// Boots a container with both packages installed by dpkg, runs `body`, then holds the
    /// journal of pathd's units to pathd's own lines (`allowedWarnings` names the words of
    /// the warnings and errors the test causes on purpose).
    func withInstalledSystem(allowedWarnings: [String] = [], _ body: (BootedSystem) throws -> Void) throws {
        let system = try BootedSystem(packages: [PackageUnderTest.probe.path, GIOModulePackage.probe.path])
        defer { teardown("stop the container") { try system.stop() } }
        try system.check("dpkg -i \(system.state.packages.joined(separator: " "))")
        try body(system)
        try Self.expectOwnLinesOnly(system, allowedWarnings: allowedWarnings)
    }

    /// Every line pathd's units wrote to the journal is theirs, through their standard
    /// error (the journal's `stdout` transport), and none is a warning in a normal run:
    /// no libdispatch line through syslog(3), no library noise. systemd's own lines about
    /// the units are left out.
    static func expectOwnLinesOnly(_ system: BootedSystem, allowedWarnings: [String]) throws {
        let entries = try system.journal(units: units)
        #expect(entries.contains { $0.message.hasPrefix("pathd ") && $0.message.hasSuffix(" starting") },
                "the journal has no line of pathd's: \(entries)")
        for entry in entries where !entry.isFromSystemd {
            #expect(entry.transport == "stdout", "a line that is not pathd's own: \(entry)")
            if entry.priority <= 4 {
                #expect(allowedWarnings.contains { entry.message.contains($0) }, "a warning in a normal run: \(entry)")
            }
        }
    }

    /// `pathctl monitor --json` inside, once it printed the first (satisfied) path.
    static func satisfiedMonitor(in system: BootedSystem) throws -> ProgramProcess {
        let monitor = try system.start("pathctl monitor --json", name: "monitor")
        do {
            try monitor.waitForObject("the first path") { $0["status"] as? String == "satisfied" }
        } catch {
            teardown("stop pathctl monitor") { try monitor.kill() }
            throw error
        }
        return monitor
    }

    /// A path line's status, interfaces, cost (and what decided it) and network name.
    static func path(_ object: [String: Any])
        -> (status: String, interfaces: [String], expensive: Bool, expensiveSetBy: String, network: String?) {
        let interfaces = (object["interfaces"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        return (object["status"] as? String ?? "", interfaces, object["isExpensive"] as? Bool ?? false,
                object["isExpensiveSetBy"] as? String ?? "", (object["network"] as? [String: Any])?["name"] as? String)
    }

    @Test("""
        dpkg -i enables and starts pathd.socket and pathd.service; pathctl status is satisfied over the uplink; the \
        DHCP clients' hooks are installed, and under a real dhcpcd and dhclient tell pathd of a phone's \
        ANDROID_METERED lease, whose network a reload names and renames
        """)
    func install() throws {
        try withInstalledSystem { system in
            #expect(try system.check("systemctl is-enabled pathd.socket pathd.service") == "enabled\nenabled\n")
            #expect(try system.check("systemctl is-active pathd.socket pathd.service") == "active\nactive\n")
            #expect(try system.check("dpkg-query -W -f '${db:Status-Abbrev}|' pathd pathd-gio-module") == "ii |ii |")
            #expect(try system.check("dpkg --audit") == "")
            let status = Self.path(try system.pathctlJSON("status"))
            #expect(status.status == "satisfied")
            #expect(status.interfaces == [system.state.uplink])
            #expect(try system.property("Type", of: "pathd.service") == "notify")
            #expect(try system.property("StatusText", of: "pathd.service").hasPrefix("path: satisfied via uplink0"))
            // Not enabled by a fresh install: the administrator's choice (pathd(8), pathd-probe(8)).
            #expect(try system.run("systemctl is-enabled pathd-wait-online.service pathd-probe.service").stdout
                    == "disabled\ndisabled\n")
            try Self.expectHooks(in: system)
        }
    }

    @Test("with pathd.service stopped, the next client starts it through pathd.socket")
    func socketActivation() throws {
        try withInstalledSystem { system in
            try system.check("systemctl stop pathd.service")
            #expect(try system.run("systemctl is-active pathd.service").stdout == "inactive\n")
            #expect(try system.run("systemctl is-active pathd.socket").stdout == "active\n")
            #expect(Self.path(try system.pathctlJSON("status")).status == "satisfied")
            #expect(try system.check("systemctl is-active pathd.service") == "active\n")
            #expect(try system.property("TriggeredBy", of: "pathd.service") == "pathd.socket")
        }
    }

    @Test("systemctl reload applies a changed pathd.conf, refuses a broken one with its reason, and pathd serves on")
    func reload() throws {
        let refusal = ["Expensive= expects a boolean", "configuration not reloaded"]
        try withInstalledSystem(allowedWarnings: refusal) { system in
            let pid = try system.property("MainPID", of: "pathd.service")
            #expect(Self.path(try system.pathctlJSON("status")).expensive == false)
            try system.write("[Interface]\nName=uplink0\nExpensive=yes\n", to: "/etc/pathd/pathd.conf")
            try system.check("systemctl reload pathd.service")
            #expect(Self.path(try system.pathctlJSON("status")).expensive == true)

            try system.write("[Interface]\nName=uplink0\nExpensive=perhaps\n", to: "/etc/pathd/pathd.conf")
            let refused = try system.run("systemctl reload pathd.service")
            #expect(!refused.termination.isCleanExit, "a broken configuration was reloaded: \(refused.stdout)")
            let status = try system.run("systemctl status --no-pager --lines=20 pathd.service").stdout
            #expect(status.contains("/etc/pathd/pathd.conf:3: Expensive= expects a boolean"),
                    "systemctl status does not say why: \(status)")
            // journald may store the lines a moment after `systemctl reload` returned.
            try waitUntil("the journal has pathd's and pathctl's lines about the refusal", timeout: .seconds(30)) {
                let journal = try system.journal(units: ["pathd.service"])
                return journal.contains { $0.message.hasPrefix("configuration not reloaded") }
                    && journal.contains { $0.isFrom("pathctl") && $0.message.contains("pathd.conf:3") }
            }
            let refusal = try #require(try system.journal(units: ["pathd.service"]).first {
                $0.isFrom("pathctl") && $0.message.contains("pathd.conf:3")
            })
            #expect(refusal.priority == 3, "pathctl's refusal is not an error in the journal: \(refusal)")
            // pathd serves on, with the configuration it had.
            #expect(try system.property("MainPID", of: "pathd.service") == pid)
            #expect(try system.check("systemctl is-active pathd.service") == "active\n")
            #expect(Self.path(try system.pathctlJSON("status")).expensive == true)
        }
    }

    @Test("kill -9 of pathd: systemd restarts it, the history shows the gap, a subscriber reconnects")
    func restartAfterKill() throws {
        try withInstalledSystem { system in
            let monitor = try Self.satisfiedMonitor(in: system)
            defer { teardown("stop pathctl monitor") { try monitor.kill() } }
            let killed = try system.property("MainPID", of: "pathd.service")
            try system.check("kill -9 \(killed)")
            try waitUntil("systemd restarted pathd", timeout: .seconds(30)) {
                let pid = try system.property("MainPID", of: "pathd.service")
                let active = try system.run("systemctl is-active pathd.service").stdout == "active\n"
                return pid != killed && pid != "0" && active
            }
            #expect(try system.property("NRestarts", of: "pathd.service") == "1")
            try waitUntil("pathctl monitor reconnected", timeout: .seconds(30)) {
                monitor.stderr.contains("pathctl: reconnected to pathd")
            }
            // The reconnected subscription is live: a change after it arrives.
            try system.peer("link", "set", system.state.peerLink, "down")
            try monitor.waitForObject("the carrier loss after the restart", timeout: .seconds(30)) {
                $0["unsatisfiedReason"] as? String == "noCarrier"
            }
            let entries = try system.pathctlJSON("history")["entries"] as? [[String: Any]] ?? []
            let events = entries.compactMap { $0["event"] as? String }
            // A run that ended without `stopped`: the gap a crash leaves, unknown, never offline.
            #expect(events.filter { $0 == "started" }.count == 2, "\(events)")
            #expect(!events.contains("stopped"), "\(events)")
            let report = try system.check("pathctl history")
            #expect(report.contains("unknown"), "\(report)")
        }
    }

    @Test("the watchdog never stops a pathd that runs, and restarts one that stops answering (SIGSTOP)")
    func watchdog() throws {
        try withInstalledSystem { system in
            // The shipped 30 s would make this test wait a minute for each check; pathd pings
            // at half of whatever WATCHDOG_USEC says, so 3 s exercises the same code.
            try system.write("[Service]\nWatchdogSec=3s\n", to: "/etc/systemd/system/pathd.service.d/watchdog.conf")
            try system.check("systemctl daemon-reload && systemctl restart pathd.service")
            let pid = try system.property("MainPID", of: "pathd.service")
            var pings: Set<String> = []
            // Six pings (at 1.5 s) span three watchdog periods with pathd never stopped.
            try waitUntil("pathd sent WATCHDOG=1 six times", timeout: .seconds(30)) {
                pings.insert(try system.property("WatchdogTimestampMonotonic", of: "pathd.service"))
                return pings.count > 6
            }
            #expect(try system.property("MainPID", of: "pathd.service") == pid)
            #expect(try system.property("NRestarts", of: "pathd.service") == "0")

            try system.check("kill -STOP \(pid)")
            try waitUntil("systemd restarted the stopped pathd", timeout: .seconds(30)) {
                let restarts = try system.property("NRestarts", of: "pathd.service")
                return try restarts == "1" && system.run("systemctl is-active pathd.service").stdout == "active\n"
            }
            let journal = try system.journal(units: ["pathd.service"]).map(\.message)
            #expect(journal.contains { $0.contains("Watchdog timeout") }, "\(journal)")
            #expect(Self.path(try system.pathctlJSON("status")).status == "satisfied")
        }
    }

    @Test("pathd-wait-online holds network-online.target until a path, fails cleanly; monitor sees carrier loss")
    func waitOnline() throws {
        try withInstalledSystem(allowedWarnings: ["waiting for a satisfied path"]) { system in
            #expect(try system.property("Before", of: "pathd-wait-online.service").contains("network-online.target"))
            try system.check("systemctl enable pathd-wait-online.service")
            // Satisfied: it is done at once (docs/PERFORMANCE.md has how long it takes).
            try system.check("systemctl start pathd-wait-online.service")
            #expect(try system.property("Result", of: "pathd-wait-online.service") == "success")

            let monitor = try system.start("pathctl monitor", name: "monitor")
            defer { teardown("stop pathctl monitor") { try monitor.kill() } }
            try monitor.waitForLine("satisfied") { $0.contains("satisfied via uplink0") }
            try system.peer("link", "set", system.state.peerLink, "down")
            try monitor.waitForLine("the carrier loss, from outside", timeout: .seconds(30)) {
                $0.contains("unsatisfied: no carrier on uplink0")
            }

            // No usable path: it waits, then fails cleanly (a short timeout, as a drop-in sets one).
            try system.write("[Service]\nExecStart=\n"
                             + "ExecStart=/usr/bin/pathctl --socket /run/pathd/pathd.sock wait --timeout 2\n",
                             to: "/etc/systemd/system/pathd-wait-online.service.d/short.conf")
            try system.check("systemctl daemon-reload")
            let failed = try system.run("systemctl restart pathd-wait-online.service")
            #expect(!failed.termination.isCleanExit)
            #expect(try system.property("Result", of: "pathd-wait-online.service") == "exit-code")
            #expect(try system.property("ExecMainStatus", of: "pathd-wait-online.service") == "1")
            try system.check("rm /etc/systemd/system/pathd-wait-online.service.d/short.conf && systemctl daemon-reload")

            // A unit ordered after network-online.target starts only once the path is usable.
            try system.writeOneshot("after-online.service", after: "network-online.target",
                                    command: "pathctl status --json > /var/tmp/after-online.json")
            try system.check("systemctl stop network-online.target pathd-wait-online.service")
            try system.check("systemctl start --no-block after-online.service")
            try waitUntil("pathd-wait-online waits", timeout: .seconds(30)) {
                try system.run("systemctl is-active pathd-wait-online.service").stdout == "activating\n"
            }
            #expect(try system.run("systemctl is-active after-online.service").stdout != "active\n")
            try system.peer("link", "set", system.state.peerLink, "up")
            try monitor.waitForLine("satisfied again", timeout: .seconds(30)) { $0.contains("satisfied via uplink0") }
            try waitUntil("after-online.service ran", timeout: .seconds(60)) {
                try system.run("systemctl is-active after-online.service").stdout == "active\n"
            }
            let seen = Self.path(OutputLines.object(try system.read("/var/tmp/after-online.json")) ?? [:])
            #expect(seen.status == "satisfied", "after-online.service saw \(seen)")
            #expect(try system.property("Result", of: "pathd-wait-online.service") == "success")
        }
    }

    @Test("an unchanged GLib program inside gets PathdNetworkMonitor and pathd's answer through /run/pathd/pathd.sock")
    func gioModule() throws {
        try withInstalledSystem { system in
            let program = """
                python3 -c 'from gi.repository import Gio; m = Gio.NetworkMonitor.get_default(); \
                print(type(m).__name__, m.get_network_available(), m.get_network_metered())'
                """
            #expect(try system.check(program) == "PathdNetworkMonitor True False\n")
            try system.peer("link", "set", system.state.peerLink, "down")
            try waitUntil("pathd says unsatisfied", timeout: .seconds(30)) {
                Self.path(try system.pathctlJSON("status")).status == "unsatisfied"
            }
            // GLib's own netlink backend still sees the (linkdown) default route here.
            #expect(try system.check(program) == "PathdNetworkMonitor False False\n")
        }
    }
}
