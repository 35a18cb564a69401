// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// docs/ARCHITECTURE.md, "When a link can carry traffic": a bridge carries traffic only
    /// through a port. A bridge that never had one reports UP, LOWER_UP, operstate UNKNOWN;
    /// pathd must still say noCarrier. Each case cold (pathd started after the setup) and
    /// live (changed under pathd).
    @Suite("Bridge verdicts", .serialized)
    struct BridgeVerdicts {
        static func noCarrierOnBridge(_ line: [String: Any]) -> Bool {
            PathLine.unsatisfied(reason: "noCarrier")(line) && line["reasonInterface"] as? String == "br0"
        }

        @Test("cold: a portless bridge is unsatisfied, noCarrier on br0, and interfaces says no carrier")
        func portlessCold() throws {
            try withVethTopology { topology in
                try topology.addPortlessBridge()
                let flags = try topology.a.ip("link", "show", "br0")
                #expect(flags.contains("LOWER_UP") && flags.contains("state UNKNOWN"), "the kernel's quirk: \(flags)")
                try topology.startSubscribed(waitingFor: "unsatisfied, noCarrier on br0", Self.noCarrierOnBridge)
                let report = try topology.interfaceReport(of: "br0")
                #expect(report["usable"] as? Bool == false)
                #expect(report["why"] as? String == "no carrier")
            }
        }

        @Test("live: moving the network onto a portless bridge is unsatisfied, noCarrier on br0")
        func portlessLive() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                try topology.addPortlessBridge()
                try subscriber.waitFor("unsatisfied, noCarrier on br0", Self.noCarrierOnBridge)
            }
        }

        @Test("cold: a bridge with its port up is satisfied through br0")
        func portUpCold() throws {
            try withVethTopology { topology in
                try topology.addPortlessBridge()
                try topology.addBridgePort()
                try topology.startSubscribed(waitingFor: "satisfied through br0", PathLine.satisfied(through: "br0"))
                #expect(try topology.interfaceReport(of: "br0")["usable"] as? Bool == true)
            }
        }

        @Test("live: a port added, then brought up, makes the bridge satisfied")
        func portUpLive() throws {
            try withVethTopology { topology in
                try topology.addPortlessBridge()
                try topology.a.ip("link", "set", "vA", "down")
                let subscriber = try topology.startSubscribed(waitingFor: "unsatisfied, noCarrier on br0",
                                                              Self.noCarrierOnBridge)
                try topology.addBridgePort()
                try topology.a.ip("link", "set", "vA", "up")
                let line = try subscriber.waitFor("satisfied through br0", PathLine.satisfied(through: "br0"))
                #expect(line["gateways"] as? [String] == [VethTopology.routerAddress])
            }
        }

        @Test("cold: a bridge whose last port left is unsatisfied, noCarrier on br0")
        func lastPortRemovedCold() throws {
            try withVethTopology { topology in
                try topology.addPortlessBridge()
                try topology.addBridgePort()
                try topology.removeBridgePort()
                try topology.startSubscribed(waitingFor: "unsatisfied, noCarrier on br0", Self.noCarrierOnBridge)
            }
        }

        @Test("live: removing the last port is unsatisfied, noCarrier on br0")
        func lastPortRemovedLive() throws {
            try withVethTopology { topology in
                try topology.addPortlessBridge()
                try topology.addBridgePort()
                let subscriber = try topology.startSubscribed(waitingFor: "satisfied through br0",
                                                              PathLine.satisfied(through: "br0"))
                try topology.removeBridgePort()
                try subscriber.waitFor("unsatisfied, noCarrier on br0", Self.noCarrierOnBridge)
            }
        }
    }
}
