// SPDX-License-Identifier: Apache-2.0
import PathSettings
import PathModel

/// Turns a snapshot into the path a subscriber sees. Pure: values in, a value out.
///
/// Per family: with no interface restricted by the criteria, the kernel's own route
/// lookup decides (it applies policy rules, fwmarks and split routes exactly as traffic
/// would); with a required or prohibited type, or when the kernel's choice is an ignored
/// interface, the allowed interfaces' own lookups (`Snapshot.interfaceLookups`: what a
/// program bound to each would get) answer as if only they existed, ranked as the kernel
/// ranks routes. A family is usable when the chosen route is
/// unicast through a usable link (admin up, running, operstate UP or UNKNOWN; a master
/// also needs a usable port: `Snapshot.linkState(of:)`), not loopback, and its traffic
/// has a source address: the one the kernel's lookup names, or the one it would choose
/// (SourceAddress.swift). The path is satisfied when either family is usable; the
/// interfaces are the chosen ones first, then the others whose own lookups could carry
/// traffic, in the same ranking. Last, the criteria's conditions on the path itself
/// (PathConditions.swift: not expensive, not constrained) judge the path that came out.
public enum PathEvaluator {
    public static func evaluate(_ snapshot: Snapshot, policy: Policy = .standard, criteria: Criteria = .any) -> Path {
        let context = Context(snapshot: snapshot, policy: policy, criteria: criteria)
        // IPv6 first: RFC 6724 and Happy Eyeballs try it first for a dual-stack host.
        // Two values, not a list or a set of them: each list or set made here is memory
        // the change's line waits for, cold after the idle time before the change.
        let ipv6 = context.verdict(for: .ipv6)
        let ipv4 = context.verdict(for: .ipv4)

        var primary: [Link] = []
        var gateways: [IPAddress] = []
        func choose(_ verdict: FamilyVerdict) {
            guard case .usable(let link, let hopGateways) = verdict else { return }
            if !primary.contains(where: { $0.index == link.index }) { primary.append(link) }
            for gateway in hopGateways where !gateways.contains(gateway) { gateways.append(gateway) }
        }
        choose(ipv6)
        choose(ipv4)
        guard !primary.isEmpty else { return context.unsatisfied([ipv6, ipv4]) }

        let others = context.otherCandidates(carrying: { ($0 == .ipv6 ? ipv6 : ipv4).isUsable }, excluding: primary)
        let links = primary + others
        let cost = primary.reduce(Cost()) { $0.adding(context.cost(of: $1, others: others)) }
        return Path(status: .satisfied,
                    availableInterfaces: links.map { context.interface(for: $0) },
                    isExpensive: cost.isExpensive, isConstrained: cost.isConstrained,
                    isExpensiveSetBy: cost.isExpensiveSetBy, isConstrainedSetBy: cost.isConstrainedSetBy,
                    supportsIPv4: ipv4.isUsable, supportsIPv6: ipv6.isUsable,
                    supportsDNS: snapshot.dnsConfigured, gateways: gateways)
            .meeting(criteria, cost: cost)
    }

    /// What one family's route came to.
    enum FamilyVerdict: Equatable {
        case usable(link: Link, gateways: [IPAddress])
        case unusable(UnsatisfiedReason, interface: String?, progress: Progress)

        var isUsable: Bool {
            if case .usable = self { true } else { false }
        }
    }

    /// How far a family got before failing. An IPv4-only network's IPv6 "no address"
    /// is no news; the family that got further tells the person more.
    enum Progress: Int, Comparable {
        /// No usable link holds an address of the family and no route exists.
        case absent
        /// Addresses exist, but no route for the family.
        case addressed
        /// A route was chosen; what failed is about its interface.
        case routed

        static func < (lhs: Progress, rhs: Progress) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The reason most useful to a person wins: a fact about a named interface ("no
    /// carrier on eth0") beats a generic one ("no route").
    static func rank(_ reason: UnsatisfiedReason) -> Int {
        switch reason {
        case .noCarrier: 7
        case .dormant: 6
        case .routeRejects: 5
        case .noAddress: 4
        case .interfaceTypeExcluded: 3
        // A condition's reason (PathConditions.swift) judges a whole path, never a family.
        case .expensiveExcluded, .constrainedExcluded, .networkExcluded: 0
        case .noInterface: 2
        case .noRoute: 1
        // A host name's (WatchList), and a newer pathd's reason a client meets: the
        // evaluator never ranks them.
        case .unresolved, .unrecognized: 0
        }
    }
}
