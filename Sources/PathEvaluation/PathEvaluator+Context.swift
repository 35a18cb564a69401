// SPDX-License-Identifier: Apache-2.0
import PathSettings
import PathModel

extension PathEvaluator {
    /// One evaluation's inputs and the questions asked of them.
    struct Context {
        let snapshot: Snapshot
        let policy: Policy
        let criteria: Criteria
        /// The one address of a `route` request (IPv4-mapped addresses already unmapped);
        /// nil for a path. Only for it does the kernel's answer go beyond unicast (a
        /// broadcast or multicast destination) or beyond the link's edge (a link-scoped
        /// destination: a link-local source counts, and no other interface answers for it).
        let routeDestination: IPAddress?
        /// The kernel's answers through each interface for the question asked: the
        /// snapshot's for a path (the lookup destinations), the destination's for a
        /// `route` request.
        let interfaceLookups: [AddressFamily: [InterfaceIndex: RouteLookup]]
        /// Every link's settings, worked out once: each `Policy.settings(for:)` walks
        /// all the `[Interface]` rules, and the questions below ask per link many times.
        private let settingsByLink: [InterfaceIndex: LinkSettings]
        /// Every link's state (`Snapshot.linkStates`, which looks at a master's ports), once.
        private let stateByLink: [InterfaceIndex: LinkState]
        /// The identifications asked for so far: a listed link's cost and its interface
        /// both need it, and the path's line waits for every one.
        private let identified = Identifications()

        init(snapshot: Snapshot, policy: Policy, criteria: Criteria,
             route: (destination: IPAddress, throughInterface: [InterfaceIndex: RouteLookup])? = nil) {
            self.init(snapshot: snapshot, policy: policy, criteria: criteria,
                      routeDestination: route?.destination,
                      interfaceLookups: route.map { [$0.destination.family: $0.throughInterface] }
                        ?? snapshot.interfaceLookups,
                      settingsByLink: snapshot.links.mapValues { policy.settings(for: $0) },
                      stateByLink: snapshot.linkStates())
        }

        private init(snapshot: Snapshot, policy: Policy, criteria: Criteria, routeDestination: IPAddress?,
                     interfaceLookups: [AddressFamily: [InterfaceIndex: RouteLookup]],
                     settingsByLink: [InterfaceIndex: LinkSettings], stateByLink: [InterfaceIndex: LinkState]) {
            self.snapshot = snapshot
            self.policy = policy
            self.criteria = criteria
            self.routeDestination = routeDestination
            self.interfaceLookups = interfaceLookups
            self.settingsByLink = settingsByLink
            self.stateByLink = stateByLink
        }

        func settings(of link: Link) -> LinkSettings {
            settingsByLink[link.index] ?? policy.settings(for: link)
        }

        /// The link's network and cost (`NetworkIdentifier`), worked out when asked: only
        /// the links a path lists are.
        func identification(of link: Link) -> NetworkIdentifier.Identification {
            if let known = identified.identification(of: link.index) { return known }
            let identification = NetworkIdentifier.identify(link, state: state(of: link), in: snapshot,
                                                            policy: policy, settings: settings(of: link))
            identified.remember(identification, of: link.index)
            return identification
        }

        func state(of link: Link) -> LinkState {
            stateByLink[link.index] ?? snapshot.linkState(of: link)
        }

        /// Whether a link counts at all: not ignored, not loopback, allowed by the criteria.
        func includes(_ link: Link) -> Bool {
            guard !link.isLoopback else { return false }
            let settings = settings(of: link)
            return !settings.isIgnored && criteria.allows(settings.type)
        }

        /// What traffic over `link` costs: its own cost, and for a tunnel also its
        /// underlay's, the first non-tunnel link of `others` (the other candidates).
        func cost(of link: Link, others: [Link]) -> Cost {
            var links = [link]
            if link.isTunnel, let underlay = others.first(where: { !$0.isTunnel }) { links.append(underlay) }
            return links.reduce(Cost()) { $0.adding(Cost(of: $1, identification(of: $1).cost)) }
        }

        func interface(for link: Link) -> Interface {
            Interface(name: link.name, index: link.index, type: settings(of: link).type, isTunnel: link.isTunnel,
                      network: identification(of: link).network,
                      captivePortal: snapshot.hints[link.index]?.captivePortal)
        }

