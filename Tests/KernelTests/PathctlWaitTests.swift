import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// `pathctl wait` and the criteria flags against the real daemon.
    @Suite("pathctl wait and criteria")
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
                let unsatisfied = try Command.run(pathctl, ["--socket", topology.socketPath, "wait", "--timeout=0", "--json"])
                #expect(unsatisfied.termination == .exit(1), "stderr: \(unsatisfied.stderr)")
                #expect(unsatisfied.stderr.hasPrefix("pathctl: the path is not satisfied: "), "stderr: \(unsatisfied.stderr)")
                let line = try #require(try JSONSerialization.jsonObject(with: Data(unsatisfied.stdout.utf8)) as? [String: Any])
                #expect(PathLine.status(line) == "unsatisfied")
            }
        }

        @Test("status --require-type asks about that type only")
        func requireType() throws {
            try withVethTopology { topology in
                try topology.startSatisfied()
                let wifi = try Command.run(BuiltProduct.url("pathctl"),
                                           ["--socket", topology.socketPath, "status", "--json", "--require-type", "wifi"])
                #expect(wifi.termination == .exit(0), "stderr: \(wifi.stderr)")
                let line = try #require(try JSONSerialization.jsonObject(with: Data(wifi.stdout.utf8)) as? [String: Any])
                #expect(PathLine.status(line) == "unsatisfied")
                #expect(PathLine.unsatisfiedReason(line) == "interfaceTypeExcluded")
                // veth is "other": prohibiting wifi changes nothing.
                let notWifi = try Command.run(BuiltProduct.url("pathctl"),
                                              ["--socket", topology.socketPath, "status", "--json", "--prohibit-type", "wifi"])
                let other = try #require(try JSONSerialization.jsonObject(with: Data(notWifi.stdout.utf8)) as? [String: Any])
                #expect(PathLine.satisfied(through: "vA")(other))
                let bad = try Command.run(BuiltProduct.url("pathctl"),
                                          ["--socket", topology.socketPath, "status", "--require-type", "pigeon"])
                #expect(bad.termination == .exit(2))
            }
        }
    }
}
