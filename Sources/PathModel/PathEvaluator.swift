/// Turns a snapshot into the path a subscriber sees. Pure: values in, a value out.
///
/// Rule set: a family is usable when the kernel's route lookup for it answered with a
/// unicast route whose output link is usable (admin up, running, operstate UP or
/// UNKNOWN), not loopback, allowed by the criteria, and holding a usable address of
/// that family. The path is satisfied when either family is usable.
public enum PathEvaluator {
    /// What one family's lookup came to.
    enum FamilyVerdict: Equatable {
        case usable(link: Link, gateway: IPAddress?)
        case unusable(UnsatisfiedReason, interface: String?, progress: Progress = .routed)
    }

    /// How far a family got before failing. An IPv4-only network's IPv6 "no address"
    /// is no news; the family that got further tells the person more.
    enum Progress: Int, Comparable {
        /// No usable link holds an address of the family and no route exists.
        case absent
        /// Addresses exist, but the kernel has no route for the family.
        case addressed
        /// The kernel chose a route; what failed is about its interface.
        case routed

        static func < (lhs: Progress, rhs: Progress) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public static func evaluate(_ snapshot: Snapshot, policy: Policy = .standard, criteria: Criteria = .any) -> Path {
        let verdicts = [AddressFamily.ipv6, .ipv4].map { family in
            (family, verdict(for: family, in: snapshot, criteria: criteria))
        }
        var interfaces: [Interface] = []
        var gateways: [IPAddress] = []
        var expensive = false
        var constrained = false
        var supported: Set<AddressFamily> = []
        // IPv6 first: RFC 6724 and Happy Eyeballs try it first for a dual-stack host.
        for (family, verdict) in verdicts {
            guard case .usable(let link, let gateway) = verdict else { continue }
            supported.insert(family)
            if !interfaces.contains(where: { $0.index == link.index }) { interfaces.append(link.interface) }
            if let gateway { gateways.append(gateway) }
            let settings = policy.settings(for: link)
            expensive = expensive || settings.isExpensive
            constrained = constrained || settings.isConstrained
        }
        if !supported.isEmpty {
            return Path(status: .satisfied, availableInterfaces: interfaces, isExpensive: expensive,
                        isConstrained: constrained, supportsIPv4: supported.contains(.ipv4),
                        supportsIPv6: supported.contains(.ipv6), supportsDNS: snapshot.dnsConfigured,
                        gateways: gateways)
        }
        let reasons = verdicts.compactMap { _, verdict -> (UnsatisfiedReason, String?, Progress)? in
            if case .unusable(let reason, let interface, let progress) = verdict { return (reason, interface, progress) }
            return nil
        }
        let best = reasons.max { ($0.2, rank($0.0)) < ($1.2, rank($1.0)) } ?? (.noRoute, nil, .absent)
        return Path(status: .unsatisfied, unsatisfiedReason: best.0, reasonInterface: best.1)
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
        case .noInterface: 2
        case .noRoute: 1
        }
    }

    static func verdict(for family: AddressFamily, in snapshot: Snapshot, criteria: Criteria) -> FamilyVerdict {
        switch snapshot.lookups[family] {
        case .route(let answer):
            guard answer.type == .unicast else {
                if answer.type.rejectsTraffic {
                    return .unusable(.routeRejects, interface: nil)
                }
                return refinedNoRoute(family: family, in: snapshot, criteria: criteria)
            }
            guard let index = answer.outputInterface, let link = snapshot.links[index], !link.isLoopback else {
                return refinedNoRoute(family: family, in: snapshot, criteria: criteria)
            }
            if !criteria.allows(link.type) {
                // As if the excluded interface did not exist: the answer must not change
                // with which excluded interface the kernel happens to prefer.
                return .unusable(.interfaceTypeExcluded, interface: nil, progress: .addressed)
            }
            switch link.linkState {
            case .adminDown: return .unusable(.noInterface, interface: link.name)
            case .noCarrier: return .unusable(.noCarrier, interface: link.name)
            case .dormant: return .unusable(.dormant, interface: link.name)
            case .usable: break
            }
            if answer.isLinkDown { return .unusable(.noCarrier, interface: link.name) }
            guard snapshot.hasUsableAddress(index, family: family) else {
                return .unusable(.noAddress, interface: link.name)
            }
            return .usable(link: link, gateway: answer.gateway)
        case .rejected:
            return .unusable(.routeRejects, interface: nil)
        case .noRoute, .failed, nil:
            return refinedNoRoute(family: family, in: snapshot, criteria: criteria)
        }
    }

    /// With no route, the links tell the more useful story: nothing is up, the only
    /// candidates lack carrier, or they have no address (so DHCP or SLAAC has not run).
    static func refinedNoRoute(family: AddressFamily, in snapshot: Snapshot, criteria: Criteria) -> FamilyVerdict {
        let candidates = snapshot.sortedLinks.filter { !$0.isLoopback }
        if candidates.isEmpty { return .unusable(.noInterface, interface: nil, progress: .addressed) }
        let allowed = candidates.filter { criteria.allows($0.type) }
        if allowed.isEmpty { return .unusable(.interfaceTypeExcluded, interface: nil, progress: .addressed) }
        let up = allowed.filter { $0.linkState != .adminDown }
        if up.isEmpty { return .unusable(.noInterface, interface: nil, progress: .addressed) }
        let usable = up.filter { $0.linkState == .usable }
        if usable.isEmpty {
            let link = up[0]
            return .unusable(link.linkState == .dormant ? .dormant : .noCarrier, interface: link.name, progress: .addressed)
        }
        if !usable.contains(where: { snapshot.hasUsableAddress($0.index, family: family) }) {
            return .unusable(.noAddress, interface: usable.count == 1 ? usable[0].name : nil, progress: .absent)
        }
        return .unusable(.noRoute, interface: nil, progress: .addressed)
    }
}
