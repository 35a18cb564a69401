// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/ARCHITECTURE.md, "The connectivity check": pathd-probe checks beyond the path, against a server in the peer
    /// namespace, and pathd publishes what it found beside the path. All traffic stays in
    /// the test's two namespaces.
    @Suite("connectivity check (pathd-probe)", .serialized)
    struct Connectivity {
        static func writeConfig(_ topology: VethTopology, url: String?, timeout: String = "2s",
                                interval: String = "1h") throws -> String {
            let path = topology.directory.path("pathd.conf")
            var text = "[Connectivity]\nInterval=\(interval)\nTimeout=\(timeout)\n"
            if let url { text += "URL=\(url)\nExpectedContent=pathd-ok\\n\n" }
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        static func connectivity(_ line: [String: Any]) -> [String: Any] {
            line["connectivity"] as? [String: Any] ?? [:]
        }

        static func state(_ line: [String: Any]) -> String? {
            connectivity(line)["state"] as? String
        }

        /// The path's own fields: everything but the sequence and the connectivity.
        static func pathFields(_ line: [String: Any]) -> NSDictionary {
            var fields = line
            fields["sequence"] = nil
            fields["connectivity"] = nil
            return fields as NSDictionary
        }

        /// `pathctl status --json`: the daemon's path line.
        static func status(_ topology: VethTopology) throws -> [String: Any] {
            let json = try Command.check(BuiltProduct.url("pathctl"),
                                         ["--socket", topology.socketPath, "status", "--json"])
            return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
        }

        static func sha256(_ text: String) throws -> String {
            try withTemporaryDirectory { file in
                try text.write(toFile: file.path("body"), atomically: true, encoding: .utf8)
                return String(try Command.check(Command.find("sha256sum"), [file.path("body")]).prefix(64))
            }
        }

        @Test("""
            full, portal (redirect, content, body past 1 MiB), limited, none: path untouched, one line each, evidence
            """)
        func fiveVerdicts() throws {
            try withVethTopology { topology in
                let server = try CheckServer(in: topology.b, address: VethTopology.routerAddress,
                                             directory: topology.directory)
                let config = try Self.writeConfig(topology, url: server.url)
                try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                let first = try subscriber.waitFor("satisfied through vA") {
                    PathLine.satisfied(through: "vA")($0) && PathLine.hasSettledNetwork($0)
                }
                #expect(Self.state(first) == "unknown")
                let probe = try ProbeProcess(in: topology.a, socketPath: topology.socketPath, configPath: config,
                                             stderrPath: topology.directory.path("probe.stderr"))
                defer { teardown("stop pathd-probe") { try probe.terminate() } }
                var sequence = first["sequence"] as? Int ?? 0

                /// The next line: the verdict `state`, the path's fields as they were, the next sequence.
                func nextVerdict(_ state: String) throws -> [String: Any] {
                    let line = try subscriber.nextLine("connectivity \(state)")
                    #expect(Self.state(line) == state, "\(line)")
                    #expect(Self.pathFields(line) == Self.pathFields(first), "the path changed: \(line)")
                    #expect(line["sequence"] as? Int == sequence + 1, "not one line per change: \(line)")
                    sequence = line["sequence"] as? Int ?? sequence
                    let evidence = Self.connectivity(line)
                    #expect(evidence["url"] as? String == server.url)
                    #expect(evidence["interface"] as? String == "vA")
                    #expect((evidence["elapsedMilliseconds"] as? Int ?? -1) >= 0)
                    let checkedAt = evidence["checkedAt"] as? String ?? ""
                    #expect(checkedAt.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#,
                                            options: .regularExpression) != nil)
                    return evidence
                }

                let full = try nextVerdict("full")
                #expect(full["httpStatus"] as? Int == 200)
                #expect(full["bytesReceived"] as? Int == 9)
                #expect(full["sha256"] as? String == (try Self.sha256(CheckServer.expectedBody)))
                #expect(full["redirectTarget"] is NSNull && full["error"] is NSNull)

                // A check that confirms the verdict sends no line: the next one is the portal's.
                // status shows that check (two rounds begin at least 2 s apart, so a later checkedAt).
                try probe.checkNow()
                try probe.waitForLog("vA: Internet reachable", count: 2)
                let confirmed = try Self.status(topology)
                #expect(Self.state(confirmed) == "full" && confirmed["sequence"] as? Int == sequence, "\(confirmed)")
                #expect(Self.connectivity(confirmed)["checkedAt"] as? String ?? "" > full["checkedAt"] as? String ?? "",
                        "status kept the first check: \(confirmed)")

                try server.set(mode: "redirect")
                try probe.checkNow()
                let redirect = try nextVerdict("portal")
                #expect(redirect["httpStatus"] as? Int == 302)
                #expect(redirect["redirectTarget"] as? String == "http://login.example/")
                let status = try Command.check(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "status"])
                let headline = status.split(separator: "\n").first ?? ""
                #expect(headline.hasPrefix("Path:        satisfied via vA (IPv4")
                        && headline.hasSuffix(") — captive portal: http://login.example/"),
                        "pathctl status:\n\(status)")
                #expect(status.contains("Status:      satisfied\n"), "pathctl status:\n\(status)")

                try server.set(mode: "other")
                try probe.checkNow()
                let other = try nextVerdict("portal")
                #expect(other["httpStatus"] as? Int == 200)
                #expect(other["redirectTarget"] is NSNull)
                #expect(other["bytesReceived"] as? Int == CheckServer.loginPage.utf8.count)
                #expect(other["sha256"] as? String == (try Self.sha256(CheckServer.loginPage)))

                try server.set(mode: "trickle")
                try probe.checkNow()
                let limited = try nextVerdict("limited")
                #expect(limited["httpStatus"] as? Int == 200)
                #expect((limited["bytesReceived"] as? Int ?? 0) >= 1 && (limited["bytesReceived"] as? Int ?? 99) < 30)
                #expect((limited["error"] as? String ?? "").contains("timed out"), "\(limited)")
                #expect((limited["elapsedMilliseconds"] as? Int ?? 0) >= 2000)

                // Past the 1 MiB body limit: exactly the limit's bytes read, counted and hashed.
                try server.set(mode: "long")
                try probe.checkNow()
                let long = try nextVerdict("portal")
                #expect(long["httpStatus"] as? Int == 200)
                #expect(long["bytesReceived"] as? Int == 1_048_576, "\(long)")
                #expect(long["error"] as? String == "body longer than 1048576 bytes; read no further than that")
                #expect(long["sha256"] as? String == (try Self.sha256(String(repeating: "p", count: 1_048_576))))
                try probe.waitForLog("vA: captive portal (HTTP 200, body longer than 1048576 bytes; read no further "
                                     + "than that, 1048576 bytes, ")

                try server.stop()
                try probe.checkNow()
                let none = try nextVerdict("none")
                #expect(none["httpStatus"] is NSNull && none["sha256"] is NSNull)
                #expect((none["error"] as? String ?? "").hasPrefix("Failed to connect to 198.51.100.1 port 8080"),
                        "\(none)")
                let serverLog = try server.log
                // full twice, redirect, other, trickle, long; nothing listened for none.
                #expect(serverLog.filter { $0.hasPrefix("connection from") }.count == 6, "server log: \(serverLog)")

                // interfaces shows the latest result per link.
                let interfaces = try Command.check(BuiltProduct.url("pathctl"),
                                                   ["--socket", topology.socketPath, "interfaces", "--json"])
                let reply = try #require(
                    try JSONSerialization.jsonObject(with: Data(interfaces.utf8)) as? [String: Any])
                let vA = (reply["interfaces"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "vA" } ?? [:]
                #expect(Self.state(vA) == "none")
            }
        }

        @Test("""
            while the probe runs, status shows each periodic check that confirms the verdict; subscribers get no line
            """)
        func periodicChecksInStatus() throws {
            try withVethTopology { topology in
                let server = try CheckServer(in: topology.b, address: VethTopology.routerAddress,
                                             directory: topology.directory)
                // The shortest interval pathd.conf allows.
                let config = try Self.writeConfig(topology, url: server.url, interval: "10s")
                let daemon = try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                // Settled first: vA's network identified later would be one more line.
                try subscriber.waitFor("vA's network settled", PathLine.settled(through: "vA"))
                let probe = try ProbeProcess(in: topology.a, socketPath: topology.socketPath, configPath: config,
                                             stderrPath: topology.directory.path("probe.stderr"))
                defer { teardown("stop pathd-probe") { try probe.terminate() } }
                let full = try subscriber.waitFor("full") { Self.state($0) == "full" }
                var checkedAt = Self.connectivity(full)["checkedAt"] as? String ?? ""
                // Two more rounds, by the interval alone: after each, status has its evidence.
                for round in 2...3 {
                    try probe.waitForLog("vA: Internet reachable", count: round, timeout: .seconds(40))
                    let status = try Self.status(topology)
                    let latest = Self.connectivity(status)["checkedAt"] as? String ?? ""
                    #expect(Self.state(status) == "full" && latest > checkedAt, "round \(round): \(status)")
                    #expect(status["sequence"] as? Int == full["sequence"] as? Int,
                            "a confirmation made a new line: \(status)")
                    checkedAt = latest
                }
                try daemon.terminate()
                let paths = try subscriber.linesUntilClosed("pathd's lines").filter(PathLine.isPath)
                // Before the verdict, lines of "unknown" (the start, and the network identified
                // a moment later); after it, the one "full" line: no check that confirms it sent one.
                let states = paths.map { Self.state($0) ?? "?" }
                #expect(states.first == "unknown" && states.drop(while: { $0 == "unknown" }) == ["full"],
                        "\(paths)")
            }
        }

        /// A name server that never answers: getaddrinfo(3) would wait out resolv.conf's
        /// timeout × attempts (here 30 s × 5), far past the check's deadline; Timeout= ends the
        /// check instead, and the next one begins at once on SIGHUP.
        @Test("a name server that never answers: each check ends at Timeout=, none, the error says resolving timed out")
        func silentNameServer() throws {
            try withVethTopology { topology in
                let nameServer = try SilentNameServer(in: topology.b, address: VethTopology.routerAddress,
                                                      directory: topology.directory)
                defer { teardown("stop the silent name server") { try nameServer.stop() } }
                let mounts = try PrivateMounts(in: topology.a, stderrPath: topology.directory.path("holder.stderr"))
                defer { teardown("end the mount namespace holder") { try mounts.stop() } }
                try mounts.overlayEtc(["resolv.conf": "nameserver \(VethTopology.routerAddress)\noptions timeout:30 " +
                                                      "attempts:5\n"],
                                      directory: topology.directory.path("etc"))
                let url = "http://check.example.org:\(CheckServer.port)/check"
                let config = try Self.writeConfig(topology, url: url)
                try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("satisfied through vA", PathLine.satisfied(through: "vA"))
                let probe = try ProbeProcess(in: topology.a, mounts: mounts, socketPath: topology.socketPath,
                                             configPath: config, stderrPath: topology.directory.path("probe.stderr"))
                defer { teardown("stop pathd-probe") { try probe.terminate() } }

                let line = try subscriber.waitFor("connectivity none") { Self.state($0) == "none" }
                let evidence = Self.connectivity(line)
                #expect(evidence["url"] as? String == url && evidence["interface"] as? String == "vA")
                #expect(evidence["httpStatus"] is NSNull && evidence["bytesReceived"] as? Int == 0)
                let error = evidence["error"] as? String ?? ""
                // curl's own words; the milliseconds it names are its clock's (2002 on a
                // loaded machine), not asserted.
                #expect(error.hasPrefix("Resolving timed out after ") && error.contains(" milliseconds"), "\(line)")
                #expect(try nameServer.queries.contains { $0.hasPrefix("query from ") },
                        "the name server was not asked")
                // The next check is not held up by the lookup still waiting in the background.
                try probe.checkNow()
                try probe.waitForLog("vA: no Internet access (Resolving timed out", count: 2)
                #expect(PathLine.status(try Self.status(topology)) == "satisfied")
            }
        }

        @Test("a report from a uid other than root and pathd's is refused with permissionDenied")
        func unauthorisedReport() throws {
            try withVethTopology { topology in
                try FileManager.default.setAttributes([.posixPermissions: 0o755],
                                                      ofItemAtPath: topology.directory.url.path)
                let url = "http://\(VethTopology.routerAddress):\(CheckServer.port)/check"
                let config = try Self.writeConfig(topology, url: url)
                try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("satisfied through vA", PathLine.satisfied(through: "vA"))
                let report = #"{"op":"reportConnectivity","id":7,"connectivity":{"state":"full","url":"\#(url)","# +
                             #""interface":"vA","httpStatus":200,"redirectTarget":null,"bytesReceived":9,"# +
                             #""sha256":null,"elapsedMilliseconds":1,"checkedAt":"2026-12-01T08:30:00Z","error":null}}"#
                let client = """
                    import json, socket, sys
                    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
                    s.sendall(sys.argv[2].encode() + b"\\n"); s.shutdown(socket.SHUT_WR)
                    print(s.makefile().read(), end="")
                    """
                let command = try Command.asUser(["/usr/bin/python3", "-c", client, topology.socketPath, report])
                let result = try Command.run(URL(fileURLWithPath: command[0]), Array(command.dropFirst()))
                #expect(result.termination == .exit(0), "stderr: \(result.stderr)")
                let lines = result.stdout.split(separator: "\n")
                #expect(lines.count == 2 && lines[0].contains(#""type":"hello""#), "stdout: \(result.stdout)")
                #expect(lines.last?.contains(#""code":"permissionDenied""#) == true, "stdout: \(result.stdout)")
                #expect(lines.last?.contains(#""id":7"#) == true, "stdout: \(result.stdout)")
                // Nothing was recorded: status still says unknown.
                let status = try Subscriber(socketPath: topology.socketPath, request: #"{"op":"status"}"#)
                defer { status.close() }
                #expect(Self.state(try status.waitFor("status", PathLine.isPath)) == "unknown")
            }
        }

        @Test("the probe rides out a restart of pathd: it reconnects and reports again")
        func pathdRestart() throws {
            try withVethTopology { topology in
                let server = try CheckServer(in: topology.b, address: VethTopology.routerAddress,
                                             directory: topology.directory)
                let config = try Self.writeConfig(topology, url: server.url)
                let first = try topology.startDaemon(arguments: ["--config", config])
                let probe = try ProbeProcess(in: topology.a, socketPath: topology.socketPath, configPath: config,
                                             stderrPath: topology.directory.path("probe.stderr"))
                defer { teardown("stop pathd-probe") { try probe.terminate() } }
                try probe.waitForLog("vA: Internet reachable")
                try first.terminate()
                try probe.waitForLog("lost pathd")
                try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                let line = try subscriber.waitFor("full from the new pathd") { Self.state($0) == "full" }
                #expect(PathLine.status(line) == "satisfied")
                #expect(probe.isRunning)
                try probe.waitForLog("connected to pathd", count: 2)
                #expect(try server.connections == 2)
            }
        }

        @Test("with checking disabled nothing is contacted, whatever happens, and connectivity stays unknown")
        func disabled() throws {
            try withVethTopology { topology in
                let server = try CheckServer(in: topology.b, address: VethTopology.routerAddress,
                                             directory: topology.directory)
                let config = try Self.writeConfig(topology, url: nil)
                try topology.startDaemon(arguments: ["--config", config])
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("satisfied through vA", PathLine.satisfied(through: "vA"))
                let probe = try ProbeProcess(in: topology.a, socketPath: topology.socketPath, configPath: config,
                                             stderrPath: topology.directory.path("probe.stderr"))
                defer { teardown("stop pathd-probe") { try probe.terminate() } }
                try probe.waitForLog("connected to pathd")
                try probe.waitForLog("checking is not configured")
                // A path change and an explicit request to check: still nothing.
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied", PathLine.unsatisfied())
                try topology.addDefaultRoute()
                let back = try subscriber.waitFor("satisfied again", PathLine.satisfied(through: "vA"))
                try probe.checkNow()
                try probe.waitForLog("configuration reloaded: checking is not configured")
                #expect(Self.state(back) == "unknown")
                let serverLog = try server.log
                #expect(serverLog.isEmpty, "the server was contacted: \(serverLog)")
                let said = try probe.stderr
                #expect(!said.contains("vA:"), "the probe checked: \(said)")
            }
        }
    }
}

