// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension SystemdTests {
    /// pathd(8)'s worked example, as an administrator sets it up: a backup started by a
    /// timer and bound to pathd-path@not-expensive.service, and the `ExecCondition=` recipe
    /// beside it, in one container. A reload that marks the uplink expensive (as a phone's
    /// hotspot is) stops the running backup, the next timer runs none while it is, and the
    /// one after the path is free runs it again.
    @Test("""
        a backup bound to pathd-path@not-expensive stops when the path turns expensive (a reload, then the \
        hotspot's router), runs again at the next timer when it is free
        """)
    func backupBoundToThePath() throws {
        try withInstalledSystem { system in
            try system.write("""
                [Unit]
                Description=Backup
                BindsTo=pathd-path@not-expensive.service
                After=pathd-path@not-expensive.service
                [Service]
                ExecStart=/bin/sh -c 'echo run >> /var/tmp/backup.log; exec sleep infinity'
                """, to: "/etc/systemd/system/backup.service")
            // Every two seconds, so that "the next timer" comes soon in a test; a real one
            // says OnCalendar=daily.
            try system.write("""
                [Timer]
                OnCalendar=*:*:0/2
                AccuracySec=1ms
                """, to: "/etc/systemd/system/backup.timer")
            try system.write("""
                [Service]
                Type=oneshot
                ExecCondition=/usr/bin/pathctl status --check --not-expensive
                ExecStart=/bin/sh -c 'echo ran >> /var/tmp/condition.log'
                """, to: "/etc/systemd/system/condition.service")
            try system.check("systemctl daemon-reload && systemctl start backup.timer")
            func runs() throws -> Int {
                try system.run("cat /var/tmp/backup.log").stdout.split(separator: "\n").count
            }
            try waitUntil("the timer started the backup", timeout: .seconds(30)) {
                try system.run("systemctl is-active backup.service").stdout == "active\n"
            }
            #expect(try system.check("systemctl is-active pathd-path@not-expensive.service") == "active\n")
            let status = try system.property("StatusText", of: "pathd-path@not-expensive.service")
            #expect(status.hasPrefix("the criteria hold: satisfied via \(system.state.uplink)"), "\(status)")
            try system.check("systemctl start condition.service")
            #expect(try system.read("/var/tmp/condition.log") == "ran\n")

            // The hotspot takes over: the running backup is stopped with the template unit,
            // which ends cleanly (a change of network is no failure).
            let holding = try TemplateRun(of: system)
            try system.write("[Interface]\nName=\(system.state.uplink)\nExpensive=yes\n", to: "/etc/pathd/pathd.conf")
            try system.check("systemctl reload pathd.service")
            try waitUntil("the backup stopped", timeout: .seconds(30)) {
                try system.run("systemctl is-active backup.service").stdout == "inactive\n"
            }
            // journald stores the lines a moment after the unit's state changed: wait for them.
            try waitUntil("the journal holds the template's clean end for the expense", timeout: .seconds(30)) {
                try holding.endedCleanlyForExpense(in: system)
            }
            #expect(try runs() == 1)
            // The next timers while it is expensive run no backup: the template refuses to start.
            try waitUntil("a timer found the path expensive", timeout: .seconds(30)) {
                try system.journal(units: ["backup.service"]).contains { $0.message.contains("Dependency failed") }
            }
            #expect(try system.run("systemctl is-active backup.service").stdout == "inactive\n")
            #expect(try runs() == 1)
            // The ExecCondition= recipe skips its job, with no failure.
            try system.check("systemctl start condition.service")
            #expect(try system.read("/var/tmp/condition.log") == "ran\n")
            #expect(try system.property("Result", of: "condition.service") == "success")

            // Free again: the next timer runs the backup, and the recipe its job.
            try system.write("", to: "/etc/pathd/pathd.conf")
            try system.check("systemctl reload pathd.service")
            try waitUntil("the next timer ran the backup again", timeout: .seconds(30)) {
                try runs() == 2 && system.run("systemctl is-active backup.service").stdout == "active\n"
            }
            try system.check("systemctl start condition.service")
            #expect(try system.read("/var/tmp/condition.log") == "ran\nran\n")

            try Self.hotspotStopsTheBackup(system, runs: runs)

            try system.check("systemctl stop backup.timer backup.service")
            try waitUntil("the template stopped once unneeded", timeout: .seconds(30)) {
                try system.run("systemctl is-active pathd-path@not-expensive.service").stdout == "inactive\n"
            }
        }
    }

    /// One run of the template, read while it holds: systemd's lines about the run carry its
    /// invocation ID, and pathctl's lines carry its main process ID as `_PID`. pathctl's
    /// line is matched by the process, not by the invocation ID journald gives it: journald
    /// reads that ID from the unit's current run when it takes the line, which is already
    /// the next run when a timer started one in between. The unit's Result= and
    /// ExecMainStatus= cannot say it either: the next timer's refused start (exit 1)
    /// overwrites them, and may come before a test reads them.
    struct TemplateRun {
        static let unit = "pathd-path@not-expensive.service"
        let invocation: String
        let mainPID: String

        init(of system: BootedSystem) throws {
            invocation = try system.property("InvocationID", of: Self.unit)
            mainPID = try system.property("MainPID", of: Self.unit)
            guard !invocation.isEmpty, mainPID != "0" else {
                throw HarnessError("\(Self.unit) has no run now: invocation \"\(invocation)\", main PID \(mainPID)")
            }
        }

        /// Whether the run ended by itself and cleanly ("Deactivated successfully", exit
        /// 75) because the path turned expensive, as its pathctl said.
        func endedCleanlyForExpense(in system: BootedSystem) throws -> Bool {
            let entries = try system.journal(units: [Self.unit])
            let endedCleanly = entries.contains {
                $0.isFromSystemd && $0.invocation == invocation && $0.message.hasSuffix("Deactivated successfully.")
            }
            let saidExpensive = entries.contains {
                $0.isFrom("pathctl") && $0.pid == mainPID
                    && $0.message.contains("is expensive, which the criteria exclude")
            }
            return endedCleanly && saidExpensive
        }
    }

    /// The same uplink and gateway address, another router behind them (TwoNetworks: its
    /// MAC alone makes it `hotspot`, which a `[Network]` section makes expensive): the
    /// running backup stops with no reload and no carrier loss, the timers run none while on
    /// the hotspot, and the next one after `home` is back runs it. `runs` counts the runs.
    static func hotspotStopsTheBackup(_ system: BootedSystem, runs: () throws -> Int) throws {
        func refusals() throws -> Int {
            try system.journal(units: ["backup.service"]).filter { $0.message.contains("Dependency failed") }.count
        }
        func isActive() throws -> Bool {
            try system.run("systemctl is-active backup.service").stdout == "active\n"
        }
        try system.routerBecomes(TwoNetworks.home)
        try system.write(TwoNetworks.configuration, to: "/etc/pathd/pathd.conf")
        try system.check("systemctl reload pathd.service")
        try waitUntil("pathd names the uplink's network home", timeout: .seconds(30)) {
            path(try system.pathctlJSON("status")).network == "home"
        }
        let before = try runs()
        #expect(try isActive(), "the backup stopped on home")
        let refused = try refusals()
        let holding = try TemplateRun(of: system)

        try system.routerBecomes(TwoNetworks.hotspot)
        try waitUntil("the backup stopped on the hotspot", timeout: .seconds(30)) { try !isActive() }
        let hotspot = path(try system.pathctlJSON("status"))
        #expect(hotspot.network == "hotspot" && hotspot.expensive && hotspot.expensiveSetBy == "network",
                "\(hotspot)")
        try waitUntil("the journal holds the template's second clean end for the expense", timeout: .seconds(30)) {
            try holding.endedCleanlyForExpense(in: system)
        }
        try waitUntil("a timer found the path expensive on the hotspot", timeout: .seconds(30)) {
            try refusals() > refused
        }
        #expect(try !isActive())
        #expect(try runs() == before)

        try system.routerBecomes(TwoNetworks.home)
        try waitUntil("the next timer ran the backup again on home", timeout: .seconds(30)) {
            try runs() == before + 1 && isActive()
        }
        try waitUntil("pathd names the network home again", timeout: .seconds(30)) {
            path(try system.pathctlJSON("status")).network == "home"
        }
    }
}
