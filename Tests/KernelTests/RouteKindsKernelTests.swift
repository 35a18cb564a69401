// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathClient
import PathModel
import PathTestFixtures
import Testing

extension KernelTests {
    /// The `route` request for destinations that are not one host beyond a gateway,
    /// checked against the kernel's own answer in namespace A: on the link (fe80::1,
    /// ff02::1, with and without a zone), IPv4-mapped, broadcast and multicast.
    @Suite("route to link-local, mapped, broadcast and multicast destinations", .serialized)
    struct RouteKindsKernelTests {
        typealias Route = RouteKernelTests

        /// A second pair in A, vC–vD, both ends up: a second link with its own fe80::/64.
        static let secondLink = "vC"

        /// The source `ip route get ARGUMENTS` names in A, or nil.
        static func kernelSource(_ topology: VethTopology, _ arguments: String...) throws -> String? {
            let (ip, prefixed) = topology.a.execArguments(["ip", "route", "get"] + arguments)
            let words = try Command.check(ip, prefixed).split(whereSeparator: \.isWhitespace)
            guard let index = words.firstIndex(of: "src"), index + 1 < words.count else { return nil }
            return String(words[index + 1])
        }

        /// vA (and vC when `secondLink`) with a link-local address past DAD, and
        /// 2001:db8:77::2/64 on vA.
        static func addIPv6(_ topology: VethTopology, secondLink: Bool = false) throws {
            let a = topology.a
            try a.ip("-6", "address", "add", "2001:db8:77::2/64", "dev", "vA", "nodad")
            if secondLink {
                try a.ip("link", "add", Self.secondLink, "type", "veth", "peer", "name", "vD")
                try a.ip("link", "set", Self.secondLink, "up")
                try a.ip("link", "set", "vD", "up")
            }
            // A tentative fe80:: is no source: the kernel would name none (or another).
            try waitUntil("the link-local addresses in \(a.name) finished DAD") {
                let links = try a.ip("-6", "-o", "address", "show", "scope", "link")
                let names = secondLink ? ["vA", Self.secondLink, "vD"] : ["vA"]
                return names.allSatisfy { links.contains(" \($0) ") } && !links.contains("tentative")
            }
        }

        @Test("""
            fe80::1 and ff02::1 are satisfied via vA from the fe80:: source the kernel names, ff05::1 from the global \
            one
            """)
        func linkLocalDestinations() throws {
            try withVethTopology { topology in
                try Self.addIPv6(topology)
                try topology.startSatisfied()
                let answers = try Route.routes(topology, "fe80::1", "ff02::1", "ff05::1")
                #expect(answers.count == 3)
                for (answer, destination) in zip(answers, ["fe80::1", "ff02::1", "ff05::1"]) {
                    #expect(answer["destination"] as? String == destination)
                    #expect(answer["status"] as? String == "satisfied", "\(answer)")
                    #expect(Route.interfaceName(answer) == "vA", "\(answer)")
                    #expect(answer["gateway"] is NSNull, "\(answer)")
                    #expect(answer["source"] as? String == (try Self.kernelSource(topology, destination)), "\(answer)")
                }
                #expect((answers[0]["source"] as? String)?.hasPrefix("fe80:") == true, "\(answers[0])")
                #expect((answers[1]["source"] as? String)?.hasPrefix("fe80:") == true, "\(answers[1])")
                #expect(answers[2]["source"] as? String == "2001:db8:77::2")
                let text = try Route.pathctl(topology, ["fe80::1"])
                #expect(text.termination == .exit(0), "stderr: \(text.stderr)")
                #expect(text.stdout.hasPrefix("fe80::1: satisfied via vA (source fe80:"), "\(text.stdout)")
            }
        }

        @Test("IPv4 link-local: 169.254.10.1 on a 169.254.0.0/16 link is satisfied from 169.254.10.2")
        func ipv4LinkLocal() throws {
            try withVethTopology { topology in
                try topology.startSatisfied()
                try topology.useIPv4LinkLocal()
                let answer = try #require(try Route.routes(topology, VethTopology.linkLocalRouter).first)
                #expect(answer["status"] as? String == "satisfied", "\(answer)")
                #expect(Route.interfaceName(answer) == "vA")
                #expect(answer["source"] as? String == "169.254.10.2")
            }
        }