extension KernelTests.Connectivity {
    @Test("the packaged pathd-probe checks under its unit's filter and families, as pathd's unprivileged uid",
          .enabled(if: PackageUnderTest.probe.isAvailable, "\(PackageUnderTest.probe.reason)"),
          .enabled(if: KernelTests.Sandbox.seccomp.isAvailable, "\(KernelTests.Sandbox.seccomp.reason)"))
    func packagedProbeUnderItsSandbox() throws {
        try withVethTopology { topology in
            let (root, socket) = try KernelTests.Sandbox.unpackPackage(in: topology)
            let server = try CheckServer(in: topology.b, address: VethTopology.routerAddress,
                                         directory: topology.directory)
            let config = try Self.writeConfig(topology, url: server.url)
            // pathd under pathd.service's sandbox, the probe under pathd-probe.service's, one uid
            // as the units share one.
            try topology.startDaemon(socketPath: socket, arguments: ["--config", config],
                                     launcher: KernelTests.Sandbox.launcher,
                                     pathd: URL(fileURLWithPath: "\(root)/usr/bin/pathd"))
            let launcher = KernelTests.Sandbox.launcher.dropLast()
                + ["--unit", Repository.path("packaging/systemd/pathd-probe.service"), "--"]
            let stderr = topology.directory.path("probe.stderr")
            let command = topology.a.execArguments(Array(launcher) + ["\(root)/usr/bin/pathd-probe", "--socket", socket,
                                                                        "--config", config])
            let probe = try ChildProcess(command.executable, command.arguments, stderrPath: stderr)
            let subscriber = try topology.subscribe(socketPath: socket)
            let line = try subscriber.waitFor("full, from the sandboxed probe") { Self.state($0) == "full" }
            #expect(PathLine.status(line) == "satisfied")
            let log = { try String(contentsOfFile: stderr, encoding: .utf8) }
            let end = try probe.terminate("the sandboxed pathd-probe", detail: { "; log:\n\(try log())" })
            let said = try log()
            #expect(end == .exit(0), "a denied call kills with SIGSYS (31); log: \(said)")
        }
    }
}
