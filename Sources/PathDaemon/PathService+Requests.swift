import Dispatch
import PathModel
import PathProtocol

/// Answers one parsed request of a connection (docs/PROTOCOL.md, "Requests"). Runs on
/// the state queue, like everything that touches the service's state.
extension PathService {
    func handle(_ request: Request, from connection: ClientConnection) {
        dispatchPrecondition(condition: .onQueue(queue))
        switch request.op {
        case .status:
            connection.send(group(for: request.criteria).line.line(id: request.id))
        case .subscribe:
            let key = connection.nextSubscriptionKey
            connection.nextSubscriptionKey += 1
            var group = group(for: request.criteria)
            group.members.insert(CriteriaGroup.Member(client: connection.id, subscription: key))
            groups[request.criteria] = group
            let subscription = Subscription(id: request.id, criteria: request.criteria,
                                            idMember: EncodedPathLine.idMember(request.id))
            connection.subscriptions[key] = subscription
            connection.send(group.line.line(idMember: subscription.idMember), kind: .path(subscription: key))
        case .unsubscribe:
            let keys = connection.subscriptions.filter { $0.value.id == request.id }.map(\.key)
            guard !keys.isEmpty else {
                connection.send(ServerMessage.error(code: .unknownSubscription,
                                                    message: "no subscription with this id on this connection",
                                                    id: request.id).encoded())
                return
            }
            for key in keys { removeSubscription(key, of: connection) }
            connection.send(ServerMessage.unsubscribed(id: request.id).encoded())
        case .ping:
            connection.send(ServerMessage.pong(id: request.id).encoded())
        case .reload:
            handleReload(request, from: connection)
        case .interfaces:
            // Derived on request from the snapshot the paths were computed from, so the
            // report and the current path never disagree.
            let reports = InterfaceReport.reports(for: engine.snapshot, policy: configuration.policy)
            connection.send(ServerMessage.interfaces(generation: engine.generation, interfaces: reports, id: request.id).encoded())
        }
    }
}
