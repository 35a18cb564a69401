extension PathEvaluator {
    /// The route to one destination (the `route` request), judged by the rules that
    /// judge a path, through the same `Context`: the kernel's `lookup` for `destination`
    /// decides the route (policy rules included); the link must be usable and the source
    /// count (`Context.check`); a rejecting route is `routeRejects`; an `Ignore=`
    /// interface is never the answer, and then the tracked default and split routes
    /// answer as if it did not exist, as for the path; with no usable route, an
    /// on-demand interface makes it `requiresConnection`; a tunnel costs what its
    /// underlay costs. One addition: a destination on this host (the kernel's `local`
    /// route) is satisfied through loopback, since a program can reach itself.
    ///
    /// `destinations` are the daemon's lookup destinations; only the other family's is
    /// kept (the simulation asks about `destination`).
    public static func route(to destination: IPAddress, lookup: RouteLookup, snapshot: Snapshot,
                             policy: Policy = .standard, destinations: LookupDestinations = .standard) -> RouteReport {
        let family = destination.family
        var asked = destinations
        switch family {
        case .ipv4: asked.ipv4 = destination
        case .ipv6: asked.ipv6 = destination
        }
        let context = Context(snapshot: snapshot, policy: policy, destinations: asked, criteria: .any)
        var report = RouteReport(destination: destination, status: .unsatisfied)

        if case .route(let answer) = lookup {
            switch answer.type {
            case .local:
                report.status = .satisfied
                report.interface = answer.outputInterface.flatMap { snapshot.links[$0] }.map(context.interface(for:))
                report.source = answer.preferredSource
                report.table = answer.table
                return report
            case .unicast:
                // What the kernel chose, reported even when it cannot carry traffic
                // ("no carrier on eth0" names eth0 as the interface too).
                if let index = answer.outputInterface, let link = snapshot.links[index], context.includes(link) {
                    report.interface = context.interface(for: link)
                    report.gateway = answer.gateway
                    report.source = answer.preferredSource
                    report.table = answer.table
                }
            default:
                break
            }
        }

        let verdict = context.verdict(for: family, lookup: lookup)
        if case .usable(let link, let gateways) = verdict {
            report.status = .satisfied
            if report.interface?.index != link.index {
                // Simulated around an ignored interface: no kernel answer to quote.
                report.interface = context.interface(for: link)
                report.gateway = gateways.first
                report.source = nil
                report.table = nil
            }
            let others = context.otherCandidates(families: [family], excluding: [link.index])
            (report.isExpensive, report.isConstrained) = context.cost(of: link, others: others)
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
