// SPDX-License-Identifier: Apache-2.0
import PathSettings
import PathModel

extension PathEvaluator {
    /// The route to one destination (the `route` request), judged by the rules that
    /// judge a path, through the same `Context`: the kernel's `lookup` for `destination`
    /// decides the route (policy rules included); the link must be usable and the source
    /// count (`Context.check`); a rejecting route is `routeRejects`; an `Ignore=`
    /// interface is never the answer, and then the other interfaces' own answers for
    /// the destination (`throughInterface`, `DestinationLookup`) decide, as for the path; with no usable route, an
    /// on-demand interface makes it `requiresConnection`; a tunnel costs what its
    /// underlay costs. Additions for one destination (docs/PROTOCOL.md, `route`):
    ///
    /// - An address of this host (the kernel's `local` or `anycast` answer, `dev lo`) is
    ///   satisfied through loopback, since a program can reach itself.
    /// - A broadcast or multicast answer is judged as a unicast one: through the
    ///   interface the kernel names, by that interface's state and the source it names.
    /// - A destination on the link (`IPAddress.isLinkScoped`: fe80::1, ff02::1) may have a
    ///   link-local source (SourceAddress.swift).
    /// - An address is judged where a socket sends its traffic
    ///   (`IPAddress.socketDestination`): an IPv4-mapped IPv6 address as its IPv4
    ///   address, `::` as `::1`; `lookup` must be that address's. The report keeps the
    ///   address as asked.
    public static func route(to destination: IPAddress, lookup: DestinationLookup, snapshot: Snapshot,
                             policy: Policy = .standard) -> RouteReport {
        route(to: destination, lookup: lookup.route, throughInterface: lookup.throughInterface, snapshot: snapshot,
              policy: policy)
    }

    /// The same for a watched route's answer (`RouteWatcher`): a zone that names no
    /// interface now is `noInterface` on that zone.
    public static func route(to destination: IPAddress, zone: String?, answer: WatchedRouteAnswer, snapshot: Snapshot,
                             policy: Policy = .standard) -> RouteReport {
        switch answer {
        case .lookup(let lookup):
            route(to: destination, lookup: lookup, snapshot: snapshot, policy: policy)
        case .noInterface:
            RouteReport(destination: destination, status: .unsatisfied, unsatisfiedReason: .noInterface,
                        reasonInterface: zone)
        }
    }

    /// The same, from the kernel's answer and the answers through each interface apart.
    public static func route(to destination: IPAddress, lookup: RouteLookup,
                             throughInterface: [InterfaceIndex: RouteLookup] = [:], snapshot: Snapshot,
                             policy: Policy = .standard) -> RouteReport {
        let target = destination.socketDestination
        let family = target.family
        let context = Context(snapshot: snapshot, policy: policy, criteria: .any, route: (target, throughInterface))
        var report = RouteReport(destination: destination, status: .unsatisfied)

        if case .route(let answer) = lookup {
            if answer.type.deliversLocally {
                report.status = .satisfied
                report.interface = answer.outputInterface.flatMap { snapshot.links[$0] }.map(context.interface(for:))
                report.source = answer.preferredSource
                report.table = answer.table
                return report
            }
            // What the kernel chose, reported even when it cannot carry traffic
            // ("no carrier on eth0" names eth0 as the interface too).
            if answer.type.sendsThroughInterface, let index = answer.outputInterface, let link = snapshot.links[index],
               context.includes(link) {
                report.interface = context.interface(for: link)
                report.gateway = answer.gateway
                report.source = answer.preferredSource
                report.table = answer.table
            }
        }

        let verdict = context.verdict(for: family, lookup: lookup)
        if case .usable(let link, let gateways) = verdict {
            report.status = .satisfied
            if report.interface?.index != link.index {
                // Another interface's own answer, around an ignored one: its entry is no
                // answer for the destination to quote (its table and source are not).
                report.interface = context.interface(for: link)
                report.gateway = gateways.first
                report.source = nil
                report.table = nil
            }
            let others = context.otherCandidates(carrying: { $0 == family }, excluding: [link])
            let cost = context.cost(of: link, others: others)
            (report.isExpensive, report.isConstrained) = (cost.isExpensive, cost.isConstrained)
            return report
        }
        let path = context.unsatisfied([verdict])
        report.status = path.status
        report.unsatisfiedReason = path.unsatisfiedReason
        report.reasonInterface = path.reasonInterface
        if path.status == .requiresConnection {
            report.interface = path.availableInterfaces.first
            report.gateway = nil
            report.source = nil
            report.table = nil
            report.isExpensive = path.isExpensive
            report.isConstrained = path.isConstrained
        }
        return report
    }
}
