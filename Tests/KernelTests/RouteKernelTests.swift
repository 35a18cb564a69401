// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathClient
import PathModel
import PathTestFixtures
import Testing

extension KernelTests {
    /// The `route` request against the real daemon: the kernel's lookup for one address
    /// in namespace A (vA 198.51.100.2/24, default via 198.51.100.1), through `pathctl
    /// route`, judged as the path is.
    @Suite("route to one destination", .serialized)
    struct RouteKernelTests {
        /// `pathctl --socket … route ARGUMENTS`, run in the host's namespace (the socket is
        /// a file) unless `namespace` is given.
        static func pathctl(_ topology: VethTopology, _ arguments: [String],
                            in namespace: NetworkNamespace? = nil) throws -> CommandResult {
            let pathctl = try BuiltProduct.url("pathctl")
            let command = [pathctl.path, "--socket", topology.socketPath, "route"] + arguments
            guard let namespace else { return try Command.run(pathctl, Array(command.dropFirst())) }
            let (executable, prefixed) = namespace.execArguments(command)
            return try Command.run(executable, prefixed)
        }

        /// The `route` lines of `pathctl route --json ADDRESS...`, one per address.
        static func routes(_ topology: VethTopology, _ addresses: String...,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
            let result = try pathctl(topology, ["--json"] + addresses)
            #expect(result.termination == .exit(0) || result.termination == .exit(1),
                    "stderr: \(result.stderr)", sourceLocation: sourceLocation)
            return try result.stdout.split(separator: "\n").map { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
                guard let route = object as? [String: Any], route["type"] as? String == "route" else {
                    throw HarnessError("not a route line: \(line)")
                }
                return route
            }
        }

        static func interfaceName(_ route: [String: Any]) -> String? {
            (route["interface"] as? [String: Any])?["name"] as? String
        }

        @Test("a reachable address via the gateway, an on-link one, and an unreachable one: text, --json, exit codes")
        func reachableAndUnreachable() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                let viaGateway = try #require(try Self.routes(topology, "203.0.113.9").first)
                #expect(viaGateway["status"] as? String == "satisfied")
                #expect(Self.interfaceName(viaGateway) == "vA")
                #expect(viaGateway["gateway"] as? String == VethTopology.routerAddress)
                #expect(viaGateway["source"] as? String == "198.51.100.2")
                #expect(viaGateway["table"] as? Int == 254)
                #expect(viaGateway["destination"] as? String == "203.0.113.9")
                let onLink = try #require(try Self.routes(topology, "198.51.100.77").first)
                #expect(onLink["status"] as? String == "satisfied")
                #expect(onLink["gateway"] is NSNull, "an on-link destination has no gateway: \(onLink)")

                let text = try Self.pathctl(topology, ["203.0.113.9"])
                #expect(text.termination == .exit(0), "stderr: \(text.stderr)")
                #expect(text.stdout == "203.0.113.9: satisfied via vA (gateway 198.51.100.1, source 198.51.100.2)\n")

