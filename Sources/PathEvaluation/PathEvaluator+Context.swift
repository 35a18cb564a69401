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
            for candidate in ranked(family) {
                let answer = candidate.answer
                let verdict = check(candidate.link, family: family, gateways: answer.gateway.map { [$0] } ?? [],
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

        /// One allowed interface's own answer, and where the kernel ranks it (`ranked`).
        /// A struct, not a tuple: a list of tuples holding a link is copied and sorted
        /// through the runtime's generic tuple functions.
        struct RankedAnswer {
            let link: Link
            let answer: RouteAnswer
            fileprivate let rank: (rulePriority: UInt32, prefixLength: Int, metric: UInt32, index: InterfaceIndex)
        }

        /// The allowed interfaces whose own answer is a unicast route through them,
        /// ranked as the kernel ranks routes: by the rule that reaches the answer's
        /// table (`rulePriority`), then the longest prefix, then the lowest metric.
        func ranked(_ family: AddressFamily) -> [RankedAnswer] {
            var found: [RankedAnswer] = []
            for (index, lookup) in interfaceLookups[family] ?? [:] {
                guard case .route(let answer) = lookup, answer.type == .unicast, answer.outputInterface == index,
                      let link = snapshot.links[index], includes(link) else { continue }
                let prefixLength = Int(answer.entry?.prefixLength ?? 0)
                found.append(RankedAnswer(link: link, answer: answer,
                                          rank: (rulePriority(answer, family: family), -prefixLength,
                                                 answer.entry?.metric ?? 0, index)))
            }
            found.sort { $0.rank < $1.rank }
            return found
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
            // One pass over the links and no list of them: where a list in index order
            // named its first link, the lowest index does.
            var hasCandidate = false
            var hasAllowed = false
            var firstUp: Link?
            var usableCount = 0
            var lastUsable: Link?
            var usableIsAddressed = false
            for link in snapshot.links.values where !link.isLoopback {
                let settings = settings(of: link)
                guard !settings.isIgnored else { continue }
                hasCandidate = true
                guard criteria.allows(settings.type) else { continue }
                hasAllowed = true
                let state = state(of: link)
                guard state != .adminDown else { continue }
                if firstUp.map({ link.index < $0.index }) ?? true { firstUp = link }
                guard state == .usable else { continue }
                usableCount += 1
                lastUsable = link
                if !usableIsAddressed { usableIsAddressed = snapshot.hasUsableAddress(link.index, family: family) }
            }
            if !hasCandidate { return .unusable(.noInterface, interface: nil, progress: .addressed) }
            if !hasAllowed { return .unusable(.interfaceTypeExcluded, interface: nil, progress: .addressed) }
            guard let firstUp else { return .unusable(.noInterface, interface: nil, progress: .addressed) }
            if usableCount == 0 {
                return .unusable(state(of: firstUp) == .dormant ? .dormant : .noCarrier, interface: firstUp.name,
                                 progress: .addressed)
            }
            if !usableIsAddressed {
                return .unusable(.noAddress, interface: usableCount == 1 ? lastUsable?.name : nil, progress: .absent)
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
        /// a family the path carries (`carrying`), as the kernel ranks them (`ranked`);
        /// never one that could not.
        func otherCandidates(carrying carries: (AddressFamily) -> Bool, excluding chosen: [Link]) -> [Link] {
            var others: [Link] = []
            for family in AddressFamily.allCases where carries(family) {
                for candidate in ranked(family) {
                    let (link, answer) = (candidate.link, candidate.answer)
                    guard !chosen.contains(where: { $0.index == link.index }),
                          !others.contains(where: { $0.index == link.index }),
                          case .usable = check(link, family: family, gateways: [], isLinkDown: answer.isLinkDown,
                                               source: .entry(answer))
                    else { continue }
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
    /// A list, not a dictionary: a path lists a few links. Of structs, not tuples: a
    /// tuple holding the identification is copied through the runtime's generic tuple
    /// functions.
    final class Identifications {
        private struct Known {
            let index: InterfaceIndex
            let identification: NetworkIdentifier.Identification
        }

        private var known: [Known] = []

        func identification(of index: InterfaceIndex) -> NetworkIdentifier.Identification? {
            for entry in known where entry.index == index { return entry.identification }
            return nil
        }

        /// The identification of a link asked about for the first time.
        func remember(_ identification: NetworkIdentifier.Identification, of index: InterfaceIndex) {
            known.append(Known(index: index, identification: identification))
        }
    }
}
