// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/ARCHITECTURE.md, "DNS": resolv.conf naming only systemd-resolved's stub says nothing about
    /// DNS; resolved's own resolv.conf, naming its upstream servers, decides supportsDNS.
    /// The two files live in the test's directory (`--resolv-conf`,
    /// `--upstream-resolv-conf`), replaced atomically as resolved replaces them.
    @Suite("resolved stub verdicts", .serialized)
    struct ResolverStubVerdicts {
        static let stub = "# managed by man:systemd-resolved(8)\nnameserver 127.0.0.53\noptions edns0 " +
                          "trust-ad\nsearch .\n"
        static let withServers = "# managed by man:systemd-resolved(8)\nnameserver 192.0.2.53\nnameserver " +
                                 "2001:db8::53\n"
        static let withoutServers = "# managed by man:systemd-resolved(8)\n# No DNS servers known.\nsearch .\n"

        /// The daemon's flags for the test's two files; writes the stub resolv.conf.
        static func files(_ topology: VethTopology) throws -> [String] {
            let resolved = topology.directory.path("resolve")
            try FileManager.default.createDirectory(atPath: resolved, withIntermediateDirectories: true)
            try replace(topology.directory.path("resolv.conf"), with: stub)
            return ["--resolv-conf", topology.directory.path("resolv.conf"),
                    "--upstream-resolv-conf", upstreamPath(topology)]
        }

        static func upstreamPath(_ topology: VethTopology) -> String {
            topology.directory.path("resolve/resolv.conf")
        }

        /// Writes a temporary file and renames it over `path`.
        static func replace(_ path: String, with text: String) throws {
            try text.write(toFile: path + ".tmp", atomically: false, encoding: .utf8)
            guard rename(path + ".tmp", path) == 0 else { throw HarnessError.posix("rename to \(path)", errno: errno) }
        }

        static func satisfied(dns: Bool) -> ([String: Any]) -> Bool {
            { line in PathLine.satisfied(through: "vA")(line) && line["supportsDNS"] as? Bool == dns }
        }

        @Test("cold: the stub is supportsDNS false without upstream servers, true with them",
              arguments: [(withoutServers, false), (withServers, true)])
        func cold(upstream: String, supportsDNS: Bool) throws {
            try withVethTopology { topology in
                let arguments = try Self.files(topology)
                try Self.replace(Self.upstreamPath(topology), with: upstream)
                try topology.startSubscribed(arguments: arguments, waitingFor: "satisfied, supportsDNS \(supportsDNS)",
                                             Self.satisfied(dns: supportsDNS))
            }
        }

        @Test("live: upstream servers coming and going flip supportsDNS, one line each")
        func upstreamLive() throws {
            try withVethTopology { topology in
                let arguments = try Self.files(topology)
                try Self.replace(Self.upstreamPath(topology), with: Self.withoutServers)
                let subscriber = try topology.startSubscribed(arguments: arguments, waitingFor: "satisfied without DNS",
                                                              Self.satisfied(dns: false))
                try Self.replace(Self.upstreamPath(topology), with: Self.withServers)
                let on = try subscriber.nextLine("the line after resolved learned a server")
                #expect(Self.satisfied(dns: true)(on), "line: \(on)")
                try Self.replace(Self.upstreamPath(topology), with: Self.withoutServers)
                let off = try subscriber.nextLine("the line after resolved lost its servers")
                #expect(Self.satisfied(dns: false)(off), "line: \(off)")
            }
        }
    }
}