                try topology.deleteDefaultRoute()
                try subscriber.waitFor("no default route", PathLine.unsatisfied(reason: "noRoute"))
                let unreachable = try Self.pathctl(topology, ["203.0.113.9"])
                #expect(unreachable.termination == .exit(1), "stderr: \(unreachable.stderr)")
                #expect(unreachable.stdout == "203.0.113.9: unsatisfied: no route to 203.0.113.9\n")
                let line = try #require(try Self.routes(topology, "203.0.113.9").first)
                #expect(line["unsatisfiedReason"] as? String == "noRoute")
                #expect(line["interface"] is NSNull)
                // One reachable host (on-link) and one not: exit 1, both answered.
                let mixed = try Self.pathctl(topology, ["198.51.100.77", "203.0.113.9"])
                #expect(mixed.termination == .exit(1))
                #expect(mixed.stdout.split(separator: "\n").count == 2, "stdout: \(mixed.stdout)")
            }
        }

        @Test("names go through the system resolver; a name that does not resolve exits 5, the rest still answered")
        func names() throws {
            try withVethTopology { topology in
                try topology.startSatisfied()
                // No route off the namespace: the resolver's DNS query fails at once.
                try topology.deleteDefaultRoute()
                let result = try Self.pathctl(topology, ["localhost", "name-that-does-not-exist.invalid"],
                                              in: topology.a)
                #expect(result.termination == .exit(5), "stdout: \(result.stdout) stderr: \(result.stderr)")
                #expect(result.stdout.hasPrefix("localhost (127.0.0.1): satisfied via lo")
                    || result.stdout.hasPrefix("localhost (::1): satisfied via lo"), "stdout: \(result.stdout)")
                #expect(result.stderr.contains("name-that-does-not-exist.invalid: cannot resolve"),
                        "stderr: \(result.stderr)")
            }
        }

        @Test("a prohibit rule (a kill switch), a blackhole route and an unreachable route reject")
        func rejecting() throws {
            try withVethTopology { topology in
                try topology.startSatisfied()
                try topology.a.ip("rule", "add", "to", "203.0.113.0/24", "prohibit", "pref", "90")
                try topology.a.ip("route", "add", "blackhole", "192.0.2.128/25")
                try topology.a.ip("route", "add", "unreachable", "192.0.2.0/25")
                let answers = try Self.routes(topology, "203.0.113.9", "192.0.2.200", "192.0.2.9")
                #expect(answers.count == 3)
                for answer in answers {
                    #expect(answer["status"] as? String == "unsatisfied")
                    #expect(answer["unsatisfiedReason"] as? String == "routeRejects", "\(answer)")
                    #expect(answer["interface"] is NSNull)
                }
                // Elsewhere the default route still carries traffic.
                #expect(try Self.routes(topology, "198.18.0.1").first?["status"] as? String == "satisfied")
            }
        }

        @Test("a policy rule sends one destination through another table and interface")
        func policyRouting() throws {
            try withVethTopology { topology in
                try topology.startSatisfied()
                let a = topology.a
                try a.ip("link", "add", "vC", "type", "veth", "peer", "name", "vD")
                try a.ip("address", "add", "10.88.0.1/24", "dev", "vC")
                try a.ip("link", "set", "vC", "up")
                try a.ip("link", "set", "vD", "up")
                try a.ip("route", "add", "default", "via", "10.88.0.2", "dev", "vC", "table", "100")
                try a.ip("rule", "add", "to", "192.0.2.0/24", "lookup", "100", "pref", "100")
                let answers = try Self.routes(topology, "192.0.2.9", "203.0.113.9")
                let office = try #require(answers.first)
                #expect(office["status"] as? String == "satisfied", "\(office)")
                #expect(Self.interfaceName(office) == "vC")
                #expect(office["gateway"] as? String == "10.88.0.2")
                #expect(office["source"] as? String == "10.88.0.1")
                #expect(office["table"] as? Int == 100)
                let other = try #require(answers.last)
                #expect(Self.interfaceName(other) == "vA")
                #expect(other["table"] as? Int == 254)
            }
        }

        @Test("a route over an interface without carrier is noCarrier and names it")
        func noCarrier() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                try topology.b.ip("link", "set", "vB", "down")
                try subscriber.waitFor("no carrier on vA", PathLine.unsatisfied(reason: "noCarrier"))
                let result = try Self.pathctl(topology, ["--json", "203.0.113.9"])
                #expect(result.termination == .exit(1), "stderr: \(result.stderr)")
                let line = try #require(try Self.routes(topology, "203.0.113.9").first)
                #expect(line["unsatisfiedReason"] as? String == "noCarrier")
                #expect(line["reasonInterface"] as? String == "vA")
                #expect(Self.interfaceName(line) == "vA")
            }
        }

        @Test("an address of this host, and loopback, are satisfied through lo")
        func localAddresses() throws {
            try withVethTopology { topology in
                try topology.startSatisfied()
                let answers = try Self.routes(topology, "198.51.100.2", "127.0.0.1", "::1")
                #expect(answers.count == 3)
                for answer in answers {
                    #expect(answer["status"] as? String == "satisfied", "\(answer)")
                    #expect(Self.interfaceName(answer) == "lo", "\(answer)")
                    #expect(answer["source"] is String, "the kernel names a source for a local route: \(answer)")
                }
            }
        }

        @Test("the Swift library's in-process mode asks this host's kernel itself, and .automatic falls back to it")
        func inProcessLibrary() async throws {
            let report = try await PathMonitor.route(to: "127.0.0.1", mode: .inProcess)
            #expect(report.status == .satisfied)
            #expect(report.interface?.name == "lo")
            #expect(report.source == PathModel.IPAddress("127.0.0.1"))
            #expect(report.interface?.type == .loopback)
            // .automatic falls back to the engine here when no daemon answers; .daemon does not.
            let missing = "/nonexistent-\(UInt32.random(in: 0 ... .max))/pathd.sock"
            let automatic = try await PathMonitor.route(to: "127.0.0.1", socketPath: missing, mode: .automatic)
            #expect(automatic == report)
            await #expect(throws: PathClientError.self) {
                try await PathMonitor.route(to: "127.0.0.1", socketPath: missing, mode: .daemon)
            }
        }
    }
}
