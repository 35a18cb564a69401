/// Answers "which route would the kernel take" from the tracked short-prefix routes and
/// rules alone, for questions the kernel cannot be asked: "as if only these interfaces
/// existed" (criteria, ignored interfaces). Asking the kernel with an output-interface
/// constraint is no substitute: for IPv4 it then assumes the destination is on-link and
/// answers yes.
///
/// It walks the rules as `fib_rules_lookup` does (net/core/fib_rules.c) for unmarked
/// traffic from this host, and in each table takes the longest covering prefix, then
/// the lowest metric; a route whose every nexthop is excluded does not exist.
struct RouteSimulator {
    let snapshot: Snapshot
    /// What the kernel's lookups ask about: the simulation answers the same question.
    let destinations: LookupDestinations
    /// Whether a link counts at all (criteria, Ignore=).
    let includes: (Link) -> Bool

    enum Outcome: Equatable {
        /// A unicast route with the nexthops that remain.
        case route(TrackedRoute, nexthops: [Nexthop])
        /// A rejecting route or rule won.
        case rejected(RouteType)
        case noRoute
    }

    func resolve(_ family: AddressFamily) -> Outcome {
        let destination = destinations[family]
        for rule in snapshot.rules(for: family) where rule.matchesUnmarkedTraffic {
            switch rule.action {
            case .reject(let type):
                return .rejected(type)
            case .other:
                continue
            case .lookup(let table):
                guard let (route, nexthops) = best(in: table, family: family, covering: destination) else { continue }
                // suppress_prefixlength N: an answer this short is not taken (wg-quick's
                // `lookup main suppress_prefixlength 0` skips main's default route).
                if let suppress = rule.suppressPrefixLength, Int32(route.prefixLength) <= suppress { continue }
                // "throw" ends the lookup in this table and goes on with the next rule.
                if route.type == .throw { continue }
                if route.type.rejectsTraffic { return .rejected(route.type) }
                return .route(route, nexthops: nexthops)
            }
        }
        return .noRoute
    }

    /// Every unicast route, in a table some matching rule reaches before a rejecting
    /// rule, that covers the destination, with its included nexthops, best first.
    func candidates(_ family: AddressFamily) -> [(route: TrackedRoute, nexthops: [Nexthop])] {
        let destination = destinations[family]
        var result: [(route: TrackedRoute, nexthops: [Nexthop])] = []
        var seenTables: Set<UInt32> = []
        for rule in snapshot.rules(for: family) where rule.matchesUnmarkedTraffic {
            if case .reject = rule.action { break }
            guard case .lookup(let table) = rule.action, seenTables.insert(table).inserted else { continue }
            for route in ordered(snapshot.routes(family: family, table: table))
            where route.covers(destination) && route.type == .unicast {
                let nexthops = included(route.nexthops)
                if !nexthops.isEmpty { result.append((route, nexthops)) }
            }
        }
        return result
    }

    private func best(in table: UInt32, family: AddressFamily,
                      covering destination: IPAddress) -> (TrackedRoute, [Nexthop])? {
        for route in ordered(snapshot.routes(family: family, table: table)) where route.covers(destination) {
            if route.nexthops.isEmpty { return (route, []) }  // rejecting routes have no hop
            let nexthops = included(route.nexthops)
            if !nexthops.isEmpty { return (route, nexthops) }
        }
        return nil
    }

    /// Routes of one table: the longest prefix first, then the lowest metric.
    private func ordered(_ routes: [TrackedRoute]) -> [TrackedRoute] {
        routes.sorted { ($1.prefixLength, $0.metric) < ($0.prefixLength, $1.metric) }
    }

    private func included(_ nexthops: [Nexthop]) -> [Nexthop] {
        nexthops.filter { hop in snapshot.links[hop.interface].map(includes) ?? false }
    }
}
