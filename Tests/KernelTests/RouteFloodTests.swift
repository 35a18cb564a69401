// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/ARCHITECTURE.md, "Route messages that cannot change an answer stay in the kernel":
    /// under a flood of routes that cannot change the answer (dropped in the
    /// kernel by the route filter), the changes that can are still noticed, in order.
    @Suite("Route floods", .serialized)
    struct RouteFloods {
        @Test("a covering /24 via tun0 amid 50,000 routes is noticed; then tun0 going down amid 50,000 more")
        func changesAmidAFlood() throws {
            try withVethTopology { topology in
                try topology.addTunnel()
                // A small buffer: the flood must not even reach it.
                let daemon = try topology.startDaemon(arguments: ["--receive-buffer", "64K"])
                let subscriber = try topology.subscribe()
                try subscriber.waitFor("initially satisfied through vA") {
                    PathLine.satisfied(primarily: "vA")($0) && PathLine.hasSettledNetwork($0)
                }

                // /32s in 100.64/10 through vA: each one a message the filter drops.
                func flood(_ indexes: Range<Int>) -> [String] {
                    indexes.map { "route add 100.\(64 + ($0 >> 16)).\(($0 >> 8) & 255).\($0 & 255)/32 dev vA" }
                }
                try topology.batchInA(flood(0..<25_000)
                                      + ["route add 203.0.113.0/24 via \(VethTopology.tunnelPeer) dev tun0"]
                                      + flood(25_000..<50_000), name: "flood-1.batch")
                // The next line, not merely some line: nothing in the flood changed the path before it.
                let covered = try subscriber.nextLine("the path after the first half of the flood")
                #expect(PathLine.satisfied(primarily: "tun0")(covered),
                        "interfaces: \(PathLine.interfaceNames(covered)), status: \(PathLine.status(covered) ?? "?")")

                try topology.batchInA(flood(50_000..<75_000) + ["link set tun0 down"] + flood(75_000..<100_000),
                                      name: "flood-2.batch")
                // The kernel flushes tun0's routes just after the link message: a line in
                // between may say so (as in the wg-quick verdict); the path ends on vA.
                try subscriber.waitFor("back on vA once tun0 is down", PathLine.satisfied(primarily: "vA"))
                let log = try daemon.stderr
                #expect(!log.contains("route filter not attached"), "stderr: \(log)")
                #expect(!log.contains("overrun"), "stderr: \(log)")
            }
        }
    }
}
