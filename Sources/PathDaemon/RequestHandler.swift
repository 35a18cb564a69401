// SPDX-License-Identifier: Apache-2.0
import Dispatch
import KernelState
import PathModel
import PathEvaluation
import PathProtocol
import ServiceSupport

/// Answers each request line of a connection (docs/PROTOCOL.md, "Requests"): parses it
/// into a typed `Request` and replies, asking the part that owns what the op is about.
/// Every request costs O(1) or O(the size of its own reply); `route` is the publisher's
/// (its zone, its deferred kernel lookup, its judgement); the request budgets and the
/// trust checks are here.
///
/// What it takes, and why each: docs/ARCHITECTURE.md, "Modules" (PathDaemon).
///
/// Threading: the state queue only (see `PathService`).
final class RequestHandler {
    private let log: Logger
    /// The state queue (`kernelState.queue`), and the snapshot the `interfaces` reply reads.
    private let kernelState: KernelStateTracker
    private let configuration: ServiceConfiguration
    private let publisher: PathPublisher
    private let connectivity: ConnectivityReports
    private let records: ServiceRecords
    /// The networks seen, once the service started (`networks` request).
    var networks: (() -> NetworkRegistry?)?
    /// Reloads the configuration as SIGHUP does (`PathService.reloadConfiguration`).
    var reload: ((_ requester: String, _ completion: @escaping @Sendable (ConfigurationReload) -> Void) -> Void)?

    init(log: Logger, kernelState: KernelStateTracker, configuration: ServiceConfiguration, publisher: PathPublisher,
         connectivity: ConnectivityReports, records: ServiceRecords) {
        self.log = log
        self.kernelState = kernelState
        self.configuration = configuration
        self.publisher = publisher
        self.connectivity = connectivity
        self.records = records
    }

    /// One request line; a line that is no request gets the error line that says why.
    func received(_ line: [UInt8], from connection: ClientConnection) {
        dispatchPrecondition(condition: .onQueue(kernelState.queue))
        let request: Request
        do {
            request = try Request.parse(line: line)
        } catch {
            connection.send(ServerMessage.error(code: error.code, message: error.message, id: error.id).encoded())
            return
        }
        handle(request, from: connection)
    }

    private func handle(_ request: Request, from connection: ClientConnection) {
        let id = request.id
        switch request.op {
        case .status(let criteria):
            guard networksKnown(in: criteria, connection, id: id) else { return }
            connection.send(publisher.findOrPublishGroup(for: criteria).line.line(id: id))
        case .subscribe(.path(let criteria)):
            guard networksKnown(in: criteria, connection, id: id), withinSubscriptionBudget(connection, id: id)
            else { return }
            publisher.subscribe(connection, id: id, criteria: criteria)
        case .subscribe(.route(let destination, let zone)):
            let countedUser = connection.isTrusted ? nil : connection.userID
            guard withinSubscriptionBudget(connection, id: id), withinRouteBudget(of: countedUser, id: id, connection)
            else { return }
            publisher.subscribe(connection, id: id, route: WatchedRoute(destination: destination, zone: zone),
                                countedUser: countedUser)
        case .unsubscribe:
            guard id != nil else {
                connection.send(ServerMessage.error(code: .badArgument,
                                                    message: "unsubscribe needs the \"id\" of the subscription",
                                                    id: nil).encoded())
                return
            }
            guard publisher.unsubscribe(connection, id: id) else {
                connection.send(ServerMessage.error(code: .unknownSubscription,
                                                    message: "no subscription with this id on this connection",
                                                    id: id).encoded())
                return
            }
            connection.send(ServerMessage.unsubscribed(id: id).encoded())
        case .ping:
            connection.send(ServerMessage.pong(id: id).encoded())
        case .interfaces:
            // Derived on request from the snapshot the paths were computed from, so the
            // report and the current path never disagree.
            var reports = InterfaceReport.reports(for: kernelState.snapshot, policy: configuration.current.policy)
            for index in reports.indices {
                reports[index].connectivity = connectivity.report(on: reports[index].name)
                // The raw facts behind a network's ID (a gateway's MAC) only to root and
                // pathd's own user (docs/ARCHITECTURE.md, "Network identity").
                if !connection.isTrusted { reports[index].networkFacts = nil }
            }
            connection.send(ServerMessage.interfaces(generation: kernelState.generation, interfaces: reports,
                                                     id: id).encoded())
        case .reload:
            guard requireTrusted(connection, id: id, doing: "asked to reload",
                                 allowed: "reload is allowed for root and the daemon's own user only") else { return }
            // Read and parsed off the state queue: the reply is deferred, as `route`'s.
            connection.deferReply()
            reload?("client \(connection.id) (uid \(connection.userID))") { outcome in
                switch outcome {
                case .valid(_, let warnings):
                    connection.finishDeferredReply(ServerMessage.reloaded(warnings: warnings, id: id).encoded())
                case .invalid(let errors, _):
                    let message = "configuration not reloaded: " + errors.joined(separator: "\n")
                    connection.finishDeferredReply(ServerMessage.error(code: .configInvalid, message: message,
                                                                       id: id).encoded())
                }
            }
        case .reportConnectivity(let report):
            guard requireTrusted(connection, id: id, doing: "sent a connectivity report",
                                 allowed: "reportConnectivity is allowed for root and the daemon's own user "
                                     + "(pathd-probe's) only")
            else { return }
            if let refusal = connectivity.record(report) {
                connection.send(ServerMessage.error(code: .badArgument, message: refusal, id: id).encoded())
                return
            }
            connection.send(ServerMessage.reported(id: id).encoded())
            publisher.publishChanges()
        case .metrics(let format):
            let format = format ?? .openMetrics
            connection.send(ServerMessage.metrics(format: format, text: records.rendered(format), id: id).encoded())
        case .history(let since, let limit):
            // Bounded by HistorySize=: O(the reply).
            let history = records.history
            connection.send(ServerMessage.history(capacity: configuration.current.daemon.historySize,
                                                  persistence: history?.persistence ?? .inMemory(because: nil),
                                                  entries: history?.entries(since: since, limit: limit) ?? [],
                                                  id: id).encoded())
        case .route(let destination, let zone):
            publisher.answerRoute(to: destination, zone: zone, id: id, for: connection)
        case .reportLease(let zone, let report):
            guard requireTrusted(connection, id: id, doing: "reported a DHCP lease",
                                 allowed: "reportLease is allowed for root and the daemon's own user only "
                                     + "(DHCP clients' hooks run as root)")
            else { return }
            // The tracker tells the publisher through onChange when the link's hints changed.
            switch kernelState.report(report, onLink: zone) {
            case .refused(let why):
                log.info("client \(connection.id): DHCP lease on \(zone) not recorded: \(why)")
                connection.send(ServerMessage.error(code: .badArgument, message: why, id: id).encoded())
                return
            case .recorded(let link):
                log.info("\(link.name): \(report.protocolName) lease recorded"
                    + (kernelState.snapshot.hints[link.index].map { ": \($0.summary)" } ?? ""))
            case .ended(let forgotten):
                log.info("\(zone): \(report.protocolName) lease ended; "
                    + (forgotten ? "its hints are forgotten" : "nothing was kept of it"))
            }
            connection.send(ServerMessage.reported(id: id).encoded())
        case .networks:
            guard requireTrusted(connection, id: id, doing: "asked for the networks seen",
                                 allowed: "networks is allowed for root and the daemon's own user only: it shows "
                                     + "the facts network IDs are computed from (gateways' MAC addresses)")
            else { return }
            // Bounded by NetworkRegistry.capacity: O(the reply).
            let registry = networks?()
            connection.send(ServerMessage.networks(
                capacity: NetworkRegistry.capacity,
                persistence: registry?.persistence ?? .inMemory(because: nil),
                networks: registry?.list(at: records.clock.now().wall) ?? [], id: id).encoded())
        }
    }

