import Dispatch
import Glibc
import PathEngine
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// The heart of the daemon: the engine (the kernel's state), the published paths, the
/// subscriptions and the clients, all on one serial queue.
///
/// Threading: every stored property below is read and written on `queue` only, and
/// every entry point checks it with `dispatchPrecondition`. `@unchecked Sendable`
/// because Dispatch handlers and the engine's callbacks are closures that capture
/// `self`; they all run on `queue`.
public final class PathService: @unchecked Sendable {
    public let queue: DispatchQueue
    /// The kernel's state: sources, generations, the snapshot.
    let engine: PathEngine
    /// Replaced whole by a reload (PathService+Reload.swift), never edited in place.
    var configuration: Configuration
    let log: Logger
    /// Reads the configuration files again for SIGHUP and the reload request.
    var configurationReloader: ConfigurationReloader?
    /// The clock of the history and the metrics.
    let clock: any TimeSource
    let scheduler: any Scheduler
    /// When the service was made, for `pathd_start_time_seconds`.
    let startTime: Timestamp
    /// Where the history file goes (`$STATE_DIRECTORY`); nil keeps it in memory.
    private let stateDirectory: String?
    /// What happened since the start, for the metrics: the one owner of every counter.
    var counters = DaemonCounters()
    /// The default path's changes; opened by `start`.
    private(set) var history: PathHistory?
    /// `MetricsFile=`, when set; opened by `start`.
    private(set) var metricsFile: MetricsFile?

    enum Lifecycle { case idle, running, stopped }
    private(set) var lifecycle = Lifecycle.idle

    /// The path, sequence and encoded line of every criteria anyone asked about.
    /// Read and written by request handling too (PathService+Requests.swift).
    var groups: [Criteria: CriteriaGroup] = [:]
    /// Who is subscribed to what: the one owner of that relation.
    var subscriptions = SubscriptionRegistry()
    /// pathd-probe's latest result per interface name (PathService+Connectivity.swift):
    /// only for links that are usable now, and only about the configured URL.
    var connectivityReports: [String: Connectivity] = [:]
    private(set) var clients: [ClientID: ClientConnection] = [:]
    private(set) var budget: ConnectionBudget
    private var nextClientID: UInt64 = 1
    private var listener: UnixListener?
    private var acceptor: ConnectionAcceptor?
    private var firstPathHandlers: [@Sendable () -> Void] = []
    private var fatalHandler: ((String) -> Void)?
    /// Whether the first path was published (clients are accepted from then on).
    private(set) var hasPublished = false
    /// A return of free memory to the kernel is due (`scheduleMemoryReturn`).
    private var isMemoryReturnScheduled = false
    /// Called on `queue` with the default path each time it changes (the log line,
    /// the service manager's status).
    public var onDefaultPathChange: ((Path) -> Void)?
    /// Called on `queue` when a reload begins and when it has ended (applied or not).
    public var onReload: ((ReloadPhase) -> Void)?

    public enum ReloadPhase: Sendable { case began, ended }
    /// Called on `queue` after a client was admitted or left (tests wait on it).
    var onClientsChanged: (() -> Void)?

    /// `stateDirectory` is where the history is kept across restarts (systemd's
    /// `$STATE_DIRECTORY`); without one it is kept in memory only.
    public init(queue: DispatchQueue, configuration: Configuration = .builtIn, log: Logger,
                scheduler: any Scheduler = DispatchScheduler(), clock: any TimeSource = SystemTimeSource(),
                stateDirectory: String? = nil, makeSource: @escaping PathEventSourceFactory) {
        self.queue = queue
        self.configuration = configuration
        self.log = log
        self.scheduler = scheduler
        self.clock = clock
        self.stateDirectory = stateDirectory
        startTime = clock.now()
        budget = ConnectionBudget(maximumClients: configuration.daemon.maximumClients,
                                  maximumPerUser: configuration.daemon.maximumClientsPerUser,
                                  daemonUserID: geteuid())
        engine = PathEngine(queue: queue, log: log, scheduler: scheduler, makeSource: makeSource)
    }

    // MARK: Life cycle

