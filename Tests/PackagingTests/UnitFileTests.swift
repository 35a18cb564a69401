import Foundation
import PathTestFixtures
import Testing

/// What the systemd units in packaging/systemd run, read from the files themselves.
enum UnitFile {
    /// The value of the first `key=` line of `unit`.
    static func value(_ key: String, in unit: String) throws -> String {
        let text = try Repository.read("packaging/systemd/\(unit)")
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("\(key)=") }) else {
            throw HarnessError("no \(key)= in packaging/systemd/\(unit)")
        }
        return String(line.dropFirst(key.count + 1))
    }

    /// The value of the first `key=` line of `unit`, nil when it has none.
    static func optionalValue(_ key: String, in unit: String) throws -> String? {
        let text = try Repository.read("packaging/systemd/\(unit)")
        return text.split(separator: "\n").first { $0.hasPrefix("\(key)=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// The service units of packaging/systemd.
    static func services() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Repository.path("packaging/systemd"))
            .filter { $0.hasSuffix(".service") }.sorted()
    }

    /// A command line of a unit (`ExecReload=` of pathd.service…), its program the built
    /// one instead of /usr/local/bin's and the socket `socketPath` instead of pathd.socket's;
    /// for a template, `%I` is `instance` (the unescaped instance name, as systemd makes it).
    static func command(_ key: String, in unit: String, socketPath: String,
                        instance: String? = nil) throws -> (URL, [String]) {
        var words = try value(key, in: unit).split(separator: " ").map(String.init)
        if let instance { words = words.map { $0.replacingOccurrences(of: "%I", with: instance) } }
        let installed = "/usr/local/bin/"
        guard let program = words.first, program.hasPrefix(installed) else {
            throw HarnessError("\(key)= of \(unit) does not run a program from \(installed): \(words)")
        }
        let systemSocket = try value("ListenStream", in: "pathd.socket")
        guard let flag = words.firstIndex(of: "--socket"), words.indices.contains(flag + 1),
              words[flag + 1] == systemSocket else {
            throw HarnessError("\(key)= of \(unit) does not name pathd.socket's \(systemSocket): \(words)")
        }
        words[flag + 1] = socketPath
        return (try BuiltProduct.url(String(program.dropFirst(installed.count))), Array(words.dropFirst()))
    }
}

@Suite("systemd units")
struct UnitFileTests {
    @Test("pathd.service keeps its exposure at 0.7 with its state and metrics directories",
          .enabled(if: PrometheusTools.find("systemd-analyze") != nil, "systemd-analyze is not installed"))
    func exposure() throws {
        let result = try Command.run(Command.find("systemd-analyze"),
                                     ["security", "--offline=true", Repository.path("packaging/systemd/pathd.service")])
        #expect(result.stdout.contains("Overall exposure level for pathd.service: 0.7 "), "\(result.stdout.suffix(300))")
        #expect(try UnitFile.value("StateDirectory", in: "pathd.service") == "pathd")
        #expect(try UnitFile.value("IPAddressDeny", in: "pathd.service") == "any")
        #expect(try UnitFile.value("RestrictAddressFamilies", in: "pathd.service") == "AF_UNIX AF_NETLINK")
    }

    /// systemd (exec_directory_is_private() in src/core/execute.c) keeps a preserved
    /// RuntimeDirectory= of a DynamicUser= service in /run/private, mode 0700 and root's,
    /// behind a symbolic link: whatever its own mode, only root reaches it.
    @Test("a runtime directory readable by others is not preserved under DynamicUser=, which would hide it in /run/private")
    func sharedRuntimeDirectoriesAreNotPreserved() throws {
        let services = try UnitFile.services()
        #expect(services.contains("pathd.service"), "\(services)")
        for unit in services {
            guard try UnitFile.optionalValue("DynamicUser", in: unit) == "yes",
                  try UnitFile.optionalValue("RuntimeDirectory", in: unit) != nil else { continue }
            // systemd's default RuntimeDirectoryMode= is 0755.
            let mode = try #require(Int(try UnitFile.optionalValue("RuntimeDirectoryMode", in: unit) ?? "0755", radix: 8),
                                    "\(unit): RuntimeDirectoryMode= is not octal")
            guard mode & 0o005 == 0o005 else { continue }
            let preserve = try UnitFile.optionalValue("RuntimeDirectoryPreserve", in: unit) ?? "no"
            #expect(preserve == "no", "\(unit): RuntimeDirectoryPreserve=\(preserve) makes its runtime directory root's only")
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
        #expect(try UnitFile.value("Before", in: "pathd-wait-online.service").split(separator: " ").contains("network-online.target"))
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
    }

