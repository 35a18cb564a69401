extension PathEvaluator {
    /// One evaluation's inputs and the questions asked of them.
    struct Context {
        let snapshot: Snapshot
        let policy: Policy
        let destinations: LookupDestinations
        let criteria: Criteria
        /// The one address of a `route` request (IPv4-mapped addresses already unmapped);
        /// nil for a path. Only for it does the kernel's answer go beyond unicast (a
        /// broadcast or multicast destination) or beyond the link's edge (a link-scoped
        /// destination: a link-local source counts, and nothing is simulated around it).
        let routeDestination: IPAddress?
        /// Every link's settings, worked out once: each `Policy.settings(for:)` walks
        /// all the `[Interface]` rules, and the questions below ask per link many times.
        private let settingsByLink: [InterfaceIndex: InterfaceSettings]
        /// Every link's state (`Snapshot.linkStates`, which looks at a master's ports), once.
        private let stateByLink: [InterfaceIndex: LinkState]

        init(snapshot: Snapshot, policy: Policy, destinations: LookupDestinations, criteria: Criteria,
             routeDestination: IPAddress? = nil) {
            self.init(snapshot: snapshot, policy: policy, destinations: destinations, criteria: criteria,
                      routeDestination: routeDestination,
                      settingsByLink: snapshot.links.mapValues { policy.settings(for: $0) },
                      stateByLink: snapshot.linkStates())
        }

        private init(snapshot: Snapshot, policy: Policy, destinations: LookupDestinations, criteria: Criteria,
                     routeDestination: IPAddress?, settingsByLink: [InterfaceIndex: InterfaceSettings],
                     stateByLink: [InterfaceIndex: LinkState]) {
            self.snapshot = snapshot
            self.policy = policy
            self.destinations = destinations
            self.criteria = criteria
            self.routeDestination = routeDestination
            self.settingsByLink = settingsByLink
            self.stateByLink = stateByLink
        }

        func settings(of link: Link) -> InterfaceSettings {
            settingsByLink[link.index] ?? policy.settings(for: link)
        }

        func state(of link: Link) -> LinkState {
            stateByLink[link.index] ?? snapshot.linkState(of: link)
        }

        /// Whether a link counts at all: not ignored, not loopback, allowed by the criteria.
        func includes(_ link: Link) -> Bool {
            guard !link.isLoopback else { return false }
            let settings = settings(of: link)
            return !settings.isIgnored && criteria.allows(settings.type(of: link))
        }

        /// What traffic over `link` costs: its policy, and for a tunnel also its
        /// underlay's, the first non-tunnel link of `others` (the other candidates).
        func cost(of link: Link, others: [Link]) -> (isExpensive: Bool, isConstrained: Bool) {
            var settings = [self.settings(of: link)]
            if link.isTunnel, let underlay = others.first(where: { !$0.isTunnel }) {
                settings.append(self.settings(of: underlay))
            }
            return (settings.contains { $0.isExpensive }, settings.contains { $0.isConstrained })
        }

        func interface(for link: Link) -> Interface {
            Interface(name: link.name, index: link.index, type: settings(of: link).type(of: link),
                      isTunnel: link.isTunnel)
        }

        var simulator: RouteSimulator {
            RouteSimulator(snapshot: snapshot, destinations: destinations, includes: includes)
        }

        func verdict(for family: AddressFamily) -> FamilyVerdict {
            // The kernel's answer is authoritative unless it names an interface the
            // question excludes; then the tracked routes answer "as if it did not exist".
            if criteria == .any, let lookup = snapshot.lookups[family] {
                return verdict(for: family, lookup: lookup)
            }
            return simulated(family)
        }

        /// The verdict on the kernel's answer `lookup` (for the default path, the
        /// snapshot's; for the `route` request, one destination's).
        func verdict(for family: AddressFamily, lookup: RouteLookup) -> FamilyVerdict {
            switch lookup {
            case .route(let answer) where answer.type == .unicast
                || (routeDestination != nil && answer.type.sendsThroughInterface):
                if let index = answer.outputInterface, let link = snapshot.links[index] {
                    if includes(link) {
                        return check(link, family: family, gateways: answer.gateway.map { [$0] } ?? [],
                                     isLinkDown: answer.isLinkDown, source: .kernel(answer.preferredSource))
                    }
                    // The tracked routes (default and split) know nothing of a link's
                    // own subnet or groups: no simulation answers for those.
                    if link.isLoopback || answer.type != .unicast || routeDestination?.isLinkScoped == true {
                        return refinedNoRoute(family)
                    }
                    return simulated(family)
                }
                return refinedNoRoute(family)
            case .route(let answer) where answer.type.rejectsTraffic:
                return .unusable(.routeRejects, interface: nil, progress: .routed)
            case .route:
                return refinedNoRoute(family)
            case .rejected:
                return .unusable(.routeRejects, interface: nil, progress: .routed)
            case .noRoute, .failed:
                return refinedNoRoute(family)
            }
        }

        private func simulated(_ family: AddressFamily) -> FamilyVerdict {
            switch simulator.resolve(family) {
            case .rejected:
                return .unusable(.routeRejects, interface: nil, progress: .routed)
            case .noRoute:
                return refinedNoRoute(family)
            case .route(let route, let nexthops):
                // ECMP: the first hop that works; else the first hop's problem.
                var firstProblem: FamilyVerdict?
                for hop in nexthops {
                    guard let link = snapshot.links[hop.interface] else { continue }
                    let verdict = check(link, family: family, gateways: hop.gateway.map { [$0] } ?? [],
                                        isLinkDown: hop.isLinkDown, source: .simulated(route, hop))
                    if case .usable = verdict { return verdict }
                    if firstProblem == nil { firstProblem = verdict }
                }
                return firstProblem ?? refinedNoRoute(family)
            }
        }

        /// Where the source address of the chosen route comes from.
        enum SourceEvidence {
            /// The kernel's lookup named this source (RTA_PREFSRC), or none.
            case kernel(IPAddress?)
            /// No lookup answers the question: choose as the kernel would, by this hop.
            case simulated(TrackedRoute, Nexthop)
        }

        /// The chosen link must be usable, and the traffic must have a source address
        /// that counts (SourceAddress.swift).
        func check(_ link: Link, family: AddressFamily, gateways: [IPAddress], isLinkDown: Bool,
                   source: SourceEvidence) -> FamilyVerdict {
            switch state(of: link) {
            case .adminDown: return .unusable(.noInterface, interface: link.name, progress: .routed)
            case .noCarrier: return .unusable(.noCarrier, interface: link.name, progress: .routed)
            case .dormant: return .unusable(.dormant, interface: link.name, progress: .routed)
            case .usable: break
            }
            if isLinkDown { return .unusable(.noCarrier, interface: link.name, progress: .routed) }
            let hasSource = switch source {
            case .kernel(let address):
                address.map { source in routeDestination.map(source.countsAsSource(toward:)) ?? source.countsAsSource }
                    ?? false
            case .simulated(let route, let hop): snapshot.hasSource(leavingBy: hop, of: route)
            }
            guard hasSource else { return .unusable(.noAddress, interface: link.name, progress: .routed) }
            return .usable(link: link, gateways: gateways)
        }

        /// With no route, the links tell the more useful story: nothing is up, the only
        /// candidates lack carrier, they have no address (DHCP or SLAAC has not run),
        /// or every working interface is one the criteria exclude.
        func refinedNoRoute(_ family: AddressFamily) -> FamilyVerdict {
            let candidates = snapshot.sortedLinks.filter { !$0.isLoopback && !settings(of: $0).isIgnored }
            if candidates.isEmpty { return .unusable(.noInterface, interface: nil, progress: .addressed) }
            let allowed = candidates.filter(includes)
            if allowed.isEmpty { return .unusable(.interfaceTypeExcluded, interface: nil, progress: .addressed) }
            let up = allowed.filter { state(of: $0) != .adminDown }
            if up.isEmpty { return .unusable(.noInterface, interface: nil, progress: .addressed) }
            let usable = up.filter { state(of: $0) == .usable }
            if usable.isEmpty {
                let link = up[0]
                return .unusable(state(of: link) == .dormant ? .dormant : .noCarrier, interface: link.name,
                                 progress: .addressed)
            }
            if !usable.contains(where: { snapshot.hasUsableAddress($0.index, family: family) }) {
                return .unusable(.noAddress, interface: usable.count == 1 ? usable[0].name : nil, progress: .absent)
            }
            if criteria != .any, excludedInterfaceCouldCarry(family) {
                return .unusable(.interfaceTypeExcluded, interface: nil, progress: .addressed)
            }
            return .unusable(.noRoute, interface: nil, progress: .addressed)
        }

        /// Whether, without the criteria, some interface would carry the family.
        private func excludedInterfaceCouldCarry(_ family: AddressFamily) -> Bool {
            let unrestricted = Context(snapshot: snapshot, policy: policy, destinations: destinations, criteria: .any,
                                       routeDestination: routeDestination, settingsByLink: settingsByLink,
                                       stateByLink: stateByLink)
            if case .usable = unrestricted.verdict(for: family) { return true }
            return false
        }

        /// Interfaces other than the chosen ones whose short-prefix routes could carry
        /// traffic of a supported family, by metric; never one that could not.
        func otherCandidates(families: Set<AddressFamily>, excluding chosen: Set<InterfaceIndex>) -> [Link] {
            var ranked: [(metric: UInt32, link: Link)] = []
            for family in families {
                for (route, nexthops) in simulator.candidates(family) {
                    for hop in nexthops {
                        guard let link = snapshot.links[hop.interface], !chosen.contains(link.index),
                              case .usable = check(link, family: family, gateways: [], isLinkDown: hop.isLinkDown,
                                                   source: .simulated(route, hop))
                        else { continue }
                        ranked.append((route.metric, link))
                    }
                }
            }
            var seen = chosen
            return ranked.sorted { ($0.metric, $0.link.index) < ($1.metric, $1.link.index) }
                .compactMap { seen.insert($0.link.index).inserted ? $0.link : nil }
        }

        /// The unsatisfied path: the best reason of the two families, or
        /// requiresConnection when an on-demand interface could bring the path up.
        func unsatisfied(_ verdicts: [FamilyVerdict]) -> Path {
            let onDemand = snapshot.sortedLinks.filter {
                includes($0) && settings(of: $0).isOnDemand && state(of: $0) != .usable
            }
            if !onDemand.isEmpty {
                return Path(status: .requiresConnection, availableInterfaces: onDemand.map(interface(for:)),
                            isExpensive: onDemand.contains { settings(of: $0).isExpensive },
                            isConstrained: onDemand.contains { settings(of: $0).isConstrained })
            }
            var best: (reason: UnsatisfiedReason, interface: String?, progress: Progress) = (.noRoute, nil, .absent)
            var found = false
            for case .unusable(let reason, let interface, let progress) in verdicts {
                if !found || (progress, rank(reason)) > (best.progress, rank(best.reason)) {
                    best = (reason, interface, progress)
                    found = true
                }
            }
            return Path(status: .unsatisfied, unsatisfiedReason: best.reason, reasonInterface: best.interface)
        }
    }
}
