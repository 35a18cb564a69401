// SPDX-License-Identifier: Apache-2.0
import KernelState
import PathModel
import PathEvaluation
import PathProtocol
import ServiceSupport

/// Publishing to subscription groups: the path, sequence and encoded line of every
/// criteria anyone asked about (`CriteriaGroup`) and of every watched route
/// (`RouteGroup`, judged by `RouteReports`), who is subscribed to what
/// (`SubscriptionRegistry`), and the lines sent when a path or a route changes.
///
/// Threading: the state queue only (see `PathService`). `@unchecked Sendable`: the route
/// watcher's replies capture it and are called on that queue.
final class PathPublisher: @unchecked Sendable {
    /// The criteria groups (`CriteriaGroup`) evaluated at each change: the default's and
    /// every subscribed one.
    private var groups: [Criteria: CriteriaGroup] = [:]
    /// The groups no subscription holds (a `status` asked about them, or their last
    /// subscriber left), with when they were last asked about: not evaluated at a change,
    /// but when asked again, and the one asked about least recently dropped past
    /// `maximumIdleGroups` (asked again, it starts again at sequence 1; docs/PROTOCOL.md).
    private var idleGroups: [Criteria: (group: CriteriaGroup, asked: UInt64)] = [:]
    private var askedCount: UInt64 = 0
    static let maximumIdleGroups = 256
    /// Every watched route, while anyone subscribes to it.
    var routeGroups: [WatchedRoute: RouteGroup] = [:]
    /// The kernel's answers for the watched routes, kept current; the subscribers hold
    /// theirs as `RouteHolder.subscribers`.
    let routes: RouteReports
    /// Who is subscribed to what: the one owner of that relation. The metrics count them
    /// (`ServiceRecords.changed`).
    var subscriptions = SubscriptionRegistry() {
        didSet { records.changed() }
    }
    /// Called with the default path each time it is published (the log line, the
    /// service manager's status, the networks seen, a [Watch] name resolved again), with
    /// the one before (nil for the first) and when it was published.
    var onDefaultPathChange: ((_ path: Path, _ previous: Path?, _ publishedAt: Timestamp) -> Void)?
    let kernelState: KernelStateTracker
    let configuration: ServiceConfiguration
    private let connectivity: ConnectivityReports
    let admission: ClientAdmission
    let records: ServiceRecords
    let log: Logger

    init(kernelState: KernelStateTracker, configuration: ServiceConfiguration, connectivity: ConnectivityReports,
         admission: ClientAdmission, records: ServiceRecords, log: Logger) {
        self.log = log
        self.kernelState = kernelState
        self.configuration = configuration
        self.connectivity = connectivity
        self.admission = admission
        self.records = records
        routes = RouteReports(kernelState: kernelState, configuration: configuration, log: log)
    }

    /// The group of `criteria`, current. The first time anyone asks about `criteria` its
    /// path is evaluated and the group created (idle until a subscription holds it); for
    /// the default criteria that is the first publication of the default path (the log,
    /// the counters, the history). An idle group is brought up to date: a new sequence if
    /// its path or generation changed since it was last asked about.
    func findOrPublishGroup(for criteria: Criteria) -> CriteriaGroup {
        if let current = groups[criteria] { return current }
        if var idle = idleGroups[criteria]?.group {
            let path = evaluate(criteria)
            let generation = kernelState.generation
            _ = idle.update(path: path, connectivity: connectivity.connectivity(of: path),
                            generation: generation, force: idle.generation != generation)
            keepIdle(idle, for: criteria)
            return idle
        }
        let path = evaluate(criteria)
        let created = CriteriaGroup(path: path, connectivity: connectivity.connectivity(of: path),
                                    generation: kernelState.generation)
        if criteria == .any {
            groups[criteria] = created
            defaultPathPublished(created, generation: kernelState.generation, previous: nil, at: records.clock.now())
        } else {
            keepIdle(created, for: criteria)
        }
        return created
    }

    /// Keeps `group` as `criteria`'s idle group, asked about now; the idle group asked
    /// about least recently is dropped when there are more than `maximumIdleGroups`.
    private func keepIdle(_ group: CriteriaGroup, for criteria: Criteria) {
        askedCount += 1
        idleGroups[criteria] = (group, askedCount)
        guard idleGroups.count > Self.maximumIdleGroups,
              let oldest = idleGroups.min(by: { $0.value.asked < $1.value.asked })?.key else { return }
        idleGroups[oldest] = nil
    }

    /// How many criteria groups there are, and how many of them are idle.
    var groupCounts: (all: Int, idle: Int) { (groups.count + idleGroups.count, idleGroups.count) }

