// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// The maintainer scripts of the package `make deb` built, run as dpkg runs them: in a
/// mount namespace whose /run has /run/systemd/system (so they believe systemd runs),
/// with deb-systemd-invoke, deb-systemd-helper and systemctl replaced by stand-ins that
/// record each call. What the scripts ask of systemd is then a list of lines to check.
@Suite(
    "Debian package maintainer scripts",
    .serialized,
    .enabled(if: PackageUnderTest.probe.isAvailable, "\(PackageUnderTest.probe.reason)"),
    .enabled(if: getuid() == 0, "unshare --mount needs root"), .blocking
)
struct MaintainerScriptTests {
    let deb = PackageUnderTest.probe.path
    static let units = ["pathd.socket", "pathd.service", "pathd-wait-online.service", "pathd-probe.service"]
    /// What a default install of an earlier version leaves enabled.
    static let enabledByDefault = ["pathd.socket", "pathd.service"]

    @Test("""
        a fresh install enables and starts pathd only: pathd-probe and pathd-wait-online are neither enabled nor \
        started
        """)
    func freshInstall() throws {
        let calls = try run("postinst", ["configure"])
        #expect(calls.contains("deb-systemd-helper enable pathd.service"), "\(calls)")
        #expect(calls.contains("deb-systemd-helper enable pathd.socket"), "\(calls)")
        #expect(calls.contains { $0.hasPrefix("deb-systemd-invoke start ") && $0.contains("pathd.service") },
                "\(calls)")
        for unit in ["pathd-probe.service", "pathd-wait-online.service", "pathd-wait-route@", "pathd-path@"] {
            #expect(!calls.contains { $0.contains(unit) && Self.startsOrEnables($0) }, "\(unit): \(calls)")
        }
    }

    @Test("an upgrade keeps pathd-probe running through it and restarts it if it runs; pathd-wait-online is left alone")
    func upgrade() throws {
        let before = try run("preinst", ["upgrade", "0.0.1"], installed: Self.units, enabled: Self.enabledByDefault)
        let prerm = try run("prerm", ["upgrade", "0.1.1"], installed: Self.units, enabled: Self.enabledByDefault)
        let after = try run("postinst", ["configure", "0.0.1"], installed: Self.units, enabled: Self.enabledByDefault)
        for unit in ["pathd-probe.service", "pathd-wait-online.service"] {
            #expect(!(before + prerm).contains { $0.contains(unit) },
                    "\(unit) stopped before the upgrade: \(before + prerm)")
        }
        // try-restart: restarted when running, not started when the administrator stopped it.
        #expect(after.contains("deb-systemd-invoke try-restart pathd-probe.service"), "\(after)")
        #expect(!after.contains {
                    $0.contains("pathd-probe.service") && Self.startsOrEnables($0) && !$0.contains("try-restart")
                },
                "\(after)")
        #expect(!after.contains { $0.contains("pathd-wait-online.service") && Self.startsOrEnables($0) }, "\(after)")
        #expect(after.contains { $0.hasPrefix("deb-systemd-invoke restart ") && $0.contains("pathd.service") },
                "\(after)")
    }

    @Test("an upgrade re-enables pathd-probe when the administrator had enabled it")
    func upgradeKeepsItEnabled() throws {
        let after = try run("postinst", ["configure", "0.0.1"], installed: Self.units,
                            enabled: Self.enabledByDefault + ["pathd-probe.service"])
        #expect(after.contains("deb-systemd-helper enable pathd-probe.service"), "\(after)")
        #expect(!after.contains("deb-systemd-helper enable pathd-wait-online.service"), "\(after)")
    }

    @Test("apt remove stops pathd-probe, pathd-wait-online, the templates' instances and pathd")
    func remove() throws {
        let calls = try run("prerm", ["remove"], installed: Self.units, enabled: Self.enabledByDefault)
        let stopped = Set(calls.filter { $0.hasPrefix("deb-systemd-invoke stop ") }
            .flatMap { $0.split(separator: " ").dropFirst(2).map(String.init) })
        #expect(stopped.isSuperset(of: ["pathd-probe.service", "pathd-wait-online.service", "pathd.service",
                                        "pathd.socket", "pathd-wait-route@*.service", "pathd-path@*.service"]),
                "\(calls)")
    }

    @Test("purge removes the history and the metrics directory, and keeps what is not pathd's")
    func purgeRemovesTheState() throws {
        try withTemporaryDirectory { directory in
            // As systemd leaves them for pathd.service (DynamicUser=, StateDirectory=pathd,
            // RuntimeDirectory=pathd-metrics), and another service's state beside them.
            let root = directory.path("root")
            let fileManager = FileManager.default
            for path in ["var/lib/private/pathd", "var/lib/private/other", "run/pathd-metrics"] {
                try fileManager.createDirectory(atPath: "\(root)/\(path)", withIntermediateDirectories: true)
            }
            for file in ["var/lib/private/pathd/history.jsonl", "var/lib/private/pathd/.history.jsonl.x1y2",
                         "var/lib/private/other/state", "run/pathd-metrics/pathd.prom"] {
                try "x\n".write(toFile: "\(root)/\(file)", atomically: false, encoding: .utf8)
            }
            try fileManager.createSymbolicLink(atPath: "\(root)/var/lib/pathd", withDestinationPath: "private/pathd")

            let removed = try run("postrm", ["remove"], dpkgRoot: root)
            #expect(fileManager.fileExists(atPath: "\(root)/var/lib/pathd/history.jsonl"),
                    "remove keeps the history: \(removed)")

            let purged = try run("postrm", ["purge"], dpkgRoot: root)
            for gone in ["var/lib/private/pathd", "var/lib/pathd", "run/pathd-metrics"] {
                #expect((try? fileManager.destinationOfSymbolicLink(atPath: "\(root)/\(gone)")) == nil
                        && !fileManager.fileExists(atPath: "\(root)/\(gone)"), "\(gone) is left: \(purged)")
            }
            #expect(fileManager.fileExists(atPath: "\(root)/var/lib/private/other/state"))
            #expect(purged.contains { $0.hasPrefix("deb-systemd-helper purge ") && $0.contains("pathd-probe.service") },
                    "\(purged)")
        }
    }

    @Test("purge keeps a file in pathd's state directory that pathd did not write, and the directory with it")
    func purgeKeepsForeignFiles() throws {
        try withTemporaryDirectory { directory in
            let root = directory.path("root")
            let state = "\(root)/var/lib/private/pathd"
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            try "x\n".write(toFile: "\(state)/history.jsonl", atomically: false, encoding: .utf8)
            try "mine\n".write(toFile: "\(state)/notes.txt", atomically: false, encoding: .utf8)
            _ = try run("postrm", ["purge"], dpkgRoot: root)
            #expect(!FileManager.default.fileExists(atPath: "\(state)/history.jsonl"))
            #expect(try String(contentsOfFile: "\(state)/notes.txt", encoding: .utf8) == "mine\n")
        }
    }

    private static func startsOrEnables(_ call: String) -> Bool {
        ["start ", "restart ", "try-restart ", "enable ", "reenable "].contains { call.contains(" \($0)") }
    }

    /// Runs maintainer script `name` of the package with `arguments` and returns the calls
    /// it made to systemd's tools, one line each with the unit names unquoted.
    /// `installed`: the units a previous version installed (none: a fresh install);
    /// `enabled`: those of them the administrator had enabled.
    /// `dpkgRoot`: DPKG_ROOT for the script (the scripts leave systemd alone under it).
    private func run(_ name: String, _ arguments: [String], installed: [String] = [], enabled: [String] = [],
                     dpkgRoot: String? = nil) throws -> [String] {
        try withTemporaryDirectory { directory in
            try Command.check(Command.find("dpkg-deb"), ["--control", deb, directory.path("control")])
            let script = directory.path("control/\(name)")
            guard FileManager.default.fileExists(atPath: script) else { return [] }
            let log = directory.path("calls")
            let stubs = directory.path("stubs")
            try FileManager.default.createDirectory(atPath: stubs, withIntermediateDirectories: false)
            // Every call is logged. deb-systemd-helper answers as the real one would on a
            // host where the package installed `installed` before, the administrator having
            // enabled `enabled`: was-enabled is true for a unit it has never seen.
            let stub = """
                #!/bin/sh
                echo "$(basename "$0") $*" >> '\(log)'
                [ "$(basename "$0")" = deb-systemd-helper ] || exit 0
                [ "$1" = --quiet ] && shift
                listed() { case " $2 " in *" $1 "*) return 0;; esac; return 1; }
                case "$1" in
                debian-installed) listed "$2" '\(installed.joined(separator: " "))';;
                was-enabled) listed "$2" '\(enabled.joined(separator: " "))' \
                    || ! listed "$2" '\(installed.joined(separator: " "))';;
                *) exit 0;;
                esac
                """
            for tool in ["deb-systemd-invoke", "deb-systemd-helper", "systemctl"] {
                try stub.write(toFile: "\(stubs)/\(tool)", atomically: false, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(stubs)/\(tool)")
            }
            let shell = """
                mount -t tmpfs pathd-test-run /run
                mkdir -p /run/systemd/system
                touch '\(log)'
                export PATH="$1:$PATH"
                shift
                \(dpkgRoot.map { "export DPKG_ROOT='\($0)'" } ?? "unset DPKG_ROOT")
                exec sh -e "$@"
                """
            let result = try Command.run(Command.find("unshare"),
                                         ["--mount", "--propagation", "private", "sh", "-e", "-c", shell, "sh", stubs,
                                          script]
                                            + arguments)
            #expect(result.termination == .exit(0), "\(name) \(arguments): \(result.stderr)")
            return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                .map { $0.replacingOccurrences(of: "'", with: "") }
        }
    }
}
