import CLinux
import Dispatch
import Glibc
import PathModel
import PathProtocol

/// Limits and policy of a running service.
public struct ServiceConfiguration: Sendable {
    /// Connections served at once; one more gets `tooManyClients` and is closed.
    public var maximumClients: Int
    /// Bytes queued for one client before it counts as not reading and is disconnected.
    public var maximumPendingBytes: Int
    public var policy: Policy

    public init(maximumClients: Int = 1024, maximumPendingBytes: Int = 256 * 1024, policy: Policy = .standard) {
        self.maximumClients = maximumClients
        self.maximumPendingBytes = maximumPendingBytes
        self.policy = policy
    }
}

/// The heart of the daemon: owns the snapshot, the monitor instance of the current
/// generation, the published paths and the clients, all on one serial queue.
///
/// Threading: every stored property below is read and written on `queue` only, and
/// every entry point checks it with `dispatchPrecondition`. `@unchecked Sendable`
/// because Dispatch handlers and the source callbacks are `@Sendable` closures that
/// capture `self`; they all run on `queue`.
public final class PathService: @unchecked Sendable {
    public let queue: DispatchQueue
    private let makeSource: PathEventSourceFactory
    /// Replaced whole by a reload (PathService+Reload.swift), never edited in place.
    var configuration: ServiceConfiguration
    let log: Logger
    /// Reads the configuration files again for SIGHUP and the reload request.
    var configurationReloader: ConfigurationReloader?

    private enum Lifecycle { case idle, running, stopped }
    private var lifecycle = Lifecycle.idle

    /// The generation of `source`; batches from any other are stale.
    public private(set) var generation = Generation.first
    private var source: (any PathEventSource)?
    private(set) var snapshot = Snapshot()
    /// Whether a full-state batch of some generation has arrived (the first path exists).
    private(set) var hasState = false
    /// Why the current generation was started, until its first batch is published.
    private var pendingResync: String?
    /// Kept apart from the snapshot: a re-dump of netlink state says nothing about DNS.
    private var dnsConfigured = false

    /// Read and written by request handling too (PathService+Requests.swift).
    var groups: [Criteria: CriteriaGroup] = [:]
    private(set) var clients: [UInt64: ClientConnection] = [:]
    private var nextClientID: UInt64 = 1
    private var listener: UnixListener?
    private var acceptSource: DispatchSourceRead?
    private var isAcceptPaused = false
    private var firstPathHandlers: [@Sendable () -> Void] = []

    public init(queue: DispatchQueue, configuration: ServiceConfiguration = ServiceConfiguration(),
                log: Logger, makeSource: @escaping PathEventSourceFactory) {
        self.queue = queue
        self.configuration = configuration
        self.log = log
        self.makeSource = makeSource
    }

    // MARK: Life cycle

    /// Starts the first monitor instance. Throws when it cannot start (no netlink).
    public func start() throws {
        dispatchPrecondition(condition: .onQueue(queue))
        precondition(lifecycle == .idle, "a PathService is started once")
        lifecycle = .running
        // A burst during the first dump can overrun the socket before anything was
        // delivered; a fresh instance usually gets through. Anything that fails three
        // times in a row (no netlink at all) is fatal.
        for attempt in 1...3 {
            do {
                try startSource()
                return
            } catch where attempt < 3 {
                source?.cancel()
                generation = generation.next()
                log.warning("the network monitor failed to start (\(error)); trying again as generation \(generation)")
            }
        }
    }