    /// The path for `criteria` now, publishing nothing: the group's path while it is
    /// kept current, else evaluated for this answer only.
    func path(for criteria: Criteria) -> Path {
        groups[criteria]?.path ?? evaluate(criteria)
    }

    /// Re-evaluates every criteria group and sends a line to the subscribers of each
    /// whose path changed (every group after a resync, preceded by the resync line).
    /// Nothing before the kernel's first state.
    func publishChanges(resync: String? = nil) {
        guard kernelState.hasState else { return }
        let generation = kernelState.generation
        // The change happened now, not when its records are written after the lines are
        // out: a subscriber that reacts to its line must not move the recorded time.
        let publishedAt = records.clock.now()
        connectivity.prune()
        _ = findOrPublishGroup(for: .any)
        for criteria in Array(groups.keys) {
            guard var group = groups[criteria] else { continue }
            let path = evaluate(criteria)
            let previous = group.path
            let changed = group.update(path: path, connectivity: connectivity.connectivity(of: path),
                                       generation: generation, force: resync != nil)
            groups[criteria] = group
            guard changed else { continue }
            send(group.line, toSubscribersOf: .path(criteria), resync: resync, generation: generation)
            // After the lines are out: the log line, the service manager's status and the
            // history file each cost a system call that no subscriber should wait for.
            if criteria == .any {
                defaultPathPublished(group, generation: generation, previous: previous, at: publishedAt)
            }
        }
    }

    /// Sends `line` to every subscriber of `topic`, each with its id; after a resync,
    /// the resync line first.
    func send(_ line: EncodedPathLine, toSubscribersOf topic: SubscriptionTopic, resync: String?,
              generation: Generation) {
        for key in subscriptions.subscribers(of: topic) {
            guard let client = admission.clients[key.client], let subscription = subscriptions[key] else { continue }
            if let resync {
                let notice = ServerMessage.resync(reason: resync, generation: generation, id: subscription.id)
                client.send(notice.encoded(), kind: .push)
            }
            client.send(line.line(idMember: subscription.idMember), kind: .path(subscription: key.number))
        }
    }

    // MARK: Subscriptions

    /// Subscribes `connection` to `criteria` and sends it the current path.
    func subscribe(_ connection: ClientConnection, id: JSONValue?, criteria: Criteria) {
        let group = findOrPublishGroup(for: criteria)
        if idleGroups.removeValue(forKey: criteria) != nil { groups[criteria] = group }
        let (key, terms) = subscriptions.add(client: connection.id, id: id, topic: .path(criteria))
        connection.send(group.line.line(idMember: terms.idMember), kind: .path(subscription: key.number))
    }

    /// Ends `connection`'s subscriptions with `id`; whether there were any.
    func unsubscribe(_ connection: ClientConnection, id: JSONValue?) -> Bool {
        let removal = subscriptions.remove(client: connection.id, id: id)
        guard !removal.keys.isEmpty else { return false }
        abandon(removal.abandonedTopics)
        return true
    }

    /// Forgets every subscription of a connection that closed.
    func forgetSubscriptions(of connection: ClientConnection) {
        abandon(subscriptions.removeAll(of: connection.id).abandonedTopics)
    }

    /// Stops watching the routes nobody subscribes to any more; the criteria groups
    /// nobody subscribes to become idle.
    private func abandon(_ topics: [SubscriptionTopic]) {
        for topic in topics {
            switch topic {
            case .route(let route):
                routeGroups[route] = nil
                release(route)
            case .path(let criteria):
                if criteria != .any, let group = groups.removeValue(forKey: criteria) { keepIdle(group, for: criteria) }
            }
        }
    }

    /// The subscribers no longer hold `route` once none is left: it stays watched while
    /// another holder (the `[Watch]` list) holds it.
    func release(_ route: WatchedRoute) {
        guard subscriptions.subscribers(of: .route(route)).isEmpty else { return }
        routes.release(route, by: .subscribers)
    }

    // MARK: Evaluation

    private func evaluate(_ criteria: Criteria) -> Path {
        PathEvaluator.evaluate(kernelState.snapshot, policy: configuration.current.policy, criteria: criteria)
    }

    /// The default path was published: the log line and the service manager's status
    /// (`onDefaultPathChange`) each time; the counters and the history only when it
    /// differs from `previous` (nil for the first path: a resync re-publishes the same).
    private func defaultPathPublished(_ group: CriteriaGroup, generation: Generation, previous: Path?,
                                      at publishedAt: Timestamp) {
        onDefaultPathChange?(group.path, previous, publishedAt)
        guard previous != group.path else { return }
        records.recordDefaultPath(group.path, generation: generation, sequence: group.sequence, previous: previous,
                                  at: publishedAt)
    }
}
