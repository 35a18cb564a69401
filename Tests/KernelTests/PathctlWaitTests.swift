// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// `pathctl wait` and the criteria flags against the real daemon.
    @Suite("pathctl wait and criteria", .serialized)
    struct PathctlWaitAndCriteria {
        @Test("wait returns 0 once the route comes back")
        func waitsForSatisfied() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied", PathLine.unsatisfied())

                let waiter = try ChildProcess(BuiltProduct.url("pathctl"),
                                              ["--socket", topology.socketPath, "wait", "--timeout", "30"],
                                              stderrPath: topology.directory.path("wait.stderr"))
                try topology.addDefaultRoute()
                let end = waiter.wait(until: Date().addingTimeInterval(20))
                #expect(end == .exit(0))
            }
        }

        @Test("wait gives up after --timeout with exit 1 and one line")
        func waitTimesOut() throws {
            try withVethTopology { topology in
                try topology.deleteDefaultRoute()
                try topology.startDaemon()
                try topology.subscribe().waitFor("unsatisfied", PathLine.unsatisfied())
                let result = try Command.run(BuiltProduct.url("pathctl"),
                                             ["--socket", topology.socketPath, "wait", "--timeout", "0.2"])
                #expect(result.termination == .exit(1))
                #expect(result.stderr.contains("timed out"), "stderr: \(result.stderr)")
                #expect(result.stderr.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1)
            }
        }

        @Test("wait --timeout 0 checks once: 0 when satisfied, 1 at once when not")
        func waitChecksOnce() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                let pathctl = try BuiltProduct.url("pathctl")
                let satisfied = try Command.run(pathctl, ["--socket", topology.socketPath, "wait", "--timeout", "0"])
                #expect(satisfied.termination == .exit(0), "stderr: \(satisfied.stderr)")
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied", PathLine.unsatisfied())
                let unsatisfied = try Command.run(pathctl,
                                                  ["--socket", topology.socketPath, "wait", "--timeout=0", "--json"])
                #expect(unsatisfied.termination == .exit(1), "stderr: \(unsatisfied.stderr)")
                #expect(unsatisfied.stderr.hasPrefix("pathctl: the path is not satisfied: "),
                        "stderr: \(unsatisfied.stderr)")
                let line = try #require(
                    try JSONSerialization.jsonObject(with: Data(unsatisfied.stdout.utf8)) as? [String: Any])
                #expect(PathLine.status(line) == "unsatisfied")
            }
        }

        @Test("wait -6 waits until the satisfied path also carries IPv6; --timeout 0 and status name what is missing")
        func waitsForIPv6() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                let pathctl = try BuiltProduct.url("pathctl")
                let socket = ["--socket", topology.socketPath]
                let ipv4 = try Command.run(pathctl, socket + ["wait", "--ipv4", "--timeout", "0"])
                #expect(ipv4.termination == .exit(0), "stderr: \(ipv4.stderr)")
                let once = try Command.run(pathctl, socket + ["wait", "-6", "--timeout", "0"])
                #expect(once.termination == .exit(1), "stderr: \(once.stderr)")
                #expect(once.stderr.hasPrefix("pathctl: the path has no IPv6: satisfied via vA (IPv4"),
                        "\(once.stderr)")
                let status = try Command.run(pathctl, socket + ["status", "--ipv6"])
                #expect(status.termination == .exit(1), "a requirement makes status a check: \(status.stderr)")
                #expect(status.stdout.contains("Status:      satisfied"), "stdout: \(status.stdout)")
                #expect(status.stderr.hasPrefix("pathctl: the path has no IPv6: "), "\(status.stderr)")

                let waiter = try ChildProcess(pathctl, socket + ["wait", "-6", "--json", "--timeout", "30"],
                                              stderrPath: topology.directory.path("wait.stderr"),
                                              stdoutPath: topology.directory.path("wait.stdout"))
                // The waiter has the IPv4-only path before IPv6 comes: its subscription is the second.
                try topology.waitForSubscriptions(2, "the waiter subscribed")
                #expect(waiter.isRunning, "wait -6 returned on an IPv4-only path")
                try topology.addIPv6()
                try subscriber.waitFor("IPv6 too") { $0["supportsIPv6"] as? Bool == true }
                #expect(waiter.wait(until: Date().addingTimeInterval(20)) == .exit(0))
                let printed = try String(contentsOfFile: topology.directory.path("wait.stdout"), encoding: .utf8)
                let line = try #require(try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])
                #expect(line["supportsIPv6"] as? Bool == true, "\(printed)")
            }
        }

        @Test("wait --dns waits for a nameserver; a timeout names what was awaited")
        func waitsForDNS() throws {
            try withVethTopology { topology in
                let resolvConf = topology.directory.path("resolv.conf")
                try "# no nameserver yet\n".write(toFile: resolvConf, atomically: true, encoding: .utf8)
                try topology.startSubscribed(arguments: ["--resolv-conf", resolvConf],
                                             waitingFor: "satisfied without DNS") {
                    PathLine.satisfied(through: "vA")($0) && $0["supportsDNS"] as? Bool == false
                }
                let pathctl = try BuiltProduct.url("pathctl")
                let socket = ["--socket", topology.socketPath]
                let timedOut = try Command.run(pathctl, socket + ["wait", "--dns", "--ipv4", "--timeout", "0.2"])
                #expect(timedOut.termination == .exit(1))
                #expect(timedOut.stderr
                        == "pathctl: timed out after 0.2 s waiting for a satisfied path with IPv4 and DNS\n")

                let waiter = try ChildProcess(pathctl, socket + ["wait", "--dns", "--timeout", "30"],
                                              stderrPath: topology.directory.path("wait.stderr"))
                try topology.waitForSubscriptions(2, "the waiter subscribed")
                #expect(waiter.isRunning, "wait --dns returned without a nameserver")
                try "nameserver \(VethTopology.routerAddress)\n".write(toFile: resolvConf, atomically: true,
                                                                       encoding: .utf8)
                #expect(waiter.wait(until: Date().addingTimeInterval(20)) == .exit(0))
            }
        }

        /// The conditions through pathctl, against the real daemon: a reload that marks
        /// vA expensive makes `status --check --not-expensive` fail, saying why, while plain
        /// `status --check` still passes; `wait --not-expensive` returns when it is free.
        @Test("status --check --not-expensive fails on an expensive path; wait --not-expensive waits for a free one")
        func notExpensive() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                let expensive = "[Interface]\nName=vA\nExpensive=yes\n"
                try expensive.write(toFile: config, atomically: true, encoding: .utf8)
                try topology.startSubscribed(arguments: ["--config", config], waitingFor: "expensive through vA") {
                    PathLine.satisfied(through: "vA")($0) && $0["isExpensive"] as? Bool == true
                }
                let pathctl = try BuiltProduct.url("pathctl")
                let socket = ["--socket", topology.socketPath]
                let refused = try Command.run(pathctl, socket + ["status", "--check", "--not-expensive"])
                #expect(refused.termination == .exit(1))
                #expect(refused.stderr == "pathctl: the path is not satisfied: unsatisfied: the path via vA is "
                    + "expensive, which the criteria exclude\n")
                #expect(try Command.run(pathctl, socket + ["status", "--check"]).termination == .exit(0))
                let constrained = try Command.run(pathctl, socket + ["status", "--check", "--not-constrained"])
                #expect(constrained.termination == .exit(0), "stderr: \(constrained.stderr)")

                let waiter = try ChildProcess(pathctl, socket + ["wait", "--not-expensive", "--timeout", "30"],
                                              stderrPath: topology.directory.path("wait.stderr"))
                try topology.waitForSubscriptions(2, "the waiter subscribed")
                #expect(waiter.isRunning, "wait --not-expensive returned on an expensive path")
                try "".write(toFile: config, atomically: true, encoding: .utf8)
                #expect(try Command.run(pathctl, socket + ["reload"]).termination == .exit(0))
                #expect(waiter.wait(until: Date().addingTimeInterval(20)) == .exit(0))
            }
        }

        @Test("status --require-type asks about that type only")
        func requireType() throws {
            try withVethTopology { topology in
                try topology.startSatisfied()
                let wifi = try Command.run(BuiltProduct.url("pathctl"),
                                           ["--socket", topology.socketPath, "status", "--json", "--require-type",
                                            "wifi"])
                #expect(wifi.termination == .exit(0), "stderr: \(wifi.stderr)")
                let line = try #require(
                    try JSONSerialization.jsonObject(with: Data(wifi.stdout.utf8)) as? [String: Any])
                #expect(PathLine.status(line) == "unsatisfied")
                #expect(PathLine.unsatisfiedReason(line) == "interfaceTypeExcluded")
                // veth is "other": prohibiting wifi changes nothing.
                let notWifi = try Command.run(BuiltProduct.url("pathctl"),
                                              ["--socket", topology.socketPath, "status", "--json", "--prohibit-type",
                                               "wifi"])
                let other = try #require(
                    try JSONSerialization.jsonObject(with: Data(notWifi.stdout.utf8)) as? [String: Any])
                #expect(PathLine.satisfied(through: "vA")(other))
                let bad = try Command.run(BuiltProduct.url("pathctl"),
                                          ["--socket", topology.socketPath, "status", "--require-type", "pigeon"])
                #expect(bad.termination == .exit(2))
            }
        }
    }
}
