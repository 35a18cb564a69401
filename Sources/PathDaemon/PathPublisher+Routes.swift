import PathEngine
import PathModel
import PathProtocol

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

/// Route subscriptions (`subscribe` with a `destination`, docs/PROTOCOL.md): the first
/// line once the kernel answered, then a line whenever the judged answer changes.
extension PathPublisher {
    /// The kernel's answer for `destination`, judged as a path is, against the snapshot of
    /// the moment and the running policy: the one judgement of the `route` request and of
    /// every watched route.
    func judgeRoute(to destination: IPAddress, lookup: DestinationLookup) -> RouteReport {
        PathEvaluator.route(to: destination, lookup: lookup.route, throughInterface: lookup.throughInterface,
                            snapshot: engine.snapshot, policy: configuration.current.policy)
    }

    /// Subscribes `connection` to `route`: its first line is deferred until the kernel
    /// answered (at once when the route is watched already), as the `route` request's.
    /// A lookup the kernel could not answer is `lookupFailed`, and nothing is subscribed.
    /// `countedUser`: whose `MaxRoutesPerUser=` budget it takes (nil: none).
    func subscribe(_ connection: ClientConnection, id: JSONValue?, route: WatchedRoute, countedUser: UInt32?) {
        connection.deferReply()
        routes.watch(route) { [unowned self, connection] result in
            switch result {
            case .failure(let error):
                let message = "the kernel could not be asked for the route to \(route): \(error)"
                connection.finishDeferredReply(ServerMessage.error(code: .lookupFailed, message: message,
                                                                   id: id).encoded())
                release(route)
            case .success(let report):
                guard connection.isOpen else {
                    // Gone while the kernel was asked: subscribe nobody, keep nothing.
                    connection.finishDeferredReply([])
                    release(route)
                    return
                }
                let group = routeGroups[route] ?? RouteGroup(report: report, generation: engine.generation)
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
        onRoutesChanged?()
        let generation = engine.generation
        for route in changed {
            guard var group = routeGroups[route], let report = routes.report(for: route) else { continue }
            let published = group.update(report: report, generation: generation, force: resync != nil)
            routeGroups[route] = group
            guard published else { continue }
            send(group.line, toSubscribersOf: .route(route), resync: resync, generation: generation)
        }
    }
}