    /// Whether every network `criteria` name is a `[Network] Name=` of the running
    /// configuration or an ID (`Policy.unknownNetwork`); if not, answers `unknownNetwork`.
    /// Checked when asked only: a reload that drops the name leaves the subscription,
    /// which then no network meets.
    private func networksKnown(in criteria: Criteria, _ connection: ClientConnection, id: JSONValue?) -> Bool {
        guard let unknown = configuration.current.policy.unknownNetwork(in: criteria) else { return true }
        connection.send(ServerMessage.error(
            code: .unknownNetwork,
            message: "no network is named \"\(unknown)\": no [Network] section of pathd.conf has Name=\(unknown), "
                + "and it is no network ID",
            id: id).encoded())
        return false
    }

    /// Whether `connection` may hold one more subscription (`MaxSubscriptionsPerClient=`,
    /// paths and routes together); if not, answers `limitExceeded`. A route subscription
    /// whose first answer is still out is not registered yet, and needs no reservation
    /// here: its connection handles no further request until it is answered
    /// (`ClientConnection.deferReply`).
    private func withinSubscriptionBudget(_ connection: ClientConnection, id: JSONValue?) -> Bool {
        let limit = configuration.current.daemon.maximumSubscriptionsPerClient
        guard publisher.subscriptions.count(of: connection.id) >= limit else { return true }
        connection.send(ServerMessage.error(
            code: .limitExceeded,
            message: "this connection already holds \(limit) subscriptions (MaxSubscriptionsPerClient=); "
                + "unsubscribe one first",
            id: id).encoded())
        return false
    }

    /// Whether `user` may hold one more route subscription (`MaxRoutesPerUser=`, over all
    /// its connections; nil, root or pathd's own user, always may); if not, answers
    /// `limitExceeded`. Each watched route costs a kernel lookup at every change of the
    /// kernel's state, so this bounds what one user makes pathd ask. Subscriptions whose
    /// first answer is still out count too, and the publisher reserves this one in the
    /// same turn (`SubscriptionRegistry.reserveRoute`), so requests sent at once on many
    /// connections cannot pass the limit.
    private func withinRouteBudget(of user: UInt32?, id: JSONValue?, _ connection: ClientConnection) -> Bool {
        let limit = configuration.current.daemon.maximumRoutesPerUser
        guard let user, publisher.subscriptions.routes(countedAgainst: user) >= limit else { return true }
        connection.send(ServerMessage.error(
            code: .limitExceeded,
            message: "uid \(user) already holds \(limit) route subscriptions over its connections "
                + "(MaxRoutesPerUser=); unsubscribe one first",
            id: id).encoded())
        return false
    }

    /// Whether the peer may make a privileged request (`PeerTrust`); if
    /// not, logs that it tried (`doing`) and answers `permissionDenied` with `allowed`.
    private func requireTrusted(_ connection: ClientConnection, id: JSONValue?, doing: String,
                                allowed: String) -> Bool {
        guard !connection.isTrusted else { return true }
        log.notice("client \(connection.id) (uid \(connection.userID)) \(doing); denied")
        connection.send(ServerMessage.error(code: .permissionDenied, message: allowed, id: id).encoded())
        return false
    }
}
