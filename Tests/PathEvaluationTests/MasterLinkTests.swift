// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathEvaluation
import Testing

private typealias F = Fixture

/// A bridge, bond or team carries traffic only through a port: with none up it has no
/// carrier, even when its own flags say UP, LOWER_UP and operstate UNKNOWN (a bridge
/// that never had a port).
@Suite("Masters and their ports")
struct MasterLinkTests {
    static let brIndex = InterfaceIndex(rawValue: 6)
    static let portIndex = InterfaceIndex(rawValue: 7)

    /// What the kernel reports for a bridge with no port: running, operstate UNKNOWN.
    static func br0(kind: String? = "bridge", flags: LinkFlags = F.working, operState: OperState = .unknown) -> Link {
        Link(index: brIndex, name: "br0", flags: flags, operState: operState, hardwareType: .ether, kind: kind,
             type: .other)
    }

    static func port(master: InterfaceIndex? = brIndex, flags: LinkFlags = F.working,
                     operState: OperState = .up) -> Link {
        Link(index: portIndex, name: "vA", flags: flags, operState: operState, hardwareType: .ether, kind: "veth",
             type: .other, master: master)
    }

    /// br0 addressed and routed; `extra` adds ports.
    static func host(bridge: Link = br0(), _ extra: [NetworkEvent] = []) -> Snapshot {
        Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(bridge), F.added("198.51.100.2", on: brIndex),
            F.route(.ipv4, via: brIndex, gateway: "198.51.100.1", source: "198.51.100.2"),
            F.lookup(.ipv6, .noRoute),
        ] + extra)
    }

    @Test("a bridge with no port is noCarrier on the bridge, whatever its flags")
    func portlessBridge() {
        let snapshot = Self.host()
        #expect(Self.br0().linkState == .usable, "the kernel's own flags say usable")
        #expect(snapshot.linkState(of: Self.br0()) == .noCarrier)
        let path = PathEvaluator.evaluate(snapshot)
        #expect(path.status == .unsatisfied)
        #expect(path.unsatisfiedReason == .noCarrier)
        #expect(path.reasonInterface == "br0")
        let report = InterfaceReport.report(for: Self.br0(), in: snapshot, policy: .standard)
        #expect(report.unusableReason == .noCarrier)
        #expect(report.unusableReason?.explanation == "no carrier")
    }

    @Test("a port up makes it carry; the port down, gone or moved to another master does not")
    func portStates() {
        let up = Self.host([.linkChanged(Self.port())])
        #expect(PathEvaluator.evaluate(up).status == .satisfied)
        #expect(InterfaceReport.report(for: Self.br0(), in: up, policy: .standard).isUsable)

        let cases: [(String, Link)] = [
            ("port without carrier", Self.port(flags: [.up], operState: .lowerLayerDown)),
            ("port admin down", Self.port(flags: [], operState: .down)),
            ("port dormant", Self.port(flags: [.up, .lowerUp, .dormant], operState: .dormant)),
            ("port left the bridge", Self.port(master: nil)),
            ("port of another master", Self.port(master: InterfaceIndex(rawValue: 42))),
        ]
        for (name, port) in cases {
            let snapshot = Self.host([.linkChanged(Self.port()), .linkChanged(port)])
            let path = PathEvaluator.evaluate(snapshot)
            #expect(path.unsatisfiedReason == .noCarrier, "\(name)")
            #expect(path.reasonInterface == "br0", "\(name)")
        }
        var removed = Self.host([.linkChanged(Self.port())])
        removed.apply(.linkRemoved(Self.portIndex))
        #expect(PathEvaluator.evaluate(removed).unsatisfiedReason == .noCarrier)
    }

    @Test("bond and team by kind, a bond by IFF_MASTER alone; a VRF or a plain link is not held to its ports")
    func whichLinksAreMasters() {
        for master in [Self.br0(kind: "bond"), Self.br0(kind: "team"),
                       Self.br0(kind: nil, flags: F.working.union(.master))] {
            #expect(master.aggregatesPorts)
            #expect(Self.host(bridge: master).linkState(of: master) == .noCarrier)
        }
        for link in [Self.br0(kind: "vrf"), Self.br0(kind: "veth"), Self.br0(kind: nil)] {
            #expect(!link.aggregatesPorts)
            #expect(Self.host(bridge: link).linkState(of: link) == .usable)
            #expect(PathEvaluator.evaluate(Self.host(bridge: link)).status == .satisfied)
        }
    }

    @Test("the kernel's own noCarrier or admin down of a master stays, port up or not")
    func ownStateStillCounts() {
        let down = Self.br0(flags: [.up], operState: .down)
        #expect(Self.host(bridge: down, [.linkChanged(Self.port())]).linkState(of: down) == .noCarrier)
        let adminDown = Self.br0(flags: [], operState: .down)
        #expect(Self.host(bridge: adminDown, [.linkChanged(Self.port())]).linkState(of: adminDown) == .adminDown)
    }

    @Test("linkStates() agrees with linkState(of:) for every link")
    func oneRule() {
        let snapshots = [
            Self.host(), Self.host([.linkChanged(Self.port())]),
            Self.host([.linkChanged(Self.port(flags: [.up], operState: .lowerLayerDown))]),
            Self.host(bridge: Self.br0(kind: "vrf")), Snapshot(events: F.dualStackEthernet),
        ]
        for snapshot in snapshots {
            let states = snapshot.linkStates()
            #expect(states.count == snapshot.links.count)
            for link in snapshot.links.values {
                #expect(states[link.index] == snapshot.linkState(of: link), "\(link.name)")
            }
        }
    }

    @Test("no route: a portless bridge is the interface without carrier")
    func noRouteNamesTheBridge() {
        let snapshot = Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(Self.br0()), F.added("198.51.100.2", on: Self.brIndex),
            F.lookup(.ipv4, .noRoute), F.lookup(.ipv6, .noRoute),
        ])
        let path = PathEvaluator.evaluate(snapshot)
        #expect(path.unsatisfiedReason == .noCarrier)
        #expect(path.reasonInterface == "br0")
    }
}