    /// Serves clients on `listener` once the first path exists.
    public func serve(_ listener: UnixListener) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.listener = listener
        if hasState { startAccepting() }
    }

    /// Calls `handler` on the queue once the first path is known (at once if it is).
    public func whenFirstPathKnown(_ handler: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        if hasState { handler() } else { firstPathHandlers.append(handler) }
    }

    /// Stops: tells every client, closes the listener (removing its file) and the source.
    public func stop(reason: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running else { return }
        lifecycle = .stopped
        let listener = self.listener
        self.listener = nil
        // Gone from the file system at once; the descriptor outlives the accept source,
        // as Dispatch requires, and is closed by its cancel handler.
        listener?.removeFile()
        if let acceptSource {
            acceptSource.setCancelHandler { listener?.close() }
            acceptSource.cancel()
            if isAcceptPaused { acceptSource.resume() }
            self.acceptSource = nil
        } else {
            listener?.close()
        }
        let goodbye = ServerMessage.error(code: .shuttingDown, message: "pathd is stopping: \(reason)", id: nil).encoded()
        for client in clients.values {
            client.send(goodbye)
            client.close()
        }
        clients.removeAll()
        source?.cancel()
        source = nil
    }

    /// The current path for `criteria`, for tests and the log.
    public func currentPath(for criteria: Criteria = .any) -> Path? {
        dispatchPrecondition(condition: .onQueue(queue))
        return hasState ? group(for: criteria).path : nil
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
        guard configured != dnsConfigured else { return }
        dnsConfigured = configured
        snapshot.apply(.dnsConfigured(configured))
        if hasState { publishChanges() }
    }

    private func startSource() throws {
        let generation = self.generation
        let callbacks = SourceCallbacks(
            deliver: { [weak self] batch in self?.receive(batch) },
            lost: { [weak self] lostGeneration, why in self?.sourceLost(lostGeneration, why: why) })
        let source = makeSource(generation, callbacks)
        self.source = source
        try source.start()
    }

    private func receive(_ batch: EventBatch) {
        dispatchPrecondition(condition: .onQueue(queue))
        // The generation gate: checked here, after the hop onto the state queue, so a
        // batch a cancelled instance had already queued cannot touch the new state.
        guard lifecycle == .running, batch.generation == generation else {
            log.debug("dropped a batch of stale generation \(batch.generation) (current \(generation))")
            return
        }
        if batch.isFullState {
            snapshot = Snapshot(events: batch.events)
            snapshot.apply(.dnsConfigured(dnsConfigured))
        } else {
            guard hasState else {
                log.warning("generation \(generation) delivered changes before its first full state; ignored")
                return
            }
            for event in batch.events { snapshot.apply(event) }
        }
        let firstPath = !hasState
        hasState = true
        publishChanges()
        if firstPath {
            let handlers = firstPathHandlers
            firstPathHandlers.removeAll()
            for handler in handlers { handler() }
            if listener != nil { startAccepting() }
        }
    }

    private func sourceLost(_ lostGeneration: Generation, why: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard lifecycle == .running, lostGeneration == generation else { return }
        source?.cancel()
        generation = generation.next()
        pendingResync = why
        log.warning("\(why); re-reading the kernel's state as generation \(generation)")
        do {
            try startSource()
        } catch {
            log.error("cannot restart the monitor: \(error); retrying in 1 s")
            let retryGeneration = generation
            queue.asyncAfter(deadline: .now() + 1) { [weak self] in
                self?.sourceLost(retryGeneration, why: "monitor restart after failure")
            }
        }
    }

    // MARK: Publishing

    func group(for criteria: Criteria) -> CriteriaGroup {
        if let existing = groups[criteria] { return existing }
        let path = PathEvaluator.evaluate(snapshot, policy: configuration.policy, criteria: criteria)
        let created = CriteriaGroup(criteria: criteria, path: path, generation: generation)
        groups[criteria] = created
        return created
    }

    /// Re-evaluates every criteria group and sends a line to the members of each whose
    /// path changed (every group after a resync, preceded by the resync line).
    func publishChanges() {
        if groups[.any] == nil {
            let created = group(for: .any)
            log.info("path: \(created.path.summary)")
        }
        let resync = pendingResync
        pendingResync = nil
        for criteria in Array(groups.keys) {
            guard var group = groups[criteria] else { continue }
            let path = PathEvaluator.evaluate(snapshot, policy: configuration.policy, criteria: criteria)
            let changed = group.update(path: path, generation: generation, force: resync != nil)
            groups[criteria] = group
            guard changed else { continue }
            if criteria == .any { log.info("path: \(path.summary)") }
            for member in group.members {
                guard let client = clients[member.client], let subscription = client.subscriptions[member.subscription] else { continue }
                if let resync {
                    client.send(ServerMessage.resync(reason: resync, generation: generation, id: subscription.id).encoded())
                }
                client.send(group.line.line(idMember: subscription.idMember), kind: .path(subscription: member.subscription))
            }
        }
    }

    // MARK: Clients

    private func startAccepting() {
        guard acceptSource == nil, lifecycle == .running, let listener else { return }
        let source = DispatchSource.makeReadSource(fileDescriptor: listener.descriptor, queue: queue)
        source.setEventHandler { [unowned self] in acceptPending() }
        source.resume()
        acceptSource = source
        log.info("listening on \(listener.path)")
    }

    private func acceptPending() {
        guard let listener else { return }
        for _ in 0..<64 {
            let accepted = syscallResult { pathd_accept(listener.descriptor) }
            switch accepted {
            case .success(let descriptor):
                admit(descriptor)
            case .failure(.wouldBlock):
                return
            case .failure(let error) where error.rawValue == EMFILE || error.rawValue == ENFILE:
                // Level-triggered: the pending connection would wake us forever. Pause
                // until a client leaves and frees a descriptor.
                log.warning("cannot accept a client: \(error); pausing accept until a client disconnects")
                acceptSource?.suspend()
                isAcceptPaused = true
                return
            case .failure(let error):
                log.warning("accept failed: \(error)")
                return
            }
        }
    }

    private func admit(_ descriptor: Int32) {
        let id = nextClientID
        nextClientID += 1
        let connection = ClientConnection(id: id, descriptor: descriptor, peerUserID: Self.peerUserID(of: descriptor),
                                          queue: queue, maximumPendingBytes: configuration.maximumPendingBytes, log: log)
        connection.start()
        if clients.count >= configuration.maximumClients {
            log.warning("client \(id) refused: \(configuration.maximumClients) clients already connected")
            connection.send(ServerMessage.error(code: .tooManyClients,
                                                message: "pathd serves at most \(configuration.maximumClients) clients",
                                                id: nil).encoded())
            connection.close()
            return
        }
        clients[id] = connection
        connection.delegate = self
        connection.send(ServerMessage.hello(protocolVersion: ProtocolVersion.current,
                                            daemonVersion: DaemonVersion.current, generation: generation).encoded())
    }

    private static func peerUserID(of descriptor: Int32) -> uid_t {
        var uid = uid_t.max
        guard pathd_peer_uid(descriptor, &uid) == 0 else { return uid_t.max }
        return uid
    }
}

extension PathService: ClientConnectionDelegate {
    func connection(_ connection: ClientConnection, received line: [UInt8]) {
        dispatchPrecondition(condition: .onQueue(queue))
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        let request: Request
        do {
            request = try Request.parse(line: line)
        } catch {
            connection.send(ServerMessage.error(code: error.code, message: error.message, id: error.id).encoded())
            return
        }
        handle(request, from: connection)
    }

    func connectionClosed(_ connection: ClientConnection) {
        dispatchPrecondition(condition: .onQueue(queue))
        for key in Array(connection.subscriptions.keys) { removeSubscription(key, of: connection) }
        clients[connection.id] = nil
        if isAcceptPaused, let acceptSource {
            isAcceptPaused = false
            acceptSource.resume()
        }
    }

    func removeSubscription(_ key: Int, of connection: ClientConnection) {
        guard let subscription = connection.subscriptions.removeValue(forKey: key) else { return }
        groups[subscription.criteria]?.members.remove(CriteriaGroup.Member(client: connection.id, subscription: key))
    }
}
