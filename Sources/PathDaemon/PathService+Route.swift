import Dispatch
import PathModel
import PathProtocol

/// The `route` request (docs/PROTOCOL.md): the kernel's route to one address, judged as
/// a path is. The lookup is I/O on the netlink monitor's queue, so the reply is deferred
/// (docs/ARCHITECTURE.md, "The route to one destination"): the connection holds its
/// later requests until it is queued, and the state queue serves everyone meanwhile.
extension PathService {
    func handleRoute(_ request: Request, from connection: ClientConnection) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let destination = request.destination else {
            // `Request.parse` refuses a route without one; a request built in code may lack it.
            connection.send(ServerMessage.error(code: .badArgument, message: "route needs a \"destination\"",
                                                id: request.id).encoded())
            return
        }
        connection.deferReply()
        let id = request.id
        engine.lookUpRoute(to: destination) { [weak self, connection] result in
            guard let self else { return }
            dispatchPrecondition(condition: .onQueue(queue))
            connection.finishDeferredReply(routeReply(to: destination, result, id: id))
        }
    }

    /// The reply line: evaluated against the snapshot of the moment the kernel's answer
    /// arrives (the links and addresses it names are then at least as new as the lookup).
    private func routeReply(to destination: IPAddress, _ result: Result<RouteLookup, RouteLookupError>,
                            id: JSONValue?) -> [UInt8] {
        switch result {
        case .success(let lookup):
            let report = PathEvaluator.route(to: destination, lookup: lookup, snapshot: engine.snapshot,
                                             policy: configuration.policy,
                                             destinations: configuration.daemon.lookupDestinations)
            return ServerMessage.route(report, generation: engine.generation, id: id).encoded()
        case .failure(let error):
            log.warning("route lookup for \(destination) failed: \(error)")
            return ServerMessage.error(code: .lookupFailed,
                                       message: "the kernel could not be asked for the route to \(destination): \(error)",
                                       id: id).encoded()
        }
    }
}