        @Test("""
            a zone picks the link: fe80::1%vC goes through vC, by name or index; without one the kernel's first link
            """)
        func zones() throws {
            try withVethTopology { topology in
                try Self.addIPv6(topology, secondLink: true)
                try topology.startSatisfied()
                let index = try #require(try topology.a.ip("-o", "link", "show", Self.secondLink)
                    .split(separator: ":").first.map { String($0) })
                let answers = try Route.routes(topology, "fe80::1%vC", "fe80::1%\(index)", "fe80::1%vA", "fe80::1")
                #expect(answers.map(Route.interfaceName) == ["vC", "vC", "vA", "vA"], "\(answers)")
                for answer in answers {
                    #expect(answer["status"] as? String == "satisfied", "\(answer)")
                    #expect(answer["destination"] as? String == "fe80::1")
                }
                #expect(answers[0]["source"] as? String == (try Self.kernelSource(topology, "fe80::1", "oif", "vC")))
                // Without a zone the kernel's first fe80::/64 route answers, as for an unbound socket.
                let unzoned = try Self.kernelSource(topology, "fe80::1")
                #expect(answers[3]["source"] as? String == unzoned)

                let text = try Route.pathctl(topology, ["fe80::1%vC", "fe80::1%\(index)"])
                #expect(text.termination == .exit(0), "stderr: \(text.stderr)")
                let lines = text.stdout.split(separator: "\n")
                #expect(lines.first?.hasPrefix("fe80::1%vC: satisfied via vC (source fe80:") == true, "\(text.stdout)")
                #expect(lines.last?.hasPrefix("fe80::1%\(index): satisfied via vC") == true, "\(text.stdout)")

                for (argument, message) in [("fe80::1%nosuch0", "no interface \"nosuch0\""),
                                            ("198.51.100.7%vA",
                                             "a zone (interface) applies to a link-local IPv6 destination only"),
                                            ("2001:db8::1%vA",
                                             "a zone (interface) applies to a link-local IPv6 destination only")] {
                    let refused = try Route.pathctl(topology, [argument])
                    #expect(refused.termination == .exit(4), "\(argument): \(refused.stdout) \(refused.stderr)")
                    #expect(refused.stderr.contains(message), "\(argument): \(refused.stderr)")
                }
            }
        }

        @Test("the Swift library's in-process mode refuses and resolves a zone as pathd does")
        func inProcessZones() async throws {
            for (text,
                 message) in [("198.51.100.7%lo", "a zone (interface) applies to a link-local IPv6 destination only"),
                                    ("fe80::1%nosuch0", "no interface \"nosuch0\" (the zone of fe80::1%nosuch0)")] {
                do {
                    let report = try await PathMonitor.route(to: text, mode: .inProcess)
                    Issue.record("\(text) was answered: \(report)")
                } catch {
                    guard case .refused(.badArgument, let refusal) = error.kind else {
                        Issue.record("\(text): \(error)")
                        continue
                    }
                    #expect(refusal.hasPrefix(message), "\(text): \(refusal)")
                }
            }
            // This host's loopback by name and by index: the kernel's answer through lo.
            let byName = try await PathMonitor.route(to: "ff02::1%lo", mode: .inProcess)
            let byIndex = try await PathMonitor.route(to: "ff02::1%1", mode: .inProcess)
            #expect(byName == byIndex)
        }

        @Test("an IPv4-mapped address takes its IPv4 route, as its traffic does, and is answered as asked")
        func mapped() throws {
            try withVethTopology { topology in
                // An IPv6 default route elsewhere would answer the IPv6 lookup; there is none,
                // so a lookup as IPv6 would say noRoute (or noAddress) where IPv4 is satisfied.
                try topology.startSatisfied()
                let answers = try Route.routes(topology, "::ffff:203.0.113.9", "::ffff:127.0.0.1")
                let beyond = try #require(answers.first)
                #expect(beyond["destination"] as? String == "::ffff:203.0.113.9")
                #expect(beyond["status"] as? String == "satisfied", "\(beyond)")
                #expect(Route.interfaceName(beyond) == "vA")
                #expect(beyond["gateway"] as? String == VethTopology.routerAddress)
                #expect(beyond["source"] as? String == "198.51.100.2")
                let loopback = try #require(answers.last)
                #expect(loopback["status"] as? String == "satisfied", "\(loopback)")
                #expect(Route.interfaceName(loopback) == "lo")
                #expect(loopback["source"] as? String == "127.0.0.1")
            }
        }

        /// Where connect(2) sends a socket's traffic to the unspecified address, printed by
        /// a TCP and a UDP socket (the UDP connect sends nothing).
        static let peerOfUnspecified = """
            import socket
            server = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            server.bind(("::1", 0))
            server.listen()
            tcp = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            tcp.connect(("::", server.getsockname()[1]))
            print("tcp", tcp.getpeername()[0])
            udp = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            udp.connect(("::", 9))
            print("udp", udp.getpeername()[0])
            """

