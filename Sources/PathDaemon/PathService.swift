import Dispatch
import Glibc
import PathEngine
import PathModel
import PathProtocol
import SystemCalls

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

/// The heart of the daemon: the engine (the kernel's state), the published paths and
/// the clients, all on one serial queue.
///
/// Threading: every stored property below is read and written on `queue` only, and
/// every entry point checks it with `dispatchPrecondition`. `@unchecked Sendable`
/// because Dispatch handlers and the source callbacks are `@Sendable` closures that
/// capture `self`; they all run on `queue`.
public final class PathService: @unchecked Sendable {
    public let queue: DispatchQueue
    /// The kernel's state: sources, generations, the snapshot.
    let engine: PathEngine
    /// Replaced whole by a reload (PathService+Reload.swift), never edited in place.
    var configuration: ServiceConfiguration
    let log: Logger
    /// Reads the configuration files again for SIGHUP and the reload request.
    var configurationReloader: ConfigurationReloader?

    private enum Lifecycle { case idle, running, stopped }
    private var lifecycle = Lifecycle.idle

    /// Read and written by request handling too (PathService+Requests.swift).
    var groups: [Criteria: CriteriaGroup] = [:]
    private(set) var clients: [UInt64: ClientConnection] = [:]
    private var nextClientID: UInt64 = 1
    private var listener: UnixListener?
    private var acceptSource: DispatchSourceRead?
    private var isAcceptPaused = false
    private var firstPathHandlers: [@Sendable () -> Void] = []
    private var fatalHandler: ((String) -> Void)?
    /// Whether the first path was published (clients are accepted from then on).
    private var hasPublished = false

    public init(queue: DispatchQueue, configuration: ServiceConfiguration = ServiceConfiguration(),
                log: Logger, scheduler: any Scheduler = DispatchScheduler(), makeSource: @escaping PathEventSourceFactory) {
        self.queue = queue
        self.configuration = configuration
        self.log = log
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
        engine.onFatal = { [unowned self] why in fatalHandler?(why) }
        engine.start()
    }

    /// Serves clients on `listener` once the first path exists.
    public func serve(_ listener: UnixListener) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.listener = listener
        if engine.hasState { startAccepting() }
    }

    /// Calls `handler` on the queue once the first path is known (at once if it is).
    public func whenFirstPathKnown(_ handler: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        if engine.hasState { handler() } else { firstPathHandlers.append(handler) }
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
        engine.stop()
    }

    /// The current generation (for tests and the log).
    public var generation: Generation {
        dispatchPrecondition(condition: .onQueue(queue))
        return engine.generation
    }

    /// The current path for `criteria`, for tests and the log.
    public func currentPath(for criteria: Criteria = .any) -> Path? {
        dispatchPrecondition(condition: .onQueue(queue))
        return engine.hasState ? group(for: criteria).path : nil
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
        let path = PathEvaluator.evaluate(engine.snapshot, policy: configuration.policy, criteria: criteria)
        let created = CriteriaGroup(criteria: criteria, path: path, generation: engine.generation)
        groups[criteria] = created
        return created
    }

    /// Re-evaluates every criteria group and sends a line to the members of each whose
    /// path changed (every group after a resync, preceded by the resync line).
    func publishChanges(resync: String? = nil) {
        let generation = engine.generation
        if groups[.any] == nil {
            let created = group(for: .any)
            log.info("path: \(created.path.summary)")
        }
        for criteria in Array(groups.keys) {
            guard var group = groups[criteria] else { continue }
            let path = PathEvaluator.evaluate(engine.snapshot, policy: configuration.policy, criteria: criteria)
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
            let accepted = Result { () throws(Errno) in try FileDescriptor(rawValue: listener.descriptor).acceptConnection() }
            switch accepted {
            case .success(let descriptor):
                admit(descriptor.rawValue)
            case .failure(.wouldBlock):
                return
            case .failure(let error) where error == .tooManyOpenFiles || error == .tooManyOpenFilesInSystem:
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
                                            daemonVersion: DaemonVersion.current, generation: engine.generation).encoded())
    }

    private static func peerUserID(of descriptor: Int32) -> uid_t {
        do {
            return try FileDescriptor(rawValue: descriptor).peerCredentials().userID
        } catch {
            return uid_t.max
        }
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
