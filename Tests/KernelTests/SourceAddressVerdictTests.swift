// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/ARCHITECTURE.md, "When traffic has a source address": a usable source is the
    /// one the kernel says it will use. Each case cold (pathd started after the setup) and
    /// live (changed under pathd).
    @Suite("Source address verdicts", .serialized)
    struct SourceAddressVerdicts {
        static func noAddressOnVA(_ line: [String: Any]) -> Bool {
            PathLine.unsatisfied(reason: "noAddress")(line) && line["reasonInterface"] as? String == "vA"
        }

        static func satisfiedOnLink(_ line: [String: Any]) -> Bool {
            PathLine.satisfied(through: "vA")(line) && line["gateways"] as? [String] == []
        }

        @Test("cold: IPv4 link-local on a link-scope default route is satisfied")
        func linkLocalLinkScopeCold() throws {
            try withVethTopology { topology in
                try topology.useIPv4LinkLocal()
                try topology.replaceDefaultWithLinkScope()
                #expect(try topology.kernelIPv4Source == "169.254.10.2")
                try topology.startSubscribed(waitingFor: "satisfied on-link through vA", Self.satisfiedOnLink)
            }
        }

        @Test("cold: IPv4 link-local with a default via a gateway is noAddress")
        func linkLocalGatewayCold() throws {
            try withVethTopology { topology in
                try topology.useIPv4LinkLocal()
                try topology.replaceDefaultWithLinkLocalGateway()
                #expect(try topology.kernelIPv4Source == nil)
                try topology.startSubscribed(waitingFor: "unsatisfied, noAddress on vA", Self.noAddressOnVA)
            }
        }

        @Test("live: the default route turning link-scope makes link-local satisfied")
        func linkLocalLinkScopeLive() throws {
            try withVethTopology { topology in
                try topology.useIPv4LinkLocal()
                try topology.replaceDefaultWithLinkLocalGateway()
                let subscriber = try topology.startSubscribed(waitingFor: "unsatisfied, noAddress on vA",
                                                              Self.noAddressOnVA)
                try topology.replaceDefaultWithLinkScope()
                try subscriber.waitFor("satisfied on-link through vA", Self.satisfiedOnLink)
            }
        }

        @Test("live: the default route moving to a gateway makes link-local noAddress")
        func linkLocalGatewayLive() throws {
            try withVethTopology { topology in
                try topology.useIPv4LinkLocal()
                try topology.replaceDefaultWithLinkScope()
                let subscriber = try topology.startSubscribed(waitingFor: "satisfied on-link through vA",
                                                              Self.satisfiedOnLink)
                try topology.replaceDefaultWithLinkLocalGateway()
                try subscriber.waitFor("unsatisfied, noAddress on vA", Self.noAddressOnVA)
            }
        }

        static func satisfiedOverIPv6(_ line: [String: Any]) -> Bool {
            PathLine.status(line) == "satisfied" && line["supportsIPv6"] as? Bool == true
                && PathLine.interfaceNames(line) == ["vA"]
        }

        /// The satisfied line came while the kernel still runs DAD on the address.
        static func expectStillInDAD(_ topology: VethTopology) throws {
            let addresses = try topology.globalIPv6OfA
            #expect(addresses.contains("optimistic") && addresses.contains("tentative"),
                    "DAD ended early: \(addresses)")
        }

        @Test("cold: an optimistic IPv6 address is satisfied while DAD still runs")
        func optimisticCold() throws {
            try withVethTopology { topology in
                try topology.removeIPv4()
                try topology.enableSlowOptimisticDAD()
                try topology.addOptimisticIPv6()
                try topology.startSubscribed(waitingFor: "satisfied over IPv6", Self.satisfiedOverIPv6)
                try Self.expectStillInDAD(topology)
            }
        }

        @Test("live: adding an optimistic IPv6 address is satisfied while DAD still runs")
        func optimisticLive() throws {
            try withVethTopology { topology in
                try topology.removeIPv4()
                try topology.enableSlowOptimisticDAD()
                let subscriber = try topology.startSubscribed(waitingFor: "unsatisfied without IPv4",
                                                              PathLine.unsatisfied())
                try topology.addOptimisticIPv6()
                try subscriber.waitFor("satisfied over IPv6", Self.satisfiedOverIPv6)
                try Self.expectStillInDAD(topology)
            }
        }
    }
}