        func verdict(for family: AddressFamily) -> FamilyVerdict {
            // The kernel's answer is authoritative unless it names an interface the
            // question excludes; then the allowed interfaces' own answers decide.
            if !criteria.restrictsInterfaces, let lookup = snapshot.lookups[family] {
                return verdict(for: family, lookup: lookup)
            }
            return throughAllowedInterfaces(family, lookup: snapshot.lookups[family])
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
                    // Another interface's own answer is a unicast route beyond the link:
                    // none stands in for a link's own subnet, group or link-local peer.
                    if link.isLoopback || answer.type != .unicast || routeDestination?.isLinkScoped == true {
                        return refinedNoRoute(family)
                    }
                    return throughAllowedInterfaces(family, lookup: lookup)
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

        /// As if only the allowed interfaces existed: the best of their own answers
        /// (`ranked`), the first that can carry traffic; else the best one's problem.
        /// With none, a rejecting route or rule that won the kernel's own lookup
        /// (`lookup`) is the reason: through an interface, IPv4 answers such a route
        /// as it answers no route at all (docs/ARCHITECTURE.md, "Which interfaces can
        /// carry traffic").
        private func throughAllowedInterfaces(_ family: AddressFamily, lookup: RouteLookup?) -> FamilyVerdict {
            var firstProblem: FamilyVerdict?
            for (link, answer) in ranked(family) {
                let verdict = check(link, family: family, gateways: answer.gateway.map { [$0] } ?? [],
                                    isLinkDown: answer.isLinkDown, source: .entry(answer))
                if case .usable = verdict { return verdict }
                if firstProblem == nil { firstProblem = verdict }
            }
            if let firstProblem { return firstProblem }
            switch lookup {
            case .rejected?:
                return .unusable(.routeRejects, interface: nil, progress: .routed)
            case .route(let answer)? where answer.type.rejectsTraffic:
                return .unusable(.routeRejects, interface: nil, progress: .routed)
            default:
                return refinedNoRoute(family)
            }
        }

        /// The allowed interfaces whose own answer is a unicast route through them,
        /// ranked as the kernel ranks routes: by the rule that reaches the answer's
        /// table (`rulePriority`), then the longest prefix, then the lowest metric.
        func ranked(_ family: AddressFamily) -> [(link: Link, answer: RouteAnswer)] {
            var found: [(key: (UInt32, Int, UInt32, InterfaceIndex), link: Link, answer: RouteAnswer)] = []
            for (index, lookup) in interfaceLookups[family] ?? [:] {
                guard case .route(let answer) = lookup, answer.type == .unicast, answer.outputInterface == index,
                      let link = snapshot.links[index], includes(link) else { continue }
                let prefixLength = Int(answer.entry?.prefixLength ?? 0)
                found.append(((rulePriority(answer, family: family), -prefixLength, answer.entry?.metric ?? 0, index),
                              link, answer))
            }
            return found.sorted { $0.key < $1.key }.map { ($0.link, $0.answer) }
        }

        /// The priority of the first rule for unmarked traffic that takes `answer` from
        /// its table (`suppress_prefixlength` lets an answer this short through to the
        /// next rule: wg-quick's `lookup main suppress_prefixlength 0`); last when no
        /// such rule reaches it.
        private func rulePriority(_ answer: RouteAnswer, family: AddressFamily) -> UInt32 {
            let prefixLength = Int32(answer.entry?.prefixLength ?? 0)
            let rule = snapshot.rules(for: family).first { rule in
                guard rule.matchesUnmarkedTraffic, case .lookup(let table) = rule.action, table == answer.table
                else { return false }
                return rule.suppressPrefixLength.map { prefixLength > $0 } ?? true
            }
            return rule?.priority ?? .max
        }

        /// Where the source address of the chosen route comes from.
        enum SourceEvidence {
            /// The kernel's lookup named this source (RTA_PREFSRC), or none.
            case kernel(IPAddress?)
            /// An interface's own answer (a table entry, whose `preferredSource` is the
            /// route's own `src`): choose as the kernel would for traffic by that entry.
            case entry(RouteAnswer)
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
            case .entry(let answer): snapshot.hasSource(family: family, leavingBy: link.index, answer: answer)
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
            if criteria.restrictsInterfaces, excludedInterfaceCouldCarry(family) {
                return .unusable(.interfaceTypeExcluded, interface: nil, progress: .addressed)
            }
            return .unusable(.noRoute, interface: nil, progress: .addressed)
        }

        /// Whether, without the criteria, some interface would carry the family.
        private func excludedInterfaceCouldCarry(_ family: AddressFamily) -> Bool {
            let unrestricted = Context(snapshot: snapshot, policy: policy, criteria: .any,
                                       routeDestination: routeDestination, interfaceLookups: interfaceLookups,
                                       settingsByLink: settingsByLink, stateByLink: stateByLink)
            if case .usable = unrestricted.verdict(for: family) { return true }
            return false
        }

        /// Interfaces other than the chosen ones whose own answer could carry traffic of
        /// a supported family, as the kernel ranks them (`ranked`); never one that could not.
        func otherCandidates(families: Set<AddressFamily>, excluding chosen: Set<InterfaceIndex>) -> [Link] {
            var seen = chosen
            var others: [Link] = []
            for family in AddressFamily.allCases where families.contains(family) {
                for (link, answer) in ranked(family) where !seen.contains(link.index) {
                    guard case .usable = check(link, family: family, gateways: [], isLinkDown: answer.isLinkDown,
                                               source: .entry(answer)) else { continue }
                    seen.insert(link.index)
                    others.append(link)
                }
            }
            return others
        }

        /// The unsatisfied path: the best reason of the two families, or
        /// requiresConnection when an on-demand interface could bring the path up.
        func unsatisfied(_ verdicts: [FamilyVerdict]) -> Path {
            let onDemand = snapshot.sortedLinks.filter {
                includes($0) && settings(of: $0).isOnDemand && state(of: $0) != .usable
            }
            if !onDemand.isEmpty {
                let cost = onDemand.reduce(Cost()) { $0.adding(Cost(of: $1, identification(of: $1).cost)) }
                return Path(status: .requiresConnection, availableInterfaces: onDemand.map(interface(for:)),
                            isExpensive: cost.isExpensive, isConstrained: cost.isConstrained,
                            isExpensiveSetBy: cost.isExpensiveSetBy, isConstrainedSetBy: cost.isConstrainedSetBy)
                    .meeting(criteria, cost: cost)
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

extension PathEvaluator.Context {
    /// One evaluation's identifications by link, filled as they are asked for.
    /// A list, not a dictionary: a path lists a few links.
    final class Identifications {
        private var known: [(index: InterfaceIndex, identification: NetworkIdentifier.Identification)] = []

        func identification(of index: InterfaceIndex) -> NetworkIdentifier.Identification? {
            known.first { $0.index == index }?.identification
        }

        /// The identification of a link asked about for the first time.
        func remember(_ identification: NetworkIdentifier.Identification, of index: InterfaceIndex) {
            known.append((index, identification))
        }
    }
}
