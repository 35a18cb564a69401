// SPDX-License-Identifier: Apache-2.0
import Dispatch
import KernelState
import PathModel
import PathEvaluation
import PathProtocol

extension RouteHolder {
    /// A route's subscribers, while any is left (`PathPublisher.release`).
    static let subscribers = RouteHolder("route subscriptions")
    /// The `[Watch]` list, while it names the route (`WatchList`).
    static let watchList = RouteHolder("[Watch]")
}

/// Everything published for one watched route while anyone subscribes to it: the
/// current report, its sequence and its encoded line (a `route` line with a `sequence`),
/// as `CriteriaGroup` for a path. Removed with its last subscriber: the number of
/// destinations is the clients' to choose, so the map is bounded by the subscriptions.
struct RouteGroup {
    private(set) var report: RouteReport
    private(set) var sequence: UInt64 = 1
    private(set) var line: EncodedPathLine

    init(report: RouteReport, generation: Generation) {
        self.report = report
        line = EncodedPathLine(RouteUpdate(generation: generation, sequence: 1, report: report))
    }

    /// Records a newly judged report; whether a line must be published: the report
    /// changed, or `force` (after a resync the current route is sent regardless).
    mutating func update(report newReport: RouteReport, generation: Generation, force: Bool) -> Bool {
        guard force || newReport != report else { return false }
        report = newReport
        sequence += 1
        line = EncodedPathLine(RouteUpdate(generation: generation, sequence: sequence, report: newReport))
        return true
    }
}

/// The `route` request and route subscriptions (`subscribe` with a `destination`,
/// docs/PROTOCOL.md): the zone checked against the snapshot, the kernel asked, its answer
/// judged; a subscription's first line once the kernel answered, then a line whenever the
/// judged answer changes.
extension PathPublisher {
    /// Answers a `route` request: the kernel's route to one address, judged as a path is.
    /// The lookup is I/O on the netlink monitor's queue, so the reply is deferred
    /// (docs/ARCHITECTURE.md, "The route to one destination"): the connection holds its
    /// later requests until it is queued, and the state queue serves everyone meanwhile.
    func answerRoute(to destination: IPAddress, zone: String?, id: JSONValue?, for connection: ClientConnection) {
        guard case .some(let interface) = resolve(zone, of: destination, id: id, for: connection) else { return }
        connection.deferReply()
        kernelState.lookUpRoute(to: destination, through: interface) { [weak self, connection] result in
            guard let self else { return }
            dispatchPrecondition(condition: .onQueue(kernelState.queue))
            connection.finishDeferredReply(routeReply(to: destination, result, id: id))
        }
    }

    /// The reply line: evaluated against the snapshot of the moment the kernel's answer
    /// arrives (the links and addresses it names are then at least as new as the lookup).
    private func routeReply(to destination: IPAddress, _ result: Result<DestinationLookup, RouteLookupError>,
                            id: JSONValue?) -> [UInt8] {
        switch result {
        case .success(let lookup):
            let report = routes.judge(destination, .lookup(lookup))
            return ServerMessage.route(report, generation: kernelState.generation, id: id).encoded()
        case .failure(let error):
            log.warning("route lookup for \(destination) failed: \(error)")
            let message = "the kernel could not be asked for the route to \(destination): \(error)"
            return ServerMessage.error(code: .lookupFailed, message: message, id: id).encoded()
        }
    }

    /// The interface a zone names now: `.some(nil)` without a zone, nil (after answering
    /// `badArgument`) when it names no interface. A route subscription's zone is checked
    /// here once, as the `route` request's; later the route watcher resolves it again at
    /// each change (a link that goes is a reason).
    private func resolve(_ zone: String?, of destination: IPAddress, id: JSONValue?,
                         for connection: ClientConnection) -> InterfaceIndex?? {
        guard let zone else { return .some(nil) }
        guard let link = kernelState.snapshot.link(zone: zone) else {
            let message = "no interface \"\(zone)\" (the zone of \(destination)%\(zone)); "
                + "pathctl interfaces lists them"
            connection.send(ServerMessage.error(code: .badArgument, message: message, id: id).encoded())
            return nil
        }
        return .some(link.index)
    }

    /// Subscribes `connection` to `route` once its zone names an interface now (else
    /// answers `badArgument`, as `route` does): its first line is deferred until the
    /// kernel answered (at once when the route is watched already), as the `route`
    /// request's. A lookup the kernel could not answer is `lookupFailed`, and nothing is
    /// subscribed. `countedUser`: whose `MaxRoutesPerUser=` budget it takes (nil: none),
    /// from now on: the caller checked the budget in this same turn of the state queue,
    /// and the reservation holds the place until the first answer registers the
    /// subscription or gives it back (`SubscriptionRegistry.reserveRoute`).
    func subscribe(_ connection: ClientConnection, id: JSONValue?, route: WatchedRoute, countedUser: UInt32?) {
        guard case .some = resolve(route.zone, of: route.destination, id: id, for: connection) else { return }
        if let countedUser { subscriptions.reserveRoute(for: countedUser) }
        connection.deferReply()
        routes.watch(route, by: .subscribers) { [weak self, connection] result in
            // Weak: the kernel's answer may come after the service was torn down.
            guard let self else { return }
            switch result {
            case .failure(let error):
                if let countedUser { subscriptions.releaseReservedRoute(of: countedUser) }
                let message = "the kernel could not be asked for the route to \(route): \(error)"
                connection.finishDeferredReply(ServerMessage.error(code: .lookupFailed, message: message,
                                                                   id: id).encoded())
                release(route)
            case .success(let report):
                guard connection.isOpen else {
                    // Gone while the kernel was asked: subscribe nobody, keep nothing.
                    if let countedUser { subscriptions.releaseReservedRoute(of: countedUser) }
                    connection.finishDeferredReply([])
                    release(route)
                    return
                }
                let group = routeGroups[route] ?? RouteGroup(report: report, generation: kernelState.generation)
                routeGroups[route] = group
                let (key, terms) = subscriptions.add(client: connection.id, id: id, topic: .route(route),
                                                     countedUser: countedUser)
                connection.finishDeferredReply(group.line.line(idMember: terms.idMember),
                                               kind: .path(subscription: key.number))
            }
        }
    }

    /// Sends a line to the subscribers of each route in `changed` whose report did
    /// change (after a resync, to every one, preceded by the resync line).
    func publishRoutes(_ changed: [WatchedRoute], resync: String?) {
        let generation = kernelState.generation
        for route in changed {
            guard var group = routeGroups[route], let report = routes.report(for: route) else { continue }
            let published = group.update(report: report, generation: generation, force: resync != nil)
            routeGroups[route] = group
            guard published else { continue }
            send(group.line, toSubscribersOf: .route(route), resync: resync, generation: generation)
        }
    }
}
