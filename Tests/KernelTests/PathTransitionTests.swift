// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// Each kernel change of the veth topology and the path it must produce (docs/ARCHITECTURE.md,
    /// "Which interfaces can carry traffic").
    @Suite("Path transitions", .serialized)
    struct PathTransitions {
        @Test("starts satisfied through vA with IPv4")
        func startsSatisfied() throws {
            try withVethTopology { topology in
                try topology.startDaemon()
                let subscriber = try topology.subscribe()
                let line = try subscriber.waitFor("satisfied through vA", PathLine.satisfied(through: "vA"))
                #expect(line["unsatisfiedReason"] is NSNull)
            }
        }

        @Test("deleting the default route is unsatisfied, adding it back is satisfied")
        func defaultRouteRemovedAndRestored() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()

                try topology.deleteDefaultRoute()
                let line = try subscriber.waitFor("unsatisfied without a default route", PathLine.unsatisfied())
                #expect(PathLine.unsatisfiedReason(line) == "noRoute")

                try topology.addDefaultRoute()
                try subscriber.waitFor("satisfied with the route back", PathLine.satisfied(through: "vA"))
            }
        }

        @Test("the peer going down is unsatisfied with noCarrier, coming back is satisfied")
        func peerDownIsNoCarrier() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()

                try topology.b.ip("link", "set", "vB", "down")
                try subscriber.waitFor("unsatisfied, noCarrier", PathLine.unsatisfied(reason: "noCarrier"))

                try topology.b.ip("link", "set", "vB", "up")
                // Carrier loss leaves the routes in place (flagged linkdown); re-add only if one went.
                if try !topology.hasDefaultRoute {
                    try topology.addDefaultRoute()
                }
                try subscriber.waitFor("satisfied with carrier back", PathLine.satisfied(through: "vA"))
            }
        }

        @Test("admin down of vA is unsatisfied, admin up plus a default route is satisfied")
        func adminDownThenUp() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()

                // The kernel flushes vA's IPv4 routes without RTM_DELROUTE: pathd must not rely on one.
                try topology.a.ip("link", "set", "vA", "down")
                try subscriber.waitFor("unsatisfied with vA down", PathLine.unsatisfied())

                try topology.a.ip("link", "set", "vA", "up")
                if try !topology.hasDefaultRoute {
                    try topology.addDefaultRoute()
                }
                try subscriber.waitFor("satisfied with vA up and routed", PathLine.satisfied(through: "vA"))
            }
        }
    }
}