    @Test("pathd-probe runs as pathd's own dynamic user, whom pathd trusts; IP for it, none for pathd")
    func probeSharesPathdsUser() throws {
        #expect(try UnitFile.value("User", in: "pathd-probe.service") == (try UnitFile.value("User", in: "pathd.service")))
        #expect(try UnitFile.value("DynamicUser", in: "pathd-probe.service") == "yes")
        #expect(try UnitFile.value("DynamicUser", in: "pathd.service") == "yes")
        #expect(try UnitFile.value("RestrictAddressFamilies", in: "pathd-probe.service") == "AF_UNIX AF_INET AF_INET6")
        #expect(try UnitFile.value("RestrictAddressFamilies", in: "pathd.service") == "AF_UNIX AF_NETLINK")
        #expect(try UnitFile.value("IPAddressDeny", in: "pathd.service") == "any")
        #expect(try UnitFile.value("CapabilityBoundingSet", in: "pathd-probe.service") == "")
    }
}

extension KernelTests {
    @Suite("the units' commands against pathd")
    struct UnitCommands {
        @Test("pathd-wait-route@HOST waits while the route to HOST is unusable and succeeds once it is usable")
        func waitRouteInstance() throws {
            try withVethTopology { topology in
                try topology.a.ip("route", "add", "unreachable", "192.0.2.0/24")
                let daemon = try topology.startDaemon()
                let (pathctl, arguments) = try UnitFile.command("ExecStart", in: "pathd-wait-route@.service",
                                                                socketPath: topology.socketPath, instance: "192.0.2.10")
                let errors = topology.directory.path("wait-route.err")
                let unit = try ChildProcess(pathctl, arguments, stderrPath: errors)
                defer { teardown("stop the unit's command") { try unit.terminate("pathd-wait-route@") } }
                try waitUntil("pathd accepted the unit's pathctl") {
                    try hasAccepted(server: daemon.pid, client: unit.pid)
                }
                // The default path is satisfied all along: only the route to the host is waited for.
                let status = try Command.run(pathctl, ["--socket", topology.socketPath, "status", "--check"])
                #expect(status.termination == .exit(0))
                #expect(unit.isRunning, "a unit ordered after it would have started")
                try topology.a.ip("route", "del", "unreachable", "192.0.2.0/24")
                let end = unit.wait(until: Date().addingTimeInterval(20))
                let said = try String(contentsOfFile: errors, encoding: .utf8)
                #expect(end == .exit(0), "stderr: \(said)")
            }
        }

        @Test("ExecReload (systemctl reload) fails on a broken file and pathd keeps the configuration it has")
        func reloadFailsOnABrokenFile() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                try "[Interface]\nName=vA\nExpensive=yes\n".write(toFile: config, atomically: true, encoding: .utf8)
                let daemon = try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("an expensive path through vA") {
                    PathLine.satisfied(through: "vA")($0) && $0["isExpensive"] as? Bool == true
                }
                let (pathctl, arguments) = try UnitFile.command("ExecReload", in: "pathd.service",
                                                                socketPath: topology.socketPath)

                try "[Interface\nExpensive=maybe\n".write(toFile: config, atomically: true, encoding: .utf8)
                let broken = try Command.run(pathctl, arguments)
                #expect(broken.termination == .exit(4), "stderr: \(broken.stderr)")
                #expect(broken.stderr.contains("\(config):1: "), "stderr: \(broken.stderr)")
                #expect(broken.stderr.contains("[configInvalid]"), "stderr: \(broken.stderr)")
                #expect(daemon.isRunning)
                let status = try Command.check(pathctl, ["--socket", topology.socketPath, "status", "--json"])
                let line = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
                #expect(line["isExpensive"] as? Bool == true, "the old configuration is gone: \(status)")

                // The same command applies a valid file.
                try "[Interface]\nName=vA\nExpensive=no\n".write(toFile: config, atomically: true, encoding: .utf8)
                let valid = try Command.run(pathctl, arguments)
                #expect(valid.termination == .exit(0), "stderr: \(valid.stderr)")
                try subscriber.waitFor("the path after the reload, not expensive") {
                    PathLine.satisfied(through: "vA")($0) && $0["isExpensive"] as? Bool == false
                }
            }
        }
    }
}
