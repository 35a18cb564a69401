// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

@Suite("systemd units", .blocking)
struct UnitFileTests {
    @Test("pathd.service keeps its exposure at 0.7 with its state and metrics directories",
          .enabled(if: PrometheusTools.find("systemd-analyze") != nil, "systemd-analyze is not installed"))
    func exposure() throws {
        let result = try Command.run(Command.find("systemd-analyze"),
                                     ["security", "--offline=true", Repository.path("packaging/systemd/pathd.service")])
        #expect(result.stdout.contains("Overall exposure level for pathd.service: 0.7 "),
                "\(result.stdout.suffix(300))")
        #expect(try UnitFile.value("StateDirectory", in: "pathd.service") == "pathd")
        #expect(try UnitFile.value("IPAddressDeny", in: "pathd.service") == "any")
        #expect(try UnitFile.value("RestrictAddressFamilies", in: "pathd.service") == "AF_UNIX AF_NETLINK")
    }

    /// systemd (exec_directory_is_private() in src/core/execute.c) keeps a preserved
    /// RuntimeDirectory= of a DynamicUser= service in /run/private, mode 0700 and root's,
    /// behind a symbolic link: whatever its own mode, only root reaches it.
    @Test("""
        a runtime directory readable by others is not preserved under DynamicUser=, which would hide it in \
        /run/private
        """)
    func sharedRuntimeDirectoriesAreNotPreserved() throws {
        let services = try UnitFile.services()
        #expect(services.contains("pathd.service"), "\(services)")
        for unit in services {
            guard try UnitFile.optionalValue("DynamicUser", in: unit) == "yes",
                  try UnitFile.optionalValue("RuntimeDirectory", in: unit) != nil else { continue }
            // systemd's default RuntimeDirectoryMode= is 0755.
            let mode = try #require(Int(try UnitFile.optionalValue("RuntimeDirectoryMode", in: unit) ?? "0755",
                                        radix: 8),
                                    "\(unit): RuntimeDirectoryMode= is not octal")
            guard mode & 0o005 == 0o005 else { continue }
            let preserve = try UnitFile.optionalValue("RuntimeDirectoryPreserve", in: unit) ?? "no"
            #expect(preserve == "no",
                    "\(unit): RuntimeDirectoryPreserve=\(preserve) makes its runtime directory root's only")
        }
        // node_exporter (user prometheus) reads pathd's metrics from there (docs/FLEET.md).
        #expect(try UnitFile.value("RuntimeDirectory", in: "pathd.service") == "pathd-metrics")
        #expect(try UnitFile.value("RuntimeDirectoryMode", in: "pathd.service") == "0755")
    }

    @Test("pathctl in the units talks to the socket of pathd.socket")
    func unitsNameTheSystemSocket() throws {
        _ = try UnitFile.command("ExecReload", in: "pathd.service", socketPath: "/x")
        _ = try UnitFile.command("ExecStart", in: "pathd-wait-online.service", socketPath: "/x")
        #expect(try UnitFile.value("ExecStart", in: "pathd-wait-online.service").hasSuffix(" wait --timeout 60"))
        #expect(try UnitFile.value("Type", in: "pathd-wait-online.service") == "oneshot")
        #expect(try UnitFile.value("RemainAfterExit", in: "pathd-wait-online.service") == "yes")
        #expect(try UnitFile.value("Before", in: "pathd-wait-online.service").split(separator: " ")
            .contains("network-online.target"))
        #expect(try UnitFile.value("WantedBy", in: "pathd-wait-online.service") == "network-online.target")
        _ = try UnitFile.command("ExecStart", in: "pathd-probe.service", socketPath: "/x")
        let (_, waitRoute) = try UnitFile.command("ExecStart", in: "pathd-wait-route@.service", socketPath: "/x",
                                                  instance: "db.example.org")
        #expect(waitRoute == ["--socket", "/x", "wait", "--timeout", "60", "--route", "db.example.org"])
        #expect(try UnitFile.value("Type", in: "pathd-wait-route@.service") == "oneshot")
        #expect(try UnitFile.value("RemainAfterExit", in: "pathd-wait-route@.service") == "yes")
        #expect(try UnitFile.value("Requires", in: "pathd-wait-route@.service") == "pathd.socket")
        // Pulled in by the units that need it, never enabled by itself.
        #expect(!(try Repository.read("packaging/systemd/pathd-wait-route@.service")).contains("[Install]"))
        let (_, hold) = try UnitFile.command("ExecStart", in: "pathd-path@.service", socketPath: "/x",
                                             instance: "prohibit-type:cellular")
        #expect(hold == ["--socket", "/x", "hold", "prohibit-type:cellular"])
    }

    /// The template a job binds to (pathd(8), "Background work only on the right
    /// network"): active exactly while the criterion holds, READY=1 from pathctl hold,
    /// its exit 75 (the criterion stopped holding) a clean stop, gone once unneeded.
    @Test("pathd-path@.service: notify, its change of network no failure, stopped when unneeded, never enabled")
    func pathTemplate() throws {
        #expect(try UnitFile.value("Type", in: "pathd-path@.service") == "notify")
        // pathctl(1)'s exit status 75: the criteria stopped holding.
        #expect(try UnitFile.value("SuccessExitStatus", in: "pathd-path@.service") == "75")
        #expect(try UnitFile.value("StopWhenUnneeded", in: "pathd-path@.service") == "yes")
        #expect(try UnitFile.value("Requires", in: "pathd-path@.service") == "pathd.socket")
        #expect(try UnitFile.value("RestrictAddressFamilies", in: "pathd-path@.service") == "AF_UNIX")
        #expect(try UnitFile.value("ExecStart", in: "pathd-path@.service").hasSuffix(" hold %i"),
                "the raw instance name: %I would make not-expensive not/expensive")
        #expect(!(try Repository.read("packaging/systemd/pathd-path@.service")).contains("[Install]"))
    }

    @Test("pathd-probe runs as pathd's own dynamic user, whom pathd trusts; IP for it, none for pathd")
    func probeSharesPathdsUser() throws {
        #expect(try UnitFile.value("User", in: "pathd-probe.service")
                == (try UnitFile.value("User", in: "pathd.service")))
        #expect(try UnitFile.value("DynamicUser", in: "pathd-probe.service") == "yes")
        #expect(try UnitFile.value("DynamicUser", in: "pathd.service") == "yes")
        #expect(try UnitFile.value("RestrictAddressFamilies", in: "pathd-probe.service") == "AF_UNIX AF_INET AF_INET6")
        #expect(try UnitFile.value("RestrictAddressFamilies", in: "pathd.service") == "AF_UNIX AF_NETLINK")
        #expect(try UnitFile.value("IPAddressDeny", in: "pathd.service") == "any")
        #expect(try UnitFile.value("CapabilityBoundingSet", in: "pathd-probe.service") == "")
    }
}