        @Test("the unspecified addresses are judged where a socket sends them: :: as ::1, 0.0.0.0 as itself, via lo")
        func unspecified() async throws {
            try withVethTopology { topology in
                try Self.addIPv6(topology)
                try topology.a.ip("-6", "route", "add", "default", "via", "2001:db8:77::1")
                try topology.startSatisfied()
                // The kernel: a socket sends to ::1 for ::, while its route lookup of :: takes
                // the default route (as 0.0.0.0's takes lo: `local 0.0.0.0 dev lo`).
                let peers = try topology.a.run("python3", "-c", Self.peerOfUnspecified)
                #expect(peers.split(separator: "\n") == ["tcp ::1", "udp ::1"])
                #expect(try topology.a.ip("-6", "route", "get", "::").contains("via 2001:db8:77::1"))
                let asked = ["::", "0.0.0.0", "::ffff:0.0.0.0"]
                let answers = try Route.routes(topology, asked[0], asked[1], asked[2])
                #expect(answers.count == asked.count)
                for (answer, destination) in zip(answers, asked) {
                    #expect(answer["destination"] as? String == destination)
                    #expect(answer["status"] as? String == "satisfied", "\(destination): \(answer)")
                    #expect(Route.interfaceName(answer) == "lo", "\(destination): \(answer)")
                    #expect(answer["source"] as? String == (destination == "::" ? "::1" : "127.0.0.1"), "\(answer)")
                }
                // A route subscription judges it the same way (pathctl wait: satisfied at once).
                let wait = try Command.run(BuiltProduct.url("pathctl"), ["--socket", topology.socketPath, "wait",
                                                                         "--timeout", "0", "--route", "::"])
                #expect(wait.termination == .exit(0), "stderr: \(wait.stderr)")
            }
            // And the library's in-process engine, which asks this process's own kernel.
            let report = try await PathMonitor.route(to: "::", mode: .inProcess)
            #expect(report.status == .satisfied && report.interface?.name == "lo", "\(report)")
            #expect(report.source == PathModel.IPAddress("::1"))
        }

        @Test("broadcast and multicast go through the interface the kernel names, judged by its state")
        func broadcastAndMulticast() throws {
            try withVethTopology { topology in
                try Self.addIPv6(topology)
                let subscriber = try topology.startSatisfied()
                let destinations = ["198.51.100.255", "255.255.255.255", "224.0.0.1", "239.1.2.3", "ff02::1"]
                let answers = try Route.routes(topology, destinations[0], destinations[1], destinations[2],
                                               destinations[3], destinations[4])
                #expect(answers.count == destinations.count)
                for (answer, destination) in zip(answers, destinations) {
                    #expect(answer["status"] as? String == "satisfied", "\(destination): \(answer)")
                    #expect(Route.interfaceName(answer) == "vA", "\(destination): \(answer)")
                    #expect(answer["gateway"] is NSNull, "\(destination): \(answer)")
                    #expect(answer["source"] as? String == (try Self.kernelSource(topology, destination)), "\(answer)")
                }
                let text = try Route.pathctl(topology, ["224.0.0.1"])
                #expect(text.stdout == "224.0.0.1: satisfied via vA (source 198.51.100.2)\n", "\(text.stdout)")

                // No carrier on vA: every one of them names it.
                try topology.b.ip("link", "set", "vB", "down")
                try subscriber.waitFor("no carrier on vA", PathLine.unsatisfied(reason: "noCarrier"))
                for answer in try Route.routes(topology, "198.51.100.255", "224.0.0.1", "ff02::1") {
                    #expect(answer["unsatisfiedReason"] as? String == "noCarrier", "\(answer)")
                    #expect(answer["reasonInterface"] as? String == "vA", "\(answer)")
                }
                // IPv4 multicast and the limited broadcast have no route of their own:
                // without the default route the kernel has none, as `ip route get` says.
                try topology.b.ip("link", "set", "vB", "up")
                try subscriber.waitFor("satisfied again", PathLine.satisfied(through: "vA"))
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("no default route", PathLine.unsatisfied(reason: "noRoute"))
                for answer in try Route.routes(topology, "224.0.0.1", "255.255.255.255") {
                    #expect(answer["unsatisfiedReason"] as? String == "noRoute", "\(answer)")
                    #expect(answer["interface"] is NSNull)
                }
            }
        }
    }
}
