import Dispatch
import PathModel
import PathProtocol

/// Answers one parsed request of a connection (docs/PROTOCOL.md, "Requests"). Runs on
/// the state queue, like everything that touches the service's state. Every request
/// costs O(1) or O(the size of its own reply); `route` costs one evaluation of a path
/// here and a kernel lookup on the monitor's queue (PathService+Route.swift).
extension PathService {
    func handle(_ request: Request, from connection: ClientConnection) {
        dispatchPrecondition(condition: .onQueue(queue))
        switch request.op {
        case .status(let criteria):
            connection.send(group(for: criteria).line.line(id: request.id))
        case .subscribe(let criteria):
            let limit = configuration.daemon.maximumSubscriptionsPerClient
            guard subscriptions.count(of: connection.id) < limit else {
                connection.send(ServerMessage.error(
                    code: .limitExceeded,
                    message: "this connection already holds \(limit) subscriptions (MaxSubscriptionsPerClient=); "
                        + "unsubscribe one first",
                    id: request.id).encoded())
                return
            }
            let line = group(for: criteria).line
            let key = subscriptions.add(client: connection.id, id: request.id, criteria: criteria)
            connection.send(line.line(idMember: subscriptions[key]?.idMember ?? []), kind: .path(subscription: key.number))
            metricsChanged()
        case .unsubscribe:
            guard request.id != nil else {
                connection.send(ServerMessage.error(code: .badArgument,
                                                    message: "unsubscribe needs the \"id\" of the subscription",
                                                    id: nil).encoded())
                return
            }
            guard !subscriptions.remove(client: connection.id, id: request.id).isEmpty else {
                connection.send(ServerMessage.error(code: .unknownSubscription,
                                                    message: "no subscription with this id on this connection",
                                                    id: request.id).encoded())
                return
            }
            connection.send(ServerMessage.unsubscribed(id: request.id).encoded())
            metricsChanged()
        case .ping:
            connection.send(ServerMessage.pong(id: request.id).encoded())
        case .reload:
            handleReload(request, from: connection)
        case .reportConnectivity(let report):
            handleConnectivityReport(report, request: request, from: connection)
        case .interfaces:
            // Derived on request from the snapshot the paths were computed from, so the
            // report and the current path never disagree.
            var reports = InterfaceReport.reports(for: engine.snapshot, policy: configuration.policy)
            for index in reports.indices {
                reports[index].connectivity = connectivityReports[reports[index].name] ?? .unknown
            }
            connection.send(ServerMessage.interfaces(generation: engine.generation, interfaces: reports, id: request.id).encoded())
        case .metrics(let format):
            let format = format ?? .openMetrics
            connection.send(ServerMessage.metrics(format: format, text: renderedMetrics(format), id: request.id).encoded())
        case .route(let destination):
            handleRoute(to: destination, request: request, from: connection)
        case .history(let since, let limit):
            // Bounded by HistorySize=: O(the reply).
            let entries = history?.entries(since: since, limit: limit) ?? []
            connection.send(ServerMessage.history(capacity: configuration.daemon.historySize,
                                                  persistent: history?.isPersistent ?? false,
                                                  entries: entries, id: request.id).encoded())
        }
    }
}