    /// Starts the first event source; returns at once. The first path arrives
    /// asynchronously (`whenFirstPathKnown`); if the kernel cannot be watched at all,
    /// `onFatal` is called instead.
    public func start(onFatal: @escaping (String) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        precondition(lifecycle == .idle, "a PathService is started once")
        lifecycle = .running
        fatalHandler = onFatal
        engine.onChange = { [unowned self] resync in stateChanged(resync: resync) }
        engine.onSourceLost = { [unowned self] loss in
            counters.recordSourceLost(loss)
            metricsChanged()
        }
        engine.onFatal = { [unowned self] why in fatalHandler?(why) }
        // The kernel's dump starts first; the history's file is read meanwhile. Batches
        // hop onto this queue, so the start mark is still recorded before the first path.
        engine.start()
        let history = PathHistory(capacity: configuration.daemon.historySize, directory: stateDirectory, queue: queue,
                                  scheduler: scheduler, log: log)
        history.record(HistoryEntry(time: clock.now(), event: .started))
        self.history = history
        if let path = configuration.daemon.metricsFilePath {
            metricsFile = MetricsFile(path: path, queue: queue, scheduler: scheduler, log: log) { [unowned self] in
                Array(renderedMetrics(.prometheus).utf8)
            }
        }
    }

    /// Serves clients on `listener` once the first path exists.
    public func serve(_ listener: UnixListener) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.listener = listener
        if hasPublished { startAccepting() }
    }

    /// Calls `handler` on the queue once the first path is known (at once if it is).
    public func whenFirstPathKnown(_ handler: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        if hasPublished { handler() } else { firstPathHandlers.append(handler) }
    }

    /// Stops: tells every client, stops listening (removing the socket file it bound)
    /// and cancels the source.
    public func stop(reason: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running else { return }
        lifecycle = .stopped
        if let acceptor {
            acceptor.stop()
        } else {
            listener?.close()
        }
        acceptor = nil
        listener = nil
        let goodbye = ServerMessage.error(code: .shuttingDown, message: "pathd is stopping: \(reason)", id: nil).encoded()
        for client in Array(clients.values) {
            client.send(goodbye, kind: .push)
            client.close(.shuttingDown)
        }
        engine.stop()
        history?.record(HistoryEntry(time: clock.now(), event: .stopped))
        history?.close()
        metricsFile?.stop()
    }

    /// The current path for `criteria`, for tests and the log.
    public func currentPath(for criteria: Criteria = .any) -> Path? {
        dispatchPrecondition(condition: .onQueue(queue))
        return hasPublished ? group(for: criteria).path : nil
    }

    /// The number of connected clients.
    public var clientCount: Int {
        dispatchPrecondition(condition: .onQueue(queue))
        return clients.count
    }

    // MARK: Inputs

    /// Whether the resolver configuration names a nameserver (from the resolv.conf watcher).
    public func setDNSConfigured(_ configured: Bool) {
        dispatchPrecondition(condition: .onQueue(queue))
        engine.setDNSConfigured(configured)
    }

    private func stateChanged(resync: String?) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running else { return }
        let firstPath = !hasPublished
        hasPublished = true
        if resync != nil { counters.recordResync() }
        publishChanges(resync: resync)
        if firstPath {
            let handlers = firstPathHandlers
            firstPathHandlers.removeAll()
            for handler in handlers { handler() }
            if listener != nil { startAccepting() }
        }
    }

    // MARK: Publishing

    func group(for criteria: Criteria) -> CriteriaGroup {
        if let existing = groups[criteria] { return existing }
        let path = PathEvaluator.evaluate(engine.snapshot, policy: configuration.policy,
                                          destinations: configuration.daemon.lookupDestinations, criteria: criteria)
        let created = CriteriaGroup(path: path, connectivity: connectivity(of: path),
                                    generation: engine.generation)
        groups[criteria] = created
        if criteria == .any { defaultPathPublished(created, generation: engine.generation, previous: nil) }
        return created
    }

    /// The default path was published: the log line and the service manager's status
    /// (`onDefaultPathChange`) each time; the counters and the history only when it
    /// differs from `previous` (nil for the first path: a resync re-publishes the same).
    private func defaultPathPublished(_ group: CriteriaGroup, generation: Generation, previous: Path?) {
        onDefaultPathChange?(group.path)
        guard previous != group.path else { return }
        let now = clock.now()
        counters.recordDefaultPath(group.path, isFirst: previous == nil, at: now)
        history?.record(HistoryEntry(time: now, event: .change(PathChange(group.path, generation: generation,
                                                                          sequence: group.sequence))))
    }

    /// Re-evaluates every criteria group and sends a line to the subscribers of each
    /// whose path changed (every group after a resync, preceded by the resync line).
    func publishChanges(resync: String? = nil) {
        let generation = engine.generation
        pruneConnectivityReports()
        _ = group(for: .any)
        for criteria in Array(groups.keys) {
            guard var group = groups[criteria] else { continue }
            let path = PathEvaluator.evaluate(engine.snapshot, policy: configuration.policy,
                                          destinations: configuration.daemon.lookupDestinations, criteria: criteria)
            let previous = group.path
            let changed = group.update(path: path, connectivity: connectivity(of: path), generation: generation,
                                       force: resync != nil)
            groups[criteria] = group
            guard changed else { continue }
            if criteria == .any { defaultPathPublished(group, generation: generation, previous: previous) }
            for key in subscriptions.subscribers(of: criteria) {
                guard let client = clients[key.client], let subscription = subscriptions[key] else { continue }
                if let resync {
                    client.send(ServerMessage.resync(reason: resync, generation: generation, id: subscription.id).encoded(),
                                kind: .push)
                }
                client.send(group.line.line(idMember: subscription.idMember), kind: .path(subscription: key.number))
            }
        }
        metricsChanged()
    }

    // MARK: Clients

    private func startAccepting() {
        guard acceptor == nil, lifecycle == .running, let listener else { return }
        let acceptor = ConnectionAcceptor(listener: listener, queue: queue, log: log) { [unowned self] descriptor in
            admit(descriptor)
        }
        self.acceptor = acceptor
        acceptor.start()
    }

    private func admit(_ descriptor: FileDescriptor) {
        let id = ClientID(rawValue: nextClientID)
        nextClientID += 1
        let userID: UInt32
        do {
            userID = try descriptor.peerCredentials().userID
        } catch {
            log.debug("client \(id): SO_PEERCRED failed: \(error)")
            userID = UInt32.max
        }
        let limits = ClientConnection.Limits(queueLimitBytes: configuration.daemon.clientQueueLimitBytes)
        let connection = ClientConnection(id: id, descriptor: descriptor, userID: userID, queue: queue,
                                          limits: limits, log: log)
        connection.start()
        if let refusal = budget.refusal(for: connection.userID) {
            log.warning("client \(id) (uid \(connection.userID)) refused: \(refusal)")
            connection.send(ServerMessage.error(code: .tooManyClients, message: refusal, id: nil).encoded())
            connection.closeAfterFlush(.refused)
            counters.recordDisconnect(.refused)
            metricsChanged()
            return
        }
        budget.admit(connection.userID)
        clients[id] = connection
        connection.onRequest = { [unowned self] connection, line in received(line, from: connection) }
        connection.onClose = { [unowned self] connection, reason in closed(connection, reason: reason) }
        connection.send(ServerMessage.hello(protocolVersion: ProtocolVersion.current,
                                            daemonVersion: DaemonVersion.current, generation: engine.generation).encoded())
        onClientsChanged?()
        metricsChanged()
    }

    private func received(_ line: [UInt8], from connection: ClientConnection) {
        dispatchPrecondition(condition: .onQueue(queue))
        let request: Request
        do {
            request = try Request.parse(line: line)
        } catch {
            connection.send(ServerMessage.error(code: error.code, message: error.message, id: error.id).encoded())
            return
        }
        handle(request, from: connection)
    }

    private func closed(_ connection: ClientConnection, reason: ClientConnection.CloseReason) {
        dispatchPrecondition(condition: .onQueue(queue))
        subscriptions.removeAll(of: connection.id)
        if clients.removeValue(forKey: connection.id) != nil { budget.release(connection.userID) }
        acceptor?.connectionClosed()
        counters.recordDisconnect(reason)
        onClientsChanged?()
        metricsChanged()
        scheduleMemoryReturn()
    }

    /// What a closed connection held (its queue, its subscriptions, the buffers of its
    /// requests) is free, but glibc keeps free memory in its heap: RSS would stay at the
    /// peak of the busiest moment. A second after a connection closed (once, however many
    /// close meanwhile) the free pages go back to the kernel (docs/PERFORMANCE.md, memory).
    private func scheduleMemoryReturn() {
        guard !isMemoryReturnScheduled else { return }
        isMemoryReturnScheduled = true
        scheduler.schedule(after: .seconds(1), on: queue) { [weak self] in
            guard let self else { return }
            isMemoryReturnScheduled = false
            Memory.returnFreePages()
        }
    }

    /// Applies a reloaded configuration's limits to connections made from now on.
    func reconfigureBudget() {
        budget.maximumClients = configuration.daemon.maximumClients
        budget.maximumPerUser = configuration.daemon.maximumClientsPerUser
    }
}
